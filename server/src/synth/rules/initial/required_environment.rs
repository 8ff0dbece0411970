//! An environment variable read without a fallback (`os.environ["API_TOKEN"]`)
//! raises KeyError unless it is set: it is set to a value its name suggests.

use crate::synth::edits::set_env;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct RequiredEnvironment;

impl Rule for RequiredEnvironment {
    fn name(&self) -> &'static str {
        "required-environment"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        let mut p = so_far.clone();
        for read in ctx.analysis.env_reads.iter().filter(|r| r.required) {
            set_env(&mut p, &read.name);
        }
        vec![p]
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_variable_read_without_fallback_is_set() {
        initial(&super::RequiredEnvironment, "import os\nprint(os.environ['APP_PORT'])\n", expect![[r#"
            ## 1
            import os


            os.environ['APP_PORT'] = '8080'
        "#]]);
    }
}
