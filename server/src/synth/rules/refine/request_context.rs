//! Flask's request-bound objects (`request`, `session`, `g`, a view's
//! dispatch) raise "Working outside of request context" when used with no
//! request. A method body of a Flask application (`self` a real
//! `Flask(__name__)`) then runs inside `self.test_request_context()`, the
//! context Flask's documentation gives for exactly this: the body runs as
//! it would while the application serves a request. A body that reads
//! the context's globals (`current_app`, `g`) with no application of its
//! own runs inside a new one's, `Flask(__name__).test_request_context()`,
//! as Flask's documentation tests such code.

use crate::synth::flask_globals;
use crate::synth::library_types::recipe;
use crate::synth::prefix::{Candidate, Prefix};
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;
use crate::synth::value::Value;

pub struct RequestContext;

const OUTSIDE: &[&str] = &["Working outside of request context", "Working outside of application context"];

impl Rule for RequestContext {
    fn name(&self) -> &'static str {
        "request-context"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|f| {
            f.is("RuntimeError") && OUTSIDE.iter().any(|m| f.error.message.starts_with(m)) && f.base.context.is_none()
        })
    }
    fn propose(&self, _ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let Some((flask, _)) = recipe("flask.Flask") else { return Vec::new() };
        let app = fail.base.bindings.iter().find(|b| matches!(b.current(), Candidate::Value(Value::Expr { code, .. }) if code == flask));
        if let Some(app) = app {
            let mut p = fail.base.clone();
            p.context = Some(format!("{}.test_request_context()", app.name));
            return vec![p];
        }
        // The globals come from flask's own import in the prefix.
        let from_flask = |b: &crate::synth::prefix::Binding| matches!(b.current(), Candidate::Import(s) if s.starts_with("from flask import ") || s == "import flask");
        if !fail.base.bindings.iter().any(from_flask) {
            return Vec::new();
        }
        flask_globals::inside_new_app(fail.base).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::prefix::{Binding, Candidate};
    use crate::synth::rules::check::*;
    use crate::synth::value::Value;
    use expect_test::expect;

    #[test]
    fn a_flask_method_body_runs_inside_a_test_request_context() {
        let flask = || Value::Expr { code: "Flask(__name__)".into(), imports: vec!["from flask import Flask".into()] };
        refine_with(
            &super::RequestContext,
            "rv = self.dispatch_request()\nreturn self.finalize_request(rv)\n",
            |p| {
                p.bindings.retain(|b| b.name != "self");
                p.bindings.push(Binding::new("self".to_string(), vec![Candidate::Value(flask())]));
            },
            raised("RuntimeError", "Working outside of request context.\n\nThis typically means that you attempted to use functionality that needed\nan active HTTP request.", 1),
            expect![[r#"
                ## 1
                from flask import Flask


                self = Flask(__name__)
                -- inside: self.test_request_context() --
            "#]],
        );
    }

    #[test]
    fn a_body_reading_flask_globals_runs_inside_a_new_application_s_context() {
        refine_with(
            &super::RequestContext,
            "return current_app.config['DEBUG']\n",
            |p| {
                p.bindings.retain(|b| b.name != "current_app");
                p.bindings.push(Binding::new("current_app".to_string(), vec![Candidate::Import("from flask import current_app".into())]));
            },
            raised("RuntimeError", "Working outside of application context.", 1),
            expect![[r#"
                ## 1
                from flask import Flask
                from flask import current_app
                -- inside: Flask(__name__).test_request_context() --
            "#]],
        );
    }
}
