//! IndexError where the failing line indexes with a number the prefix
//! chose (`return self.entries[index]` with `index = 1`, the driver having
//! put one entry in): the index becomes 0, the first item, which every
//! non-empty sequence has. The sequence is the fragment's own; its index is
//! what the prefix can change (`grow-list` grows a list the prefix made).

use crate::analysis::{line_statement, Condition};
use crate::synth::prefix::Prefix;
use crate::synth::rules::refine::Refine;
use crate::synth::rules::Failure;
use crate::synth::session::Context;
use crate::synth::value::Value;

pub struct IndexInRange;

impl Refine for IndexInRange {
    fn name(&self) -> &'static str {
        "index-in-range"
    }
    fn exception(&self) -> &'static str {
        "IndexError"
    }
    fn reads(&self, _ctx: &Context, fail: &Failure) -> bool {
        fail.line.is_some()
    }
    fn refine(&self, ctx: &Context, fail: &Failure) -> Vec<Prefix> {
        let Some(line) = fail.line else { return Vec::new() };
        // The line's indices, read once for every name it reads.
        let mut indices = Vec::new();
        line_statement(&ctx.statement_text(line)).expressions.iter().for_each(|e| index_names(e, &mut indices));
        fail.edit_each_name_on_line(|b| {
            if !indices.contains(&b.name) || !matches!(b.value(), Some(Value::Int(n)) if *n != 0) {
                return false;
            }
            b.choose(Value::Int(0));
            true
        })
    }
}

/// Plain names used as a subscript's index anywhere in `c` (`xs[i]`).
fn index_names(c: &Condition, out: &mut Vec<String>) {
    c.visit(&mut |node| {
        if let Condition::Subscript { index, .. } = node {
            if let Condition::Name { id } = &**index {
                out.push(id.clone());
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_number_indexing_past_the_end_becomes_the_first_position() {
        refine_with(&super::IndexInRange, "entries = [10]\nprint(entries[position])\n", |_| {}, raised("IndexError", "list index out of range", 2), expect![[r#"
            ## 1
            position = 0
        "#]]);
    }
}
