//! A TOML document holding what the fragment reads from the value it
//! loads (`tomllib.load(f)["project"]["version"]`): scalar keys first, then
//! each nested table under its `[dotted.header]`, lists of tables as
//! `[[header]]`. TOML has no null: a key whose value is `None` is left
//! out. Pure.

use serde_json::{Map, Value};

/// The document for a loaded mapping; `None` unless the value is a
/// non-empty table (what a TOML file always is at its top).
pub fn document(v: &Value) -> Option<String> {
    let Value::Object(top) = v else { return None };
    if top.is_empty() {
        return None;
    }
    let mut out = String::new();
    table(&mut out, &[], top);
    Some(out.trim_start().to_string())
}

fn table(out: &mut String, path: &[String], t: &Map<String, Value>) {
    for (k, v) in t {
        if !is_table(v) && !is_table_list(v) {
            if let Some(text) = inline(v) {
                out.push_str(&format!("{} = {text}\n", key(k)));
            }
        }
    }
    for (k, v) in t {
        let mut sub = path.to_vec();
        sub.push(key(k));
        match v {
            Value::Object(inner) => {
                out.push_str(&format!("\n[{}]\n", sub.join(".")));
                table(out, &sub, inner);
            }
            Value::Array(items) if is_table_list(v) => {
                for item in items {
                    if let Value::Object(inner) = item {
                        out.push_str(&format!("\n[[{}]]\n", sub.join(".")));
                        table(out, &sub, inner);
                    }
                }
            }
            _ => {}
        }
    }
}

fn is_table(v: &Value) -> bool {
    matches!(v, Value::Object(_))
}

fn is_table_list(v: &Value) -> bool {
    matches!(v, Value::Array(items) if !items.is_empty() && items.iter().all(is_table))
}

/// A value written on its key's line; `None` for a null.
fn inline(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64()?;
            if f.fract() == 0.0 && f.is_finite() { format!("{f:.1}") } else { f.to_string() }
        }
        Value::Number(n) => n.to_string(),
        // JSON's string escapes are TOML basic-string escapes.
        Value::String(s) => serde_json::to_string(s).ok()?,
        Value::Array(items) => format!("[{}]", items.iter().filter_map(inline).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => format!("{{{}}}", m.iter().filter_map(|(k, v)| Some(format!("{} = {}", key(k), inline(v)?))).collect::<Vec<_>>().join(", ")),
    })
}

/// A bare key where TOML allows one, else a quoted key.
fn key(k: &str) -> String {
    if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        k.to_string()
    } else {
        serde_json::to_string(k).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_tables_get_headers_and_scalars_come_first() {
        let doc = document(&json!({"project": {"version": "1.0", "authors": [{"name": "Ada"}], "urls": {"home page": "https://example.com"}}, "name": "demo", "ratio": 2.0, "none": null})).unwrap();
        expect_test::expect![[r#"
            name = "demo"
            ratio = 2.0

            [project]
            version = "1.0"

            [[project.authors]]
            name = "Ada"

            [project.urls]
            "home page" = "https://example.com"
        "#]]
        .assert_eq(&doc);
        assert_eq!(document(&json!([1, 2])), None, "a TOML file is a table");
    }
}
