//! Files the fragment reads by a literal path exist, with contents its
//! reader accepts (`resources::file_for`: text by extension; a zip, tar,
//! gzip, pickle or NumPy file where the callee or the extension says so,
//! shaped by what the fragment reads of it); a folder it lists holds files
//! matching the glob patterns it names. Paths may go up (`../data/x.csv`):
//! the run directory is nested for them (`exec::run_dir`).

use crate::synth::literals::{glob_patterns, suffix_patterns};
use crate::synth::prefix::Prefix;
use crate::synth::resources::{directory_for, file_for, file_matching};
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
            // A pattern is never a file's name: a file it matches is made.
            if file.path.contains(['*', '?', '[']) {
                if let Some(r) = file_matching(ctx.analysis, &file.path) {
                    p.add_resource(r);
                }
                continue;
            }
            let last = file.path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            if ["listdir", "walk", "scandir", "glob", "iglob", "rglob", "iterdir"].contains(&file.how.as_str()) && !last.contains('.') {
                for r in directory_for(&file.path, &patterns) {
                    p.add_resource(r);
                }
            } else if let Some(r) = file_for(ctx.analysis, &file.path, &file.how) {
                p.add_resource(r);
            }
        }
        // A folder the fragment walks or lists through a name (`os.walk(base)`,
        // which the prefix gives the run's own folder): it holds files
        // with the suffixes the fragment looks for, one level down too.
        let lists = |f: &&crate::analysis::FreeName| f.usage.passed_to.iter().any(|a| LISTS_A_FOLDER.contains(&a.callee.as_str()) && a.position == Some(0));
        if ctx.analysis.free_names.iter().any(|f| lists(&f)) {
            let mut wanted = patterns.clone();
            wanted.extend(suffix_patterns(ctx.fragment));
            for r in directory_for(".", &wanted) {
                p.add_resource(r);
            }
        }
        vec![p]
    }
}

/// Functions that list the folder they are given.
const LISTS_A_FOLDER: &[&str] = &["os.walk", "os.listdir", "os.scandir", "walk", "listdir", "scandir"];

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

    #[test]
    fn a_folder_walked_through_a_name_holds_files_with_the_suffixes_looked_for() {
        initial(&super::ReadFiles, "import os\nfor root, dirs, files in os.walk(base):\n    for f in files:\n        if f.endswith('.log'):\n            print(os.path.join(root, f))\n", expect![[r#"
            ## 1
            -- file example.log --
            -- file nested/example.log --
        "#]]);
    }

    #[test]
    fn a_globbed_file_matches_the_pattern() {
        initial(&super::ReadFiles, "import os\nfrom pathlib import Path\nfor p in Path(str(os.getcwd())).glob('*_start.txt'):\n    print(p.read_text())\n", expect![[r#"
            ## 1
            -- file example_start.txt --
        "#]]);
    }

    #[test]
    fn binary_files_are_made_in_the_format_their_reader_takes() {
        initial(&super::ReadFiles, "import gzip, pickle, zipfile\nwith gzip.open('log.txt.gz', 'rt') as g:\n    print(g.read())\nd = pickle.load(open('model.dat', 'rb'))\nprint(d['weights'])\nzipfile.ZipFile('bundle.zip').extractall('.')\nprint(open('../data/x.csv').read())\n", expect![[r#"
            ## 1
            -- file log.txt.gz --
            -- file model.dat --
            -- file bundle.zip --
            -- file ../data/x.csv --
        "#]]);
    }
}
