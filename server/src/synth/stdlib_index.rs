//! Names exactly one standard-library module exports, introspected from the
//! interpreter by `scripts/gen-stdlib-index` (`data/stdlib_index.txt`), and
//! whether a fragment's bare use of one fits what it is. Pure.
//!
//! Snippets use `tee(it)`, `rmtree(path)`, `EACCES` and `ZipFile(...)`
//! with their import line cut off. Where only one module has the name, its
//! import is the real thing; the fragment's use must still fit the object's
//! kind and signature, because a lowercase name (`mode`, `node`) is as
//! often the fragment's own helper.

use super::knowledge::lines;
use crate::analysis::Usage;
use std::collections::HashMap;
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Class,
    Function,
    Constant,
}

#[derive(Debug, Clone)]
struct Export {
    module: &'static str,
    kind: Kind,
    /// Positional arguments a call may pass: at least, at most (`None`: any).
    arity: Option<(usize, Option<usize>)>,
    /// The positional parameters' names, in order; a last `*args` keeps
    /// its star.
    params: Vec<&'static str>,
    /// The keyword-only parameters' names.
    keywords: Vec<&'static str>,
    /// It takes `**kwargs`: any keyword.
    any_keyword: bool,
}

impl Export {
    /// Whether a call may pass keyword `k`.
    fn takes_keyword(&self, k: &str) -> bool {
        self.any_keyword || self.keywords.contains(&k) || self.params.iter().any(|p| *p == k)
    }
}

fn index() -> &'static HashMap<&'static str, Export> {
    static I: OnceLock<HashMap<&'static str, Export>> = OnceLock::new();
    I.get_or_init(|| {
        lines(include_str!("data/stdlib_index.txt"))
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                let (name, module) = (w.next()?, w.next()?);
                let kind = match w.next()? {
                    "c" => Kind::Class,
                    "f" => Kind::Function,
                    "k" => Kind::Constant,
                    _ => return None,
                };
                let arity = match (w.next(), w.next()) {
                    (Some(lo), Some(hi)) => Some((lo.parse().ok()?, if hi == "*" { None } else { Some(hi.parse().ok()?) })),
                    _ => None,
                };
                let (mut params, mut keywords, mut any_keyword) = (Vec::new(), Vec::new(), false);
                for t in w {
                    if t.starts_with("**") {
                        any_keyword = true;
                    } else if let Some(k) = t.strip_suffix('=') {
                        keywords.push(k);
                    } else {
                        params.push(t);
                    }
                }
                Some((name, Export { module, kind, arity, params, keywords, any_keyword }))
            })
            .collect()
    })
}

/// Whether the index has `name` (one standard-library module exports it).
pub fn has(name: &str) -> bool {
    index().contains_key(name)
}

/// The import of a bare name only one standard-library module exports,
/// when the fragment uses it as what it is: a class called (or raised,
/// subclassed, used through its members) with a capitalised name; a
/// function called with argument counts and keywords its signature takes
/// (`echo(message, err=True)` is not `curses.echo(flag)`); a constant
/// named like one (`EACCES`, never `e` or `A`).
pub fn import_for(name: &str, usage: &Usage) -> Option<String> {
    let e = index().get(name)?;
    let calls_fit = || {
        !usage.calls.is_empty()
            && usage.calls.iter().all(|c| match e.arity {
                _ if c.star_args => true,
                Some((lo, hi)) => {
                    c.positional >= lo.saturating_sub(c.keywords.len())
                        && hi.is_none_or(|hi| c.positional <= hi)
                        && c.keywords.iter().all(|k| e.takes_keyword(k))
                }
                None => true,
            })
    };
    let fits = match e.kind {
        Kind::Class => name.starts_with(char::is_uppercase) && (calls_fit() || usage.raised || usage.subclassed || (!usage.attrs.is_empty() && usage.calls.is_empty())),
        Kind::Function => calls_fit() && usage.attrs.is_empty(),
        Kind::Constant => {
            name.len() >= 3 && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') && usage.calls.is_empty()
        }
    };
    fits.then(|| format!("from {} import {name}", e.module))
}

/// Whether `name` is a standard-library function the fragment uses as
/// what it is (`import_for` would import it): a hand-written function bound
/// to it stands in for that function.
pub fn is_function_used_as_such(name: &str, usage: &Usage) -> bool {
    index().get(name).is_some_and(|e| e.kind == Kind::Function) && import_for(name, usage).is_some()
}

/// The name of the parameter an argument at `position` binds, in the
/// signature of standard-library callable `callee` (bare, `tee`, or through
/// its module, `itertools.tee`): what the library itself calls it.
/// A keyword argument binds the parameter of its name, when it has one.
pub fn parameter_name(callee: &str, position: Option<usize>, keyword: Option<&str>) -> Option<&'static str> {
    let (module, name) = match callee.rsplit_once('.') {
        Some((m, n)) => (Some(m), n),
        None => (None, callee),
    };
    let e = index().get(name)?;
    if module.is_some_and(|m| m != e.module) {
        return None;
    }
    if let Some(k) = keyword {
        return e.params.iter().chain(&e.keywords).copied().find(|p| *p == k);
    }
    match e.params.get(position?) {
        Some(p) => Some(p.trim_start_matches('*')),
        None => e.params.last().and_then(|p| p.strip_prefix('*')),
    }
}

/// Whether the name tells by itself that it is not the fragment's own: a
/// class (`ZipFile`) or a constant (`EACCES`), never a lowercase function.
pub fn is_distinctive(name: &str) -> bool {
    name.starts_with(char::is_uppercase)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::CallShape;

    fn called(positional: usize) -> Usage {
        Usage { calls: vec![CallShape { positional, keywords: vec![], star_args: false }], ..Default::default() }
    }

    #[test]
    fn a_parameter_is_named_as_the_library_names_it() {
        assert_eq!(parameter_name("tee", Some(0), None), Some("iterable"));
        assert_eq!(parameter_name("itertools.tee", Some(1), None), Some("n"));
        assert_eq!(parameter_name("textwrap.fill", None, Some("width")), Some("width"));
        assert_eq!(parameter_name("textwrap.fill", None, Some("colour")), None, "not one of its parameters");
        assert_eq!(parameter_name("shlex.tee", Some(0), None), None, "another module's name");
        assert_eq!(parameter_name("tee", Some(5), None), None, "past its parameters");
    }

    #[test]
    fn a_name_one_module_exports_is_imported_when_used_as_it_is() {
        assert_eq!(import_for("tee", &called(1)).as_deref(), Some("from itertools import tee"));
        assert_eq!(import_for("rmtree", &called(1)).as_deref(), Some("from shutil import rmtree"));
        assert_eq!(import_for("EACCES", &Usage::default()).as_deref(), Some("from errno import EACCES"));
        assert_eq!(import_for("ZipFile", &called(2)).as_deref(), Some("from zipfile import ZipFile"));
    }

    #[test]
    fn a_use_that_does_not_fit_the_object_is_left_to_the_other_rules() {
        // `tee` takes one or two positional arguments, not four.
        assert_eq!(import_for("tee", &called(4)), None);
        // Not called: a value of the fragment's own.
        assert_eq!(import_for("rmtree", &Usage::default()), None);
        // One-letter constants (`re.A`) are as likely the fragment's own.
        assert_eq!(import_for("A", &Usage::default()), None);
        // Names two modules export differently (`os.path.join`, `shlex.join`).
        assert_eq!(import_for("join", &called(2)), None);
        // Builtins are never in the index.
        assert_eq!(import_for("open", &called(1)), None);
    }

    #[test]
    fn a_keyword_the_signature_lacks_means_another_function() {
        let with = |positional, keywords: &[&str]| Usage {
            calls: vec![CallShape { positional, keywords: keywords.iter().map(|k| k.to_string()).collect(), star_args: false }],
            ..Default::default()
        };
        // `curses.echo(flag=True)` takes no `err`: the fragment's own `echo`.
        assert_eq!(import_for("echo", &with(1, &["err"])), None);
        assert_eq!(import_for("echo", &with(0, &["flag"])).as_deref(), Some("from curses import echo"));
        // Keyword-only parameters are keywords it takes.
        assert_eq!(import_for("rmtree", &with(1, &["dir_fd"])).as_deref(), Some("from shutil import rmtree"));
        assert_eq!(parameter_name("rmtree", None, Some("dir_fd")), Some("dir_fd"));
    }
}
