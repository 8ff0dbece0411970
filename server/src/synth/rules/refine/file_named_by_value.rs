//! `FileNotFoundError` without a path: the path is a string of the prefix
//! that the failing line reads; that file is created.

use crate::synth::prefix::Binding;
use crate::synth::resources::resource_for;
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
    fn propose(&self, _ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let base = fail.base;
        let names_on_line = &fail.names_on_line;
        let mut out = Vec::new();
        // The path is in a synthesised string the line reads.
        for n in names_on_line {
            if let Some(Value::Str(path)) = base.binding(n).and_then(Binding::value) {
                if let Some(r) = resource_for(path, "open") {
                    let mut p = base.clone();
                    p.add_resource(r);
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
    fn the_file_a_prefix_string_names_is_created() {
        refine(&super::FileNamedByValue, "with open(config_path) as f:\n    print(f.read())\n", raised("FileNotFoundError", r#"[Errno 2] No such file or directory"#, 1), expect![[r#"
            ## 1
            config_path = 'config.txt'
            -- file config.txt --
        "#]]);
    }
}
