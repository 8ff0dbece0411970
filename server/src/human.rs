//! The terminal rendering of a `fix` result: what was added, then the
//! fragment with each line marked, then one summary line.

use crate::blockers::{Blocker, BlockerClass};
use crate::exec::Denial;
use crate::report::{FixReport, LegacyReport, OptionalReport};

pub fn render(fragment: &str, r: &FixReport) -> String {
    let mut out = String::new();
    if !r.prefix.is_empty() {
        out.push_str("── prefix ──\n");
        out.push_str(&r.prefix);
    }
    let executable: std::collections::BTreeSet<u32> = r.coverage.executable.iter().copied().collect();
    let covered: std::collections::BTreeSet<u32> = r.coverage.covered.iter().copied().collect();
    out.push_str("── fragment ──\n");
    for (i, line) in fragment.lines().enumerate() {
        let n = i as u32 + 1;
        let mark = if covered.contains(&n) {
            "ran        "
        } else if executable.contains(&n) {
            "not reached"
        } else {
            "           "
        };
        let value = r.values.get(&n).and_then(|v| v.first()).map(|(k, v)| format!("    # {k} = {v}")).unwrap_or_default();
        out.push_str(&format!("{mark} {n:>4} │ {line}{value}\n"));
    }
    if !r.suffix.is_empty() {
        out.push_str("── driver ──\n");
        out.push_str(&r.suffix);
    }
    for res in &r.resources {
        out.push_str(&format!("── file {} ({} bytes) ──\n", res.path, res.content.len()));
    }
    if let Some(e) = &r.error {
        let at = e.line.map(|l| format!(" at line {l}")).unwrap_or_default();
        out.push_str(&format!("stopped{at}: {}: {}\n", e.type_name, e.message));
    }
    // Those that failed to install say why below; the hint is for the rest.
    let not_tried: Vec<&str> = r.missing_packages.iter().filter(|m| !r.failed_packages.iter().any(|(d, _)| d == *m)).map(String::as_str).collect();
    if !not_tried.is_empty() {
        out.push_str(&format!("not installed: {} (run again with --install)\n", not_tried.join(", ")));
    }
    if !r.unknown_imports.is_empty() {
        out.push_str(&format!("no known package provides: {}\n", r.unknown_imports.join(", ")));
    }
    for (dist, why) in &r.failed_packages {
        out.push_str(&format!("could not install {dist}: {why}\n"));
    }
    for o in &r.optional {
        out.push_str(&optional_line(o));
        out.push('\n');
    }
    if let Some(l) = &r.legacy {
        out.push_str(&legacy_line(l));
        out.push('\n');
    }
    if let Some(b) = &r.blocker {
        out.push_str(&blocker_line(b));
        out.push('\n');
    }
    if let Some(note) = r.containment.as_ref().and_then(|c| c.note.as_ref()) {
        out.push_str(&format!("warning: {note}\n"));
    }
    for d in &r.denied {
        out.push_str(&denial_line(d));
        if d.what == crate::exec::denials::NETWORK {
            out.push_str(" (run again with --allow-network to allow it for one run)");
        }
        out.push('\n');
    }
    if r.containment.as_ref().is_some_and(|c| c.bubblewrap && c.network) {
        out.push_str("network: allowed for this run (--allow-network)\n");
    }
    let status = serde_json::to_value(r.status).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    out.push_str(&format!(
        "{status}: {}/{} statements ran ({:.0}%), {} runs in {:.2}s\n",
        r.coverage.covered.len(),
        r.coverage.executable.len(),
        r.coverage.ratio * 100.0,
        r.stats.executions,
        r.stats.seconds
    ));
    out
}

/// One line on what a sandbox layer denied the run.
pub fn denial_line(d: &Denial) -> String {
    format!("denied by the sandbox: {} ({}): {}", d.what, d.layer, d.detail)
}

/// One line on an optional dependency a library asked for.
pub fn optional_line(o: &OptionalReport) -> String {
    match (&o.error, o.used) {
        (Some(e), _) => format!("{} asked for {} ({}), which was not installed: {e}", o.library, o.distribution, o.reason),
        (None, true) => format!("installed {}, which {} asked for ({})", o.distribution, o.library, o.reason),
        (None, false) => format!("installed {}, which {} asked for ({}), but it did not help", o.distribution, o.library, o.reason),
    }
}

/// One line on why the fragment cannot run as written.
pub fn blocker_line(b: &Blocker) -> String {
    let why = match b.class {
        BlockerClass::AbsolutePath => format!("`{}` is on the author's machine; Runnable creates files only beside the fragment (make the path relative)", b.detail),
        BlockerClass::WindowsPath => format!("`{}` is a Windows path; Runnable does not create it (make the path relative)", b.detail),
        BlockerClass::Python2 => format!("`{}` is Python 2 only", b.detail),
        BlockerClass::WindowsOnly => format!("`{}` exists on Windows only", b.detail),
    };
    format!("cannot run as written ({}): {why}", b.class.as_str())
}

/// One line on the version fallback: which older releases, and whether they
/// did better than the newest.
pub fn legacy_line(l: &LegacyReport) -> String {
    let older = if l.versions.is_empty() {
        l.constraints.join(", ")
    } else {
        l.versions.iter().map(|(n, v)| format!("{n} {v}")).collect::<Vec<_>>().join(", ")
    };
    match (&l.error, l.used, l.legacy_covered) {
        (Some(e), _, _) => format!("older releases ({}) could not be prepared: {e}", l.constraints.join(", ")),
        (None, true, Some(c)) => {
            format!("ran with older releases ({older}): the newest stopped at {} statements with {}, these reach {c}", l.newest_covered, l.reason)
        }
        _ => format!("older releases ({older}) did no better than the newest, which stopped with {}", l.reason),
    }
}
