//! A name the prefix gives one of Flask's context globals as its value
//! (`app = current_app`, moved up from the fragment's own assignment):
//! outside a context the proxy is unbound, and an unbound proxy is falsy
//! and raises on any member, so `if app: app.json.dumps(...)` would never
//! run the code the fragment is about. With no application of its own,
//! the fragment runs inside a new one's `test_request_context()` from the
//! start, as Flask's documentation tests code that reads these globals
//! (rule `request-context` does the same when a run raises "Working
//! outside of ... context"; rule `outside-context` tries the fragment
//! outside it too, where the code tests for the proxy being unbound).

use crate::synth::flask_globals;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct ContextGlobals;

impl Rule for ContextGlobals {
    fn name(&self) -> &'static str {
        "context-globals"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn applies(&self, ctx: &Context, t: &Trigger) -> bool {
        // An application of the fragment's own has its own contexts.
        let own_app = ctx.fragment.contains("Flask(");
        !own_app && t.so_far().is_some_and(|p| p.context.is_none() && flask_globals::any_held(p))
    }
    fn propose(&self, _ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        t.so_far().and_then(flask_globals::inside_new_app).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_name_given_the_current_app_runs_inside_an_application_context() {
        initial_after(
            &super::ContextGlobals,
            "if app is None:\n    app = current_app\nreturn app.json.dumps(obj)\n",
            expect![[r#"
                ## 1
                from flask import Flask
                from flask import current_app


                obj = 3
                app = current_app
                -- inside: Flask(__name__).test_request_context() --
                -- parameters: app --
            "#]],
        );
    }
}
