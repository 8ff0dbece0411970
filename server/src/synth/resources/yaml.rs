//! A YAML document holding what the fragment reads from the value it
//! loads (`yaml.safe_load(f)["database"]["port"]`), in block style as a
//! person writes a config file: mappings as `key: value`, lists as `- item`,
//! nested ones indented two spaces. Strings are quoted as JSON quotes them
//! (valid YAML, and never read back as a number, a date or a boolean).
//! Pure.

use serde_json::{Map, Value};

/// The document for a loaded mapping or list; `None` for a scalar or an
/// empty collection (a config file has a structure).
pub fn document(v: &Value) -> Option<String> {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => mapping(&mut out, m, 0),
        Value::Array(items) if !items.is_empty() => sequence(&mut out, items, 0),
        _ => return None,
    }
    Some(out)
}

fn mapping(out: &mut String, m: &Map<String, Value>, indent: usize) {
    for (k, v) in m {
        let pad = " ".repeat(indent);
        match v {
            Value::Object(inner) if !inner.is_empty() => {
                out.push_str(&format!("{pad}{}:\n", scalar(&Value::String(k.clone()))));
                mapping(out, inner, indent + 2);
            }
            Value::Array(items) if !items.is_empty() => {
                out.push_str(&format!("{pad}{}:\n", scalar(&Value::String(k.clone()))));
                sequence(out, items, indent + 2);
            }
            _ => out.push_str(&format!("{pad}{}: {}\n", scalar(&Value::String(k.clone())), scalar(v))),
        }
    }
}

fn sequence(out: &mut String, items: &[Value], indent: usize) {
    let pad = " ".repeat(indent);
    for v in items {
        match v {
            Value::Object(inner) if !inner.is_empty() => {
                // `- key: value` with the mapping's other keys under the first.
                let mut nested = String::new();
                mapping(&mut nested, inner, indent + 2);
                let body = nested.trim_start();
                out.push_str(&format!("{pad}- {body}"));
            }
            Value::Array(inner) if !inner.is_empty() => {
                out.push_str(&format!("{pad}-\n"));
                sequence(out, inner, indent + 2);
            }
            _ => out.push_str(&format!("{pad}- {}\n", scalar(v))),
        }
    }
}

/// A scalar, an empty mapping or an empty list in flow style.
fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::String(s) if plain(s) => s.clone(),
        // Valid YAML; `serde_json` escapes what needs escaping.
        other => serde_json::to_string(other).unwrap_or_else(|_| "null".into()),
    }
}

/// A string YAML reads back as the same string unquoted: a word, not a
/// number, a boolean, a null or a date.
fn plain(s: &str) -> bool {
    let reserved = ["true", "false", "yes", "no", "on", "off", "null", "none", "y", "n", "~"];
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' || c == '/')
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && !reserved.contains(&s.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_nested_mapping_is_written_in_block_style() {
        let v = json!({"database": {"user": "Ada", "port": 5432, "hosts": ["db1", "db2"]}, "debug": true, "name": "1.0"});
        assert_eq!(
            document(&v).unwrap(),
            "database:\n  hosts:\n    - db1\n    - db2\n  port: 5432\n  user: Ada\ndebug: true\nname: \"1.0\"\n"
        );
    }

    #[test]
    fn a_list_of_mappings_keeps_each_under_its_dash() {
        let v = json!([{"id": 1, "tags": ["a"]}, {"id": 2, "tags": []}]);
        assert_eq!(document(&v).unwrap(), "- id: 1\n  tags:\n    - a\n- id: 2\n  tags: []\n");
        assert_eq!(document(&json!(3)), None);
    }
}
