//! Static findings as you type, from the engine's pure analysis: syntax
//! errors (with a rewrite where the message names one), undefined names,
//! imports the environment cannot resolve, files read by a literal path
//! that does not exist. Plain data here (lines and UTF-8 byte
//! columns); `convert` turns them into LSP diagnostics.
//!
//! Conservative by design: a name that an import of the fragment (or any
//! star import) could provide is never reported, and an import inside a
//! `try:` is assumed to have its fallback.

use super::config::{CODE_MISSING_FILE, CODE_SYNTAX, CODE_UNDEFINED, CODE_UNRESOLVED};
use super::regions::Region;
use crate::analysis::{tokens, Analysis};
use crate::env::plan_imports;
use crate::knowledge;
use crate::synth::knowledge::well_known_import;
use std::collections::BTreeSet;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// 0-based document line.
    pub line: u32,
    /// UTF-8 byte columns in that line.
    pub start: usize,
    pub end: usize,
    pub code: &'static str,
    pub message: String,
    /// A certain quick fix: this import statement, inserted at `fix_line`.
    pub fix: Option<String>,
    pub fix_line: u32,
    /// A certain quick fix of another kind: this text in place of
    /// `start..end` (`print x` -> `print(x)`).
    pub rewrite: Option<String>,
    /// A fix that is one choice among others (a stub, a sample file).
    pub offer: Option<Offer>,
}

/// Fixes the user may want, offered as code actions without a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offer {
    /// Insert this stub definition at 0-based document line `line`.
    Define { name: String, stub: String, line: u32 },
    /// Create a sample of this file (next to the document), made for being
    /// read with `how` (`synth::resources`).
    Sample { path: String, how: String },
}

/// What the environment says, when known.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnvFacts<'a> {
    /// The interpreter's standard-library module names (None: not known yet,
    /// then imports are not checked).
    pub stdlib: Option<&'a BTreeSet<String>>,
    /// Distributions of this region's imports that the environment lacks
    /// (None: not known yet).
    pub missing: Option<&'a [String]>,
}

/// Distributions a region's imports need (to ask the environment about).
pub fn distributions(analysis: &Analysis, stdlib: &BTreeSet<String>) -> BTreeSet<String> {
    let modules: Vec<String> = crate::env::fragment_import_paths(&analysis.imports);
    plan_imports(&modules, stdlib).distributions
}

/// What findings need beyond the code itself.
#[derive(Clone, Copy)]
pub struct Scope<'a> {
    pub env: EnvFacts<'a>,
    /// Names bound anywhere in the document (other statements, other cells):
    /// never reported as undefined.
    pub defined: &'a BTreeSet<String>,
    /// Some star import could provide any name: report no undefined names.
    pub star_import: bool,
    /// 0-based document line where a quick fix inserts its import.
    pub fix_line: u32,
    /// Whether a path (relative to the document's folder, or absolute) exists.
    pub exists: &'a dyn Fn(&str) -> bool,
}

/// Findings of one stretch of code (a whole file, a Markdown fence, or one
/// top-level statement of them: see `chunks`).
pub fn findings(region: &Region, analysis: &Analysis, scope: &Scope) -> Vec<Finding> {
    let Scope { env, defined: defined_elsewhere, star_import, fix_line, exists } = *scope;
    let lines: Vec<&str> = region.text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let line_of = |l: u32| lines.get(l.saturating_sub(1) as usize).copied().unwrap_or("");
    let mut out = Vec::new();
    let doc_line = |l: u32| region.first_line + l.saturating_sub(1);

    // Syntax errors: one per line (tree-sitter may see several pieces of one).
    let mut seen = BTreeSet::new();
    for issue in &analysis.syntax_errors {
        if !seen.insert(issue.line) {
            continue;
        }
        let text = line_of(issue.line);
        let (start, end, rewrite) = syntax_span(text, issue.column as usize, &issue.message);
        out.push(Finding {
            line: doc_line(issue.line),
            start,
            end,
            code: CODE_SYNTAX,
            message: format!("syntax error: {}", issue.message),
            fix: None,
            fix_line,
            rewrite,
            offer: None,
        });
    }

    // Undefined names.
    let star = star_import || has_star_import(analysis);
    // Where a stub definition goes: after the region's docstring and imports.
    let def_line = &(region.first_line + super::prefix_place::leading(&region.text).lines);
    if !star {
        for free in &analysis.free_names {
            let name = free.name.as_str();
            if name.starts_with("__") && name.ends_with("__") || defined_elsewhere.contains(name) {
                continue;
            }
            let text = line_of(free.first_line);
            let Some(col) = tokens::find_name(text, name) else { continue };
            let fix = knowledge::conventional_import(name)
                .or_else(|| well_known_import(name))
                .map(str::to_string)
                .or_else(|| {
                    // A module of the standard library or of the distribution
                    // table: `json.loads(s)` imports it; `tabulate(rows)`, called
                    // with no attributes, takes the callable of its name.
                    let module = env.stdlib.is_some_and(|s| s.contains(name)) || knowledge::distribution_for(name).is_some_and(|_| !name.contains('.'));
                    let used_as_module = !free.usage.attrs.is_empty() && free.usage.calls.is_empty() && free.usage.subscripts.is_empty();
                    let called_alone = !free.usage.calls.is_empty() && free.usage.attrs.is_empty() && free.usage.subscripts.is_empty();
                    if module && used_as_module {
                        Some(format!("import {name}"))
                    } else if module && called_alone && knowledge::distribution_for(name).is_some() {
                        Some(format!("from {name} import {name}"))
                    } else {
                        None
                    }
                });
            let message = match &fix {
                Some(f) => format!("`{name}` is not defined (`{f}`?)"),
                None => format!("`{name}` is not defined in this code"),
            };
            out.push(Finding {
                line: doc_line(free.first_line),
                start: col,
                end: col + name.len(),
                code: CODE_UNDEFINED,
                message,
                offer: if fix.is_none() && !free.usage.calls.is_empty() && free.usage.attrs.is_empty() {
                    Some(Offer::Define { name: name.to_string(), stub: super::stubs::stub(name, &free.usage), line: *def_line })
                } else {
                    None
                },
                fix,
                fix_line,
                rewrite: None,
            });
        }
    }

    // Imports the environment cannot resolve.
    if let Some(stdlib) = env.stdlib {
        let mut seen = BTreeSet::new();
        for import in analysis.imports.iter().filter(|i| i.level == 0 && !i.module.is_empty()) {
            if !seen.insert((import.line, import.module.clone())) {
                continue;
            }
            let plan = plan_imports(std::slice::from_ref(&import.module), stdlib);
            let text = line_of(import.line);
            let top = import.module.split('.').next().unwrap_or(&import.module);
            let message = if !plan.unknown.is_empty() {
                if exists(&format!("{top}.py")) || exists(top) || in_try(&lines, import.line) {
                    continue;
                }
                format!(
                    "cannot resolve `{}`: not in the standard library, not a module next to this file, and no known distribution provides it",
                    import.module
                )
            } else if let Some(dist) = plan.distributions.iter().next() {
                match env.missing {
                    Some(missing) if missing.iter().any(|m| knowledge::normalize_distribution(m) == knowledge::normalize_distribution(dist)) => {
                        format!("`{}` (distribution `{dist}`) is not installed: run Make this runnable to install", import.module)
                    }
                    _ => continue,
                }
            } else {
                continue;
            };
            let (start, end) = match find_dotted(text, &import.module) {
                Some(c) => (c, c + import.module.len()),
                None => (0, text.len()),
            };
            out.push(Finding { line: doc_line(import.line), start, end, code: CODE_UNRESOLVED, message, fix: None, fix_line, rewrite: None, offer: None });
        }
    }

    // Files read by a literal path that does not exist.
    for file in analysis.files.iter().filter(|f| !f.writes) {
        let p = file.path.as_str();
        if p.is_empty() || p.contains(['*', '?', '{', '%', '~']) || exists(p) {
            continue;
        }
        let text = line_of(file.line);
        let (start, end) = find_literal(text, p).unwrap_or((0, text.len()));
        out.push(Finding {
            line: doc_line(file.line),
            start,
            end,
            code: CODE_MISSING_FILE,
            message: if crate::exec::is_windows_absolute(p) {
                format!("`{p}` is an absolute Windows path and does not exist here (Make this runnable does not create it)")
            } else {
                format!("`{p}` does not exist next to this file (Make this runnable creates an example)")
            },
            fix: None,
            fix_line,
            rewrite: None,
            offer: (!crate::exec::is_windows_absolute(p) && crate::synth::resources::resource_for(p, &file.how).is_some())
                .then(|| Offer::Sample { path: p.to_string(), how: file.how.clone() }),
        });
    }
    out
}

/// Where a syntax error at byte `column` of `text` is shown (to the end of
/// the line's code), and the rewrite when its message names one: a Python 2
/// `print x, y` becomes `print(x, y)` (`print x,` keeps the line open with
/// `end=" "`), `a <> b` becomes `a != b`.
pub fn syntax_span(text: &str, column: usize, message: &str) -> (usize, usize, Option<String>) {
    let start = column.min(text.len());
    let start = (0..=start).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
    let code_end = tokens::code_end(text).max(start);
    let end = if code_end > start { code_end } else { text.len() };
    let rewrite = if message.starts_with("Python 2 print statement") {
        let stmt = &text[start..code_end];
        stmt.strip_prefix("print").filter(|rest| rest.is_empty() || rest.starts_with([' ', '\t'])).map(|rest| {
            let args = rest.trim();
            match args.strip_suffix(',') {
                Some(open) => format!("print({}, end=\" \")", open.trim_end()),
                None => format!("print({args})"),
            }
        })
    } else if message.starts_with("Python 2 operator `<>`") && text[start..].starts_with("<>") {
        return (start, start + 2, Some("!=".into()));
    } else {
        None
    };
    (start, end, rewrite)
}

pub fn has_star_import(analysis: &Analysis) -> bool {
    analysis.imports.iter().any(|i| i.names.iter().any(|(n, _)| n == "*"))
}

/// 0-based document line where a quick fix's import goes in `region`.
pub fn fix_line(region: &Region) -> u32 {
    let head: Vec<&str> = region.text.split('\n').take(200).map(|l| l.trim_end_matches('\r')).collect();
    region.first_line + import_insert_line(&head)
}

/// 0-based line (in the region) where a new import goes: after a shebang,
/// encoding comment, module docstring and `from __future__` imports.
fn import_insert_line(lines: &[&str]) -> u32 {
    let text = lines.join("\n");
    let mut line_starts = vec![0];
    line_starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
    let line_of = |byte: usize| line_starts.partition_point(|s| *s <= byte) - 1;
    let strings: Vec<_> = tokens::tokens(&text).into_iter().filter(|t| t.kind == tokens::TokenKind::Str).collect();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        let at = line_starts[i] + (lines[i].len() - lines[i].trim_start().len());
        if i == 0 && t.starts_with("#!") || t.starts_with('#') && t.contains("coding") && i < 2 {
            i += 1;
        } else if let Some(doc) = strings.iter().find(|s| s.start == at) {
            // A docstring, however many lines it spans.
            i = line_of(doc.end.saturating_sub(1)) + 1;
        } else if t.starts_with("from __future__") {
            i += 1;
        } else {
            break;
        }
    }
    i.min(lines.len()) as u32
}

/// Whether the import on 1-based line `line` sits in the body of a `try:`.
fn in_try(lines: &[&str], line: u32) -> bool {
    let idx = line.saturating_sub(1) as usize;
    let Some(text) = lines.get(idx) else { return false };
    let indent = text.len() - text.trim_start().len();
    if indent == 0 {
        return false;
    }
    for prev in lines[..idx].iter().rev() {
        let t = prev.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let pi = prev.len() - t.len();
        if pi < indent {
            return t.starts_with("try:") || t.starts_with("try :");
        }
    }
    false
}

/// Byte column of a dotted module path as a whole word.
fn find_dotted(line: &str, module: &str) -> Option<usize> {
    let b = line.as_bytes();
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    line.match_indices(module)
        .map(|(i, _)| i)
        .find(|&i| (i == 0 || !is_ident(b[i - 1])) && b.get(i + module.len()).is_none_or(|c| !is_ident(*c)))
}

/// Byte span of the string literal `'path'` or `"path"` (quotes included).
fn find_literal(line: &str, path: &str) -> Option<(usize, usize)> {
    match tokens::line_string_literals(line).into_iter().find(|l| l.value == path) {
        Some(l) => Some((l.start, l.end)),
        None => line.find(path).map(|i| (i, i + path.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(text: &str) -> Region {
        Region { first_line: 0, lines: text.lines().count() as u32, text: text.into() }
    }

    fn stdlib() -> BTreeSet<String> {
        ["os", "json", "collections", "math"].into_iter().map(String::from).collect()
    }

    fn check(text: &str, missing: Option<&[String]>) -> Vec<(u32, usize, &'static str, Option<String>)> {
        let r = region(text);
        let a = crate::analysis::analyze(&r.text);
        let std = stdlib();
        let env = EnvFacts { stdlib: Some(&std), missing };
        let exists = |p: &str| p == "present.txt" || p == "mymod.py";
        let scope = Scope { env, defined: &BTreeSet::new(), star_import: false, fix_line: fix_line(&r), exists: &exists };
        findings(&r, &a, &scope).into_iter().map(|f| (f.line, f.start, f.code, f.fix)).collect()
    }

    #[test]
    fn syntax_errors_are_found_with_the_rewrite_their_message_names() {
        let text = "total = 0\nprint total\nif total <> 1:\n    pass\nx = (1,\n";
        let r = region(text);
        let a = crate::analysis::analyze(&r.text);
        let std = stdlib();
        let exists = |_: &str| true;
        let scope = Scope { env: EnvFacts { stdlib: Some(&std), missing: Some(&[]) }, defined: &BTreeSet::new(), star_import: false, fix_line: 0, exists: &exists };
        let got: Vec<(u32, usize, usize, Option<String>)> =
            findings(&r, &a, &scope).into_iter().filter(|f| f.code == CODE_SYNTAX).map(|f| (f.line, f.start, f.end, f.rewrite)).collect();
        assert!(got.contains(&(1, 0, 11, Some("print(total)".into()))), "{got:?}");
        assert!(got.contains(&(2, 9, 11, Some("!=".into()))), "{got:?}");
        assert!(got.iter().any(|(line, ..)| *line == 4 || *line == 5), "the unclosed bracket: {got:?}");
        let lines: Vec<u32> = got.iter().map(|g| g.0).collect();
        let mut unique = lines.clone();
        unique.dedup();
        assert_eq!(lines, unique, "one per line");
    }

    #[test]
    fn print_statements_become_calls() {
        let fix = |line: &str| syntax_span(line, line.len() - line.trim_start().len(), "Python 2 print statement: use print(...)").2;
        assert_eq!(fix("print x, y  # show").as_deref(), Some("print(x, y)"));
        assert_eq!(fix("    print 'a#b'").as_deref(), Some("print('a#b')"));
        assert_eq!(fix("print x,").as_deref(), Some("print(x, end=\" \")"));
        assert_eq!(fix("print").as_deref(), Some("print()"));
        assert_eq!(fix("printer x"), None);
        // The span ends before the comment.
        assert_eq!(syntax_span("print x  # c", 0, "Python 2 print statement").1, 7);
        // Another message: the rest of the line, no rewrite.
        assert_eq!(syntax_span("x = = 1", 4, "unexpected `=`"), (4, 7, None));
    }

    #[test]
    fn undefined_names_with_certain_fixes() {
        let got = check("x = np.array([1])\nc = Counter(x)\nprint(mystery)\nos.path.join('a')\n", Some(&[]));
        assert_eq!(
            got,
            vec![
                (0, 4, CODE_UNDEFINED, Some("import numpy as np".into())),
                (1, 4, CODE_UNDEFINED, Some("from collections import Counter".into())),
                (2, 6, CODE_UNDEFINED, None),
                (3, 0, CODE_UNDEFINED, Some("import os".into())),
            ]
        );
    }

    #[test]
    fn modules_of_the_tables_and_offers_without_a_run() {
        let text = "import os\nprint(tabulate(rows))\nr = requests.get(u)\nfor x in summarize(r):\n    print(x)\nopen('scores.csv')\nopen('C:\\\\Users\\\\ada\\\\x.jpg')\n";
        let got = check(text, None);
        assert!(got.contains(&(1, 6, CODE_UNDEFINED, Some("from tabulate import tabulate".into()))), "{got:?}");
        assert!(got.contains(&(2, 4, CODE_UNDEFINED, Some("import requests".into()))), "{got:?}");
        let r = region(text);
        let a = crate::analysis::analyze(&r.text);
        let std = stdlib();
        let exists = |_: &str| false;
        let scope = Scope { env: EnvFacts { stdlib: Some(&std), missing: None }, defined: &BTreeSet::new(), star_import: false, fix_line: 0, exists: &exists };
        let all = findings(&r, &a, &scope);
        let offer = |line: u32| all.iter().find(|f| f.line == line && f.offer.is_some()).and_then(|f| f.offer.clone());
        match offer(3) {
            Some(Offer::Define { name, stub, line }) => {
                assert_eq!((name.as_str(), line), ("summarize", 1), "below the imports");
                assert!(stub.contains("return ["), "{stub}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(offer(5), Some(Offer::Sample { path: "scores.csv".into(), how: "open".into() }));
        let windows = all.iter().find(|f| f.line == 6 && f.code == CODE_MISSING_FILE).expect("reported");
        assert!(windows.offer.is_none() && windows.message.contains("absolute Windows path"), "{windows:?}");
    }

    #[test]
    fn star_imports_silence_undefined_names() {
        assert_eq!(check("from thing import *\nprint(mystery)\n", Some(&[])).iter().filter(|f| f.2 == CODE_UNDEFINED).count(), 0);
    }

    #[test]
    fn imports_unknown_local_missing_and_in_try() {
        let missing = vec!["numpy".to_string()];
        let got = check(
            "import numpy as np\nimport json\nimport mymod\nimport nosuchthing\ntry:\n    import ujsonx\nexcept ImportError:\n    pass\n",
            Some(&missing),
        );
        assert_eq!(got, vec![(0, 7, CODE_UNRESOLVED, None), (3, 7, CODE_UNRESOLVED, None)]);
        // Installed (or not yet known): no finding for numpy.
        assert_eq!(check("import numpy\n", Some(&[])), vec![]);
        assert_eq!(check("import numpy\n", None), vec![]);
    }

    #[test]
    fn missing_files_but_not_written_or_present_ones() {
        let got = check("open('present.txt').read()\nopen(\"absent.csv\").read()\nopen('out.txt', 'w').write('x')\n", None);
        assert_eq!(got, vec![(1, 5, CODE_MISSING_FILE, None)]);
    }

    #[test]
    fn words_are_found_outside_strings_and_attributes() {
        assert_eq!(tokens::find_name("s = 'np' + x.np + np", "np"), Some(18));
        assert_eq!(tokens::find_name("f'{np.pi}'", "np"), Some(3));
        assert_eq!(tokens::find_name("# np", "np"), None);
        assert_eq!(tokens::find_name("npx = 1", "np"), None);
        assert_eq!(tokens::find_name("漢 = np", "np"), Some(6));
    }

    #[test]
    fn imports_go_after_docstring_and_future() {
        assert_eq!(import_insert_line(&["#!/usr/bin/env python", "\"\"\"Doc", "more\"\"\"", "from __future__ import annotations", "x = 1"]), 4);
        assert_eq!(import_insert_line(&["x = 1"]), 0);
        assert_eq!(import_insert_line(&["'''one line'''", "x"]), 1);
    }
}
