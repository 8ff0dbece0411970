//! A KeyError naming a column of a table file the prefix wrote (`df =
//! pd.read_csv('sales.csv')` then `df.groupby('region')`, a
//! `csv.DictReader` row's `row['region']`): the file gets that column.
//! The fragment's own code names the column where the engine cannot see it
//! (a string argument), so the error says it; numbers first (arithmetic,
//! sums), then text a grouping can split on.

use crate::synth::error_text::{key_error_key, pandas_missing_labels, KeyLit};
use crate::synth::prefix::Prefix;
use crate::synth::resources::{table_separator, table_with_column};
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct MissingColumn;

const NUMBERS: [&str; 3] = ["10", "25", "40"];
const LABELS: [&str; 2] = ["north", "south"];

impl Rule for MissingColumn {
    fn name(&self) -> &'static str {
        "missing-column"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is("KeyError") && fail.base.resources.iter().any(|r| table_separator(ctx.analysis, &r.path).is_some()))
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        // pandas lists what `drop(columns=...)` or `df[[...]]` missed; else the key.
        let listed: Vec<String> = pandas_missing_labels(&fail.error.message).into_iter().filter_map(|k| match k {
            KeyLit::Str(s) => Some(s),
            _ => None,
        }).collect();
        let columns = if !listed.is_empty() {
            listed
        } else {
            let Some(KeyLit::Str(column)) = key_error_key(fail.error) else { return Vec::new() };
            vec![column]
        };
        // Which files are tables is the same for every proposal.
        let seps: Vec<Option<char>> = fail.base.resources.iter().map(|r| table_separator(ctx.analysis, &r.path)).collect();
        [&NUMBERS[..], &LABELS[..]]
            .iter()
            .filter_map(|cells| {
                let mut p = fail.base.clone();
                let mut changed = false;
                for (r, sep) in p.resources.iter_mut().zip(&seps) {
                    let Some(sep) = *sep else { continue };
                    for column in &columns {
                        if let Some(c) = table_with_column(&r.content, sep, column, cells) {
                            r.content = c;
                            changed = true;
                        }
                    }
                }
                changed.then_some(p)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::exec::{ExceptionInfo, Resource, RunStatus};
    use crate::synth::rules::check::*;
    use crate::synth::deterministic::RuleSet;
    use crate::synth::session::Context;
    use crate::synth::Proposer;
    use crate::synth::rules::{Failure, Rule, Trigger};

    /// `check` on the failure a run of `fragment` raised with `error`, the
    /// prefix having written `file` (path, content).
    fn on_failure(fragment: &str, file: (&str, &[u8]), error: ExceptionInfo, check: impl FnOnce(&Context, &Trigger)) {
        with_ctx(fragment, |ctx| {
            let mut base = RuleSet::default().initial(ctx);
            base.add_resource(Resource { path: file.0.into(), content: file.1.to_vec() });
            let a = attempt(ctx, base, RunStatus::Raised, Some(error), &[]);
            let failure = Failure { attempt: &a, error: a.outcome.exception.as_ref().unwrap(), base: &a.prefix, line: a.failing_line(), names_on_line: Vec::new() };
            check(ctx, &Trigger::Refine(&failure));
        });
    }

    /// The first file of each proposal, as text.
    fn proposed_tables(ctx: &Context, trigger: &Trigger) -> Vec<String> {
        super::MissingColumn.propose(ctx, trigger).iter().map(|p| String::from_utf8(p.resources[0].content.clone()).unwrap()).collect()
    }

    #[test]
    fn the_columns_pandas_lists_as_missing_are_added() {
        let fragment = "import pandas as pd\ndf = pd.read_csv('cells.csv')\nprint(df.drop(columns='cluster'))\n";
        let message = "\"['cluster'] not found in axis\"";
        let error = ExceptionInfo { key: Some(message.into()), ..raised("KeyError", message, 3) };
        on_failure(fragment, ("cells.csv", b"price\n1\n2\n3\n"), error, |ctx, trigger| {
            assert_eq!(proposed_tables(ctx, trigger)[0], "price,cluster\n1,10\n2,25\n3,40\n", "the label, not the message");
        });
    }

    #[test]
    fn the_column_the_error_names_is_added_to_the_table_read() {
        let fragment = "import pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(df.groupby('region').sum())\n";
        let error = ExceptionInfo { key: Some("'region'".into()), ..raised("KeyError", "'region'", 3) };
        on_failure(fragment, ("sales.csv", b"price\n1\n2\n3\n"), error, |ctx, trigger| {
            assert!(super::MissingColumn.applies(ctx, trigger));
            assert_eq!(proposed_tables(ctx, trigger), ["price,region\n1,10\n2,25\n3,40\n", "price,region\n1,north\n2,south\n3,north\n"]);
        });
        // A file the fragment does not read as a table is left alone.
        on_failure("print(open('notes.txt').read()['x'])\n", ("notes.txt", b"a\n1\n"), raised("KeyError", "'x'", 1), |ctx, trigger| {
            assert!(!super::MissingColumn.applies(ctx, trigger));
        });
    }
}
