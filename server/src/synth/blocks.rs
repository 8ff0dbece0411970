//! Blocks of the fragment found by indentation: where a `def` or `class`
//! ends, whether a name is used outside its own definition.

use super::lexical::identifiers;
use super::session::Context;

/// Whether `name` is referenced outside its own `def`/`class` blocks (a
/// local variable of the same name inside the body does not count).
pub(super) fn referenced(ctx: &Context, name: &str, def_lines: &[u32]) -> bool {
    let lines: Vec<&str> = ctx.fragment.lines().collect();
    let spans: Vec<(usize, usize)> = def_lines.iter().map(|&d| block_span(&lines, d as usize - 1)).collect();
    lines.iter().enumerate().any(|(i, l)| {
        !spans.iter().any(|&(a, b)| i >= a && i <= b) && identifiers(l).iter().any(|w| w == name)
    })
}

/// First and last line index of the block headed at `start` (by indentation).
pub(super) fn block_span(lines: &[&str], start: usize) -> (usize, usize) {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let head = indent(lines[start]);
    let mut end = start;
    for (i, l) in lines.iter().enumerate().skip(start + 1) {
        if l.trim().is_empty() {
            continue;
        }
        if indent(l) <= head {
            break;
        }
        end = i;
    }
    (start, end)
}
