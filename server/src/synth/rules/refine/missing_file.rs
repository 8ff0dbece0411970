//! `FileNotFoundError` / `IsADirectoryError` naming a path: that file,
//! with contents the fragment's reader of it accepts (`resources::file_for`:
//! an archive, a pickle or an array where the reader takes one), also
//! where the fragment reads it through a name the prefix gave that path.

use crate::synth::prefix::{Binding, Prefix};
use crate::synth::resources;
use crate::synth::value::Value;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct MissingFile;

impl Rule for MissingFile {
    fn name(&self) -> &'static str {
        "missing-file"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| (fail.is("FileNotFoundError") || fail.is("IsADirectoryError")) && fail.error.path.is_some())
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let Some(path) = &fail.error.path else { return Vec::new() };
        let literal = ctx.analysis.files.iter().find(|f| &f.path == path);
        // Read through a name the prefix gave this path (`open(settings_file)`):
        // shaped by how the fragment reads it there.
        let through_name = || {
            fail.names_on_line
                .iter()
                .filter(|n| matches!(fail.base.binding(n).and_then(Binding::value), Some(Value::Str(s)) if s == path))
                .find_map(|n| resources::file_through_name(ctx.analysis, n, path))
        };
        let made = match literal {
            Some(f) => resources::file_for(ctx.analysis, path, &f.how),
            None => through_name().or_else(|| resources::file_for(ctx.analysis, path, "open")),
        };
        made.map(|r| fail.with_resource(r)).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::exec::ExceptionInfo;
    use expect_test::expect;

    #[test]
    fn the_named_file_is_created() {
        refine(&super::MissingFile, "with open(path) as f:\n    print(f.read())\n", ExceptionInfo { path: Some("settings.ini".into()), ..raised("FileNotFoundError", r#"[Errno 2] No such file or directory: 'settings.ini'"#, 1) }, expect![[r#"
            ## 1
            path = 'data.txt'
            -- file settings.ini --
        "#]]);
    }

    #[test]
    fn a_file_read_through_a_name_is_shaped_by_that_read() {
        // The path is the prefix's value for a parameter; `json.load` of it
        // needs JSON whatever the name ends in.
        let src = "def load(settings_file):\n    with open(settings_file) as fp:\n        return json.load(fp)\n";
        refine(&super::MissingFile, src, ExceptionInfo { path: Some("settings_file.txt".into()), ..raised("FileNotFoundError", r#"[Errno 2] No such file or directory: 'settings_file.txt'"#, 2) }, expect![[r#"
            ## 1
            import json


            settings_file = 'settings_file.txt'
            -- driver --
            load(settings_file)
            -- file settings_file.txt --
        "#]]);
    }
}
