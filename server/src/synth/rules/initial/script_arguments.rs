//! A script that reads its command line by position (`int(sys.argv[1])`,
//! `open(sys.argv[2])`, `for name in sys.argv[1:]`) raises IndexError when
//! run without one: it runs with the arguments a person would type, each
//! shaped by what the script does with it (a number for `int`, a file name
//! for `open`), as `sys.argv[1:] = [...]` (`Prefix::argv`).

use crate::analysis::{Key, Usage};
use crate::synth::prefix::Prefix;
use crate::synth::render::py_str;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::scalars::string_for;
use crate::synth::session::Context;

pub struct ScriptArguments;

/// More positions than this is not a command line a fragment reads.
const MAX_ARGS: i64 = 8;

impl Rule for ScriptArguments {
    fn name(&self) -> &'static str {
        "script-arguments"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        // A command-line library's entry point gets its own (`cli-driver`).
        if !so_far.argv.is_empty() {
            return Vec::new();
        }
        let Some(argv) = argv_usage(ctx) else { return Vec::new() };
        let args = arguments(argv);
        if args.is_empty() {
            return Vec::new();
        }
        let mut p = so_far.clone();
        p.argv = args.iter().map(|a| py_str(a)).collect();
        vec![p]
    }
}

/// How the fragment uses `sys.argv` (`import sys` or `from sys import argv`).
fn argv_usage<'a>(ctx: &'a Context) -> Option<&'a Usage> {
    let imported = &ctx.analysis.imported_usage;
    let from_sys = ctx.analysis.imports.iter().any(|i| i.is_from && i.module == "sys" && i.names.iter().any(|(n, a)| n == "argv" && a.is_none()));
    imported.get("sys").and_then(|u| u.attrs.get("argv")).or_else(|| if from_sys { imported.get("argv") } else { None })
}

/// The arguments after the program's name: up to the last position read,
/// each shaped by its use; one, shaped by the elements' use, for a script
/// that loops over all of them.
fn arguments(argv: &Usage) -> Vec<String> {
    let read = |i: i64| argv.subscripts.iter().find(|(k, _)| *k == Key::Int(i)).map(|(_, u)| u);
    let last = argv.subscripts.iter().filter_map(|(k, _)| match k {
        Key::Int(i) if (1..=MAX_ARGS).contains(i) => Some(*i),
        _ => None,
    });
    let n = last.max().unwrap_or(0);
    let mut out: Vec<String> = (1..=n).map(|i| string_for("input", read(i).unwrap_or(&Usage::default()))).collect();
    if out.is_empty() {
        // A loop over `sys.argv[1:]` (the slice's elements, or the list's).
        if let Some(sliced) = argv.subscripts.iter().find(|(k, _)| *k == Key::Slice).map(|(_, u)| u) {
            if let Some(each) = sliced.element.as_deref().or(argv.element.as_deref()) {
                out.push(string_for("input", each));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn positions_read_get_arguments_shaped_by_their_use() {
        initial(&super::ScriptArguments, "import sys\nn = int(sys.argv[1])\nwith open(sys.argv[2]) as f:\n    print(f.read()[:n])\n", expect![[r#"
            ## 1
            import sys


            sys.argv[1:] = ['42', 'input.txt']
        "#]]);
    }

    #[test]
    fn a_loop_over_the_arguments_gets_one() {
        initial(&super::ScriptArguments, "from sys import argv\nfor name in argv[1:]:\n    print(name.upper())\n", expect![[r#"
            ## 1
            import sys


            sys.argv[1:] = ['The quick brown fox jumps over the lazy dog']
        "#]]);
    }

    #[test]
    fn a_script_that_reads_no_position_keeps_the_interpreters_command_line() {
        initial(&super::ScriptArguments, "import sys\nprint(sys.argv[0], len(sys.argv))\n", expect![[r#"
            (nothing)
        "#]]);
    }
}
