//! The results-cache key: everything a job's result depends on. Pure.
//! Any difference (one byte of the fragment, another interpreter, one more
//! distribution, a constraint, a flag, another engine build, another
//! budget) is another key, so a hit is always a result this engine would
//! compute again for the same request.

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;

#[derive(Debug, Clone, Serialize)]
pub struct ResultKey<'a> {
    /// The fragment as it is run (after `--lines`).
    pub fragment: &'a str,
    /// The environment: its interpreter, what is installed and what is not.
    pub python: &'a str,
    pub installed: &'a [String],
    pub missing: &'a [String],
    pub constraints: &'a [String],
    /// The install and allow flags.
    pub install: bool,
    pub allow_builds: &'a BTreeSet<String>,
    pub allow_network: bool,
    /// Which engine: its version and build.
    pub engine: &'a str,
    /// The settings the result depends on.
    pub budget_ms: u128,
    pub max_runs: usize,
    pub sandbox: &'a str,
    pub warm: bool,
    /// Whether remembered templates were offered (a cached result is only
    /// served to a job that would have searched the same way).
    pub templates: bool,
}

impl ResultKey<'_> {
    /// The key as stored: a SHA-256 of every part (the fragment's text is
    /// not kept in the key).
    pub fn digest(&self) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        let hash = Sha256::digest(&json);
        hash.iter().map(|b| format!("{b:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base<'a>(installed: &'a [String], builds: &'a BTreeSet<String>) -> ResultKey<'a> {
        ResultKey {
            fragment: "print(x)\n",
            python: "/venv/bin/python",
            installed,
            missing: &[],
            constraints: &[],
            install: false,
            allow_builds: builds,
            allow_network: false,
            engine: "0.1.0+abc",
            budget_ms: 20_000,
            max_runs: 100,
            sandbox: "Auto",
            warm: true,
            templates: true,
        }
    }

    #[test]
    fn the_same_request_is_the_same_key() {
        let (i, b) = (vec!["pandas".to_string()], BTreeSet::new());
        assert_eq!(base(&i, &b).digest(), base(&i, &b).digest());
        assert_eq!(base(&i, &b).digest().len(), 64);
    }

    #[test]
    fn every_part_of_the_key_changes_it() {
        let (i, b) = (vec!["pandas".to_string()], BTreeSet::new());
        let more = vec!["pandas".to_string(), "numpy".to_string()];
        let missing = vec!["jinja2".to_string()];
        let constraints = vec!["pandas<2".to_string()];
        let builds: BTreeSet<String> = ["lxml".to_string()].into();
        let reference = base(&i, &b).digest();
        let changed: Vec<(&str, ResultKey)> = vec![
            ("fragment", ResultKey { fragment: "print(y)\n", ..base(&i, &b) }),
            ("fragment whitespace", ResultKey { fragment: "print(x) \n", ..base(&i, &b) }),
            ("interpreter", ResultKey { python: "/other/bin/python", ..base(&i, &b) }),
            ("distributions", ResultKey { installed: &more, ..base(&i, &b) }),
            ("missing", ResultKey { missing: &missing, ..base(&i, &b) }),
            ("constraints", ResultKey { constraints: &constraints, ..base(&i, &b) }),
            ("install", ResultKey { install: true, ..base(&i, &b) }),
            ("allow-build", ResultKey { allow_builds: &builds, ..base(&i, &b) }),
            ("allow-network", ResultKey { allow_network: true, ..base(&i, &b) }),
            ("engine", ResultKey { engine: "0.1.0+def", ..base(&i, &b) }),
            ("budget", ResultKey { budget_ms: 5_000, ..base(&i, &b) }),
            ("max runs", ResultKey { max_runs: 10, ..base(&i, &b) }),
            ("sandbox", ResultKey { sandbox: "Off", ..base(&i, &b) }),
            ("warm", ResultKey { warm: false, ..base(&i, &b) }),
            ("templates", ResultKey { templates: false, ..base(&i, &b) }),
        ];
        let mut seen = BTreeSet::from([reference.clone()]);
        for (what, key) in changed {
            let d = key.digest();
            assert_ne!(d, reference, "changing {what} must miss");
            assert!(seen.insert(d), "changing {what} collides with another change");
        }
    }
}
