//! `NameError` / `UnboundLocalError` for a name the prefix does not bind:
//! bind it as a free name is bound (in a wrapped body, an unbound local is
//! a parameter of the function it was cut from).

use crate::analysis::{FreeName, Wrap};
use crate::synth::bindings::{binding_for, usage_of};
use crate::synth::error_text::quoted;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct UnboundName;

impl Rule for UnboundName {
    fn name(&self) -> &'static str {
        "unbound-name"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is("NameError") || fail.is("UnboundLocalError"))
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let e = fail.error;
        let base = fail.base;
        let line = fail.line;
        let is = |t: &str| fail.is(t);
        let mut out = Vec::new();
        if let Some(name) = e.name.clone().or_else(|| quoted(&e.message)) {
            if base.binding(&name).is_none() {
                let usage = usage_of(ctx, &name);
                let f = FreeName { name: name.clone(), first_line: line.unwrap_or(1), usage };
                let mut p = base.clone();
                p.bindings.push(binding_for(ctx, &f, true));
                if is("UnboundLocalError") && ctx.analysis.wrap != Wrap::None {
                    p.wrapper_params.push(name.clone());
                }
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
    fn a_name_no_binding_defines_is_bound() {
        refine_with(&super::UnboundName, "print(greeting.upper())\n", |p| { p.bindings.clear(); }, ExceptionInfo { name: Some("greeting".into()), ..raised("NameError", r#"name 'greeting' is not defined"#, 1) }, expect![[r#"
            ## 1
            greeting = 'The quick brown fox jumps over the lazy dog'
        "#]]);
    }
}
