//! An object the fragment type-tests against a library class
//! (`isinstance(node, ast.Name)`) becomes a real instance where the engine
//! can build one (an `ast` node with its fields, a DataFrame, a recipe
//! type, an exception class called bare), else an instance of a subclass
//! of it (which the report calls a stand-in), so the tested branch can
//! run; only where the library is imported, by a dotted or a bare name.

use crate::synth::library_names::import_binding;
use crate::synth::isinstance::isinstance_tests;
use crate::synth::paths::value_at_mut;
use crate::synth::prefix::{Candidate, Prefix};
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;
use crate::synth::value::Value;

pub struct IsinstanceBases;

impl Rule for IsinstanceBases {
    fn name(&self) -> &'static str {
        "isinstance-bases"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        let mut p = so_far.clone();
        apply_isinstance_bases(ctx, &mut p);
        vec![p]
    }
}

/// Objects the fragment type-tests against a library class become
/// instances of a subclass of it, so the tested branch runs.
fn apply_isinstance_bases(ctx: &Context, p: &mut Prefix) {
    for (path, ty) in isinstance_tests(ctx.fragment) {
        let root = ty.split('.').next().unwrap_or("");
        let importable = import_binding(ctx, root).is_some() || p.binding(root).is_some_and(|b| matches!(b.current(), Candidate::Import(_)));
        if !importable {
            continue;
        }
        // A library type the engine can build for real (a DataFrame, an
        // array, a table recipe): the real instance passes the test itself.
        if !path.contains(['.', '[']) {
            if let Some(real) = real_of_type(ctx, p, root, &ty, &path) {
                if let Some(v) = value_at_mut(p, &path).filter(|v| matches!(v, Value::Object { .. } | Value::Derived { .. } | Value::Anything)) {
                    *v = real;
                    continue;
                }
            }
        }
        // An `ast` node class: a real node with its fields.
        if let Some(real) = ast_node(ctx, p, root, &ty, &path) {
            if let Some(v) = value_at_mut(p, &path) {
                *v = real;
                continue;
            }
        }
        if let Some(Value::Object { class, .. }) = value_at_mut(p, &path) {
            if !class.contains('(') {
                *class = format!("{class}({ty})");
            }
        }
    }
}

/// The object at `path` as a real node of `ty` when `ty` is a class of the
/// `ast` module (`ast.Call`), holding the members the object was given,
/// if they are all the node's own and it has no methods.
fn ast_node(ctx: &Context, p: &mut Prefix, root: &str, ty: &str, path: &str) -> Option<Value> {
    let import = root_import(ctx, p, root)?;
    let class = imported_module(&import, root).filter(|m| m == "ast").and_then(|_| ty.strip_prefix(root)?.strip_prefix('.'))?.to_string();
    let attrs = match value_at_mut(p, path)? {
        Value::Object { attrs, methods, .. } if methods.is_empty() => attrs.clone(),
        Value::Anything => Vec::new(),
        _ => return None,
    };
    crate::synth::ast_nodes::node(root, &import, &class, &attrs)
}

/// A real instance of `ty` (spelled with the fragment's alias `root`) for
/// the name `name`, shaped by its use: pandas and NumPy types by the
/// engine's own builders, others by the library type table's recipe.
fn real_of_type(ctx: &Context, p: &Prefix, root: &str, ty: &str, name: &str) -> Option<Value> {
    let import = root_import(ctx, p, root)?;
    let module = imported_module(&import, root)?;
    let full = format!("{module}{}", &ty[root.len()..]);
    let usage = ctx.analysis.free_names.iter().chain(&ctx.analysis.used_before_bound).find(|f| f.name == name).map(|f| f.usage.clone()).unwrap_or_default();
    let kind = match full.as_str() {
        "pandas.DataFrame" | "pandas.core.frame.DataFrame" => "dataframe",
        "pandas.Series" | "pandas.core.series.Series" => "series",
        "numpy.ndarray" => "ndarray",
        _ => {
            if let Some((code, import)) = crate::synth::library_types::recipe(&full).cloned() {
                return Some(Value::Expr { code, imports: vec![import] });
            }
            // A library's exception class: an instance of it, made with no
            // arguments as raising it bare would (`BadRequestKeyError()`).
            let class = ty.rsplit('.').next().unwrap_or(ty);
            return crate::synth::infer::is_exception_name(class).then(|| Value::Expr { code: format!("{ty}()"), imports: vec![import] });
        }
    };
    Some(crate::synth::infer::value_of_kind(kind, name, &usage))
}

/// The import that binds `root`: the fragment's own, else the prefix's.
fn root_import(ctx: &Context, p: &Prefix, root: &str) -> Option<String> {
    import_binding(ctx, root).or_else(|| match p.binding(root)?.current() {
        Candidate::Import(i) => Some(i.clone()),
        _ => None,
    })
}

/// The module an import statement binds `root` to (`import pandas as pd`
/// -> `pandas`, `from PIL import Image` -> `PIL.Image`).
fn imported_module(import: &str, root: &str) -> Option<String> {
    let words: Vec<&str> = import.split_whitespace().collect();
    match words.as_slice() {
        ["import", m, "as", a] if *a == root => Some(m.to_string()),
        ["import", m] if *m == root => Some(m.to_string()),
        ["from", m, "import", n, "as", a] if *a == root => Some(format!("{m}.{n}")),
        ["from", m, "import", n] if *n == root => Some(format!("{m}.{n}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_type_tested_object_subclasses_the_tested_library_class() {
        initial_after(&super::IsinstanceBases, "import argparse\nif isinstance(action, argparse.Action):\n    print(action.dest)\n", expect![[r#"
            ## 1
            class Action(argparse.Action):
                def __init__(self, *args, **kwargs):
                    pass

                dest = 'The quick brown fox jumps over the lazy dog'


            action = Action()
        "#]]);
    }

    #[test]
    fn a_class_imported_by_its_bare_name_is_subclassed_too() {
        initial_after(&super::IsinstanceBases, "from argparse import Action\nif isinstance(a, Action):\n    print(a.dest)\n", expect![[r#"
            ## 1
            class A(Action):
                def __init__(self, *args, **kwargs):
                    pass

                dest = 'The quick brown fox jumps over the lazy dog'


            a = A()
        "#]]);
    }

    #[test]
    fn a_type_tested_library_exception_is_an_instance_of_it() {
        initial_after(&super::IsinstanceBases, "from werkzeug.exceptions import HTTPException\nif isinstance(e, HTTPException):\n    e.show_exception = True\n", expect![[r#"
            ## 1
            from werkzeug.exceptions import HTTPException


            e = HTTPException()
        "#]]);
    }

    #[test]
    fn a_type_tested_ast_node_is_a_real_node_with_its_fields() {
        initial_after(&super::IsinstanceBases, "import ast\nif isinstance(node.value, ast.Call):\n    print(node.value.args, node.value.lineno)\n", expect![[r#"
            ## 1
            import ast


            class Node:
                value = ast.Call(func=None, args=[1, 2, 3], keywords=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=0)


            node = Node()
        "#]]);
        initial_after(&super::IsinstanceBases, "import ast\nif isinstance(node, ast.Name):\n    print(node.id)\n", expect![[r#"
            ## 1
            import ast


            node = ast.Name(
                id='The quick brown fox jumps over the lazy dog',
                ctx=ast.Load(),
                lineno=1,
                col_offset=0,
                end_lineno=1,
                end_col_offset=0,
            )
        "#]]);
    }

    #[test]
    fn a_type_tested_dataframe_is_a_real_one() {
        initial_after(&super::IsinstanceBases, "import pandas as pd\nif isinstance(frame, pd.DataFrame):\n    print(frame.memory_usage(deep=True).sum(), frame['price'])\n", expect![[r#"
            ## 1
            import pandas as pd


            frame = pd.DataFrame({'price': [3, 4, 5]})
        "#]]);
    }
}
