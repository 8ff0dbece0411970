//! A name the fragment hands an HTML parser as text holds the page it
//! reads: `BeautifulSoup(html, 'html.parser')` then `soup.find('table',
//! {'class': 'data'})` gets a page with that table (`resources::html`), so
//! that the lookups find their elements on the first run. A name holding
//! a path (`open(path)` into the parser) names a file made the same way.

use crate::synth::knowledge::argument_kind;
use crate::synth::prefix::Prefix;
use crate::synth::resources::html::document;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;
use crate::synth::value::Value;

pub struct HtmlDocuments;

impl Rule for HtmlDocuments {
    fn name(&self) -> &'static str {
        "html-documents"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn applies(&self, ctx: &Context, _t: &Trigger) -> bool {
        !ctx.analysis.html_queries.is_empty()
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        let mut p = so_far.clone();
        let a = ctx.analysis;
        let mut changed = false;
        for free in a.free_names.iter().chain(&a.used_before_bound) {
            let parsed = free.usage.passed_to.iter().any(|c| argument_kind(&c.callee, c.position, c.keyword.as_deref()) == Some("html"));
            if !parsed {
                continue;
            }
            let Some(b) = p.binding_mut(&free.name) else { continue };
            if matches!(b.value(), Some(Value::Str(_))) {
                b.choose(Value::Str(document(&a.html_queries)));
                changed = true;
            }
        }
        if changed { vec![p] } else { Vec::new() }
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn html_text_holds_the_elements_looked_for() {
        initial_after(&super::HtmlDocuments, "from bs4 import BeautifulSoup\nsoup = BeautifulSoup(page, 'html.parser')\nfor li in soup.select('ul.menu li'):\n    print(li.text)\n", expect![[r###"
            ## 1
            page = '<html><head><title>Example</title></head><body><h1>Title</h1><p class="intro">Hello</p><a href="/a">A</a><ul class="menu"><li>First</li><li>Second</li></ul><li>Example text</li></body></html>'
        "###]]);
    }
}
