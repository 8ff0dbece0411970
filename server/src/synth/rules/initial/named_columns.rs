//! A name the fragment passes to a library as the data whose columns it
//! names inside strings (`ols('sales ~ C(city)', data=df)`: patsy reads
//! `df['sales']` and `df['city']`) is a real DataFrame with those columns,
//! each holding values of the kind the library reads it as, in as many
//! rows as a fit needs (`dataframe::frame_value`). Its other candidates stay.

use crate::analysis::FrameSource;
use crate::synth::dataframe::frame_value;
use crate::synth::prefix::{Candidate, Prefix};
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct NamedColumns;

impl Rule for NamedColumns {
    fn name(&self) -> &'static str {
        "named-columns"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn applies(&self, ctx: &Context, _t: &Trigger) -> bool {
        ctx.analysis.frame_columns.iter().any(|f| matches!(f.source, FrameSource::Name(_)))
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        let mut p = so_far.clone();
        let a = ctx.analysis;
        for f in &a.frame_columns {
            let FrameSource::Name(name) = &f.source else { continue };
            // Only a name the prefix gives a value: one the fragment
            // assigns itself is its own frame.
            let Some(free) = a.free_names.iter().chain(&a.used_before_bound).find(|n| n.name == *name) else { continue };
            let Some(b) = p.binding_mut(name) else { continue };
            if b.import_only() {
                continue;
            }
            let frame = Candidate::Value(frame_value(&free.usage, &f.columns));
            b.candidates.retain(|c| *c != frame);
            b.candidates.insert(0, frame);
            b.choice = 0;
        }
        vec![p]
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn the_data_of_a_formula_has_its_variables_as_columns() {
        initial_after(&super::NamedColumns, "import statsmodels.formula.api as smf\nfit = smf.ols('y ~ C(group) + dose', data=trial).fit()\nprint(fit.params)\n", expect![[r#"
            ## 1
            import pandas as pd


            trial = pd.DataFrame(
                {
                    'y': [0, 1, 1, 0, 1, 0, 0, 1],
                    'group': [
                        'apple',
                        'apple',
                        'apple2',
                        'apple2',
                        'apple',
                        'apple',
                        'apple2',
                        'apple2',
                    ],
                    'dose': [4, 7, 10, 13, 5, 8, 11, 3],
                },
            )
        "#]]);
    }

    #[test]
    fn a_frame_the_fragment_makes_itself_is_left_alone() {
        initial_after(&super::NamedColumns, "import pandas as pd\nimport statsmodels.formula.api as smf\ntrial = pd.DataFrame({'y': [1, 2]})\nsmf.ols('y ~ x', data=trial)\n", expect![[r#"
            ## 1
        "#]]);
    }
}
