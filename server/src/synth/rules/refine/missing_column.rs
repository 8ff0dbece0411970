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
    use crate::synth::Proposer;
    use crate::synth::rules::{Failure, Rule, Trigger};

    #[test]
    fn the_columns_pandas_lists_as_missing_are_added() {
        let fragment = "import pandas as pd\ndf = pd.read_csv('cells.csv')\nprint(df.drop(columns='cluster'))\n";
        with_ctx(fragment, |ctx| {
            let mut base = RuleSet::default().initial(ctx);
            base.add_resource(Resource { path: "cells.csv".into(), content: b"price\n1\n2\n3\n".to_vec() });
            let message = "\"['cluster'] not found in axis\"";
            let error = ExceptionInfo { key: Some(message.into()), ..raised("KeyError", message, 3) };
            let a = attempt(ctx, base, RunStatus::Raised, Some(error), &[]);
            let failure = Failure { attempt: &a, error: a.outcome.exception.as_ref().unwrap(), base: &a.prefix, line: a.failing_line(), names_on_line: Vec::new() };
            let trigger = Trigger::Refine(&failure);
            let files: Vec<String> = super::MissingColumn.propose(ctx, &trigger).iter().map(|p| String::from_utf8(p.resources[0].content.clone()).unwrap()).collect();
            assert_eq!(files[0], "price,cluster\n1,10\n2,25\n3,40\n", "the label, not the message");
        });
    }

    #[test]
    fn the_column_the_error_names_is_added_to_the_table_read() {
        let fragment = "import pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(df.groupby('region').sum())\n";
        with_ctx(fragment, |ctx| {
            let mut base = RuleSet::default().initial(ctx);
            base.add_resource(Resource { path: "sales.csv".into(), content: b"price\n1\n2\n3\n".to_vec() });
            let error = ExceptionInfo { key: Some("'region'".into()), ..raised("KeyError", "'region'", 3) };
            let a = attempt(ctx, base, RunStatus::Raised, Some(error), &[]);
            let failure = Failure { attempt: &a, error: a.outcome.exception.as_ref().unwrap(), base: &a.prefix, line: a.failing_line(), names_on_line: Vec::new() };
            let trigger = Trigger::Refine(&failure);
            assert!(super::MissingColumn.applies(ctx, &trigger));
            let files: Vec<String> = super::MissingColumn.propose(ctx, &trigger).iter().map(|p| String::from_utf8(p.resources[0].content.clone()).unwrap()).collect();
            assert_eq!(files, ["price,region\n1,10\n2,25\n3,40\n", "price,region\n1,north\n2,south\n3,north\n"]);
        });
        // A file the fragment does not read as a table is left alone.
        with_ctx("print(open('notes.txt').read()['x'])\n", |ctx| {
            let mut base = RuleSet::default().initial(ctx);
            base.add_resource(Resource { path: "notes.txt".into(), content: b"a\n1\n".to_vec() });
            let a = attempt(ctx, base, RunStatus::Raised, Some(raised("KeyError", "'x'", 1)), &[]);
            let failure = Failure { attempt: &a, error: a.outcome.exception.as_ref().unwrap(), base: &a.prefix, line: a.failing_line(), names_on_line: Vec::new() };
            assert!(!super::MissingColumn.applies(ctx, &Trigger::Refine(&failure)));
        });
    }
}
