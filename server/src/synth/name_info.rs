//! What the report's `names[]` says about each name a prefix binds. It
//! reads the prefix and the fragment's facts (which hand-written values
//! stand for a library's, `stand_in.rs`), so it sits above both `prefix`
//! and `session`: a prefix itself knows nothing of the session. Pure.

use super::prefix::{Candidate, Prefix};
use super::session::Context;
use serde::{Deserialize, Serialize};

/// What `names[]` in the report says about one defined name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameInfo {
    pub name: String,
    pub kind: String,
    pub stub: bool,
    /// The rule that produced the binding (`rules::all` names them).
    pub rule: Option<String>,
}

/// What the report says about each bound name of `prefix`, in binding
/// order: `import`, the kind of value, `stand-in` for a hand-written value
/// that stands for something of a library (`stand_in.rs`), `transport` for
/// the declared offline network (`offline.rs`); `stub` when the value is or
/// holds the catch-all.
pub fn of(prefix: &Prefix, ctx: &Context) -> Vec<NameInfo> {
    prefix
        .bindings
        .iter()
        .map(|b| {
            let current = b.current();
            let kind = match current {
                Candidate::Value(_) if super::offline::is_transport(&b.name) => "transport",
                Candidate::Value(v) if super::stand_in::is_stand_in(ctx, &b.name, &ctx.usage_of(&b.name), v, prefix.not_modules.contains(&b.name)) => "stand-in",
                c => c.kind(),
            };
            NameInfo { name: b.name.clone(), kind: kind.to_string(), stub: current.is_stub(), rule: b.rule.0.map(str::to_string) }
        })
        .collect()
}

/// Whether `prefix` is a real one: no name a stub, none a stand-in.
pub fn all_real(prefix: &Prefix, ctx: &Context) -> bool {
    of(prefix, ctx).iter().all(|n| !n.stub && n.kind != "stand-in")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::prefix::Binding;
    use crate::synth::value::Value;

    #[test]
    fn an_import_is_named_so_and_a_catch_all_function_is_a_stub() {
        let mut p = Prefix::default();
        p.bindings.push(Binding::new("np", vec![Candidate::Import("import numpy as np".into())]));
        p.bindings.push(Binding::new("helper", vec![Candidate::Value(Value::Function { returns: Box::new(Value::Anything), is_async: false })]));
        let analysis = crate::analysis::analyze("print(np, helper())\n");
        let stdlib = Default::default();
        let names = of(&p, &Context { fragment: "", analysis: &analysis, stdlib: &stdlib });
        assert_eq!(names[0], NameInfo { name: "np".into(), kind: "import".into(), stub: false, rule: None });
        assert!(names[1].stub);
    }
}
