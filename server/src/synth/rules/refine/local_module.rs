//! `ModuleNotFoundError` for a module that is neither the standard
//! library's nor any known distribution's: the asker's own module, created
//! next to the fragment with the names the fragment takes from it.

use crate::synth::additions::local_module;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct LocalModule;

impl Rule for LocalModule {
    fn name(&self) -> &'static str {
        "local-module"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is("ModuleNotFoundError"))
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let e = fail.error;
        let base = fail.base;
        let mut out = Vec::new();
        if let Some(m) = e.module.clone().or_else(|| e.name.clone()) {
            if !ctx.stdlib.contains(m.split('.').next().unwrap_or("")) && crate_dist_unknown(&m) {
                let mut p = base.clone();
                if p.module_mut(&m).is_none() {
                    p.modules.push(local_module(ctx, &m));
                    out.push(p);
                }
            }
        }
        out
    }
}

fn crate_dist_unknown(module: &str) -> bool {
    crate::knowledge::distribution_for(module).is_none()
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::exec::ExceptionInfo;
    use expect_test::expect;

    #[test]
    fn an_unknown_module_is_created_with_the_names_taken_from_it() {
        refine(&super::LocalModule, "from helpers import parse_row\nprint(parse_row('a,b'))\n", ExceptionInfo { module: Some("helpers".into()), ..raised("ModuleNotFoundError", r#"No module named 'helpers'"#, 1) }, expect![[r#"
            ## 1
            -- file helpers.py --
            -- module helpers --
            # Created so that the fragment's import works.


            def parse_row(*args, **kwargs):
                return 'Pack my box with five dozen liquor jugs'
        "#]]);
    }
}
