//! The prefix names a line depends on: read there, or through fragment
//! variables assigned from them (a short backward slice). A statement is
//! read whole, over every line it spans.

use super::lexical::identifiers;
use super::prefix::Prefix;
use super::session::Context;

/// Methods that fill a collection with their arguments.
pub(super) const MUTATORS: [&str; 6] = ["update", "extend", "append", "add", "insert", "setdefault"];

/// Prefix names the failing line depends on: read there directly, or
/// through fragment variables assigned from them (a short backward slice).
pub(super) fn related_bindings(ctx: &Context, prefix: &Prefix, line: u32) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut frontier = identifiers(&ctx.statement_text(line));
    for _ in 0..5 {
        let mut next = Vec::new();
        for name in frontier {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name.clone());
            if prefix.binding(&name).is_some() {
                out.push(name);
                continue;
            }
            for (l, names) in &ctx.analysis.assigned {
                if *l <= line && names.contains(&name) {
                    next.extend(identifiers(&ctx.statement_text(*l)));
                }
            }
            // Filled in place (`merged.update(mapping)`, `out.append(item)`).
            for text in ctx.fragment.lines().take(line as usize) {
                if MUTATORS.iter().any(|m| text.trim_start().starts_with(&format!("{name}.{m}("))) {
                    next.extend(identifiers(text));
                }
            }
        }
        frontier = next;
    }
    out
}
