//! The environment stage's proposals, checked: a distribution in the
//! curated table (`knowledge/imports.txt`) is installed with `--install`
//! like the engine's own plan ([`to_install`]); one outside it is only ever
//! shown for consent, never installed; a file is kept only when the fragment reads that path
//! and its content parses the way the fragment reads it. Pure.

use super::extract::{EnvironmentProposal, FileProposal};
use crate::knowledge::{import_table, is_valid_distribution_name, normalize_distribution};
use crate::synth::session::Context;
use serde::{Deserialize, Serialize};

/// One distribution the model proposed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProposedDistribution {
    pub name: String,
    pub reason: String,
    /// In the curated table: installable with `--install` like any import.
    pub curated: bool,
    /// Installed in this run's environment (curated, and `--install`).
    #[serde(default)]
    pub installed: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckedEnvironment {
    pub distributions: Vec<ProposedDistribution>,
    pub files: Vec<FileProposal>,
    /// Files left out, with why.
    pub rejected_files: Vec<String>,
}

/// `known`: paths a run asked for or the rules already create (read through
/// a computed name the analysis cannot see).
pub fn check(ctx: &Context, proposal: &EnvironmentProposal, known: &[String]) -> CheckedEnvironment {
    let curated: Vec<String> = import_table().values().map(|d| normalize_distribution(d)).collect();
    let distributions = proposal
        .distributions
        .iter()
        .filter(|(n, _)| is_valid_distribution_name(n))
        .map(|(n, why)| ProposedDistribution { name: n.clone(), reason: why.chars().take(200).collect(), curated: curated.contains(&normalize_distribution(n)), installed: false })
        .take(8)
        .collect();
    let mut out = CheckedEnvironment { distributions, ..Default::default() };
    for f in &proposal.files {
        match file_problem(ctx, f, known) {
            None => out.files.push(f.clone()),
            Some(why) => out.rejected_files.push(format!("{}: {why}", f.path)),
        }
    }
    out
}

/// The curated proposals the environment does not have yet: what
/// `--install` (the user's consent) installs. Never a name outside the table.
pub fn to_install(checked: &CheckedEnvironment, planned: &std::collections::BTreeSet<String>) -> Vec<String> {
    let planned: Vec<String> = planned.iter().map(|d| normalize_distribution(d)).collect();
    let mut out: Vec<String> = Vec::new();
    for d in checked.distributions.iter().filter(|d| d.curated) {
        let norm = normalize_distribution(&d.name);
        if !planned.contains(&norm) && !out.iter().any(|o| normalize_distribution(o) == norm) {
            out.push(d.name.clone());
        }
    }
    out
}

/// Why a proposed file does not fit how the fragment reads it.
pub fn file_problem(ctx: &Context, f: &FileProposal, known: &[String]) -> Option<String> {
    let reads: Vec<&crate::analysis::FileUse> = ctx.analysis.files.iter().filter(|u| !u.writes && same_path(&u.path, &f.path)).collect();
    if reads.is_empty() && !known.iter().any(|m| same_path(m, &f.path)) {
        return Some("the fragment does not read this path".into());
    }
    let json = f.path.ends_with(".json") || reads.iter().any(|u| u.how == "read_json") || ctx.fragment.contains("json.load");
    if json && (f.path.ends_with(".json") || reads.iter().any(|u| u.how == "read_json")) && serde_json::from_str::<serde_json::Value>(&f.content).is_err() {
        return Some("the fragment reads it as JSON and it is not JSON".into());
    }
    let csv = f.path.ends_with(".csv") || reads.iter().any(|u| u.how == "read_csv");
    if csv {
        let rows: Vec<&str> = f.content.lines().filter(|l| !l.trim().is_empty()).collect();
        let width = |l: &str| l.split(',').count();
        if rows.len() < 2 || rows.iter().any(|r| width(r) != width(rows[0])) {
            return Some("the fragment reads it as CSV and it has no header and rows of one width".into());
        }
    }
    None
}

fn same_path(a: &str, b: &str) -> bool {
    a.trim_start_matches("./") == b.trim_start_matches("./")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;

    #[test]
    fn files_must_be_read_by_the_fragment_and_parse_the_way_it_reads_them() {
        let src = "import json, pandas as pd\nc = json.load(open('conf.json'))\ndf = pd.read_csv('rows.csv')\n";
        let analysis = analyze(src);
        let stdlib = Default::default();
        let ctx = Context { fragment: src, analysis: &analysis, stdlib: &stdlib };
        let f = |p: &str, c: &str| FileProposal { path: p.into(), content: c.into() };
        assert_eq!(file_problem(&ctx, &f("conf.json", "{\"a\": 1}"), &[]), None);
        assert!(file_problem(&ctx, &f("conf.json", "a: 1"), &[]).is_some());
        assert_eq!(file_problem(&ctx, &f("rows.csv", "a,b\n1,2\n"), &[]), None);
        assert!(file_problem(&ctx, &f("rows.csv", "a,b\n1\n"), &[]).is_some());
        assert!(file_problem(&ctx, &f("other.txt", "x"), &[]).is_some());
        assert_eq!(file_problem(&ctx, &f("other.txt", "x"), &["other.txt".to_string()]), None, "a path the run asked for");
        let p = EnvironmentProposal { distributions: vec![("requests".into(), "".into()), ("totally-unknown-dist".into(), "".into()), ("bad name!".into(), "".into())], files: vec![] };
        let checked = check(&ctx, &p, &[]);
        assert_eq!(checked.distributions.len(), 2);
        assert!(checked.distributions[0].curated && !checked.distributions[1].curated);
        // Only the curated name is installed with consent, and only once.
        assert_eq!(to_install(&checked, &Default::default()), vec!["requests".to_string()]);
        assert!(to_install(&checked, &["Requests".to_string()].into()).is_empty(), "already planned");
    }
}
