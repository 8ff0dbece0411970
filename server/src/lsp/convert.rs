//! The one module that converts between engine types (analysis findings, a
//! `FixReport`) and LSP types (diagnostics, inlay hints, workspace edits).
//! Positions go through `position`.

use super::anchors::Anchored;
use super::config::{Settings, CODE_RUNTIME, CODE_SYNTAX, SOURCE};
use super::diagnostics::{Finding, Offer};
use super::config::CMD_CREATE_SAMPLE;
use super::document::{Language, LineResult, RuntimeError, Snapshot};
use super::position::{self, Encoding};
use super::regions::Fragment;
use crate::report::FixReport;
use ropey::Rope;
use serde_json::json;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use tower_lsp_server::lsp_types::*;
use tower_lsp_server::UriExt;

pub fn diagnostic(rope: &Rope, f: &Finding, enc: Encoding) -> Diagnostic {
    Diagnostic {
        range: position::byte_span(rope, f.line as usize, f.start, f.end, enc),
        // Code that does not parse cannot run at all.
        severity: Some(if f.code == CODE_SYNTAX { DiagnosticSeverity::ERROR } else { DiagnosticSeverity::WARNING }),
        code: Some(NumberOrString::String(f.code.to_string())),
        source: Some(SOURCE.to_string()),
        message: f.message.clone(),
        data: match (&f.fix, &f.rewrite, &f.offer) {
            (Some(fix), _, _) => Some(json!({ "fix": fix, "line": f.fix_line })),
            (None, Some(rewrite), _) => Some(json!({ "rewrite": rewrite })),
            (None, None, Some(Offer::Define { name, stub, line })) => Some(json!({ "define": name, "stub": stub, "line": line })),
            (None, None, Some(Offer::Sample { path, how })) => Some(json!({ "sample": path, "how": how })),
            (None, None, None) => None,
        },
        ..Default::default()
    }
}

/// Whether a diagnostic is one of ours for code that does not parse.
pub fn is_syntax_error(d: &Diagnostic) -> bool {
    d.code == Some(NumberOrString::String(CODE_SYNTAX.to_string()))
}

pub fn runtime_diagnostic(rope: &Rope, e: &Anchored<RuntimeError>, enc: Encoding) -> Diagnostic {
    let line = e.line as usize;
    let text = position::line_text(rope, line);
    let indent = text.len() - text.trim_start().len();
    Diagnostic {
        range: position::byte_span(rope, line, indent, text.len(), enc),
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String(if e.value.syntax { CODE_SYNTAX } else { CODE_RUNTIME }.to_string())),
        source: Some(SOURCE.to_string()),
        message: if e.value.syntax {
            format!("syntax error: {} (nothing ran)", e.value.message)
        } else {
            let stopped = format!("the run stopped here: {}: {}", e.value.type_name, e.value.message);
            match &e.value.why {
                Some(why) => format!("{stopped}\n{why}"),
                None => stopped,
            }
        },
        ..Default::default()
    }
}

/// The quick fix of a diagnostic that carries one (`data.fix`): insert the import.
pub fn quick_fix(uri: &Uri, version: i32, diag: &Diagnostic, rope: &Rope) -> Option<CodeAction> {
    if diag.source.as_deref() != Some(SOURCE) {
        return None;
    }
    let data = diag.data.as_ref()?;
    if let Some(rewrite) = data.get("rewrite").and_then(|r| r.as_str()) {
        // In place of the diagnostic's own range; the edit is versioned, so
        // a client holding a stale diagnostic cannot apply it elsewhere.
        let edit = TextEdit { range: diag.range, new_text: rewrite.to_string() };
        return Some(CodeAction {
            title: format!("Replace with `{rewrite}`"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diag.clone()]),
            edit: Some(versioned_edit(uri, Some(version), vec![edit])),
            is_preferred: Some(true),
            ..Default::default()
        });
    }
    if let (Some(name), Some(stub), Some(line)) = (data.get("define").and_then(|v| v.as_str()), data.get("stub").and_then(|v| v.as_str()), data.get("line").and_then(|v| v.as_u64())) {
        let line = (line as u32).min(rope.len_lines().saturating_sub(1) as u32);
        let edit = TextEdit { range: Range::new(Position::new(line, 0), Position::new(line, 0)), new_text: stub.to_string() };
        return Some(CodeAction {
            title: format!("Define `{name}` (a stub)"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diag.clone()]),
            edit: Some(versioned_edit(uri, Some(version), vec![edit])),
            ..Default::default()
        });
    }
    if let (Some(path), Some(how)) = (data.get("sample").and_then(|v| v.as_str()), data.get("how").and_then(|v| v.as_str())) {
        // The server writes the file (`safe_write`: never over one that is
        // there, never through a symlink); the action only names it.
        return Some(CodeAction {
            title: format!("Create a sample `{path}`"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diag.clone()]),
            command: Some(Command {
                title: format!("Create a sample `{path}`"),
                command: CMD_CREATE_SAMPLE.to_string(),
                arguments: Some(vec![json!({ "uri": uri, "path": path, "how": how })]),
            }),
            ..Default::default()
        });
    }
    let fix = data.get("fix")?.as_str()?;
    let line = data.get("line")?.as_u64()? as u32;
    if line as usize >= rope.len_lines() {
        return None;
    }
    // Keep the indentation of the line it goes above (a Markdown fence may be indented).
    let indent: String = position::line_text(rope, line as usize).chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let edit = TextEdit { range: Range::new(Position::new(line, 0), Position::new(line, 0)), new_text: format!("{indent}{fix}\n") };
    Some(CodeAction {
        title: format!("Add `{fix}`"),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diag.clone()]),
        edit: Some(versioned_edit(uri, Some(version), vec![edit])),
        is_preferred: Some(true),
        ..Default::default()
    })
}

/// "Add all missing imports": every import our diagnostics of the
/// document know (each once), in one versioned edit; None unless there are
/// at least two.
pub fn all_imports_fix(uri: &Uri, version: i32, diags: &[Diagnostic], rope: &Rope) -> Option<CodeAction> {
    let mut seen = BTreeSet::new();
    let mut by_line: std::collections::BTreeMap<u32, Vec<String>> = Default::default();
    let mut fixed = Vec::new();
    for d in diags.iter().filter(|d| d.source.as_deref() == Some(SOURCE)) {
        let Some(data) = &d.data else { continue };
        let (Some(fix), Some(line)) = (data.get("fix").and_then(|v| v.as_str()), data.get("line").and_then(|v| v.as_u64())) else { continue };
        if line as usize >= rope.len_lines() {
            continue;
        }
        fixed.push(d.clone());
        if seen.insert(fix.to_string()) {
            by_line.entry(line as u32).or_default().push(fix.to_string());
        }
    }
    if seen.len() < 2 {
        return None;
    }
    let edits = by_line
        .into_iter()
        .map(|(line, fixes)| {
            let indent: String = position::line_text(rope, line as usize).chars().take_while(|c| *c == ' ' || *c == '\t').collect();
            let text: String = fixes.iter().map(|f| format!("{indent}{f}\n")).collect();
            TextEdit { range: Range::new(Position::new(line, 0), Position::new(line, 0)), new_text: text }
        })
        .collect();
    Some(CodeAction {
        title: format!("Add all missing imports ({})", seen.len()),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(fixed),
        edit: Some(versioned_edit(uri, Some(version), edits)),
        ..Default::default()
    })
}

fn versioned_edit(uri: &Uri, version: Option<i32>, edits: Vec<TextEdit>) -> WorkspaceEdit {
    WorkspaceEdit {
        document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier { uri: uri.clone(), version },
            edits: edits.into_iter().map(OneOf::Left).collect(),
        }])),
        ..Default::default()
    }
}

/// The LSP range covering whole lines `start..=end`.
pub fn lines_range(rope: &Rope, f: Fragment, enc: Encoding) -> Range {
    Range::new(Position::new(f.start, 0), position::line_end(rope, f.end as usize, enc))
}

/// Pin a report's per-line results to the document lines of `fragment`.
pub fn line_results(report: &FixReport, fragment: Fragment, rope: &Rope) -> (Vec<Anchored<LineResult>>, Vec<Anchored<RuntimeError>>) {
    let executable: BTreeSet<u32> = report.coverage.executable.iter().copied().collect();
    let covered: BTreeSet<u32> = report.coverage.covered.iter().copied().collect();
    let mut hints = Vec::new();
    for l in 1..=(fragment.end - fragment.start + 1) {
        let values = report.values.get(&l).cloned().unwrap_or_default();
        let printed = report.printed.get(&l).filter(|t| !t.is_empty()).cloned();
        let is_exec = executable.contains(&l);
        if !is_exec && values.is_empty() && printed.is_none() {
            continue;
        }
        let hits = report.hits.get(&l).copied().unwrap_or(0);
        let ran = covered.contains(&l) || hits > 0;
        let line = fragment.start + l - 1;
        hints.push(Anchored {
            line,
            text: position::line_text(rope, line as usize),
            value: LineResult { executable: is_exec, hits: if ran { hits.max(1) } else { 0 }, values, printed },
        });
    }
    let errors = report
        .error
        .as_ref()
        .filter(|_| report.status == crate::report::Status::Raised)
        .and_then(|e| {
            let l = e.line.filter(|l| *l >= 1 && *l <= fragment.end - fragment.start + 1)?;
            let line = fragment.start + l - 1;
            Some(Anchored {
                line,
                text: position::line_text(rope, line as usize),
                value: RuntimeError { type_name: e.type_name.clone(), message: e.message.clone(), syntax: false, why: report.blocker.as_ref().map(crate::human::blocker_line) },
            })
        })
        .into_iter()
        .chain(syntax_errors(report, fragment, rope))
        .collect();
    (hints, errors)
}

/// The syntax errors a run stopped at (nothing ran), one per line, pinned
/// to the document lines of `fragment`.
fn syntax_errors(report: &FixReport, fragment: Fragment, rope: &Rope) -> Vec<Anchored<RuntimeError>> {
    if report.status != crate::report::Status::SyntaxError {
        return Vec::new();
    }
    let mut out: Vec<Anchored<RuntimeError>> = Vec::new();
    for issue in &report.syntax_errors {
        if issue.line < 1 || issue.line > fragment.end - fragment.start + 1 {
            continue;
        }
        let line = fragment.start + issue.line - 1;
        if out.iter().any(|a| a.line == line) {
            continue;
        }
        out.push(Anchored {
            line,
            text: position::line_text(rope, line as usize),
            value: RuntimeError { type_name: "SyntaxError".into(), message: issue.message.clone(), syntax: true, why: None },
        });
    }
    out
}

/// Inlay hints for lines `first..=last`, at the end of each line.
pub fn inlay_hints<'a>(
    rope: &Rope,
    results: impl Iterator<Item = &'a Anchored<LineResult>>,
    first: u32,
    last: u32,
    settings: &Settings,
    enc: Encoding,
) -> Vec<InlayHint> {
    let mut out = Vec::new();
    for a in results.filter(|a| a.line >= first && a.line <= last) {
        let pos = position::line_end(rope, a.line as usize, enc);
        let hint = |label: String, tooltip: &str| InlayHint {
            position: pos,
            label: InlayHintLabel::String(label),
            kind: None,
            text_edits: None,
            tooltip: Some(InlayHintTooltip::String(tooltip.to_string())),
            padding_left: Some(true),
            padding_right: None,
            data: None,
        };
        // Once is what a reader expects of a line that ran: only the
        // exceptions are worth a hint (a line not reached, a line repeated).
        if settings.hints_coverage && a.value.executable && a.value.hits != 1 {
            let label = if a.value.hits > 1 { format!("ran ×{}", a.value.hits) } else { "not reached".to_string() };
            out.push(hint(label, "Runnable: how many times this statement ran in the last run (hover the line for more)"));
        }
        if settings.hints_values {
            let line = position::line_text(rope, a.line as usize);
            let shown = unspelled_values(&line, &a.value.values);
            if !shown.is_empty() {
                out.push(hint(values_label(&shown), "Runnable: the first value assigned on this line (hover the line for the whole value)"));
            }
        }
        if settings.hints_output {
            if let Some(text) = &a.value.printed {
                out.push(hint(printed_label(text), "Runnable: what this line printed in the last run (hover the line for all of it)"));
            }
        }
    }
    out
}

/// The values worth a hint: those the line does not spell itself
/// (`left = 4` says `4` already; `n = len(xs)` does not say `3`).
pub fn unspelled_values(line: &str, values: &[(String, String)]) -> Vec<(String, String)> {
    // What the line assigns, read from its tree (strings, brackets and a
    // trailing comment are the parser's business).
    let spelled: Vec<String> = crate::analysis::assigned_source(line).iter().map(|t| normalise_literal(t)).collect();
    values.iter().filter(|(_, v)| !spelled.contains(&normalise_literal(v))).cloned().collect()
}

/// A literal as Python's repr would spell it, roughly: `"x"` -> `'x'`,
/// `(1, 2)` and `1, 2` alike, spaces after commas.
fn normalise_literal(text: &str) -> String {
    let t = text.trim();
    let t = t.strip_prefix('(').and_then(|x| x.strip_suffix(')')).filter(|x| x.contains(',')).unwrap_or(t);
    let t = match t.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        Some(inner) if !inner.contains('\'') && !inner.contains('\\') => format!("'{inner}'"),
        _ => t.to_string(),
    };
    t.split(',').map(str::trim).collect::<Vec<_>>().join(", ")
}

/// Longest hint text for one value, in chars.
const HINT_VALUE_CHARS: usize = 40;

/// `= 42` for one name, `a = 1, b = 2` for several; each value on one line
/// (a multi-line repr, such as a pandas table's, joined with ` ⏎ ` after
/// collapsing its padding) and truncated; the hover has it whole.
pub fn values_label(values: &[(String, String)]) -> String {
    let short = |v: &str| {
        let v = v
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ⏎ ");
        if v.chars().count() > HINT_VALUE_CHARS {
            format!("{}…", v.chars().take(HINT_VALUE_CHARS - 1).collect::<String>())
        } else {
            v
        }
    };
    match values {
        [(_, v)] => format!("= {}", short(v)),
        _ => values.iter().map(|(n, v)| format!("{n} = {}", short(v))).collect::<Vec<_>>().join(", "),
    }
}

/// Longest hint text for a line's output, in chars.
const HINT_OUTPUT_CHARS: usize = 50;

/// Run output as a person can read it on one line of an editor: control
/// characters (escape sequences, carriage returns) shown as `�`, lines
/// joined with ` ⏎ `.
fn printable(text: &str) -> String {
    text.chars().map(|c| if c.is_control() && c != '\n' && c != '\t' { '\u{fffd}' } else { c }).collect()
}

/// `› hello ⏎ world`: what a line printed, on one line and truncated.
pub fn printed_label(text: &str) -> String {
    let one = printable(text).lines().map(str::trim_end).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ⏎ ").replace('\t', " ");
    let short = if one.chars().count() > HINT_OUTPUT_CHARS { format!("{}…", one.chars().take(HINT_OUTPUT_CHARS - 1).collect::<String>()) } else { one };
    format!("› {short}")
}

/// The hover of a line the last run left results on: how many times it ran
/// and each value whole, as the run reported it, in an inert code block
/// (run text never becomes Markdown: no link, image or HTML can form).
pub fn hover_markdown(result: &LineResult) -> Option<String> {
    let mut parts = Vec::new();
    if result.executable {
        parts.push(match result.hits {
            0 => "Runnable: not reached in the last run".to_string(),
            1 => "Runnable: ran once in the last run".to_string(),
            n => format!("Runnable: ran {n} times in the last run"),
        });
    }
    if !result.values.is_empty() {
        let text = result.values.iter().map(|(n, v)| format!("{n} = {v}")).collect::<Vec<_>>().join("\n");
        parts.push(format!("First value assigned:\n\n{}", super::report_md::block(&text, "python")));
    }
    if let Some(text) = &result.printed {
        parts.push(format!("Printed:\n\n{}", super::report_md::block(printable(text).trim_end_matches('\n'), "text")));
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// What applying a result takes.
#[derive(Debug, Default)]
pub struct ResultEdit {
    /// The edit of the document alone. Files never go through it: an editor
    /// creates them with whatever care it has (following a symlink planted
    /// at the path, say), so the server writes them itself (`safe_write`).
    pub edit: WorkspaceEdit,
    /// The files to write (resources, the runnable copy), relative to the
    /// resource folder, with their bytes.
    pub files: Vec<(PathBuf, Vec<u8>)>,
    /// The document's folder and `resourceDir` (relative to it), when the
    /// document is a file and there are files to write.
    pub folder: Option<(PathBuf, PathBuf)>,
    /// The runnable copy to open (wrapped fragments), as one of `files`.
    pub show: Option<PathBuf>,
    /// Why the result is a copy and not an edit of the document (said to
    /// the user when the copy is written).
    pub copy_reason: Option<String>,
    pub note: Option<String>,
    /// The texts the edit inserts into the document, in document order (the
    /// provenance lens finds them again to take them out).
    pub inserted: Vec<String>,
}

/// Why a wrapped fragment gets a runnable copy: the statement that only a
/// function body may hold, and where the copy is.
pub fn copy_reason(snap: &Snapshot, fragment: Fragment, copy: &Path) -> String {
    let text = (fragment.start..=fragment.end).map(|l| position::line_text(&snap.rope, l as usize)).collect::<Vec<_>>().join("\n");
    let what = match crate::analysis::analyze(&text).wrap {
        crate::analysis::Wrap::Function { is_generator: true, .. } => "`yield`",
        crate::analysis::Wrap::Function { is_async: true, .. } => "`await`",
        _ => "`return` (or `nonlocal`)",
    };
    format!(
        "Runnable: this code uses {what} outside a function, so it runs only as a function body. Your file is left as it is; \
         the runnable version (wrapped in a function, with what it needs) is the copy {}.",
        copy.display()
    )
}

/// How the result of a run becomes edits: the prefix inserted above the
/// fragment and the driver after it (one edit of the document, checked
/// against the version that ran), plus the resource files for
/// `<folder>/<resourceDir>/`. A wrapped fragment is not re-indented: a
/// runnable copy goes there instead.
pub struct EditOptions<'a> {
    pub resource_dir: &'a str,
    pub document_changes: bool,
    pub encoding: Encoding,
}

// `WorkspaceEdit::changes` is keyed by `Uri`, which clippy suspects of interior mutability.
#[allow(clippy::mutable_key_type)]
pub fn result_edit(snap: &Snapshot, fragment: Fragment, report: &FixReport, opts: &EditOptions) -> ResultEdit {
    let EditOptions { resource_dir, document_changes, encoding } = *opts;
    let mut out = ResultEdit::default();
    let base = snap.folder();
    let has_resources = !report.resources.is_empty();
    if has_resources && base.is_none() {
        out.note = Some("the document is not a file, so the resource files were not created".into());
    }
    if let Some(base) = &base {
        if has_resources || report.wrapped {
            out.folder = Some((base.clone(), PathBuf::from(resource_dir)));
        }
        for r in &report.resources {
            let bytes = match r.encoding {
                "base64" => {
                    use base64::Engine as _;
                    base64::engine::general_purpose::STANDARD.decode(&r.content).unwrap_or_default()
                }
                _ => r.content.clone().into_bytes(),
            };
            out.files.push((PathBuf::from(&r.path), bytes));
        }
    }
    let mut edit = WorkspaceEdit::default();
    if report.wrapped {
        // The runnable copy, next to its resources.
        let stem = snap.path().and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned())).unwrap_or_else(|| "fragment".into());
        if base.is_some() {
            let mut text = String::new();
            if has_resources {
                text.push_str("import os  # runnable: the files this program reads are next to it\n");
                text.push_str("os.chdir(os.path.dirname(os.path.abspath(__file__)))\n");
            }
            text.push_str(&report.program);
            let copy = PathBuf::from(format!("{stem}.runnable.py"));
            out.copy_reason = Some(copy_reason(snap, fragment, &Path::new(resource_dir).join(&copy)));
            out.files.push((copy.clone(), text.into_bytes()));
            out.show = Some(copy);
        } else {
            out.note = Some("the fragment had to be wrapped in a function, and the document is not a file: nowhere to put the runnable copy".into());
        }
    } else {
        let edits = in_place_edits(snap, fragment, report, resource_dir, has_resources && base.is_some(), encoding);
        out.inserted = edits.iter().map(|e| e.new_text.clone()).collect();
        if !edits.is_empty() {
            if document_changes {
                edit.document_changes = Some(DocumentChanges::Operations(vec![DocumentChangeOperation::Edit(TextDocumentEdit {
                    text_document: OptionalVersionedTextDocumentIdentifier { uri: snap.uri.clone(), version: Some(snap.version) },
                    edits: edits.into_iter().map(OneOf::Left).collect(),
                })]));
            } else {
                edit.changes = Some(HashMap::from([(snap.uri.clone(), edits)]));
            }
        }
    }
    out.edit = edit;
    out
}

/// The prefix above the fragment and the driver after it, indented like
/// the fragment. When resource files live in `resourceDir`, the prefix
/// first changes the working directory there, which is where the program
/// ran in the sandbox.
fn in_place_edits(snap: &Snapshot, fragment: Fragment, report: &FixReport, resource_dir: &str, chdir: bool, enc: Encoding) -> Vec<TextEdit> {
    let rope = &snap.rope;
    let indent = (fragment.start..=fragment.end)
        .map(|l| position::line_text(rope, l as usize))
        .filter(|t| !t.trim().is_empty())
        .map(|t| t.chars().take_while(|c| *c == ' ' || *c == '\t').collect::<String>())
        .min_by_key(|s| s.len())
        .unwrap_or_default();
    // After the fragment's docstring and imports, repeating none of them.
    let dedented: String = (fragment.start..=fragment.end)
        .map(|l| {
            let t = position::line_text(rope, l as usize);
            t.strip_prefix(indent.as_str()).unwrap_or(t.trim_start()).to_string()
        })
        .collect::<Vec<_>>()
        .join("\n");
    let leading = super::prefix_place::leading(&dedented);
    let mut have = leading.imports;
    let at = fragment.start + leading.lines;
    let mut head = String::new();
    if chdir {
        if have.insert("import os".to_string()) {
            head.push_str(&format!("import os  # runnable: the files this code reads are in {resource_dir}/\n"));
        }
        match snap.language {
            Language::Markdown => head.push_str(&format!("os.chdir({resource_dir:?})  # relative to this Markdown file's folder\n")),
            _ => head.push_str(&format!("os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), {resource_dir:?}))\n")),
        }
        if report.resources.iter().any(|r| r.path.ends_with(".py")) {
            head.push_str("import sys; sys.path.insert(0, os.getcwd())\n");
        }
    }
    head.push_str(&super::prefix_place::without_repeated_imports(&report.prefix, &mut have));
    let mut edits = Vec::new();
    if !head.trim().is_empty() {
        head.push('\n');
        let text = indent_block(&head, &indent);
        let edit = if at > fragment.start && !ends_with_newline(rope, at as usize - 1) {
            // Below a last line without a newline.
            let end = position::line_end(rope, at as usize - 1, enc);
            TextEdit { range: Range::new(end, end), new_text: format!("\n{text}") }
        } else {
            TextEdit { range: Range::new(Position::new(at, 0), Position::new(at, 0)), new_text: text }
        };
        edits.push(edit);
    }
    if !report.suffix.trim().is_empty() {
        let driver = format!("\n{}", indent_block(&report.suffix, &indent));
        let next = fragment.end as usize + 1;
        let edit = if next < rope.len_lines() && ends_with_newline(rope, fragment.end as usize) {
            TextEdit { range: Range::new(Position::new(next as u32, 0), Position::new(next as u32, 0)), new_text: driver }
        } else {
            // The last line of the document, without a newline.
            let end = position::line_end(rope, fragment.end as usize, enc);
            TextEdit { range: Range::new(end, end), new_text: format!("\n{driver}") }
        };
        edits.push(edit);
    }
    edits
}

fn ends_with_newline(rope: &Rope, line: usize) -> bool {
    let l = rope.line(line);
    l.len_chars() > 0 && l.char(l.len_chars() - 1) == '\n'
}

fn indent_block(text: &str, indent: &str) -> String {
    if indent.is_empty() {
        return text.to_string();
    }
    text.split_inclusive('\n').map(|l| if l.trim().is_empty() { l.to_string() } else { format!("{indent}{l}") }).collect()
}

/// The `runnable/runFinished` notification's parameters.
pub fn run_finished(uri: &Uri, version: i32, status: &str, report: Option<&FixReport>, error: Option<String>) -> serde_json::Value {
    let (covered, executable, ratio) = match report {
        Some(r) => (r.coverage.covered.len(), r.coverage.executable.len(), r.coverage.ratio),
        None => (0, 0, 0.0),
    };
    let denied = report.map(|r| r.denied.clone()).unwrap_or_default();
    // Whether this run's programs could reach the network (allowed for this run, or no sandbox to stop them).
    let network = report.and_then(|r| r.containment.as_ref()).is_some_and(|c| c.network);
    // The result is the results cache's (`memory`): nothing ran this time.
    let cached = report.and_then(|r| r.memory.as_ref()).is_some_and(|m| m.cached);
    let mut v = json!({ "uri": uri, "version": version, "status": status, "covered": covered, "executable": executable, "ratio": ratio,
        "denied": denied, "network": network, "cached": cached });
    if let Some(e) = error {
        v["error"] = json!(e);
    }
    v
}

/// `KeyError: 'x' (line 3)` for a report's exception, as document lines.
pub fn error_text(report: &FixReport, fragment: Fragment) -> Option<String> {
    let e = report.error.as_ref()?;
    Some(match e.line {
        Some(l) => format!("{}: {} (line {})", e.type_name, e.message, fragment.start + l),
        None => format!("{}: {}", e.type_name, e.message),
    })
}

/// Status of a report as the protocol spells it.
pub fn status_text(report: &FixReport) -> String {
    serde_json::to_value(report.status).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// A file URI for a path (absolute paths only).
pub fn file_uri(path: &Path) -> Option<Uri> {
    Uri::from_file_path(path)
}

/// Keys of the code action data and command arguments: `{uri, version, range}`.
pub fn action_data(uri: &Uri, version: i32, range: Range) -> serde_json::Value {
    json!({ "uri": uri, "version": version, "range": range })
}

#[cfg(test)]
pub(crate) mod tests;
