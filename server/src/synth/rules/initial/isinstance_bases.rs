//! An object the fragment type-tests against a library class
//! (`isinstance(node, ast.Name)`) becomes an instance of a subclass of it,
//! so the tested branch can run; only where the library is imported.

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
        if let Some(Value::Object { class, .. }) = value_at_mut(p, &path) {
            if !class.contains('(') {
                *class = format!("{class}({ty})");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_type_tested_object_subclasses_the_tested_library_class() {
        initial_after(&super::IsinstanceBases, "import ast\nif isinstance(node, ast.Name):\n    print(node.id)\n", expect![[r#"
            ## 1
            class Node(ast.Name):
                def __init__(self, *args, **kwargs):
                    pass

                id = 'The quick brown fox jumps over the lazy dog'


            node = Node()
        "#]]);
    }
}
