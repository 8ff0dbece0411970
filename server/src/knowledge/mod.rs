//! Curated knowledge about the Python ecosystem, kept as data.
//!
//! Two tables, each a text file embedded in the binary and parsed once:
//!
//! * `imports.txt`: import path -> PyPI distribution (`cv2` -> `opencv-python`).
//!   [`distribution_for`] matches the longest dotted prefix of an import path.
//! * `aliases.txt`: conventional alias -> the import statement that binds it
//!   (`np` -> `import numpy as np`), see [`conventional_import`].
//! * `legacy.txt`: distribution -> the version constraints of its older
//!   "legacy" environment (`pandas` -> `pandas<2 numpy<1.24`), see
//!   [`legacy_constraints`].
//!
//! Everything here is pure: no I/O, no interpreter.

use std::collections::BTreeMap;
use std::sync::OnceLock;

const IMPORTS_TXT: &str = include_str!("imports.txt");
const ALIASES_TXT: &str = include_str!("aliases.txt");
const LEGACY_TXT: &str = include_str!("legacy.txt");

/// The PyPI distribution that provides `import_path`, matching the longest
/// dotted prefix present in the table: `google.protobuf.json_format` ->
/// `protobuf`, `matplotlib.pyplot` -> `matplotlib`. `None` for names the
/// table does not know (including standard-library modules and relative
/// imports); callers must treat those as unknown rather than guess.
pub fn distribution_for(import_path: &str) -> Option<&'static str> {
    let table = import_table();
    let mut path = import_path.trim();
    loop {
        if let Some(dist) = table.get(path) {
            return Some(dist);
        }
        match path.rfind('.') {
            Some(dot) => path = &path[..dot],
            None => return None,
        }
    }
}

/// The import path the table knows `from module import names` by: the
/// module itself, or for a namespace root it does not list (`from ruamel
/// import yaml`) the first `module.name` it does (`ruamel.yaml`), which is
/// what the statement imports.
pub fn from_import_path<'a>(module: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    if distribution_for(module).is_none() {
        for n in names {
            let path = format!("{module}.{n}");
            if import_table().contains_key(path.as_str()) {
                return path;
            }
        }
    }
    module.to_string()
}

/// The import statement conventionally bound to `alias` (`np` ->
/// `import numpy as np`, `plt` -> `import matplotlib.pyplot as plt`), or
/// `None` when there is no unambiguous convention for that name.
pub fn conventional_import(alias: &str) -> Option<&'static str> {
    alias_table().get(alias).copied()
}

/// The module an alias statement imports: `import matplotlib.pyplot as plt`
/// -> `matplotlib.pyplot`, `from tkinter import ttk` -> `tkinter.ttk`.
/// Handy for planning the installation an alias implies.
pub fn conventional_module(alias: &str) -> Option<String> {
    conventional_import(alias).and_then(statement_module)
}

/// The whole import table, import path -> distribution.
pub fn import_table() -> &'static BTreeMap<&'static str, &'static str> {
    static TABLE: OnceLock<BTreeMap<&'static str, &'static str>> = OnceLock::new();
    TABLE.get_or_init(|| parse_table(IMPORTS_TXT).0.into_iter().collect())
}

/// The whole alias table, alias -> import statement.
pub fn alias_table() -> &'static BTreeMap<&'static str, &'static str> {
    static TABLE: OnceLock<BTreeMap<&'static str, &'static str>> = OnceLock::new();
    TABLE.get_or_init(|| parse_table(ALIASES_TXT).0.into_iter().collect())
}

/// The requirements (`pandas<2`, `numpy<1.24`) of the legacy environment of
/// `distribution` (any spelling: compared in normalised form), empty when the
/// table has no entry for it.
pub fn legacy_constraints(distribution: &str) -> &'static [&'static str] {
    static TABLE: OnceLock<BTreeMap<String, Vec<&'static str>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        parse_table(LEGACY_TXT)
            .0
            .into_iter()
            .map(|(dist, reqs)| (normalize_distribution(dist), reqs.split_whitespace().collect()))
            .collect()
    });
    table.get(&normalize_distribution(distribution)).map(Vec::as_slice).unwrap_or(&[])
}

/// The distribution a simple version requirement constrains: `numpy<1.24` ->
/// `numpy`. `None` unless it is a valid name followed by comparison clauses
/// made only of versions (`<`, `<=`, `>`, `>=`, `==`, `!=`, `~=`, digits, `.`,
/// `*`, `,`): nothing an installer could read as an option, URL or marker.
pub fn requirement_name(requirement: &str) -> Option<&str> {
    let at = requirement.find(['<', '>', '=', '!', '~'])?;
    let (name, spec) = requirement.split_at(at);
    let spec_ok = spec.split(',').all(|clause| {
        let version = clause.trim_start_matches(['<', '>', '=', '!', '~']);
        let op = &clause[..clause.len() - version.len()];
        matches!(op, "<" | "<=" | ">" | ">=" | "==" | "!=" | "~=")
            && !version.is_empty()
            && version.chars().all(|c| c.is_ascii_digit() || c == '.' || c == '*')
    });
    (is_valid_distribution_name(name) && spec_ok).then_some(name)
}

/// Whether `name` is a syntactically valid distribution name (PEP 508:
/// ASCII letters and digits, with `.`, `_` and `-` inside). Anything else is
/// never handed to an installer, so a name can't smuggle in an option.
pub fn is_valid_distribution_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let edge_ok = |b: &u8| b.is_ascii_alphanumeric();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            edge_ok(first)
                && edge_ok(last)
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        }
        _ => false,
    }
}

/// PEP 503 normalised form of a distribution name: lower case, every run of
/// `-`, `_` and `.` replaced by one `-` (`PyYAML` -> `pyyaml`,
/// `discord.py` -> `discord-py`). Two names are the same distribution exactly
/// when their normalised forms are equal.
pub fn normalize_distribution(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_sep = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            if !in_sep {
                out.push('-');
            }
            in_sep = true;
        } else {
            out.extend(c.to_lowercase());
            in_sep = false;
        }
    }
    out
}

/// Parse a `key value...` table: one entry a line, `#` starts a comment, the
/// key is the first whitespace-separated word and the value is the rest of
/// the line, trimmed. Returns the entries in file order and a description
/// of every malformed line (which is skipped, so lookups never panic).
fn parse_table(text: &'static str) -> (Vec<(&'static str, &'static str)>, Vec<String>) {
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = match raw.find('#') {
            Some(hash) => &raw[..hash],
            None => raw,
        }
        .trim();
        if line.is_empty() {
            continue;
        }
        match line.split_once(char::is_whitespace) {
            Some((key, value)) if !value.trim().is_empty() => {
                entries.push((key, value.trim()));
            }
            _ => errors.push(format!(
                "line {}: expected `key value`, got {raw:?}",
                index + 1
            )),
        }
    }
    (entries, errors)
}

/// The dotted module a simple import statement imports.
fn statement_module(statement: &str) -> Option<String> {
    let words: Vec<&str> = statement.split_whitespace().collect();
    match words.as_slice() {
        ["import", module, "as", _] | ["import", module] => Some((*module).to_string()),
        ["from", module, "import", name, "as", _] | ["from", module, "import", name] => {
            Some(format!("{module}.{name}"))
        }
        _ => None,
    }
}

/// The single name a simple import statement binds.
#[cfg(test)]
fn statement_binding(statement: &str) -> Option<&str> {
    let words: Vec<&str> = statement.split_whitespace().collect();
    match words.as_slice() {
        ["import", _, "as", alias] | ["from", _, "import", _, "as", alias] => Some(alias),
        ["from", _, "import", name] => Some(name),
        ["import", module] if !module.contains('.') => Some(module),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn is_dotted_identifier(path: &str) -> bool {
        !path.is_empty()
            && path.split('.').all(|part| {
                let mut chars = part.chars();
                matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
                    && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
    }

    #[test]
    fn import_table_parses_without_errors_or_duplicates() {
        let (entries, errors) = parse_table(IMPORTS_TXT);
        assert!(errors.is_empty(), "malformed lines: {errors:?}");
        let mut seen = BTreeSet::new();
        for (key, _) in &entries {
            assert!(seen.insert(*key), "duplicate import path {key:?}");
        }
        assert_eq!(import_table().len(), entries.len());
        assert!(entries.len() >= 200, "only {} entries", entries.len());
    }

    #[test]
    fn import_table_keys_are_import_paths_and_values_distribution_names() {
        for (key, value) in import_table() {
            assert!(is_dotted_identifier(key), "bad import path {key:?}");
            assert!(
                is_valid_distribution_name(value),
                "{key}: {value:?} is not a distribution name"
            );
        }
    }

    #[test]
    fn alias_table_parses_and_each_statement_binds_its_alias() {
        let (entries, errors) = parse_table(ALIASES_TXT);
        assert!(errors.is_empty(), "malformed lines: {errors:?}");
        let keys: BTreeSet<_> = entries.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys.len(), entries.len(), "duplicate alias");
        for (alias, statement) in entries {
            assert_eq!(statement_binding(statement), Some(alias), "{statement:?}");
            let module = statement_module(statement).expect("simple import statement");
            assert!(is_dotted_identifier(&module), "{module:?}");
        }
    }

    #[test]
    fn every_alias_module_is_known_or_standard_library() {
        // The few standard-library modules the alias table names; everything
        // else must resolve to a distribution so planning an alias works.
        let stdlib = ["tkinter", "xml"];
        for alias in alias_table().keys() {
            let module = conventional_module(alias).unwrap();
            let top = module.split('.').next().unwrap();
            assert!(
                stdlib.contains(&top) || distribution_for(&module).is_some(),
                "alias {alias}: module {module} is neither stdlib nor in the import table"
            );
        }
    }

    #[test]
    fn renamed_distributions_from_the_brief() {
        let expected = [
            ("cv2", "opencv-python"),
            ("sklearn", "scikit-learn"),
            ("PIL", "Pillow"),
            ("yaml", "PyYAML"),
            ("bs4", "beautifulsoup4"),
            ("dateutil", "python-dateutil"),
            ("Crypto", "pycryptodome"),
            ("serial", "pyserial"),
            ("usb", "pyusb"),
            ("OpenSSL", "pyOpenSSL"),
            ("jwt", "PyJWT"),
            ("magic", "python-magic"),
            ("docx", "python-docx"),
            ("pptx", "python-pptx"),
            ("dotenv", "python-dotenv"),
            ("google.protobuf", "protobuf"),
            ("attr", "attrs"),
            ("skimage", "scikit-image"),
            ("MySQLdb", "mysqlclient"),
            ("psycopg2", "psycopg2-binary"),
            ("telegram", "python-telegram-bot"),
            ("discord", "discord.py"),
            ("wx", "wxPython"),
            ("gi", "PyGObject"),
            ("Levenshtein", "python-Levenshtein"),
            ("fitz", "PyMuPDF"),
        ];
        for (import, dist) in expected {
            assert_eq!(distribution_for(import), Some(dist), "{import}");
        }
    }

    #[test]
    fn longest_dotted_prefix_wins() {
        assert_eq!(
            distribution_for("google.protobuf.json_format"),
            Some("protobuf")
        );
        assert_eq!(distribution_for("matplotlib.pyplot"), Some("matplotlib"));
        assert_eq!(
            distribution_for("mpl_toolkits.mplot3d.axes3d"),
            Some("matplotlib")
        );
        assert_eq!(distribution_for("mpl_toolkits.basemap"), Some("basemap"));
        assert_eq!(
            distribution_for("ruamel.yaml.comments"),
            Some("ruamel.yaml")
        );
        assert_eq!(distribution_for("numpy"), Some("numpy"));
        // Shared namespace roots and unknown names are not guessed.
        assert_eq!(distribution_for("google"), None);
        assert_eq!(distribution_for("google.colab"), None);
        assert_eq!(distribution_for("mpl_toolkits"), None);
        assert_eq!(distribution_for("numpyy"), None);
        assert_eq!(distribution_for("os.path"), None);
        assert_eq!(distribution_for(".numpy"), None);
        assert_eq!(distribution_for(""), None);
    }

    #[test]
    fn conventional_aliases() {
        assert_eq!(conventional_import("np"), Some("import numpy as np"));
        assert_eq!(conventional_import("pd"), Some("import pandas as pd"));
        assert_eq!(
            conventional_import("plt"),
            Some("import matplotlib.pyplot as plt")
        );
        assert_eq!(conventional_import("sns"), Some("import seaborn as sns"));
        assert_eq!(conventional_import("tf"), Some("import tensorflow as tf"));
        assert_eq!(conventional_import("nx"), Some("import networkx as nx"));
        assert_eq!(
            conventional_module("plt").as_deref(),
            Some("matplotlib.pyplot")
        );
        assert_eq!(conventional_module("ttk").as_deref(), Some("tkinter.ttk"));
        // Ambiguous conventions are left out on purpose.
        for ambiguous in ["sp", "dt", "pl", "F", "x", "numpy"] {
            assert_eq!(conventional_import(ambiguous), None, "{ambiguous}");
        }
    }

    #[test]
    fn legacy_table_parses_and_every_requirement_is_a_plain_version_bound() {
        let (entries, errors) = parse_table(LEGACY_TXT);
        assert!(errors.is_empty(), "malformed lines: {errors:?}");
        assert!(!entries.is_empty());
        for (dist, reqs) in entries {
            assert!(is_valid_distribution_name(dist), "{dist:?}");
            let reqs: Vec<&str> = reqs.split_whitespace().collect();
            // Each entry constrains at least its own distribution.
            assert!(
                reqs.iter().any(|r| requirement_name(r).map(normalize_distribution) == Some(normalize_distribution(dist))),
                "{dist}: {reqs:?}"
            );
            for r in reqs {
                assert!(requirement_name(r).is_some(), "{dist}: {r:?} is not a plain version bound");
            }
        }
    }

    #[test]
    fn legacy_constraints_by_any_spelling() {
        assert_eq!(legacy_constraints("pandas"), ["pandas<2", "numpy<1.24"]);
        assert_eq!(legacy_constraints("Scikit_Learn"), ["scikit-learn<1.2", "numpy<1.24"]);
        assert!(legacy_constraints("requests").is_empty());
    }

    #[test]
    fn requirement_names_refuse_anything_but_version_bounds() {
        assert_eq!(requirement_name("numpy<1.24"), Some("numpy"));
        assert_eq!(requirement_name("a.b>=1,<2.*"), Some("a.b"));
        assert_eq!(requirement_name("x~=1.4"), Some("x"));
        for bad in ["numpy", "<2", "-rnumpy<2", "numpy<2;os_name=='nt'", "numpy<", "numpy<2 ", "x@http://h", "x<=>2", "x<a"] {
            assert_eq!(requirement_name(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn distribution_names_validate_and_normalise() {
        for ok in [
            "six",
            "PyYAML",
            "discord.py",
            "python-dateutil",
            "slack_sdk",
            "a",
        ] {
            assert!(is_valid_distribution_name(ok), "{ok}");
        }
        for bad in [
            "",
            "-r",
            "--index-url=x",
            "six ",
            "a/b",
            "six==1.0",
            ".x",
            "x-",
            "ü",
        ] {
            assert!(!is_valid_distribution_name(bad), "{bad:?}");
        }
        assert_eq!(normalize_distribution("PyYAML"), "pyyaml");
        assert_eq!(normalize_distribution("discord.py"), "discord-py");
        assert_eq!(normalize_distribution("Foo__Bar-._baz"), "foo-bar-baz");
    }
}
