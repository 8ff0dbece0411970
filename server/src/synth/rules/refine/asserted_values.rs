//! AssertionError: the assertion states what the values must be; the
//! values its condition suggests (`alternatives`) are tried.

use crate::synth::alternatives::{alternatives, Tests};
use crate::synth::edits::with_candidate;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct AssertedValues;

impl Rule for AssertedValues {
    fn name(&self) -> &'static str {
        "asserted-values"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is("AssertionError") && fail.line.is_some())
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let base = fail.base;
        let line = fail.line;
        let names_on_line = &fail.names_on_line;
        let mut out = Vec::new();
        if let Some(l) = line {
            let tests = Tests::line(ctx.line_text(l));
            for n in names_on_line {
                let b = base.binding(n).unwrap();
                for alt in alternatives(b, &tests) {
                    out.push(with_candidate(base, n, alt));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn an_assertion_suggests_the_values_it_states() {
        refine(&super::AssertedValues, "assert len(parts) == 2\nprint(parts[0])\n", raised("AssertionError", "", 1), expect![[r#"
            ## 1
            parts = []
            ## 2
            parts = [
                'The quick brown fox jumps over the lazy dog',
                'The quick brown fox jumps over the lazy dog 2',
            ]
            ## 3
            parts = [
                'The quick brown fox jumps over the lazy dog',
                'The quick brown fox jumps over the lazy dog 2',
                '',
            ]
            ## 4
            parts = [
                'The quick brown fox jumps over the lazy dog',
                '',
                'The quick brown fox jumps over the lazy dog 3',
            ]
            ## 5
            parts = 'The quick brown fox jumps over the lazy dog'
            ## 6
            parts = (1, 2, 3)
        "#]]);
    }
}
