//! Which of a run's files to write, and what to tell the user about the
//! others (pure: `safe_write` looks at the disk and writes).
//!
//! A file the run needs is created when nothing is at its path, left alone
//! when it is there with the same bytes, and replaced only when the user
//! says so ("Overwrite" / "Keep mine"); a symlink, at the path or on the way
//! to it, or anything that is not a regular file, is never written.

use super::safe_write::Existing;
use std::path::{Path, PathBuf};

/// The answers to the question about files that exist with other content.
pub const OVERWRITE: &str = "Overwrite";
pub const KEEP: &str = "Keep mine";
/// Why a file of the user's was not written.
pub const KEPT: &str = "it exists with other content: kept yours";
/// How every report begins (`report_md`): a file that begins otherwise is
/// the user's, not an earlier report.
pub const REPORT_HEADING: &str = "# Runnable report";

/// Whether a document is one of Runnable's own reports (`<resourceDir>/<name>.report.md`
/// beginning with the report heading): its Python fences show what ran and
/// get no diagnostics (they would fill the Problems panel with every run).
pub fn is_report(path: &Path, resource_dir: &str, text_head: &str) -> bool {
    let in_resource_dir = path.parent().is_some_and(|dir| dir.ends_with(resource_dir));
    let named = path.file_name().is_some_and(|n| n.to_string_lossy().ends_with(".report.md"));
    in_resource_dir && named && text_head.starts_with(REPORT_HEADING)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Nothing there: create it.
    Create,
    /// There with the same bytes: nothing to do.
    Unchanged,
    /// A regular file with other bytes: replaced only if the user says so.
    AskToReplace,
    /// A file of ours (an earlier report): replace it.
    Replace,
    /// Never written, and why.
    Refuse(String),
}

fn refuse(existing: Existing) -> Action {
    Action::Refuse(match existing {
        Existing::Symlink => "it is a symbolic link (or inside one): refused, Runnable never writes through one".into(),
        _ => "it exists and is not a regular file: refused".into(),
    })
}

/// What to do with a file the run needs.
pub fn decide(existing: Existing) -> Action {
    match existing {
        Existing::Absent => Action::Create,
        Existing::Same => Action::Unchanged,
        Existing::Differs => Action::AskToReplace,
        Existing::Symlink | Existing::NotAFile => refuse(existing),
    }
}

/// What to do with the report file: an earlier report (`head` is how the
/// file begins) is replaced; anything else of that name is the user's.
pub fn decide_report(existing: Existing, head: &[u8]) -> Action {
    match existing {
        Existing::Differs if head.starts_with(REPORT_HEADING.as_bytes()) => Action::Replace,
        Existing::Differs => Action::Refuse("it exists and is not a Runnable report: not overwritten".into()),
        other => decide(other),
    }
}

fn names(paths: &[PathBuf], folder: &Path) -> String {
    paths.iter().map(|p| p.strip_prefix(folder).unwrap_or(p).display().to_string()).collect::<Vec<_>>().join(", ")
}

/// The question for files that exist with other content (paths inside `folder`).
pub fn ask_message(paths: &[PathBuf], folder: &Path) -> String {
    format!(
        "Runnable: the run needs {} in {} that already exist{} with other content: {}. Overwrite with the run's version, or keep yours?",
        if paths.len() == 1 { "a file".to_string() } else { format!("{} files", paths.len()) },
        folder.display(),
        if paths.len() == 1 { "s" } else { "" },
        names(paths, folder)
    )
}

/// The warning for files that were not written.
pub fn skipped_message(skipped: &[(PathBuf, String)]) -> String {
    let each: Vec<String> = skipped.iter().map(|(p, why)| format!("{} ({why})", p.display())).collect();
    format!("Runnable: not written: {}", each.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_runnables_own_reports_in_the_resource_dir_are_reports() {
        let head = "# Runnable report: a.py";
        assert!(is_report(Path::new("/w/.runnable/a.py.report.md"), ".runnable", head));
        assert!(is_report(Path::new("/w/out/gen/a.py.report.md"), "out/gen", head));
        assert!(!is_report(Path::new("/w/a.py.report.md"), ".runnable", head), "outside resourceDir");
        assert!(!is_report(Path::new("/w/.runnable/notes.md"), ".runnable", head), "not a report's name");
        assert!(!is_report(Path::new("/w/.runnable/a.py.report.md"), ".runnable", "# My notes"), "the user's file");
    }

    #[test]
    fn only_absent_files_are_created_and_links_never_written() {
        assert_eq!(decide(Existing::Absent), Action::Create);
        assert_eq!(decide(Existing::Same), Action::Unchanged);
        assert_eq!(decide(Existing::Differs), Action::AskToReplace);
        assert!(matches!(decide(Existing::Symlink), Action::Refuse(why) if why.contains("symbolic link")));
        assert!(matches!(decide(Existing::NotAFile), Action::Refuse(why) if why.contains("not a regular file")));
    }

    #[test]
    fn only_an_earlier_report_is_replaced() {
        assert_eq!(decide_report(Existing::Differs, b"# Runnable report: `a.py`\n"), Action::Replace);
        assert!(matches!(decide_report(Existing::Differs, b"my notes"), Action::Refuse(_)));
        assert!(matches!(decide_report(Existing::Symlink, b""), Action::Refuse(_)));
        assert_eq!(decide_report(Existing::Absent, b""), Action::Create);
    }

    #[test]
    fn messages_name_the_files() {
        let folder = Path::new("/w");
        assert_eq!(
            ask_message(&[PathBuf::from("/w/data.txt")], folder),
            "Runnable: the run needs a file in /w that already exists with other content: data.txt. Overwrite with the run's version, or keep yours?"
        );
        assert!(ask_message(&[PathBuf::from("/w/a"), PathBuf::from("/w/b")], folder).contains("2 files in /w that already exist with other content: a, b."));
        let s = skipped_message(&[(PathBuf::from("/w/.runnable/img.png"), "it is a symbolic link".into())]);
        assert_eq!(s, "Runnable: not written: /w/.runnable/img.png (it is a symbolic link)");
    }
}
