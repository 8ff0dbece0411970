//! A click or typer command runs as its library runs it: parsed from a
//! command line (`cli_args`). The driver invokes each command, once per
//! subcommand of a group, through the library's own test runner
//! (`CliRunner().invoke(cli, ['--source', source, 'hello', abcd])`), with
//! the values it passes held by bindings named like the parameters.
//!
//! A fragment that starts its entry point itself (`if __name__ ==
//! '__main__': cli()`) keeps that call: it is how its author runs it, and
//! the call parses `sys.argv` and then exits (click's standalone mode), so
//! no driver line after the fragment would ever run. What a person would do
//! is run the script with a command line: the prefix gives `sys.argv` the
//! first command's arguments (`Prefix::argv`), and evolution the others
//! (`cli-commands`).

use crate::analysis::Wrap;
use crate::synth::cli_args::{argv, driver_lines, entries};
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;
use crate::synth::value::{call, Value};

pub struct CliDriver;

impl Rule for CliDriver {
    fn name(&self) -> &'static str {
        "cli-driver"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        if ctx.analysis.wrap != Wrap::None {
            return Vec::new();
        }
        let found = entries(ctx);
        if found.is_empty() {
            return Vec::new();
        }
        let mut p = so_far.clone();
        for e in &found {
            let free = ctx.analysis.free_names.iter().any(|f| f.name == e.object);
            if free && !binds_click_group(&mut p, &e.object) {
                continue;
            }
            p.driven.extend(e.driven.iter().cloned());
            if e.called_at.is_some() {
                if let (true, Some(c)) = (p.argv.is_empty(), e.commands.first()) {
                    p.argv = argv(ctx, &mut p, e, c);
                }
            } else {
                let lines = driver_lines(ctx, &mut p, e);
                p.driver.extend(lines);
            }
        }
        vec![p]
    }
}

/// Whether the prefix binds the group the fragment does not define to a
/// real `click.Group`, choosing one (named as the fragment names it) when
/// it binds something else.
fn binds_click_group(p: &mut Prefix, name: &str) -> bool {
    let Some(b) = p.binding_mut(name) else { return false };
    if b.value().and_then(Value::callee) == Some("click.Group") {
        return true;
    }
    if b.import_only() {
        return false;
    }
    b.choose(call("click.Group", vec![Value::Str(name.to_string())], "import click"));
    true
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn each_subcommand_of_a_click_group_is_invoked_through_the_test_runner() {
        let src = "import click\n\n@click.group()\n@click.option('--source', required=True)\n@click.pass_context\ndef cli(ctx, source):\n    ctx.obj = source\n\n@cli.command()\n@click.argument('abcd')\n@click.pass_context\ndef hello(ctx, abcd):\n    print(ctx.obj, abcd)\n\n@cli.command()\n@click.option('--times', type=int, required=True)\ndef repeat(times):\n    for i in range(times):\n        print(i)\n";
        initial_after(&super::CliDriver, src, expect![[r#"
            ## 1
            source = 'example'
            abcd = 'The quick brown fox jumps over the lazy dog'
            times = 3
            -- driver --
            from click.testing import CliRunner
            runner = CliRunner()
            result = runner.invoke(cli, ['--source', source, 'hello', abcd], standalone_mode=False)
            print(result.output, end='')
            if result.exception is not None: raise result.exception
            result = runner.invoke(cli, ['--source', source, 'repeat', '--times', str(times)], standalone_mode=False)
            print(result.output, end='')
            if result.exception is not None: raise result.exception
        "#]]);
    }

    #[test]
    fn a_fragment_that_calls_its_command_itself_gets_a_command_line() {
        let src = "import click\n\n@click.command()\n@click.option('--name', required=True)\n@click.option('--shout', is_flag=True)\ndef greet(name, shout):\n    print(name.upper() if shout else name)\n\nif __name__ == '__main__':\n    greet()\n";
        initial_after(&super::CliDriver, src, expect![[r#"
            ## 1
            import sys


            shout = True
            name = 'Ada'


            sys.argv[1:] = [*(['--shout'] if shout else []), '--name', name]
        "#]]);
    }

    #[test]
    fn a_command_of_a_group_the_fragment_does_not_define_runs_under_a_real_group() {
        let src = "@tool.command()\n@click.argument('path')\n@click.option('--depth', type=int, required=True)\ndef scan(path, depth):\n    print(path, depth)\n";
        initial_after(&super::CliDriver, src, expect![[r#"
            ## 1
            import click


            tool = click.Group()
            depth = 3
            path = 'data.txt'
            -- driver --
            from click.testing import CliRunner
            runner = CliRunner()
            result = runner.invoke(tool, ['scan', '--depth', str(depth), path], standalone_mode=False)
            print(result.output, end='')
            if result.exception is not None: raise result.exception
        "#]]);
    }

    #[test]
    fn a_typer_command_with_a_validating_callback() {
        let src = "from typing import List\nimport typer\n\ncli = typer.Typer()\n\ndef arg_check(values: List[str]) -> List[str]:\n    for value in values:\n        if value not in ['wiki', 'news']:\n            raise typer.BadParameter(value)\n    return values\n\n@cli.command()\ndef crawl(sites: List[str] = typer.Argument(..., callback=arg_check)):\n    print(sites)\n";
        initial_after(&super::CliDriver, src, expect![[r#"
            ## 1
            sites = ['wiki', 'wiki']
            -- driver --
            from typer.testing import CliRunner
            runner = CliRunner()
            result = runner.invoke(cli, [*sites], standalone_mode=False)
            print(result.output, end='')
            if result.exception is not None: raise result.exception
        "#]]);
    }
}
