//! Optional dependencies a library asks for at run time, pure.
//!
//! Libraries import some of their dependencies only when a feature needs
//! them: `df.style` wants Jinja2, `read_html` lxml, `to_parquet` pyarrow,
//! `interpolate(method="spline")` scipy. Their error says which, in one of a
//! few phrasings. When it is raised inside a library of the knowledge table
//! and names a distribution that table knows, that distribution is worth
//! adding to the environment (only with `--install`, like every install).

use crate::exec::ExceptionInfo;
use crate::knowledge::{self, normalize_distribution};
use std::collections::BTreeSet;

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
    "requires ",
    "Import ",
    "No module named '",
    "tried using: '",
    "Please install ",
    "please install ",
];
/// Phrasings whose name comes first (`lxml not found, please install it`).
const TRAILING: &[&str] = &[" not found, please install it", " is required for", " must be installed"];

/// The distribution `exception` asks for, when a library (not the program)
/// raised it, the table knows the name, and the environment (holding
/// `distributions`) lacks it.
pub fn optional_dependency(exception: &ExceptionInfo, distributions: &BTreeSet<String>, stdlib: &BTreeSet<String>) -> Option<OptionalDependency> {
    let raised_in = exception.raised_in.as_deref()?;
    let top = raised_in.split('.').next().unwrap_or(raised_in);
    if top == "__main__" || stdlib.contains(top) {
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

    fn ask(e: &ExceptionInfo, env: &[&str]) -> Option<String> {
        let stdlib: BTreeSet<String> = ["os", "importlib"].into_iter().map(String::from).collect();
        let dists: BTreeSet<String> = env.iter().map(|s| s.to_string()).collect();
        optional_dependency(e, &dists, &stdlib).map(|d| d.distribution)
    }

    #[test]
    fn the_phrasings_libraries_use_name_the_distribution() {
        let style = exc("AttributeError", "The '.style' accessor requires jinja2", Some("pandas.core.frame"));
        assert_eq!(ask(&style, &["pandas"]).as_deref(), Some("Jinja2"));
        let pandas = exc("ImportError", "Missing optional dependency 'Jinja2'.  Use pip or conda to install Jinja2.", Some("pandas.compat._optional"));
        assert_eq!(ask(&pandas, &["pandas"]).as_deref(), Some("Jinja2"));
        let html = exc("ImportError", "lxml not found, please install it", Some("pandas.io.html"));
        assert_eq!(ask(&html, &["pandas"]).as_deref(), Some("lxml"));
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
