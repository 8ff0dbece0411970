//! Variables read with a fallback (`os.environ.get("X")`, `os.getenv`)
//! before lines still uncovered: a variant where each is set, or unset.

use crate::synth::edits::set_env;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::{Attempt, Context};

pub struct OptionalEnvironment;

impl Rule for OptionalEnvironment {
    fn name(&self) -> &'static str {
        "optional-environment"
    }
    fn stage(&self) -> Stage {
        Stage::Evolve
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(u) = t.uncovered() else { return Vec::new() };
        environment_variants(ctx, u.best, u.lines)
    }
}

/// Variables read with a fallback (`os.environ.get("X")`, `os.getenv`)
/// before lines still uncovered: a variant where each is set, or unset.
fn environment_variants(ctx: &Context, best: &Attempt, uncovered: &[u32]) -> Vec<Prefix> {
    let mut out = Vec::new();
    for read in ctx.analysis.env_reads.iter().filter(|r| !r.required && uncovered.iter().any(|&u| u >= r.line)) {
        let mut p = best.prefix.clone();
        if p.environment.iter().any(|(n, _)| *n == read.name) {
            p.environment.retain(|(n, _)| *n != read.name);
        } else {
            set_env(&mut p, &read.name);
        }
        out.push(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_variable_read_with_a_fallback_is_set() {
        evolve(&super::OptionalEnvironment, "import os\nif os.environ.get('VERBOSE'):\n    print('chatty')\n", &[1, 2], expect![[r#"
            ## 1
            import os


            os.environ['VERBOSE'] = '1'
        "#]]);
    }
}
