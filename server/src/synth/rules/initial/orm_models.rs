//! A fragment about SQLAlchemy that queries classes it does not define
//! (`select(User).where(User.id == 1)`, `session.query(User)`) gets them
//! as real declarative models (`orm_models`): a `Base` from
//! `declarative_base()`, each model with the columns the fragment reads,
//! the tables created in the database its engine connects to (the engine
//! the prefix gives it, the URL it passes `create_engine`, or the SQLite
//! file it names), and the objects it adds to a session built as
//! instances its filters find. The names' other candidates stay.

use crate::analysis::FreeName;
use crate::synth::library_types::fragment_modules;
use crate::synth::orm_models::{filter_by_keywords, is_model, literal_sqlite_url, model, Model};
use crate::synth::prefix::{Binding, Candidate, Prefix};
use crate::synth::render::py_str;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;
use crate::synth::value::Value;

pub struct OrmModels;

/// The name the prefix gives the models' declarative base.
const BASE: &str = "Base";
/// A database file in the run's directory: an engine the fragment makes
/// itself from a URL the prefix gives connects to the tables made there.
const DATABASE_URL: &str = "sqlite:///models.db";

impl Rule for OrmModels {
    fn name(&self) -> &'static str {
        "orm-models"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn applies(&self, ctx: &Context, _t: &Trigger) -> bool {
        // A fragment with a `Base` of its own defines its models itself.
        !ctx.analysis.bound_names.iter().any(|n| n == BASE)
            && fragment_modules(ctx).iter().any(|m| m == "sqlalchemy" || m.starts_with("sqlalchemy."))
            && ctx.analysis.free_names.iter().any(|f| is_model(&f.name, &f.usage))
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        with_models(ctx, so_far).into_iter().collect()
    }
}

fn with_models(ctx: &Context, so_far: &Prefix) -> Option<Prefix> {
    let a = ctx.analysis;
    let filters = filter_by_keywords(ctx.fragment);
    let models: Vec<Model> = a.free_names.iter().filter(|f| is_model(&f.name, &f.usage)).map(|f| model(&f.name, &f.usage, &filters)).collect();
    let mut p = so_far.clone();
    for m in &models {
        let class = Value::Code { source: m.source(BASE), imports: m.imports() };
        if !put_first(&mut p, &m.name, class) {
            return None;
        }
    }
    let base = Value::Expr { code: "declarative_base()".into(), imports: vec!["from sqlalchemy.orm import declarative_base".into()] };
    if !put_first(&mut p, BASE, base) {
        return None;
    }
    // The tables, created once every model is defined.
    let tables = format!("tables=[{}]", models.iter().map(|m| format!("{}.__table__", m.name)).collect::<Vec<_>>().join(", "));
    let why = "# The tables of the fragment's models, in the database it connects to.";
    let free = |pred: &dyn Fn(&FreeName) -> bool| a.free_names.iter().find(|f| pred(f)).map(|f| f.name.clone());
    let engine = free(&|f| f.name == "engine" || f.usage.passed_to.iter().any(|x| x.keyword.as_deref() == Some("bind")));
    let url = free(&|f| f.usage.passed_to.iter().any(|x| x.callee.rsplit('.').next() == Some("create_engine") && x.position == Some(0)));
    if let Some(engine) = engine {
        let source = format!("{engine} = create_engine('sqlite://')\n{why}\n{BASE}.metadata.create_all({engine}, {tables})");
        put_first(&mut p, &engine, Value::Code { source, imports: vec!["from sqlalchemy import create_engine".into()] });
    } else {
        let target = match url {
            Some(url) => {
                put_first(&mut p, &url, Value::Str(DATABASE_URL.into()));
                url
            }
            None => py_str(&literal_sqlite_url(ctx.fragment)?),
        };
        let source = format!("{why}\n{BASE}.metadata.create_all(create_engine({target}), {tables})");
        p.bindings.push(Binding::new("_orm_tables", vec![Candidate::Value(Value::Code { source, imports: vec!["from sqlalchemy import create_engine".into()] })]));
    }
    // The objects the fragment adds to a session are rows of the one model.
    if let [m] = models.as_slice() {
        let added = |f: &&FreeName| f.usage.passed_to.iter().any(|x| matches!(x.callee.rsplit('.').next(), Some("add" | "merge")) && x.position == Some(0) && x.callee.contains('.'));
        for f in a.free_names.iter().filter(added) {
            put_first(&mut p, &f.name, Value::Expr { code: m.instance(&filters), imports: vec![] });
        }
    }
    Some(p)
}

/// `value` as `name`'s first candidate (the name bound if it was not);
/// false when only an import can bind it.
fn put_first(p: &mut Prefix, name: &str, value: Value) -> bool {
    let candidate = Candidate::Value(value);
    match p.binding_mut(name) {
        Some(b) if b.import_only() => false,
        Some(b) => {
            b.candidates.retain(|c| *c != candidate);
            b.candidates.insert(0, candidate);
            b.choice = 0;
            true
        }
        None => {
            p.bindings.push(Binding::new(name, vec![candidate]));
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_queried_class_is_a_declarative_model_and_an_added_object_its_row() {
        initial_after(
            &super::OrmModels,
            "from sqlalchemy.orm import sessionmaker\nSession = sessionmaker(bind=engine)\nsession = Session()\nsession.add(jenny)\nfound = session.query(User).filter_by(name='Jenny').first()\n",
            expect![[r#"
                ## 1
                from sqlalchemy import Column
                from sqlalchemy import Integer
                from sqlalchemy import String
                from sqlalchemy import create_engine
                from sqlalchemy.orm import declarative_base


                Base = declarative_base()


                class User(Base):
                    __tablename__ = 'users'
                    id = Column(Integer, primary_key=True)
                    name = Column(String)


                engine = create_engine('sqlite://')
                # The tables of the fragment's models, in the database it connects to.
                Base.metadata.create_all(engine, tables=[User.__table__])


                jenny = User(name='Jenny')
            "#]],
        );
    }

    #[test]
    fn an_engine_the_fragment_makes_from_a_url_finds_the_tables() {
        initial_after(
            &super::OrmModels,
            "from sqlalchemy import create_engine, select\nfrom sqlalchemy.orm import Session\nengine = create_engine(DATABASE_URL)\nwith Session(engine) as session:\n    user = session.execute(select(User).where(User.id == 1)).scalar_one_or_none()\n",
            expect![[r#"
                ## 1
                from sqlalchemy import Column
                from sqlalchemy import Integer
                from sqlalchemy import create_engine
                from sqlalchemy.orm import declarative_base


                DATABASE_URL = 'sqlite:///models.db'
                Base = declarative_base()


                class User(Base):
                    __tablename__ = 'users'
                    id = Column(Integer, primary_key=True)


                # The tables of the fragment's models, in the database it connects to.
                Base.metadata.create_all(create_engine(DATABASE_URL), tables=[User.__table__])
            "#]],
        );
    }
}
