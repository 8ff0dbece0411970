//! A builtin used as data (`del dict[key]`, `for x in list`) fails with a
//! message about the builtin type: the fragment was cut from code that
//! bound that name to a value; it gets one from its usage.

use crate::analysis::FreeName;
use crate::synth::bindings::binding_for;
use crate::synth::lexical::identifiers;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct BuiltinAsData;

impl Rule for BuiltinAsData {
    fn name(&self) -> &'static str {
        "builtin-as-data"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| (fail.is("TypeError") || fail.is("AttributeError")) && names_a_builtin(&fail.error.message))
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let base = fail.base;
        let line = fail.line;
        let mut out = Vec::new();
        for f in line.map(|l| identifiers(ctx.line_text(l))).unwrap_or_default().iter().filter_map(|n| builtin_used_as_data(ctx, n)) {
            if base.binding(&f.name).is_none() {
                let mut p = base.clone();
                p.bindings.push(binding_for(ctx, f, true));
                out.push(p);
            }
        }
        out
    }
}

/// Whether an error is about a builtin type or function used as a value.
fn names_a_builtin(message: &str) -> bool {
    ["'type' object", "type 'type'", "'builtin_function_or_method' object", "type object '"].iter().any(|m| message.contains(m))
}

/// A builtin name the fragment reads but never binds, used the way data is
/// (indexed, iterated, tested for membership), not called.
fn builtin_used_as_data<'a>(ctx: &'a Context, name: &str) -> Option<&'a FreeName> {
    let f = ctx.analysis.builtins_read.iter().find(|f| f.name == name)?;
    let u = &f.usage;
    let as_data = !u.subscripts.is_empty() || !u.subscript_writes.is_empty() || u.iterated || u.element.is_some() || !u.contains.is_empty() || u.operators.contains("contains");
    (as_data && u.calls.is_empty()).then_some(f)
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_builtin_iterated_as_data_gets_a_value() {
        refine(&super::BuiltinAsData, "for item in list:\n    print(item)\n", raised("TypeError", r#"'type' object is not iterable"#, 1), expect![[r#"
            ## 1
            list = [[1, 2, 3], [2, 3, 4], [3, 4, 5]]
        "#]]);
    }
}
