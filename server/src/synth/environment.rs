//! Values for the environment variables a fragment reads, by the
//! conventions of their names (`API_PORT` is a port, `CONFIG_FILE` a file
//! that must exist). Pure.

use crate::exec::Resource;

/// Variables of Python itself that name a file, from the interpreter's
/// command-line documentation: `PYTHONSTARTUP` is a file read and run at
/// interactive start-up. (Any name merely ending in `STARTUP` is not one.)
const PYTHON_FILE_VARIABLES: &[&str] = &["PYTHONSTARTUP"];

/// The value `name` gets, and a file to create when the value names one.
pub fn env_value(name: &str) -> (String, Option<Resource>) {
    let n = name.to_ascii_uppercase();
    // A word of the name (`DATA_DIR`), or its end (`LOGFILE`).
    let has = |words: &[&str]| words.iter().any(|w| n.split('_').any(|part| part == *w) || n.ends_with(w));
    let value = if has(&["PORT"]) {
        "8080".to_string()
    } else if has(&["HOST", "HOSTNAME"]) {
        "localhost".to_string()
    } else if has(&["URL", "URI", "ENDPOINT"]) {
        "https://example.com/api".to_string()
    } else if has(&["DEBUG", "VERBOSE", "ENABLE", "ENABLED"]) {
        "1".to_string()
    } else if has(&["TIMEOUT", "LIMIT", "WORKERS", "COUNT", "SIZE", "RETRIES"]) {
        "4".to_string()
    } else if has(&["DIR", "HOME", "ROOT", "FOLDER"]) {
        ".".to_string()
    } else if has(&["FILE", "PATH", "CONFIG"]) || PYTHON_FILE_VARIABLES.contains(&n.as_str()) {
        // A file that exists, empty: whatever reads it gets no surprises.
        let path = format!("{}.txt", n.to_ascii_lowercase());
        return (path.clone(), Some(Resource { path, content: Vec::new() }));
    } else if has(&["KEY", "TOKEN", "SECRET", "PASSWORD", "PASS"]) {
        "dev-secret-123".to_string()
    } else if has(&["USER", "USERNAME", "NAME"]) {
        "ada".to_string()
    } else if has(&["LANG", "LOCALE"]) {
        "en_US.UTF-8".to_string()
    } else if has(&["TZ"]) {
        "UTC".to_string()
    } else {
        "example".to_string()
    };
    (value, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_what_a_variable_holds() {
        assert_eq!(env_value("API_PORT").0, "8080");
        assert_eq!(env_value("GITHUB_TOKEN").0, "dev-secret-123");
        assert_eq!(env_value("DATA_DIR").0, ".");
        let (path, file) = env_value("PYTHONSTARTUP");
        assert_eq!(path, "pythonstartup.txt");
        assert_eq!(file.unwrap().path, "pythonstartup.txt", "a file it names exists");
        assert_eq!(env_value("MODE").0, "example");
        assert!(env_value("APP_STARTUP").1.is_none(), "only Python's own start-up variable names a file");
        assert_eq!(env_value("PASSPORT_ID").0, "example", "a word of the name, not a piece of one");
    }
}
