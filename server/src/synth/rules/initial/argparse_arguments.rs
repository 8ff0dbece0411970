//! A script that declares its command line with argparse and parses it
//! (`parser.add_argument('name')`, `args = parser.parse_args()`) exits with
//! status 2 when run without one: it runs with the arguments a person
//! would type, as `sys.argv[1:] = [...]` (`Prefix::argv`): a value for each
//! positional argument and each option declared `required=True`, of the
//! declared `type` (a number for `type=int`), else text its name suggests,
//! and the first of its `choices`. Optional ones keep their defaults; a
//! parser with subcommands is left alone.

use crate::analysis::tokens::{identifiers, line_string_literals};
use crate::analysis::Usage;
use crate::synth::prefix::Prefix;
use crate::synth::render::py_str;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::scalars::string_for;
use crate::synth::session::Context;

pub struct ArgparseArguments;

impl Rule for ArgparseArguments {
    fn name(&self) -> &'static str {
        "argparse-arguments"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn applies(&self, ctx: &Context, _t: &Trigger) -> bool {
        // Parsed from the real command line: `parse_args()` with nothing
        // passed. Arguments of subcommands follow the command's name, which
        // this does not choose.
        ctx.fragment.contains(".add_argument(") && ctx.fragment.contains(".parse_args()") && !ctx.fragment.contains(".add_subparsers(")
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        if !so_far.argv.is_empty() {
            return Vec::new();
        }
        let argv: Vec<String> = ctx.fragment.lines().filter(|l| l.contains(".add_argument(")).flat_map(command_line_part).collect();
        if argv.is_empty() {
            return Vec::new();
        }
        let mut p = so_far.clone();
        p.argv = argv.iter().map(|a| py_str(a)).collect();
        vec![p]
    }
}

/// What the command line needs for one `add_argument(...)` line: its value
/// for a positional argument, the flag and its value for a required option,
/// nothing for an optional one.
fn command_line_part(line: &str) -> Vec<String> {
    let literals: Vec<String> = line_string_literals(line).into_iter().map(|l| l.value).collect();
    let Some(first) = literals.first() else { return Vec::new() };
    let words = identifiers(line);
    // `required=True`, `type=int`: a keyword argument given a name or a constant.
    let compact: String = line.split_whitespace().collect();
    let keyword = |k: &str, v: &str| words.iter().any(|w| w == k) && compact.contains(&format!("{k}={v}"));
    let flags: Vec<&String> = literals.iter().take_while(|l| l.starts_with('-')).collect();
    let option = !flags.is_empty();
    let flag_action = words.iter().any(|w| w == "action") && ["store_true", "store_false", "count", "store_const", "help", "version"].iter().any(|a| literals.iter().any(|l| l == a));
    let optional_positional = literals.iter().any(|l| l == "?" || l == "*") && words.iter().any(|w| w == "nargs");
    if option && !keyword("required", "True") || !option && optional_positional {
        return Vec::new();
    }
    // `--max-count` is stored as `max_count`.
    let dest = if option { flags.iter().find(|f| f.starts_with("--")).unwrap_or(&flags[0]).trim_start_matches('-').replace('-', "_") } else { first.clone() };
    let value = if keyword("type", "int") {
        "3".to_string()
    } else if keyword("type", "float") {
        "1.5".to_string()
    } else if words.iter().any(|w| w == "choices") {
        // The first choice: the literal after the flags (and the name).
        literals.get(flags.len().max(1)).cloned().unwrap_or_else(|| string_for(&dest, &Usage::default()))
    } else {
        string_for(&dest, &Usage::default())
    };
    match (option, flag_action) {
        (true, true) => vec![flags.iter().find(|f| f.starts_with("--")).unwrap_or(&flags[0]).to_string()],
        (true, false) => vec![flags.iter().find(|f| f.starts_with("--")).unwrap_or(&flags[0]).to_string(), value],
        (false, _) => vec![value],
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn declared_positionals_and_required_options_get_values() {
        initial(
            &super::ArgparseArguments,
            "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--count', type=int, default=3)\nparser.add_argument('name')\nparser.add_argument('--mode', choices=['fast', 'slow'], required=True)\nparser.add_argument('--limit', type=float, required=True)\nparser.add_argument('rest', nargs='*')\nargs = parser.parse_args()\n",
            expect![[r#"
                ## 1
                import sys


                sys.argv[1:] = ['Ada', '--mode', 'fast', '--limit', '1.5']
            "#]],
        );
    }
}
