//! Lexical scanning of one line of Python, without parsing it: used where
//! the synthesiser reads the fragment's or a prefix's text line by line.

/// Python identifiers on a line that are not attribute names.
pub fn identifiers(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    let mut in_str: Option<u8> = None;
    while i < bytes.len() {
        let c = bytes[i];
        if let Some(q) = in_str {
            if c == b'\\' {
                i += 1;
            } else if c == q {
                in_str = None;
            }
            i += 1;
            continue;
        }
        if c == b'#' {
            break;
        }
        if c == b'\'' || c == b'"' {
            in_str = Some(c);
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let after_dot = line[..start].trim_end().ends_with('.');
            let word = &line[start..i];
            if !after_dot && !out.iter().any(|w| w == word) {
                out.push(word.to_string());
            }
            continue;
        }
        i += 1;
    }
    out
}

/// The dotted names of a line outside its strings and comment (`p.parent`
/// in `if not p.parent and x:`), each once, in order; plain names are left out.
pub fn dotted_paths(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut code = String::with_capacity(line.len());
    let mut in_str: Option<char> = None;
    let mut escaped = false;
    for c in line.chars() {
        match in_str {
            Some(q) => {
                if !escaped && c == q {
                    in_str = None;
                }
                escaped = !escaped && c == '\\';
                code.push(' ');
            }
            None if c == '#' => break,
            None if c == '\'' || c == '"' => {
                in_str = Some(c);
                code.push(' ');
            }
            None => code.push(c),
        }
    }
    for token in code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')) {
        let token = token.trim_matches('.');
        if token.contains('.') && is_dotted(token) && !token.starts_with(|c: char| c.is_ascii_digit()) && !out.iter().any(|t| t == token) {
            out.push(token.to_string());
        }
    }
    out
}

/// A dotted name (`node.value.func`): parts of identifier characters joined
/// by dots, none of them empty.
pub fn is_dotted(text: &str) -> bool {
    text.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_paths_are_read_outside_strings() {
        assert_eq!(dotted_paths("if not p.parent and p.type == 'a.b': # x.y"), ["p.parent", "p.type"]);
        assert_eq!(dotted_paths("len(node.children) != 3.5 or f(x)"), ["node.children"]);
    }

    #[test]
    fn dotted_names_are_identifier_parts_joined_by_dots() {
        assert!(is_dotted("node.value.func") && is_dotted("x"));
        assert!(!is_dotted("") && !is_dotted("a..b") && !is_dotted("a.b()") && !is_dotted("d[k]"));
    }

    #[test]
    fn identifiers_skip_attributes_strings_and_comments() {
        assert_eq!(identifiers("x = obj.attr + y['k'] # z"), vec!["x", "obj", "y"]);
    }
}
