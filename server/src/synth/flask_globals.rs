//! Flask's context globals as prefix values: a name the prefix gives
//! `current_app` (moved up from the fragment's own `app = current_app`)
//! holds a proxy that is bound only inside an application or request
//! context, falsy and raising on any member outside one. Pure.

use super::library_types::recipe;
use super::prefix::{Binding, Candidate, Prefix};
use super::value::Value;

/// Flask's context-bound proxies (`flask.globals`, "Application Globals"
/// and "Context Locals" in its API documentation).
const CONTEXT_GLOBALS: &[&str] = &["current_app", "g", "request", "session"];

/// Whether `b`'s value is a context global `p` imports from flask.
pub fn holds_a_global(p: &Prefix, b: &Binding) -> bool {
    let Some(Value::Expr { code, .. }) = b.value() else { return false };
    CONTEXT_GLOBALS.contains(&code.as_str())
        && p.binding(code).is_some_and(|g| matches!(g.current(), Candidate::Import(s) if s.starts_with("from flask import ")))
}

/// Whether any name of `p` holds one.
pub fn any_held(p: &Prefix) -> bool {
    p.bindings.iter().any(|b| holds_a_global(p, b))
}

/// `p` run inside a new application's request context,
/// `Flask(__name__).test_request_context()`, as Flask's documentation
/// tests code that reads its globals with no application of its own.
pub fn inside_new_app(p: &Prefix) -> Option<Prefix> {
    let (flask, flask_import) = recipe("flask.Flask")?;
    let mut p = p.clone();
    p.context = Some(format!("{flask}.test_request_context()"));
    p.context_imports = vec![flask_import.clone()];
    Some(p)
}
