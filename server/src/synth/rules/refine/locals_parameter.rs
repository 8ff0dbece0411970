//! A KeyError for an identifier in a wrapped function body that reads
//! `locals()` (`kwds = locals().copy(); del kwds['sep']`): `locals()` maps a
//! function's parameters and local names to their values, so the function
//! the body was cut from had a local of that name: the wrapper gets it as a
//! parameter. Python semantics (`locals()` in a function), kept.

use crate::analysis::{FreeName, Usage, Wrap};
use crate::synth::bindings::binding_for;
use crate::synth::error_text::{key_error_key, pandas_missing_labels, KeyLit};
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct LocalsParameter;

impl Rule for LocalsParameter {
    fn name(&self) -> &'static str {
        "locals-parameter"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is("KeyError") && pandas_missing_labels(&fail.error.message).is_empty())
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let e = fail.error;
        let base = fail.base;
        let line = fail.line;
        let mut out = Vec::new();
        let key = key_error_key(e);
        if !(ctx.analysis.wrap != Wrap::None && ctx.fragment.contains("locals()")) {
            return out;
        }
        if let Some(KeyLit::Str(k)) = &key {
            let is_name = k.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') && k.chars().all(|c| c.is_alphanumeric() || c == '_');
            if is_name && !base.wrapper_params.contains(k) {
                let mut p = base.clone();
                if p.binding(k).is_none() {
                    let f = FreeName { name: k.clone(), first_line: line.unwrap_or(1), usage: Usage::default() };
                    p.bindings.push(binding_for(ctx, &f, true));
                }
                p.wrapper_params.push(k.clone());
                out.push(p);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::exec::ExceptionInfo;
    use expect_test::expect;

    #[test]
    fn a_key_missing_from_locals_is_a_parameter() {
        refine(&super::LocalsParameter, "kwds = locals().copy()\ndel kwds['sep']\nreturn kwds\n", ExceptionInfo { key: Some("'sep'".into()), ..raised("KeyError", r#"'sep'"#, 2) }, expect![[r#"
            ## 1
            sep = 3
            -- parameters: sep --
        "#]]);
    }
}
