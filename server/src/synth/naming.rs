//! What the parts of a synthesised value are called, from the name it is
//! bound to: an element's name from its collection's, a result's from its
//! function's, a class's from its variable's. Pure.

/// What a function's result is called, for naming conventions to apply:
/// its name without a leading verb (`to_bytes` -> `bytes`, `get_items` ->
/// `items`), else `result`.
pub(super) fn result_name(function: &str) -> String {
    const VERBS: &[&str] = &["get", "load", "fetch", "read", "make", "build", "create", "compute", "calc", "find", "format", "to", "parse", "as"];
    match function.split_once('_') {
        Some((verb, rest)) if VERBS.contains(&verb) && !rest.is_empty() => rest.to_string(),
        _ => "result".to_string(),
    }
}

/// Singular form of a plural name, for the elements of a collection.
pub fn singular(name: &str) -> String {
    // What a method lists is its object: `list_templates` -> `template`.
    const VERBS: &[&str] = &["get", "list", "iter", "find", "load", "fetch", "read", "all", "collect", "make", "build"];
    let name = match name.split_once('_') {
        Some((verb, rest)) if VERBS.contains(&verb) && !rest.is_empty() => rest,
        _ => name,
    };
    if let Some(s) = name.strip_suffix("ies") {
        format!("{s}y")
    } else if let Some(s) = name.strip_suffix('s').filter(|s| s.len() > 1 && !s.ends_with('s')) {
        s.to_string()
    } else {
        format!("{name}_item")
    }
}

/// A class name for a value named `name` (`user_id` -> `UserId`), never
/// starting with a digit.
pub fn camel(name: &str) -> String {
    let out = super::value::camel_case(name);
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("C{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_named_after_its_function() {
        assert_eq!(result_name("to_bytes"), "bytes");
        assert_eq!(result_name("format_str"), "str");
        assert_eq!(result_name("process"), "result");
    }

    #[test]
    fn elements_take_the_singular_and_classes_the_camel_case() {
        assert_eq!(singular("entries"), "entry");
        assert_eq!(singular("list_templates"), "template");
        assert_eq!(singular("class"), "class_item");
        assert_eq!(camel("user_id"), "UserId");
        assert!(camel("2fa").starts_with('C'));
    }
}
