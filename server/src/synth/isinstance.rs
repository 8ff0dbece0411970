//! `isinstance` tests read from a line of text: the tested path and the
//! types it is tested against.

use super::lexical::is_dotted;

/// `isinstance(path, T)` and `isinstance(path, (A, B))` calls in `text`:
/// the tested dotted path and the leading dotted name of each type.
pub(super) fn isinstance_calls(text: &str) -> Vec<(String, Vec<String>)> {
    let token = |s: &str| -> String { s.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.').collect() };
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("isinstance(") {
        rest = &rest[at + "isinstance(".len()..];
        let Some((path, after)) = rest.split_once(',') else { break };
        let path = path.trim();
        let after = after.trim_start();
        let types: Vec<String> = match after.strip_prefix('(') {
            Some(inner) => inner.split(')').next().unwrap_or("").split(',').map(token).collect(),
            None => vec![token(after)],
        };
        let types: Vec<String> = types.into_iter().filter(|t| is_dotted(t)).collect();
        if is_dotted(path) && !types.is_empty() {
            out.push((path.to_string(), types));
        }
    }
    out
}

/// `isinstance(path, Type)` tests in the fragment against library types,
/// as (path, type); for a tuple of types, the first.
pub(super) fn isinstance_tests(fragment: &str) -> Vec<(String, String)> {
    fragment
        .lines()
        .flat_map(isinstance_calls)
        .filter_map(|(path, types)| types.into_iter().next().filter(|t| t.contains('.')).map(|t| (path, t)))
        .collect()
}
