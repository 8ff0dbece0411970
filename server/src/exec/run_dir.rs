//! Where a run's files go inside its run directory. Pure.
//!
//! A fragment may read files above its own folder (`open('../data/x.csv')`).
//! The run directory stays the root of everything a run's files may be
//! written to; the program then runs that many folders below it
//! (`<run>/w/w/program.py` for paths going up two levels), so `..` from the
//! program's folder still lands inside the run directory. Every resource
//! path is normalised here, lexically, into a path relative to the run
//! directory with no `..` at all: the worker never sees one, and writes into
//! a directory it has just created (no symlink a run made can be there).

use super::types::{resource_path_problem, ExecError, Resource};

/// How many folders above the program's own a resource path may reach.
pub const MAX_UP_LEVELS: usize = 3;

/// The name of each folder the program runs nested in.
const NEST: &str = "w";

/// A path relative to the program's folder, normalised: how many levels it
/// first goes up, then the folders and file below that. `a/../../x` is one
/// level up and `x`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpPath {
    pub up: usize,
    pub parts: Vec<String>,
}

/// Why a path the program names relative to its own folder cannot be made
/// inside the run directory: what [`resource_path_problem`] says of the path
/// with its leading `..` taken off, or going up more than [`MAX_UP_LEVELS`].
pub fn run_path_problem(p: &str) -> Option<&'static str> {
    match normalise(p) {
        Ok(_) => None,
        Err(why) => Some(why),
    }
}

/// `p` normalised, or why it cannot be.
pub fn normalise(p: &str) -> Result<UpPath, &'static str> {
    // The checks on names, lengths, depth and absolute paths, on the path
    // as written with its `..` steps folded away below.
    if p.starts_with('/') || super::types::is_windows_absolute(p) {
        return Err("absolute");
    }
    let mut up = 0;
    let mut parts: Vec<String> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    up += 1;
                }
            }
            other => parts.push(other.to_string()),
        }
    }
    if up > MAX_UP_LEVELS {
        return Err("goes up more than 3 folders from the program's");
    }
    let below = parts.join("/");
    if let Some(why) = resource_path_problem(&below) {
        return Err(why);
    }
    // Folded in place (`a/../b`), a `..` still says where the author meant
    // to go; written with backslashes it is refused by the check above.
    Ok(UpPath { up, parts })
}

/// The run directory's layout for a run's resources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The program's folder relative to the run directory (`w/w`), empty
    /// when no resource goes up.
    pub workdir: String,
    /// The resources with paths relative to the run directory.
    pub resources: Vec<Resource>,
}

/// Lay out `resources` (paths relative to the program's folder): nested as
/// deep as the highest-reaching path needs, every path rebased onto the run
/// directory. Any path that cannot be made inside it is an error.
pub fn layout(resources: &[Resource]) -> Result<Layout, ExecError> {
    let normal: Vec<UpPath> = resources
        .iter()
        .map(|r| normalise(&r.path).map_err(|_| ExecError::ResourcePath(r.path.clone())))
        .collect::<Result<_, _>>()?;
    let depth = normal.iter().map(|n| n.up).max().unwrap_or(0);
    let workdir = vec![NEST; depth].join("/");
    let resources = resources
        .iter()
        .zip(&normal)
        .map(|(r, n)| {
            // `depth - up` nest folders stay above the file: `..` from `w/w`
            // is `w`.
            let mut parts: Vec<&str> = vec![NEST; depth - n.up];
            parts.extend(n.parts.iter().map(String::as_str));
            Resource { path: parts.join("/"), content: r.content.clone() }
        })
        .collect();
    Ok(Layout { workdir, resources })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(path: &str) -> Resource {
        Resource { path: path.into(), content: b"x".to_vec() }
    }

    fn paths(l: &Layout) -> Vec<&str> {
        l.resources.iter().map(|r| r.path.as_str()).collect()
    }

    #[test]
    fn paths_going_up_are_normalised_and_capped() {
        assert_eq!(normalise("../data/x.csv"), Ok(UpPath { up: 1, parts: vec!["data".into(), "x.csv".into()] }));
        assert_eq!(normalise("./a/../../q.json").map(|u| u.up), Ok(1));
        assert_eq!(normalise("a/b/../../c").map(|u| (u.up, u.parts)), Ok((0, vec!["c".to_string()])));
        assert_eq!(normalise("../../../x").map(|u| u.up), Ok(3));
        for bad in ["../../../../etc/passwd", "a/../../../../..", "../../../../../x", "/etc/passwd", "../", "..", "a/..", "..\\..\\x", "C:/x", "../x\0y"] {
            assert!(normalise(bad).is_err(), "{bad:?}");
            assert!(run_path_problem(bad).is_some(), "{bad:?}");
        }
        assert_eq!(run_path_problem("../../../../etc/passwd"), Some("goes up more than 3 folders from the program's"));
    }

    #[test]
    fn the_program_runs_as_deep_as_the_highest_path_needs() {
        let flat = layout(&[res("a.csv"), res("d/b.txt")]).unwrap();
        assert_eq!(flat.workdir, "");
        assert_eq!(paths(&flat), vec!["a.csv", "d/b.txt"]);

        let deep = layout(&[res("a.csv"), res("../data/x.csv"), res("../../q.json"), res("sub/../../up.txt")]).unwrap();
        assert_eq!(deep.workdir, "w/w");
        assert_eq!(paths(&deep), vec!["w/w/a.csv", "w/data/x.csv", "q.json", "w/up.txt"]);
        // Every rebased path is one the worker accepts: no `..` crosses.
        assert!(deep.resources.iter().all(|r| resource_path_problem(&r.path).is_none()));
    }

    #[test]
    fn one_path_that_escapes_refuses_the_run() {
        assert!(matches!(layout(&[res("a.csv"), res("../../../../etc/passwd")]), Err(ExecError::ResourcePath(p)) if p == "../../../../etc/passwd"));
        assert!(layout(&[res("/etc/passwd")]).is_err());
    }
}
