//! A fragment that starts its click or typer entry point itself runs one
//! command line per program (`cli()` exits when the command returns): the
//! commands whose bodies the best run left uncovered get a variant each,
//! whose `sys.argv` selects that command (`cli-driver` gave the first).

use crate::synth::cli_args::{argv, entries};
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct CliCommands;

impl Rule for CliCommands {
    fn name(&self) -> &'static str {
        "cli-commands"
    }
    fn stage(&self) -> Stage {
        Stage::Evolve
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.uncovered().is_some_and(|u| !u.best.prefix.argv.is_empty())
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(u) = t.uncovered() else { return Vec::new() };
        let mut out = Vec::new();
        for e in entries(ctx).iter().filter(|e| e.called_at.is_some()) {
            for c in &e.commands {
                let Some(f) = ctx.analysis.functions.iter().find(|f| f.name == c.function) else { continue };
                if !u.lines.iter().any(|l| (f.line + 1..=f.end_line).contains(l)) {
                    continue;
                }
                let mut p = u.best.prefix.clone();
                p.argv = argv(ctx, &mut p, e, c);
                if p.argv != u.best.prefix.argv {
                    out.push(p);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn another_subcommand_gets_the_command_line_that_selects_it() {
        let src = "import click\n\n@click.group()\ndef cli():\n    pass\n\n@cli.command()\n@click.argument('name')\ndef hello(name):\n    print(name)\n\n@cli.command()\n@click.argument('count', type=int)\ndef count(count):\n    print(count)\n\nif __name__ == '__main__':\n    cli()\n";
        // The best run took `hello`; `count`'s body (line 15) stayed uncovered.
        evolve(&super::CliCommands, src, &[1, 3, 7, 9, 10, 13, 14, 17, 18], expect![[r#"
            ## 1
            import sys


            name = 'Ada'
            count_count = 3


            sys.argv[1:] = ['count', str(count_count)]
        "#]]);
    }
}
