//! A selection that is too small (pure): the cursor on one statement of a
//! longer snippet makes a fragment whose names the lines around it define,
//! so a run would make up values the snippet already has. This finds the
//! block that defines them, for an action that takes it whole.

use super::regions::{Fragment, Region};
use std::collections::BTreeMap;

/// The block of `region` around `fragment` that also holds the top-level
/// statements binding names the fragment needs, and those names; None when
/// the fragment needs nothing its neighbours define.
pub fn around(region: &Region, fragment: Fragment) -> Option<(Fragment, Vec<String>)> {
    let lines: Vec<&str> = region.text.split('\n').collect();
    let rel = |doc_line: u32| doc_line.checked_sub(region.first_line).map(|l| l + 1);
    let (start, end) = (rel(fragment.start)?, rel(fragment.end)?);
    let text: String = lines.get(start as usize - 1..end as usize)?.join("\n");
    let needs: Vec<String> = crate::analysis::analyze(&text).free_names.into_iter().map(|f| f.name).collect();
    if needs.is_empty() {
        return None;
    }
    let whole = crate::analysis::analyze(&region.text);
    if !whole.syntax_errors.is_empty() {
        return None;
    }
    // Top-level bindings (1-based region lines) outside the fragment.
    let mut bound: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    let top = |l: u32| lines.get(l as usize - 1).is_some_and(|t| !t.starts_with([' ', '\t']) && !t.trim().is_empty());
    let outside = |l: u32| l < start || l > end;
    let mut bind = |name: &str, line: u32| {
        if let Some(n) = needs.iter().find(|n| n.as_str() == name) {
            if outside(line) && top(line) {
                bound.entry(n.as_str()).or_default().push(line);
            }
        }
    };
    for (line, names) in &whole.assigned {
        names.iter().for_each(|n| bind(n, *line));
    }
    for i in &whole.imports {
        if i.is_from {
            i.names.iter().for_each(|(n, alias)| bind(alias.as_deref().unwrap_or(n), i.line));
        } else {
            bind(i.alias.as_deref().unwrap_or_else(|| i.module.split('.').next().unwrap_or("")), i.line);
        }
    }
    whole.functions.iter().filter(|f| !f.is_method).for_each(|f| bind(&f.name, f.line));
    whole.classes.iter().for_each(|c| bind(&c.name, c.line));
    if bound.is_empty() {
        return None;
    }
    let (mut first, mut last) = (start, end);
    for binding_lines in bound.values() {
        // The nearest binding before the fragment, else the first after it
        // (a function defined below): then the block runs to the region's end.
        match binding_lines.iter().filter(|l| **l < start).max() {
            Some(l) => first = first.min(*l),
            None => last = region.lines.max(end),
        }
    }
    // The block ends on a line with code.
    while last > end && lines.get(last as usize - 1).is_none_or(|t| t.trim().is_empty()) {
        last -= 1;
    }
    let names = bound.keys().map(|n| n.to_string()).collect();
    Some((Fragment { start: region.first_line + first - 1, end: region.first_line + last - 1 }, names))
}

/// The action's title, which is also the hint.
pub fn title(block: Fragment, names: &[String]) -> String {
    let shown: Vec<String> = names.iter().take(3).map(|n| format!("`{n}`")).collect();
    let more = if names.len() > 3 { format!(" and {} more", names.len() - 3) } else { String::new() };
    let verb = if names.len() == 1 { "is" } else { "are" };
    format!("Make lines {}–{} runnable ({}{more} {verb} defined in the lines around the selection)", block.start + 1, block.end + 1, shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(text: &str) -> Region {
        Region { first_line: 0, lines: text.lines().count() as u32, text: text.into() }
    }

    #[test]
    fn the_block_holds_what_the_statement_needs() {
        let text = "import csv\n\nrows = [1, 2, 3]\ntotal = 0\nfor r in rows:\n    total += r\nprint(total / len(rows))\n";
        let (block, names) = around(&region(text), Fragment { start: 6, end: 6 }).unwrap();
        assert_eq!(block, Fragment { start: 2, end: 6 }, "from rows' binding to the statement");
        assert_eq!(names, vec!["rows", "total"]);
        assert_eq!(title(block, &names), "Make lines 3–7 runnable (`rows`, `total` are defined in the lines around the selection)");
    }

    #[test]
    fn a_function_defined_below_takes_the_block_to_its_end() {
        let text = "print(report(3))\n\ndef report(n):\n    return n * 2\n\n";
        let (block, names) = around(&region(text), Fragment { start: 0, end: 0 }).unwrap();
        assert_eq!((block, names), (Fragment { start: 0, end: 3 }, vec!["report".to_string()]));
    }

    #[test]
    fn a_statement_that_needs_nothing_around_it_gets_nothing() {
        assert_eq!(around(&region("x = 1\nprint(undefined_here)\n"), Fragment { start: 1, end: 1 }), None);
        // A name bound only inside a function body is not the module's.
        assert_eq!(around(&region("def f():\n    rows = 1\n\nprint(rows)\n"), Fragment { start: 3, end: 3 }), None);
    }
}
