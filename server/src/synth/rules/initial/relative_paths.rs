//! Relative paths the fragment writes as literals (`"./data"`) exist: the
//! folder is created with files matching the glob patterns and extensions
//! the fragment names.

use crate::synth::literals::{extension_literals, glob_patterns, relative_path_literals};
use crate::synth::prefix::Prefix;
use crate::synth::resources::files_at;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct RelativePaths;

impl Rule for RelativePaths {
    fn name(&self) -> &'static str {
        "relative-paths"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        let mut p = so_far.clone();
        let a = ctx.analysis;
        let patterns = glob_patterns(ctx.fragment);
        for path in relative_path_literals(ctx.fragment).into_iter().chain(up_path_literals(ctx.fragment)) {
            if a.files.iter().any(|f| f.path == path) {
                continue;
            }
            let mut pats = patterns.clone();
            pats.extend(extension_literals(ctx.fragment).into_iter().map(|e| format!("*{e}")));
            for r in files_at(&path, &pats) {
                p.add_resource(r);
            }
        }
        vec![p]
    }
}

/// String literals that go up from the fragment's folder (`'../data'`,
/// `'../../q.json'`): the run directory is nested so that they stay inside
/// it (`exec::run_dir`); `files_at` refuses any that would not.
fn up_path_literals(fragment: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in crate::analysis::tokens::string_literals(fragment) {
        let v = l.value;
        let plain = v.len() < 60 && !v.contains([' ', '*', '{', '%', '\\']);
        if plain && v.starts_with("../") && v.len() > 3 && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_relative_folder_literal_is_created_with_matching_files() {
        initial(&super::RelativePaths, "folder = './samples'\nfor f in glob.glob(folder + '/*.csv'):\n    print(f)\n", expect![[r#"
            ## 1
            -- file samples/example.txt --
            -- file samples/nested/example.txt --
        "#]]);
    }

    #[test]
    fn a_folder_above_is_created_inside_the_run_directory() {
        initial(&super::RelativePaths, "base = '../data'\nprint(os.listdir(base))\ncfg = '../../settings.ini'\n", expect![[r#"
            ## 1
            -- file ../../settings.ini --
        "#]]);
    }
}
