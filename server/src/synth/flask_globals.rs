//! Flask's context globals as prefix values: a name the prefix gives
//! `current_app` (moved up from the fragment's own `app = current_app`)
//! holds a proxy that is bound only inside an application or request
//! context, falsy and raising on any member outside one. Pure.

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
