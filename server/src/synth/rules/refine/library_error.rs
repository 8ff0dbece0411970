//! A library raised on the inputs: they are shaped as its error asks
//! (`library_errors.rs`: a square array for numpy's linear algebra, the
//! table sqlite3 lacks, a key a JSON file lacks).

use crate::synth::library_errors;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct LibraryError;

impl Rule for LibraryError {
    fn name(&self) -> &'static str {
        "library-error"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some()
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let e = fail.error;
        let base = fail.base;
        let line = fail.line;
        let mut out = Vec::new();
        out.extend(library_errors::refinements(ctx, base, e, line));
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_missing_table_is_created_in_the_fragments_database() {
        refine(&super::LibraryError, "import sqlite3\nconn = sqlite3.connect('shop.db')\nrows = conn.execute('SELECT name, price FROM products').fetchall()\n", raised("sqlite3.OperationalError", r#"no such table: products"#, 3), expect![[r#"
            ## 1
            import sqlite3


            # The database the fragment queries, with the table and the columns its SQL names.
            with sqlite3.connect('shop.db') as _db:
                _db.execute('CREATE TABLE IF NOT EXISTS products (name, price)')
                _db.executemany('INSERT INTO products VALUES (?, ?)', [('name 1', 20,), ('name 2', 30,), ('name 3', 40,)])
            _db.close()
        "#]]);
    }

    #[test]
    fn samples_and_labels_go_where_scikit_learn_takes_them() {
        // Written labels first: the metric compares labels, `predict` takes samples.
        refine_with(&super::LibraryError, "acc = accuracy_score(y_test, model.predict(X_test))\n", |p| {
            for n in ["y_test", "X_test"] {
                if let Some(b) = p.binding_mut(n) {
                    b.choose(crate::synth::value::Value::Int(3));
                }
            }
        }, raised("ValueError", "Expected 2D array, got scalar array instead:", 1), expect![[r#"
            ## 1
            import numpy as np
            from sklearn.metrics import accuracy_score


            y_test = np.array([0, 1, 0, 1])


            class Model:
                def predict(self, *args, **kwargs):
                    return 3


            model = Model()


            X_test = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 4.0], [4.0, 3.0]])
        "#]]);
    }

    #[test]
    fn a_missing_table_is_created_in_a_database_named_through_a_name() {
        refine(&super::LibraryError, "import sqlite3\nconn = sqlite3.connect(db_path)\nrows = conn.execute('SELECT name FROM users').fetchall()\n", raised("sqlite3.OperationalError", r#"no such table: users"#, 3), expect![[r#"
            ## 1
            import sqlite3


            db_path = 'db.sqlite3'


            # The database the fragment queries, with the table and the columns its SQL names.
            with sqlite3.connect('db.sqlite3') as _db:
                _db.execute('CREATE TABLE IF NOT EXISTS users (name)')
                _db.executemany('INSERT INTO users VALUES (?)', [('name 1',), ('name 2',), ('name 3',)])
            _db.close()
        "#]]);
    }

    #[test]
    fn pillow_saves_to_a_path_with_an_image_extension() {
        refine_with(&super::LibraryError, "from PIL import Image\nimg = Image.new('RGB', (4, 4))\nimg.save(out_path)\n", |p| {
            if let Some(b) = p.binding_mut("out_path") {
                b.choose(crate::synth::value::Value::Str("out.txt".into()));
            }
        }, raised("ValueError", "unknown file extension: .txt", 3), expect![[r#"
            ## 1
            out_path = 'out.png'
        "#]]);
    }
}

