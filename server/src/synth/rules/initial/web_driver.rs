//! A function a web framework routes (`@app.route('/users/<int:uid>')`,
//! `@app.post('/upload')`) runs as the framework runs it: the driver sends
//! it a request through the framework's own test client, with the path
//! parameters, query, form, JSON body and files its code reads
//! (`web_routes`), instead of calling it bare outside any request.

use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;
use crate::synth::web_routes::{driver_lines, route_of};

pub struct WebDriver;

impl Rule for WebDriver {
    fn name(&self) -> &'static str {
        "web-driver"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        if ctx.analysis.wrap != crate::analysis::Wrap::None {
            return Vec::new();
        }
        let routes: Vec<_> = ctx.analysis.functions.iter().filter_map(|f| route_of(ctx, f)).collect();
        if routes.is_empty() {
            return Vec::new();
        }
        let mut p = so_far.clone();
        p.driver.extend(driver_lines(ctx, &routes));
        for r in routes {
            p.driven.push(r.function.clone());
            for u in r.uploads {
                if !p.resources.iter().any(|x| x.path == u.path) {
                    p.resources.push(u);
                }
            }
        }
        vec![p]
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_flask_route_is_requested_through_the_test_client() {
        initial_after(&super::WebDriver, "from flask import Flask, request\napp = Flask(__name__)\n@app.route('/hello', methods=['GET', 'POST'])\ndef hello():\n    if request.method == 'POST':\n        return request.get_json()['name']\n    return 'hi'\n", expect![[r#"
            ## 1
            -- driver --
            app.config['TESTING'] = True
            client = app.test_client()
            client.post('/hello', json={'name': 'Ada'})
            client.get('/hello')
        "#]]);
    }
}
