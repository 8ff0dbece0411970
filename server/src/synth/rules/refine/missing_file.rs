//! `FileNotFoundError` / `IsADirectoryError` naming a path: that file,
//! with contents the fragment's reader of it accepts (`resources::file_for`:
//! an archive, a pickle or an array where the reader takes one).

use crate::synth::prefix::Prefix;
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
        let how = ctx.analysis.files.iter().find(|f| &f.path == path).map(|f| f.how.as_str()).unwrap_or("open");
        let Some(r) = crate::synth::resources::file_for(ctx.analysis, path, how) else { return Vec::new() };
        let mut p = fail.base.clone();
        p.add_resource(r);
        vec![p]
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
}
