//! `cannot import name 'x' from 'm'` for a module this prefix created:
//! the module gets that member.

use crate::synth::additions::add_to_local_module;
use crate::synth::prefix::Prefix;
use crate::synth::error_text::quoted_parts;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct LocalImportName;

impl Rule for LocalImportName {
    fn name(&self) -> &'static str {
        "local-import-name"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is("ImportError") && !fail.is("ModuleNotFoundError"))
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let e = fail.error;
        let base = fail.base;
        let mut out = Vec::new();
        // `cannot import name 'x' from 'm'` for a module this prefix created.
        if let [name, module, ..] = quoted_parts(&e.message)[..] {
            let called = name.chars().next().is_some_and(char::is_lowercase);
            if let Some(p) = add_to_local_module(ctx, base, module, name, called) {
                out.push(p);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::synth::prefix::LocalModule;
    use expect_test::expect;

    #[test]
    fn a_name_imported_from_a_created_module_is_added() {
        refine_with(&super::LocalImportName, "from helpers import load\nprint(load())\n", |p| { p.modules.push(LocalModule { name: "helpers".into(), members: vec![] }); }, raised("ImportError", r#"cannot import name 'load' from 'helpers' (/tmp/helpers.py)"#, 1), expect![[r#"
            ## 1
            -- file helpers.py --
            -- module helpers --
            # Created so that the fragment's import works.


            def load(*args, **kwargs):
                return None
        "#]]);
    }
}
