//! What a venv holds, as uv says: `uv pip list --format json` (pure: the
//! arguments and the parsing; `EnvManager::installed_versions` runs it).

use crate::knowledge::normalize_distribution;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;

/// `uv pip list` for the venv of `python`, as JSON (uv prints which
/// environment it used on stderr, never on stdout).
pub fn pip_list_args(python: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["pip", "list", "--format", "json", "--python"].map(OsString::from).to_vec();
    args.push(python.into());
    args
}

/// One entry of the list (uv adds `editable_project_location` for an
/// editable install; ignored).
#[derive(Deserialize)]
struct Listed {
    name: String,
    version: String,
}

/// Normalised distribution name -> version, from `uv pip list --format json`.
pub fn parse_pip_list(stdout: &str) -> Result<BTreeMap<String, String>, serde_json::Error> {
    let listed: Vec<Listed> = serde_json::from_str(stdout)?;
    Ok(listed.into_iter().map(|l| (normalize_distribution(&l.name), l.version)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What uv 0.13.9 printed, verbatim, for a venv of pandas and statsmodels
    /// under `pandas<2`, `numpy<1.24` (names as uv spells them: `-`, lower case).
    const UV_OUTPUT: &str = r#"[{"name":"formulaic","version":"1.2.2"},{"name":"interface-meta","version":"2.0.1"},{"name":"narwhals","version":"2.29.0"},{"name":"numpy","version":"1.23.5"},{"name":"packaging","version":"26.4"},{"name":"pandas","version":"1.5.3"},{"name":"patsy","version":"1.0.3"},{"name":"python-dateutil","version":"4.0.0"},{"name":"pytz","version":"2026.6"},{"name":"scipy","version":"1.15.3"},{"name":"statsmodels","version":"0.15.0"},{"name":"typing-extensions","version":"4.16.0"},{"name":"tzdata","version":"2026.6"},{"name":"wrapt","version":"2.5.2"}]"#;

    #[test]
    fn uvs_list_gives_each_distribution_its_version_by_normalised_name() {
        let versions = parse_pip_list(UV_OUTPUT).unwrap();
        assert_eq!(versions.len(), 14);
        assert_eq!(versions["pandas"], "1.5.3");
        assert_eq!(versions["numpy"], "1.23.5");
        // Looked up the way the callers look up: normalised.
        assert_eq!(versions[&normalize_distribution("python_dateutil")], "4.0.0");
        assert_eq!(versions[&normalize_distribution("Typing_Extensions")], "4.16.0");
    }

    #[test]
    fn an_empty_venv_and_an_editable_install() {
        assert!(parse_pip_list("[]").unwrap().is_empty());
        let editable = r#"[{"name":"mylib","version":"0.1.0","editable_project_location":"/src/mylib"}]"#;
        assert_eq!(parse_pip_list(editable).unwrap()["mylib"], "0.1.0");
    }

    #[test]
    fn output_that_is_not_the_list_is_an_error() {
        assert!(parse_pip_list("Using Python 3.11.7 environment at: venv").is_err());
        assert!(parse_pip_list(r#"[{"name":"numpy"}]"#).is_err());
    }

    #[test]
    fn the_arguments_name_the_venvs_interpreter() {
        let args = pip_list_args(Path::new("/cache/envs/k/bin/python"));
        assert_eq!(args, ["pip", "list", "--format", "json", "--python", "/cache/envs/k/bin/python"].map(OsString::from));
    }
}
