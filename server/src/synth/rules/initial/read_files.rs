//! Files the fragment reads by a literal path exist, with contents its
//! reader accepts (`resources::resource_for`); a folder it lists holds
//! files matching the glob patterns it names.

use crate::synth::literals::glob_patterns;
use crate::synth::prefix::Prefix;
use crate::synth::resources::{directory_for, resource_for};
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct ReadFiles;

impl Rule for ReadFiles {
    fn name(&self) -> &'static str {
        "read-files"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        let mut p = so_far.clone();
        let patterns = glob_patterns(ctx.fragment);
        for file in &ctx.analysis.files {
            if file.writes {
                continue;
            }
            let last = file.path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            if ["listdir", "walk", "scandir", "glob", "iglob", "rglob", "iterdir"].contains(&file.how.as_str()) && !last.contains('.') {
                for r in directory_for(&file.path, &patterns) {
                    p.add_resource(r);
                }
            } else if let Some(r) = resource_for(&file.path, &file.how) {
                p.add_resource(r);
            }
        }
        vec![p]
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_file_read_by_a_literal_path_exists() {
        initial(&super::ReadFiles, "with open('notes.txt') as f:\n    print(f.read())\n", expect![[r#"
            ## 1
            -- file notes.txt --
        "#]]);
    }
}
