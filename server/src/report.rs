//! The result of `fix` as data: the JSON contract of `runnable fix --json`.

use crate::analysis::SyntaxIssue;
use crate::coverage::Coverage;
use crate::exec::{Containment, Denial, Resource, RunStatus};
use crate::synth::prefix::NameInfo;
use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Completed,
    Raised,
    Timeout,
    Limit,
    SyntaxError,
}

impl From<RunStatus> for Status {
    fn from(s: RunStatus) -> Self {
        match s {
            RunStatus::Completed => Status::Completed,
            RunStatus::Raised => Status::Raised,
            RunStatus::Timeout => Status::Timeout,
            RunStatus::Limit => Status::Limit,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceFile {
    pub path: String,
    pub content: String,
    /// `utf-8` or `base64`.
    pub encoding: &'static str,
}

/// A stored report (the results cache) read back: the encoding is one of
/// the two this engine writes.
impl<'de> Deserialize<'de> for ResourceFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Stored {
            path: String,
            content: String,
            encoding: String,
        }
        let s = Stored::deserialize(d)?;
        let encoding = match s.encoding.as_str() {
            "utf-8" => "utf-8",
            "base64" => "base64",
            other => return Err(serde::de::Error::custom(format!("unknown encoding {other:?}"))),
        };
        Ok(ResourceFile { path: s.path, content: s.content, encoding })
    }
}

impl From<&Resource> for ResourceFile {
    fn from(r: &Resource) -> Self {
        match std::str::from_utf8(&r.content) {
            Ok(s) => ResourceFile { path: r.path.clone(), content: s.to_string(), encoding: "utf-8" },
            Err(_) => ResourceFile {
                path: r.path.clone(),
                content: base64::engine::general_purpose::STANDARD.encode(&r.content),
                encoding: "base64",
            },
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stats {
    pub executions: usize,
    pub llm_calls: usize,
    pub seconds: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Variant {
    pub prefix: String,
    pub suffix: String,
    /// The files this variant's program needs (they may differ from the
    /// best prefix's: a directory that already exists, a file that does not).
    pub resources: Vec<ResourceFile>,
    pub covered: Vec<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorInfo {
    #[serde(rename = "type")]
    pub type_name: String,
    pub message: String,
    /// Fragment line (1-based) where it was raised, when in the fragment.
    pub line: Option<u32>,
}

/// The version fallback: the newest releases failed with what looks like a
/// removed or changed API, so the search ran again in an environment with
/// older releases (see `env::plan_legacy`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LegacyReport {
    /// The version constraints of the older environment (`pandas<2`).
    pub constraints: Vec<String>,
    /// The failure in the newest environment that called for it.
    pub reason: String,
    /// Whether the result (program, coverage, `python`, `packages`) is the
    /// older environment's: it is kept only when it covers more statements,
    /// or as many and runs to the end.
    pub used: bool,
    /// Versions of the constrained distributions in the older environment.
    pub versions: BTreeMap<String, String>,
    /// Statements covered by the best prefix in the newest environment.
    pub newest_covered: usize,
    /// ... and in the older one (absent when it could not be prepared).
    pub legacy_covered: Option<usize>,
    /// Why the older environment could not be prepared.
    pub error: Option<String>,
}

/// A distribution a library asked for while the fragment ran (an optional
/// dependency such as Jinja2 for `df.style`), added to the environment and
/// searched with (see `env::optional_dependency`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptionalReport {
    pub distribution: String,
    /// The library that asked.
    pub library: String,
    /// The error that asked for it.
    pub reason: String,
    /// Whether the result comes from the environment that has it: kept only
    /// when it covers more statements, or as many and runs to the end.
    pub used: bool,
    /// Why it could not be installed.
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FixReport {
    pub program: String,
    pub prefix: String,
    pub suffix: String,
    pub fragment_lines: Vec<u32>,
    pub resources: Vec<ResourceFile>,
    /// The interpreter of the environment the result ran in.
    pub python: String,
    /// The distributions of that environment: names, or `name==version`
    /// pins when it is the older environment of the version fallback.
    pub packages: Vec<String>,
    pub coverage: Coverage,
    pub status: Status,
    pub error: Option<ErrorInfo>,
    pub names: Vec<NameInfo>,
    pub stats: Stats,
    /// Coverage of the best prefix together with the kept variants.
    pub union_coverage: Coverage,
    pub variants: Vec<Variant>,
    /// Fragment line -> how many times it ran.
    pub hits: BTreeMap<u32, u64>,
    /// Fragment line -> first values assigned there: [(name, repr)].
    pub values: BTreeMap<u32, Vec<(String, String)>>,
    pub syntax_errors: Vec<SyntaxIssue>,
    /// Distributions the fragment needs that are not installed (run with --install).
    pub missing_packages: Vec<String>,
    /// Imports no known distribution provides.
    pub unknown_imports: Vec<String>,
    pub failed_packages: Vec<(String, String)>,
    /// Set when the version fallback ran (whether or not its result is used).
    pub legacy: Option<LegacyReport>,
    /// Optional dependencies libraries asked for, in the order they were tried.
    pub optional: Vec<OptionalReport>,
    pub wrapped: bool,
    pub containment: Option<Containment>,
    /// What the engine left out and why (a candidate whose file cannot be
    /// created, ...), in words.
    pub notes: Vec<String>,
    /// What a sandbox layer denied the fragment in any run of the search
    /// (network, a write to the read-only file system, a path outside the
    /// sandbox), read from the runs' exceptions; empty when nothing was.
    pub denied: Vec<Denial>,
    pub stdout: String,
    pub stderr: String,
    /// What memory did for this report: `cached` when it is a stored
    /// result returned at once; absent when memory is off.
    #[serde(default)]
    pub memory: Option<MemoryReport>,
}

/// Memory's part in a report (`memory` in the JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryReport {
    /// The report is a stored result of the same request (same fragment,
    /// environment, engine and settings), returned without running.
    pub cached: bool,
    /// Names whose value in the prefix is a remembered template.
    pub remembered: Vec<String>,
    /// How many remembered templates were offered to the search.
    pub offered: usize,
}
