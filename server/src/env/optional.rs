//! Optional dependencies a library asks for at run time, pure.
//!
//! Libraries import some of their dependencies only when a feature needs
//! them: `df.style` wants Jinja2, `read_html` lxml, `to_parquet` pyarrow,
//! `interpolate(method="spline")` scipy. Their error says which, in one of a
//! few phrasings. When it is raised inside a library of the knowledge table
//! and names a distribution that table knows, that distribution is worth
//! adding to the environment (only with `--install`, like every install).
//!
//! "Raised inside a library" is not the run's word for it (the fragment can
//! raise that message itself and name any module): the innermost frame's
//! file must be a real file of the venv's site-packages (checked by
//! [`crate::env::Environment::site_relative`]) inside the top-level package
//! of the module the run names.

use crate::exec::ExceptionInfo;
use crate::knowledge::{self, normalize_distribution};
use std::collections::BTreeSet;
use std::path::Path;

/// A distribution to add, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionalDependency {
    pub distribution: String,
    /// The library that asked for it.
    pub library: String,
    /// One line: the error that asked.
    pub reason: String,
}

/// Phrasings that name the missing module: the text between `before` and the
/// first character after it that cannot be part of a name.
const PHRASES: &[&str] = &[
    "Missing optional dependency '",
    "requires the ",
    "requires ",
    "Import ",
    "No module named '",
    "tried using: '",
    "Please install ",
    "please install ",
    "pip install ",
    // BeautifulSoup: "Couldn't find a tree builder with the features you requested: lxml."
    "features you requested: ",
];
/// Phrasings whose name comes first (`lxml not found, please install it`).
const TRAILING: &[&str] = &[" not found, please install it", " is required for", " must be installed"];

/// The distribution `exception` asks for, when a library (not the program)
/// raised it, the table knows the name, and the environment (holding
/// `distributions`) lacks it. `frame` is the raising frame's file relative
/// to the venv's site-packages (`pandas/compat/_optional.py`): it must lie
/// in the top-level package of the module the run says raised it.
pub fn optional_dependency(exception: &ExceptionInfo, frame: &Path, distributions: &BTreeSet<String>, stdlib: &BTreeSet<String>) -> Option<OptionalDependency> {
    let raised_in = exception.raised_in.as_deref()?;
    let top = raised_in.split('.').next().unwrap_or(raised_in);
    if top == "__main__" || stdlib.contains(top) || frame_package(frame) != Some(top) {
        return None;
    }
    let library = knowledge::distribution_for(raised_in)?;
    let first_line = exception.message.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let mut names: Vec<&str> = Vec::new();
    if exception.type_name == "ModuleNotFoundError" {
        names.extend(exception.module.as_deref());
    }
    for phrase in PHRASES {
        for (at, _) in first_line.match_indices(phrase) {
            names.push(name_at(&first_line[at + phrase.len()..]));
        }
    }
    for phrase in TRAILING {
        if let Some(at) = first_line.find(phrase) {
            names.push(name_before(&first_line[..at]));
        }
    }
    let have: BTreeSet<String> = distributions.iter().map(|d| normalize_distribution(d)).collect();
    names.into_iter().filter(|n| !n.is_empty()).find_map(|name| {
        let dist = known_distribution(name)?;
        let key = normalize_distribution(dist);
        (key != normalize_distribution(library) && !have.contains(&key)).then(|| OptionalDependency {
            distribution: dist.to_string(),
            library: library.to_string(),
            reason: format!("{}: {first_line}", exception.type_name),
        })
    })
}

/// The top-level module a file of site-packages belongs to: its first
/// component without extension (`pandas/core/frame.py` -> `pandas`,
/// `six.py` -> `six`, `_cffi_backend.cpython-311-x86_64-linux-gnu.so` ->
/// `_cffi_backend`).
fn frame_package(frame: &Path) -> Option<&str> {
    let mut components = frame.components();
    let first = match components.next()? {
        std::path::Component::Normal(name) => name.to_str()?,
        _ => return None,
    };
    let is_file = components.next().is_none();
    let name = if is_file { first.split('.').next()? } else { first };
    (!name.is_empty()).then_some(name)
}

/// The distribution `name` stands for: an import path (`jinja2`,
/// `scipy.interpolate`) or a distribution's own name (`Jinja2`).
fn known_distribution(name: &str) -> Option<&'static str> {
    let top = name.split('.').next().unwrap_or(name);
    if let Some(d) = knowledge::distribution_for(name).or_else(|| knowledge::distribution_for(&top.to_lowercase())) {
        return Some(d);
    }
    let wanted = normalize_distribution(top);
    knowledge::import_table().values().copied().find(|d| normalize_distribution(d) == wanted)
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.' || c == '-'
}

fn name_at(text: &str) -> &str {
    let text = text.trim_start_matches(['\'', '"', '`']);
    let end = text.find(|c: char| !is_name_char(c)).unwrap_or(text.len());
    text[..end].trim_end_matches('.')
}

fn name_before(text: &str) -> &str {
    let text = text.trim_end_matches(['\'', '"', '`']);
    let start = text.rfind(|c: char| !is_name_char(c)).map_or(0, |i| i + 1);
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exc(type_name: &str, message: &str, raised_in: Option<&str>) -> ExceptionInfo {
        ExceptionInfo { type_name: type_name.into(), message: message.into(), raised_in: raised_in.map(String::from), ..Default::default() }
    }

    /// Asked from the file of the module that raised it.
    fn ask(e: &ExceptionInfo, env: &[&str]) -> Option<String> {
        let file = e.raised_in.as_deref().map(|m| m.replace('.', "/") + ".py").unwrap_or_default();
        ask_from(e, &file, env)
    }

    fn ask_from(e: &ExceptionInfo, frame: &str, env: &[&str]) -> Option<String> {
        let stdlib: BTreeSet<String> = ["os", "importlib"].into_iter().map(String::from).collect();
        let dists: BTreeSet<String> = env.iter().map(|s| s.to_string()).collect();
        optional_dependency(e, Path::new(frame), &dists, &stdlib).map(|d| d.distribution)
    }

    #[test]
    fn the_raising_file_must_be_the_named_librarys() {
        let forged = exc("ImportError", "Missing optional dependency 'openpyxl'.", Some("pandas.compat._optional"));
        assert_eq!(ask_from(&forged, "pandas/compat/_optional.py", &["pandas"]).as_deref(), Some("openpyxl"));
        // A module name that the file does not back up asks for nothing.
        assert_eq!(ask_from(&forged, "numpy/core/_methods.py", &["pandas"]), None);
        assert_eq!(ask_from(&forged, "pandas_fake.py", &["pandas"]), None);
        assert_eq!(ask_from(&forged, "", &["pandas"]), None);
        assert_eq!(ask_from(&forged, "../pandas/x.py", &["pandas"]), None);
        // Single-module distributions and extension modules are files at the top.
        let six = exc("ImportError", "Missing optional dependency 'openpyxl'.", Some("six"));
        assert_eq!(ask_from(&six, "six.py", &["six"]).as_deref(), Some("openpyxl"));
        assert_eq!(frame_package(Path::new("_cffi_backend.cpython-311-x86_64-linux-gnu.so")), Some("_cffi_backend"));
    }

    #[test]
    fn the_phrasings_libraries_use_name_the_distribution() {
        let style = exc("AttributeError", "The '.style' accessor requires jinja2", Some("pandas.core.frame"));
        assert_eq!(ask(&style, &["pandas"]).as_deref(), Some("Jinja2"));
        let pandas = exc("ImportError", "Missing optional dependency 'Jinja2'.  Use pip or conda to install Jinja2.", Some("pandas.compat._optional"));
        assert_eq!(ask(&pandas, &["pandas"]).as_deref(), Some("Jinja2"));
        let html = exc("ImportError", "lxml not found, please install it", Some("pandas.io.html"));
        assert_eq!(ask(&html, &["pandas"]).as_deref(), Some("lxml"));
        let form = exc("RuntimeError", "Form data requires \"python-multipart\" to be installed. \nYou can install \"python-multipart\" with: \n\npip install python-multipart", Some("fastapi.dependencies.utils"));
        assert_eq!(ask(&form, &["fastapi"]).as_deref(), Some("python-multipart"));
        let client = exc("RuntimeError", "The starlette.testclient module requires the httpx2 package to be installed.\nYou can install this with:\n    $ pip install httpx2\n", Some("starlette.testclient"));
        assert_eq!(ask(&client, &["fastapi", "starlette"]).as_deref(), Some("httpx2"));
        let soup = exc("bs4.exceptions.FeatureNotFound", "Couldn't find a tree builder with the features you requested: lxml. Do you need to install a parser library?", Some("bs4"));
        assert_eq!(ask(&soup, &["beautifulsoup4"]).as_deref(), Some("lxml"));
        let pip = exc("ImportError", "This feature needs extra parts: pip install openpyxl", Some("pandas.io.excel"));
        assert_eq!(ask(&pip, &["pandas"]).as_deref(), Some("openpyxl"));
        let mut lazy = exc("ModuleNotFoundError", "No module named 'scipy'", Some("pandas.core.missing"));
        lazy.module = Some("scipy".into());
        assert_eq!(ask(&lazy, &["pandas", "numpy"]).as_deref(), Some("scipy"));
    }

    #[test]
    fn only_a_library_asking_for_an_absent_known_distribution_counts() {
        // The program's own import is planned before the search, not here.
        let own = exc("ModuleNotFoundError", "No module named 'scipy'", None);
        assert_eq!(ask(&own, &["pandas"]), None);
        let main = exc("ImportError", "Missing optional dependency 'Jinja2'.", Some("__main__"));
        assert_eq!(ask(&main, &["pandas"]), None);
        let stdlib = exc("ModuleNotFoundError", "No module named 'scipy'", Some("importlib"));
        assert_eq!(ask(&stdlib, &["pandas"]), None);
        // Already there, or unknown to the table: nothing to add.
        let present = exc("AttributeError", "The '.style' accessor requires jinja2", Some("pandas.core.frame"));
        assert_eq!(ask(&present, &["pandas", "jinja2"]), None);
        let unknown = exc("ImportError", "Missing optional dependency 'frobnicate'.", Some("pandas.compat._optional"));
        assert_eq!(ask(&unknown, &["pandas"]), None);
    }
}
