//! The Markdown report of a run (`runnable.showReport`).

use super::state::LastRun;
use crate::report::FixReport;
use std::fmt::Write as _;

pub fn render(last: &LastRun, document: &str) -> String {
    let r: &FixReport = &last.report;
    let mut md = String::new();
    let status = serde_json::to_value(r.status).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let _ = writeln!(md, "# Runnable report: {document}\n");
    let _ = writeln!(
        md,
        "Lines {}–{} (version {}). **{status}**, coverage **{}/{}** statements ({:.0}%), {} run(s) in {:.2} s.\n",
        last.fragment.start + 1,
        last.fragment.end + 1,
        last.version,
        r.coverage.covered.len(),
        r.coverage.executable.len(),
        r.coverage.ratio * 100.0,
        r.stats.executions,
        r.stats.seconds
    );
    if let Some(note) = &last.note {
        let _ = writeln!(md, "> {note}\n");
    } else if !last.applied {
        let _ = writeln!(md, "> The result was not applied to the document.\n");
    }
    if let Some(e) = &r.error {
        let line = e.line.map(|l| format!(" at line {}", last.fragment.start + l)).unwrap_or_default();
        let _ = writeln!(md, "## Stopped\n\n`{}: {}`{line}\n", e.type_name, e.message);
    }

    let imports: Vec<&str> = r.prefix.lines().filter(|l| l.starts_with("import ") || l.starts_with("from ")).collect();
    let _ = writeln!(md, "## Imported\n");
    if imports.is_empty() {
        let _ = writeln!(md, "Nothing.\n");
    } else {
        for i in imports {
            let _ = writeln!(md, "- `{i}`");
        }
        md.push('\n');
    }

    let _ = writeln!(md, "## Environment\n\n- interpreter: `{}`", r.python);
    if !r.packages.is_empty() {
        let _ = writeln!(md, "- packages: {}", r.packages.join(", "));
    }
    if !last.installed_now.is_empty() {
        let _ = writeln!(md, "- installed for this run: {}", last.installed_now.join(", "));
    }
    if !r.missing_packages.is_empty() {
        let _ = writeln!(md, "- not installed: {}", r.missing_packages.join(", "));
    }
    if !r.unknown_imports.is_empty() {
        let _ = writeln!(md, "- unknown imports (never installed): {}", r.unknown_imports.join(", "));
    }
    for (p, why) in &r.failed_packages {
        let _ = writeln!(md, "- failed to install {p}: {why}");
    }
    for o in &r.optional {
        let _ = writeln!(md, "- {}", crate::human::optional_line(o));
    }
    if let Some(l) = &r.legacy {
        let _ = writeln!(md, "- {}", crate::human::legacy_line(l));
    }
    if let Some(c) = &r.containment {
        let _ = writeln!(md, "- sandbox: bubblewrap {}{}", if c.bubblewrap { "yes" } else { "no" }, c.note.as_ref().map(|n| format!(" ({n})")).unwrap_or_default());
        if c.bubblewrap && c.network {
            let _ = writeln!(md, "- network: allowed for this run");
        }
    }
    for d in &r.denied {
        // The detail is the program's own exception text: a code span keeps it inert.
        let _ = writeln!(md, "- denied by the sandbox: {} ({}): `{}`", d.what, d.layer, d.detail.replace('`', "'").replace('\n', " "));
    }
    md.push('\n');

    let _ = writeln!(md, "## Defined\n");
    if r.names.is_empty() {
        let _ = writeln!(md, "Nothing.\n");
    } else {
        let _ = writeln!(md, "| name | kind | stub |\n|---|---|---|");
        for n in &r.names {
            let _ = writeln!(md, "| `{}` | {} | {} |", n.name, n.kind, if n.stub { "yes" } else { "" });
        }
        md.push('\n');
    }

    let _ = writeln!(md, "## Created\n");
    if last.created.is_empty() {
        let _ = writeln!(md, "No files.\n");
    } else {
        for p in &last.created {
            let _ = writeln!(md, "- `{}`", p.display());
        }
        md.push('\n');
    }

    if !r.prefix.is_empty() {
        let _ = writeln!(md, "## Prefix\n\n```python\n{}```\n", r.prefix);
    }
    if !r.suffix.is_empty() {
        let _ = writeln!(md, "## Driver\n\n```python\n{}```\n", r.suffix);
    }
    if !r.stdout.is_empty() {
        let out: String = r.stdout.chars().take(4000).collect();
        let _ = writeln!(md, "## Output\n\n```\n{}\n```\n", out.trim_end());
    }
    md
}
