//! Approval and escalation of a run, decided without I/O: whether a run may
//! start (`runPolicy`, the workspace's remembered answer), what the user's
//! answer to a question means, and whether a finished run's report calls
//! for the "Allow network for this run" question. `run.rs` asks and acts.
//!
//! The order follows the Codex CLI orchestrator: approval, then the
//! sandboxed attempt, then escalation only with consent, one thing for one
//! re-run, never remembered.

use super::config::RunPolicy;
use crate::exec::denials::NETWORK;
use crate::exec::Denial;
use crate::report::FixReport;
use std::path::{Path, PathBuf};

/// The answers of the run question.
pub const RUN_ONCE: &str = "Run";
pub const RUN_ALWAYS_HERE: &str = "Always in this workspace";
pub const RUN_CANCEL: &str = "Cancel";
/// The answers of the network question.
pub const ALLOW_NETWORK: &str = "Allow network for this run";
pub const NOT_NOW: &str = "Not now";

/// `runFinished.status` of a run that `runPolicy: "never"` refused.
pub const STATUS_REFUSED: &str = "refused";
/// What the user is told when a run is refused.
pub const REFUSED_MESSAGE: &str = "runs are off (the setting runPolicy is \"never\"): nothing ran";

/// What to do with a run before anything of it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    Run,
    /// Ask the run question first.
    Ask,
    Refuse,
}

/// `allowed_here`: the user answered "Always in this workspace" earlier in
/// this session for the document's workspace.
pub fn gate(policy: RunPolicy, allowed_here: bool) -> Gate {
    match policy {
        RunPolicy::Always => Gate::Run,
        RunPolicy::Never => Gate::Refuse,
        RunPolicy::Ask if allowed_here => Gate::Run,
        RunPolicy::Ask => Gate::Ask,
    }
}

/// The user's answer to the run question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunAnswer {
    /// This run only: the next one asks again.
    Once,
    /// This run and every later one in the workspace, for the session.
    AlwaysHere,
    /// Nothing runs. A dismissed question (or a client that cannot ask)
    /// counts as this: running needs a yes.
    Cancel,
}

pub fn run_answer(title: Option<&str>) -> RunAnswer {
    match title {
        Some(RUN_ONCE) => RunAnswer::Once,
        Some(RUN_ALWAYS_HERE) => RunAnswer::AlwaysHere,
        _ => RunAnswer::Cancel,
    }
}

/// The run question, naming the code it is about.
pub fn run_question(document: &str, first_line: u32, last_line: u32) -> String {
    let lines = if first_line == last_line { format!("line {first_line}") } else { format!("lines {first_line}–{last_line}") };
    format!("Runnable: Run this code in the sandbox? ({lines} of {document}: its code runs, with no network and only its own working directory writable)")
}

/// The workspace a document belongs to, for remembering "Always in this
/// workspace": the innermost workspace folder that contains it, else the
/// document's own folder (a file outside every folder is its own workspace).
pub fn workspace_of(document: &Path, folders: &[PathBuf]) -> PathBuf {
    folders
        .iter()
        .filter(|f| document.starts_with(f))
        .max_by_key(|f| f.components().count())
        .cloned()
        .unwrap_or_else(|| document.parent().map(Path::to_path_buf).unwrap_or_else(|| document.to_path_buf()))
}

/// The network denial to offer an escalation for: the run was kept off the
/// network and its exception says that is why it failed.
pub fn network_denial(report: &FixReport) -> Option<&Denial> {
    if report.containment.as_ref().is_some_and(|c| c.network) {
        return None;
    }
    report.denied.iter().find(|d| d.what == NETWORK)
}

/// The network question.
pub fn network_question(denial: &Denial) -> String {
    format!("Runnable: the sandbox blocked network access ({}). Allow network for this run?", denial.detail)
}

/// The install question, saying whose imports need each distribution: the
/// fragment's own (`own`) or the prefix Runnable wrote (a value made with
/// a library the code never imports itself).
pub fn install_question(own: &std::collections::BTreeSet<String>, missing: &[String]) -> String {
    let norm = crate::knowledge::normalize_distribution;
    let is_own = |m: &String| own.iter().any(|o| norm(o) == norm(m));
    let (mine, prefix): (Vec<&String>, Vec<&String>) = missing.iter().partition(|m| is_own(m));
    let list = |v: &[&String]| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
    let what = match (mine.is_empty(), prefix.is_empty()) {
        (false, true) => format!("this code imports {}", list(&mine)),
        (true, false) => format!("the prefix Runnable wrote for this code imports {}", list(&prefix)),
        _ => format!("this code imports {} and the prefix Runnable wrote imports {}", list(&mine), list(&prefix)),
    };
    format!("Runnable: {what} from PyPI, not installed in its environment. Install into Runnable's cached environment?")
}

/// Only an explicit "Allow network for this run" allows it.
pub fn allows_network(title: Option<&str>) -> bool {
    title == Some(ALLOW_NETWORK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::Coverage;
    use crate::exec::Containment;
    use crate::report::{Stats, Status};
    use std::collections::BTreeMap;

    #[test]
    fn the_install_question_says_whose_import_it_is() {
        let own: std::collections::BTreeSet<String> = ["pandas".to_string()].into();
        let q = install_question(&own, &["pandas".into()]);
        assert!(q.starts_with("Runnable: this code imports pandas from PyPI"), "{q}");
        let q = install_question(&Default::default(), &["pandas".into()]);
        assert!(q.starts_with("Runnable: the prefix Runnable wrote for this code imports pandas from PyPI"), "{q}");
        let q = install_question(&own, &["pandas".into(), "numpy".into()]);
        assert!(q.contains("this code imports pandas and the prefix Runnable wrote imports numpy"), "{q}");
    }

    #[test]
    fn the_policy_decides_unless_it_asks() {
        assert_eq!(gate(RunPolicy::Always, false), Gate::Run);
        assert_eq!(gate(RunPolicy::Never, false), Gate::Refuse);
        assert_eq!(gate(RunPolicy::Never, true), Gate::Refuse, "never wins over an earlier answer");
        assert_eq!(gate(RunPolicy::Ask, false), Gate::Ask);
        assert_eq!(gate(RunPolicy::Ask, true), Gate::Run);
    }

    #[test]
    fn only_the_two_yes_answers_run() {
        assert_eq!(run_answer(Some("Run")), RunAnswer::Once);
        assert_eq!(run_answer(Some("Always in this workspace")), RunAnswer::AlwaysHere);
        assert_eq!(run_answer(Some("Cancel")), RunAnswer::Cancel);
        assert_eq!(run_answer(None), RunAnswer::Cancel);
        assert_eq!(run_answer(Some("run")), RunAnswer::Cancel);
        assert!(run_question("a.py", 2, 3).starts_with("Runnable: Run this code in the sandbox?"));
        assert!(run_question("a.py", 2, 3).contains("lines 2–3 of a.py"));
        assert!(run_question("a.py", 4, 4).contains("line 4 of a.py"));
    }

    #[test]
    fn a_document_belongs_to_its_innermost_workspace_folder() {
        let folders = [PathBuf::from("/w"), PathBuf::from("/w/sub"), PathBuf::from("/other")];
        assert_eq!(workspace_of(Path::new("/w/sub/a.py"), &folders), PathBuf::from("/w/sub"));
        assert_eq!(workspace_of(Path::new("/w/a.py"), &folders), PathBuf::from("/w"));
        // `/wx` is not inside `/w`: paths compare by components.
        assert_eq!(workspace_of(Path::new("/wx/a.py"), &folders), PathBuf::from("/wx"));
        assert_eq!(workspace_of(Path::new("/tmp/b.py"), &[]), PathBuf::from("/tmp"));
    }

    fn report(network: bool, denied: Vec<Denial>) -> FixReport {
        let coverage = Coverage::new(vec![1], Default::default());
        FixReport {
            program: String::new(),
            prefix: String::new(),
            suffix: String::new(),
            fragment_lines: Vec::new(),
            resources: Vec::new(),
            python: String::new(),
            packages: Vec::new(),
            union_coverage: coverage.clone(),
            coverage,
            status: Status::Raised,
            error: None,
            blocker: None,
            names: Vec::new(),
            refinements: Vec::new(),
            rules: Vec::new(),
            stats: Stats { executions: 1, seconds: 0.0, ..Stats::default() },
            variants: Vec::new(),
            hits: BTreeMap::new(),
            values: BTreeMap::new(),
            printed: BTreeMap::new(),
            syntax_errors: Vec::new(),
            missing_packages: Vec::new(),
            unknown_imports: Vec::new(),
            failed_packages: Vec::new(),
            legacy: None,
            optional: Vec::new(),
            wrapped: false,
            containment: Some(Containment { bubblewrap: true, unprivileged_uid: Some(60000), network, note: None, seccomp: true, layers: Vec::new() }),
            denied,
            notes: Vec::new(),
            stdout: String::new(),
            stderr: String::new(),
            llm: None,
            memory: None,
        }
    }

    fn denial(what: &str) -> Denial {
        Denial { layer: "network namespace (bubblewrap --unshare-net)".into(), what: what.into(), detail: "socket.gaierror: [Errno -3] x".into() }
    }

    #[test]
    fn a_network_denial_is_offered_once_and_never_silently() {
        let r = report(false, vec![denial("filesystem"), denial("network")]);
        let d = network_denial(&r).expect("offered");
        assert_eq!(d.what, "network");
        assert_eq!(
            network_question(d),
            "Runnable: the sandbox blocked network access (socket.gaierror: [Errno -3] x). Allow network for this run?"
        );
        // A run that already had the network is not offered it again.
        assert!(network_denial(&report(true, vec![denial("network")])).is_none());
        assert!(network_denial(&report(false, vec![denial("filesystem")])).is_none());
        assert!(allows_network(Some("Allow network for this run")));
        assert!(!allows_network(Some("Not now")));
        assert!(!allows_network(None));
    }
}
