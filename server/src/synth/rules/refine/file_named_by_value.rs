//! `FileNotFoundError` without a path: the path is a string of the prefix
//! that the failing line reads; that file is created.

use crate::synth::prefix::Binding;
use crate::synth::resources;
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct FileNamedByValue;

impl Rule for FileNamedByValue {
    fn name(&self) -> &'static str {
        "file-named-by-value"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is("FileNotFoundError") && fail.error.path.is_none())
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        // The path is in a synthesised string the line reads; the file is
        // shaped by how the fragment reads it through that name
        // (`np.loadtxt(fname, delimiter=',')`: numbers, comma-separated).
        let paths = fail.names_on_line.iter().filter_map(|n| match fail.base.binding(n).and_then(Binding::value) {
            Some(Value::Str(path)) => Some((n, path)),
            _ => None,
        });
        paths
            .filter_map(|(n, path)| resources::file_through_name(ctx.analysis, n, path).or_else(|| resources::resource_for(path, "open")))
            .map(|r| fail.with_resource(r))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn the_file_a_prefix_string_names_is_created() {
        refine(&super::FileNamedByValue, "with open(config_path) as f:\n    print(f.read())\n", raised("FileNotFoundError", r#"[Errno 2] No such file or directory"#, 1), expect![[r#"
            ## 1
            config_path = 'config.txt'
            -- file config.txt --
        "#]]);
    }

    #[test]
    fn a_file_read_through_the_name_is_shaped_by_that_read() {
        refine(&super::FileNamedByValue, "import numpy as np\narr = np.loadtxt(fname, delimiter=',')\n", raised("FileNotFoundError", "data.txt not found.", 2), expect![[r#"
            ## 1
            fname = 'data.txt'
            -- file data.txt --
        "#]]);
    }
}
