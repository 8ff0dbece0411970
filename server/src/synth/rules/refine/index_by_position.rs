//! `list indices must be integers`: a member used as an index
//! (`magics[node.lineno]`) is a position more often than the list is a
//! mapping; every value that path stands for becomes an int.

use crate::synth::lexical::is_dotted;
use crate::synth::paths::value_through_item;
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct IndexByPosition;

impl Rule for IndexByPosition {
    fn name(&self) -> &'static str {
        "index-by-position"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is("TypeError") && fail.error.message.contains("indices must be integers"))
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let e = fail.error;
        let base = fail.base;
        let line = fail.line;
        let mut out = Vec::new();
        if let (true, Some(l)) = (e.message.contains("indices must be integers"), line) {
            for path in subscript_paths(ctx.line_text(l)) {
                let mut p = base.clone();
                let mut changed = false;
                // Every item a loop variable stands for.
                for item in 0..16 {
                    match value_through_item(ctx, &mut p, &path, l, item) {
                        Some(slot @ (Value::Str(_) | Value::Float(_) | Value::None)) => {
                            *slot = Value::Int(1);
                            changed = true;
                        }
                        Some(_) => {}
                        None => break,
                    }
                }
                if changed {
                    out.push(p);
                }
            }
        }
        out
    }
}

/// Dotted paths used as subscripts on `line` (`magics[node.value.lineno]`).
fn subscript_paths(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (at, _) in line.match_indices('[') {
        let Some(inner) = line[at + 1..].split(']').next() else { continue };
        let inner = inner.trim();
        if is_dotted(inner) && !inner.starts_with(|c: char| c.is_ascii_digit()) && !out.iter().any(|o| o == inner) {
            out.push(inner.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::synth::value::Value;
    use crate::synth::prefix::{Binding, Candidate};
    use expect_test::expect;

    #[test]
    fn a_member_used_as_an_index_becomes_an_int() {
        refine_with(&super::IndexByPosition, "for node in nodes:\n    print(names[node.lineno])\n", |p| { *p.binding_mut("nodes").unwrap() = Binding::new("nodes", vec![Candidate::Value(Value::List(vec![Value::Object { class: "Node".into(), attrs: vec![("lineno".into(), Value::Str("a".into()))], methods: vec![] }]))]); }, raised("TypeError", r#"list indices must be integers or slices, not str"#, 2), expect![[r#"
            ## 1
            class Node:
                lineno = 1


            nodes = [Node()]


            names = ['Ada', 'Ada 2', 'Ada 3']
        "#]]);
    }
}
