//! Other values of each name a condition reads (directly, through the
//! names it was assigned from, or through the prefix names the line depends
//! on): the evolution's vocabulary (`alternatives`), and collections that
//! share the keys of a dict the prefix defines.

use crate::synth::alternatives::{alternatives, Tests, GENERIC_TEXT};
use crate::synth::bindings::usage_of;
use crate::synth::scalars::string_by_callee;
use crate::analysis::line_statement;
use crate::synth::edits::with_candidate;
use crate::analysis::Condition;
use crate::synth::prefix::Binding;
use crate::synth::slice::related_bindings;
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::{Attempt, Context};

pub struct OtherValues;

impl Rule for OtherValues {
    fn name(&self) -> &'static str {
        "other-values"
    }
    fn stage(&self) -> Stage {
        Stage::Branch
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(b) = t.branch() else { return Vec::new() };
        other_values(ctx, b.best, b.line, b.names, b.condition)
    }
}

/// Variants where one name the condition at `line` reads takes another value.
fn other_values(ctx: &Context, best: &Attempt, line: u32, gnames: &[String], condition: &Condition) -> Vec<Prefix> {
    let mut out = Vec::new();
    let read: Vec<String> = condition.names().into_iter().map(String::from).collect();
    // What names in the condition were assigned from tells which
    // members of a prefix value decide it (`h = self.find(e)`; `if h is None`).
    let tests = &with_assignments(ctx, line, &read, condition);
    let mut names = gnames.to_vec();
    names.extend(read);
    names.extend(related_bindings(ctx, &best.prefix, line));
    let mut seen = Vec::new();
    names.retain(|n| if seen.contains(n) { false } else { seen.push(n.clone()); true });
    for n in names {
        let Some(b) = best.prefix.binding(&n) else { continue };
        // A type test's other kind is text: the text the name's callee takes
        // (`if isinstance(cmd, str): cmd = [cmd]` before `subprocess.run(cmd)`
        // wants a program's name), where there is one.
        let text = string_by_callee(&n, &usage_of(ctx, &n));
        for alt in alternatives(b, tests).into_iter().chain(shared_keys(&best.prefix, b)) {
            let alt = match (alt, &text) {
                (Value::Str(s), Some(t)) if s == GENERIC_TEXT => Value::Str(t.clone()),
                (alt, _) => alt,
            };
            out.push(with_candidate(&best.prefix, &n, alt));
        }
    }
    out
}

/// The condition with the statements on the lines before `line` that
/// assign the names it reads.
fn with_assignments(ctx: &Context, line: u32, names: &[String], condition: &Condition) -> Tests {
    let mut tests = Tests::of(condition);
    for (l, assigned) in ctx.analysis.assigned.range(..line) {
        if assigned.iter().any(|n| names.contains(n)) {
            tests.assigned.push(line_statement(ctx.line_text(*l)));
        }
    }
    tests
}

/// Collections and strings that refer to the keys of a dict the prefix
/// defines (`for k in keys: d[k]`, `if key in d`): data that fits together.
fn shared_keys(prefix: &Prefix, b: &Binding) -> Vec<Value> {
    let mut out = Vec::new();
    for other in &prefix.bindings {
        if other.name == b.name {
            continue;
        }
        let Some(Value::Dict(items)) = other.value() else { continue };
        let keys: Vec<Value> = items.iter().map(|(k, _)| k.clone()).collect();
        match b.value() {
            Some(Value::List(_)) => out.push(Value::List(keys.clone())),
            Some(Value::Str(_)) => out.extend(keys.iter().filter(|k| matches!(k, Value::Str(_))).cloned()),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_tested_name_takes_other_values() {
        branch(&super::OtherValues, "if len(items) > 3:\n    print('many')\n", 1, &[1], expect![[r#"
            ## 1
            items = []
            ## 2
            items = [1, 2, 0]
            ## 3
            items = [1, 0, 3]
            ## 4
            items = [0, 1, 2]
            ## 5
            items = 'The quick brown fox jumps over the lazy dog'
        "#]]);
    }

    #[test]
    fn a_type_test_s_other_text_is_what_the_callee_takes() {
        // A program's name, wrapped in a list for `subprocess.run`.
        branch(&super::OtherValues, "import subprocess\nif isinstance(cmd, str):\n    cmd = [cmd]\nsubprocess.run(cmd)\n", 2, &[2, 4], expect![[r#"
            ## 1
            cmd = []
            ## 2
            cmd = ['echo', '']
            ## 3
            cmd = 3
            ## 4
            cmd = 'echo'
            ## 5
            cmd = 1
            ## 6
            cmd = 1.5
            ## 7
            cmd = [1]
            ## 8
            cmd = {'a': 1}
            ## 9
            cmd = None
            ## 10
            cmd = ('echo', 'hello')
        "#]]);
    }
}

