//! The rules of the deterministic proposer: one small type per file,
//! grouped by the stage it serves (`initial/`, `refine/`, `evolve/`), each
//! with its own test. [`all`] is the one list of them; the proposer
//! iterates it and knows no rule by name (see ARCHITECTURE.md, "Adding a
//! rule").

pub mod evolve;
pub mod initial;
pub mod refine;
#[cfg(test)]
pub(crate) mod check;

pub use super::attribution::Stage;
use super::prefix::Prefix;
use super::session::{Attempt, Context};
use crate::exec::ExceptionInfo;

/// One rule: a name, the stage it serves, when it applies and what it proposes.
pub trait Rule: Sync {
    /// Unique, kebab-case: what the report, `--disable-rule` and `bench --rules` call it.
    fn name(&self) -> &'static str;
    fn stage(&self) -> Stage;
    /// Whether the trigger is one this rule reads at all (cheap; by default
    /// every trigger of its stage).
    fn applies(&self, _ctx: &Context, _trigger: &Trigger) -> bool {
        true
    }
    /// Prefixes derived from the trigger's, most promising first (an
    /// initial rule returns the prefix so far with its part added, or nothing).
    fn propose(&self, ctx: &Context, trigger: &Trigger) -> Vec<Prefix>;
}

/// What a rule is asked about.
pub enum Trigger<'a> {
    /// Building the first prefix: what the initial rules before made so far.
    Initial { so_far: &'a Prefix },
    /// A run that raised.
    Refine(&'a Failure<'a>),
    /// One branch of the fragment the best prefix did not take both ways.
    Branch(&'a Branch<'a>),
    /// Lines the best prefix left uncovered.
    Evolve(&'a Uncovered<'a>),
}

impl<'a> Trigger<'a> {
    pub fn so_far(&self) -> Option<&'a Prefix> {
        match self {
            Trigger::Initial { so_far } => Some(so_far),
            _ => None,
        }
    }
    pub fn failure(&self) -> Option<&'a Failure<'a>> {
        match self {
            Trigger::Refine(f) => Some(f),
            _ => None,
        }
    }
    pub fn branch(&self) -> Option<&'a Branch<'a>> {
        match self {
            Trigger::Branch(b) => Some(b),
            _ => None,
        }
    }
    pub fn uncovered(&self) -> Option<&'a Uncovered<'a>> {
        match self {
            Trigger::Evolve(u) => Some(u),
            _ => None,
        }
    }
}

/// A run that raised, with what refinement rules read from it.
pub struct Failure<'a> {
    pub attempt: &'a Attempt,
    pub error: &'a ExceptionInfo,
    /// The prefix that ran (`attempt.prefix`).
    pub base: &'a Prefix,
    /// Fragment line where it was raised, when in the fragment.
    pub line: Option<u32>,
    /// Prefix names that line depends on (`slice::related_bindings`).
    pub names_on_line: Vec<String>,
}

impl Failure<'_> {
    /// Whether the exception is of type `t` or a subclass of it.
    pub fn is(&self, t: &str) -> bool {
        self.error.type_name == t || self.error.bases.iter().any(|b| b == t)
    }
}

/// A branch to take the other way: the condition at `line` (an `if`,
/// `elif`, `while` or `assert` test, or a `for` loop's iterable), reading
/// the free names `names`.
pub struct Branch<'a> {
    pub best: &'a Attempt,
    pub line: u32,
    pub names: &'a [String],
    /// The condition as a tree: what rules read.
    pub condition: &'a crate::analysis::Condition,
    /// Its source text (for `alternatives`' value vocabulary and for users;
    /// no rule splits it).
    pub text: &'a str,
}

/// The best attempt and the lines it left uncovered.
pub struct Uncovered<'a> {
    pub best: &'a Attempt,
    pub lines: &'a [u32],
}

/// Every rule, in the order the proposer asks them (within a stage, the
/// order its proposals are tried in).
pub fn all() -> &'static [&'static dyn Rule] {
    use evolve::*;
    use initial::*;
    use refine::*;
    &[
        // The first prefix.
        &FreeNames,
        &ReadBeforeAssigned,
        &NamedColumns,
        &RelativePaths,
        &ReadFiles,
        &XmlDocuments,
        &HtmlDocuments,
        &OrmModels,
        &RequiredEnvironment,
        &WebDriver,
        &CliDriver,
        &ScriptArguments,
        &ArgparseArguments,
        &Driver,
        &IsinstanceBases,
        &SuperHost,
        &ContextGlobals,
        // Refinements, from a run's exception.
        &UnboundName,
        &LocalModule,
        &MissingFile,
        &FileNamedByValue,
        &PandasMissingLabels,
        &LocalsParameter,
        &MissingKey,
        &MissingColumn,
        &SubmoduleImport,
        &ModuleByMembers,
        &VariableNamedLikeModule,
        &StreamProtocol,
        &MissingAttribute,
        &LocalMember,
        &IndexByPosition,
        &WantedType,
        &BuiltinAsData,
        &LocalImportName,
        &OfflineNetwork,
        &RequestContext,
        &LibraryError,
        &RejectedText,
        &LengthMismatch,
        &GrowList,
        &IndexInRange,
        &AssertedValues,
        &NextCandidate,
        // Evolution, per branch.
        &Membership,
        &AttributePresence,
        &Equality,
        &Identity,
        &NoneTests,
        &Conjunction,
        &TestedPaths,
        &OtherValues,
        // Evolution, per run.
        &OptionalEnvironment,
        &OutsideContext,
        &Handlers,
        &BodyDrivers,
        &CliCommands,
    ]
}

/// The rules of one stage, in order, without those `disabled`.
pub fn of_stage<'a>(stage: Stage, disabled: &'a [&'static str]) -> impl Iterator<Item = &'static dyn Rule> + 'a {
    all().iter().copied().filter(move |r| r.stage() == stage && !disabled.contains(&r.name()))
}

/// A rule name that no rule has.
#[derive(Debug, thiserror::Error)]
#[error("unknown rule {name:?}; the rules are: {}", known().join(", "))]
pub struct UnknownRule {
    pub name: String,
}

/// Every rule's name, in registry order.
pub fn known() -> Vec<&'static str> {
    all().iter().map(|r| r.name()).collect()
}

/// The registry's names for `names`, or the first one no rule has.
pub fn resolve(names: &[String]) -> Result<Vec<&'static str>, UnknownRule> {
    names.iter().map(|n| all().iter().map(|r| r.name()).find(|k| k == n).ok_or_else(|| UnknownRule { name: n.clone() })).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_names_are_unique_kebab_case_and_resolve() {
        let names = known();
        for (i, n) in names.iter().enumerate() {
            assert!(n.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{n}");
            assert!(!names[..i].contains(n), "{n} twice");
        }
        assert_eq!(resolve(&["missing-key".to_string()]).unwrap(), vec!["missing-key"]);
        let err = resolve(&["no-such-rule".to_string()]).unwrap_err().to_string();
        assert!(err.contains("no-such-rule") && err.contains("missing-key"), "{err}");
        let stages: Vec<Stage> = all().iter().map(|r| r.stage()).collect();
        assert!(stages.windows(2).all(|w| w[0] <= w[1]), "the registry lists rules stage by stage");
    }

    /// One rule per file, each with its own test, each in the registry.
    #[test]
    fn every_rule_file_has_one_rule_with_a_test_and_is_registered() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/synth/rules");
        let mut rules = 0;
        for stage in ["initial", "refine", "evolve"] {
            for entry in std::fs::read_dir(dir.join(stage)).expect("the stage folder") {
                let path = entry.expect("an entry").path();
                if path.file_name().is_some_and(|n| n == "mod.rs") {
                    continue;
                }
                let src = std::fs::read_to_string(&path).expect("a rule file");
                let impls = src.matches("impl Rule for ").count() + src.matches("impl Refine for ").count();
                assert_eq!(impls, 1, "{}: one rule per file", path.display());
                assert!(src.contains("#[test]"), "{}: no test of its own", path.display());
                let name = src.split("fn name(&self) -> &'static str {").nth(1).and_then(|r| r.split('"').nth(1)).expect("a name");
                assert!(known().contains(&name), "{}: {name} is not in rules::all()", path.display());
                rules += 1;
            }
        }
        assert_eq!(rules, all().len(), "every registered rule has a file");
    }
}
