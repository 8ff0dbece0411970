//! A fragment run inside a Flask context because a name holds one of its
//! globals (`app = current_app`, rule `context-globals`) that left lines
//! uncovered: a variant outside the context, where the proxy is unbound
//! and falsy, so a test of it (`if app: ... else: json.dumps(...)`, the
//! fallback such code keeps for use outside an application) goes the
//! other way, as it does for a real caller outside one.

use crate::synth::flask_globals;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct OutsideContext;

impl Rule for OutsideContext {
    fn name(&self) -> &'static str {
        "outside-context"
    }
    fn stage(&self) -> Stage {
        Stage::Evolve
    }
    fn propose(&self, _ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(u) = t.uncovered() else { return Vec::new() };
        let best = &u.best.prefix;
        if best.context.is_none() || !flask_globals::any_held(best) {
            return Vec::new();
        }
        let mut p = best.clone();
        p.context = None;
        p.context_imports.clear();
        vec![p]
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_proxy_tested_for_being_bound_is_also_run_outside_the_context() {
        evolve(&super::OutsideContext, "if app is None:\n    app = current_app\nif app:\n    print(app.name)\nelse:\n    print('no app')\n", &[1, 2, 3, 4], expect![[r#"
            ## 1
            from flask import current_app


            app = current_app
        "#]]);
    }
}
