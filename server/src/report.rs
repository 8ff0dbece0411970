//! The result of `fix` as data: the JSON contract of `runnable fix --json`.

use crate::analysis::SyntaxIssue;
use crate::coverage::Coverage;
use crate::exec::{Containment, Denial, Resource, RunStatus};
use crate::synth::attribution::RuleUse;
use crate::synth::name_info::NameInfo;
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

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Stats {
    pub executions: usize,
    pub llm_calls: usize,
    pub seconds: f64,
    /// Tokens the model stages used (0 without `--llm`).
    pub llm_tokens: LlmTokens,
    /// Per model stage (`environment`, `exploration`, `evolution`): calls,
    /// tokens, seconds, proposals run, kept and rejected; empty without `--llm`.
    pub llm_stages: BTreeMap<String, crate::llm::StageStats>,
    /// Model proposals rejected before they ran because they faked a library.
    pub llm_rejected: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmTokens {
    pub prompt: u64,
    pub completion: u64,
}

/// Who proposed a binding or a variant: the deterministic rules or the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProposedBy {
    #[default]
    Rule,
    Model,
}

/// One bound name in the report, with who proposed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameReport {
    #[serde(flatten)]
    pub info: NameInfo,
    pub proposed_by: ProposedBy,
}

impl std::ops::Deref for NameReport {
    type Target = NameInfo;
    fn deref(&self) -> &NameInfo {
        &self.info
    }
}

impl From<NameInfo> for NameReport {
    fn from(info: NameInfo) -> Self {
        NameReport { info, proposed_by: ProposedBy::Rule }
    }
}

/// What the model stages said beyond prefixes (present only with `--llm`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LlmReport {
    /// Whether the rules stalled and the model was asked.
    pub asked: bool,
    /// Distributions the environment stage proposed.
    pub distributions: Vec<crate::llm::environment::ProposedDistribution>,
    /// Of those, the names outside the curated table: shown for the user's
    /// consent, never installed.
    pub consent: Vec<String>,
    /// Proposed files that did not fit how the fragment reads them.
    pub rejected_files: Vec<String>,
    /// Why calls gave nothing (timeouts, HTTP errors, unreadable answers).
    pub errors: Vec<String>,
    /// From the price table (an estimate; local models cost 0).
    pub estimated_cost_usd: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Variant {
    pub prefix: String,
    pub suffix: String,
    /// The files this variant's program needs (they may differ from the
    /// best prefix's: a directory that already exists, a file that does not).
    pub resources: Vec<ResourceFile>,
    pub covered: Vec<u32>,
    /// The evolution rule that proposed it (`rules::all` names them).
    pub rule: Option<String>,
    pub proposed_by: ProposedBy,
}

/// One rule behind the best prefix, in the order they applied: the initial
/// rules that shaped the first prefix, then each refinement or variant the
/// search moved to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refinement {
    pub rule: String,
    /// `initial`, `refine`, `branch` or `evolve`.
    pub stage: String,
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
    /// Why the fragment cannot run as written, when its error says so
    /// (a path on the author's machine, Python 2): `blockers::classify`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocker: Option<crate::blockers::Blocker>,
    pub names: Vec<NameReport>,
    /// The rules behind the best prefix, in order.
    pub refinements: Vec<Refinement>,
    /// Per rule: runs of programs it proposed, proposals kept, statements added.
    pub rules: Vec<RuleUse>,
    pub stats: Stats,
    /// Coverage of the best prefix together with the kept variants.
    pub union_coverage: Coverage,
    pub variants: Vec<Variant>,
    /// Fragment line -> how many times it ran.
    pub hits: BTreeMap<u32, u64>,
    /// Fragment line -> first values assigned there: [(name, repr)].
    pub values: BTreeMap<u32, Vec<(String, String)>>,
    /// Fragment line -> what the best run printed (stdout) from that line,
    /// capped; lines that printed nothing are absent.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub printed: BTreeMap<u32, String>,
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
    /// The model stages' account (absent without `--llm`).
    pub llm: Option<LlmReport>,
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
