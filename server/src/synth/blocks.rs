//! Blocks of the fragment: whether a name is used outside its own
//! definition (the definitions' spans from the analysis, the name's
//! places from the one lexer).

use super::session::Context;
use crate::analysis::tokens::name_lines;

/// Whether `name` is referenced outside its own `def`/`class` blocks headed
/// at `def_lines` (a local variable of the same name inside the body does
/// not count).
pub(super) fn referenced(ctx: &Context, name: &str, def_lines: &[u32]) -> bool {
    let a = ctx.analysis;
    let end_of = |line: u32| {
        let mut defs = a.functions.iter().map(|f| (f.line, f.end_line)).chain(a.classes.iter().map(|c| (c.line, c.end_line)));
        defs.find(|(l, _)| *l == line).map_or(line, |(_, end)| end)
    };
    let spans: Vec<(u32, u32)> = def_lines.iter().map(|&d| (d, end_of(d))).collect();
    name_lines(ctx.fragment, name).into_iter().any(|l| !spans.iter().any(|&(a, b)| l >= a && l <= b))
}
