//! `module 'signal' has no attribute 'code'` once every import of the name
//! was tried: the fragment's `signal` is a variable named like a module,
//! not the module; it gets values from its usage instead.

use crate::analysis::FreeName;
use crate::synth::bindings::{usage_of, value_binding};
use crate::synth::library_names;
use crate::synth::prefix::Prefix;
use crate::synth::rules::refine::Refine;
use crate::synth::rules::Failure;
use crate::synth::session::Context;

pub struct VariableNamedLikeModule;

impl Refine for VariableNamedLikeModule {
    fn name(&self) -> &'static str {
        "variable-named-like-module"
    }
    fn exception(&self) -> &'static str {
        "AttributeError"
    }
    fn reads(&self, _ctx: &Context, fail: &Failure) -> bool {
        fail.module_lacking_member().is_some()
    }
    fn refine(&self, ctx: &Context, fail: &Failure) -> Vec<Prefix> {
        let Some(module) = fail.module_lacking_member() else { return Vec::new() };
        let (base, line) = (fail.base, fail.line);
        let mut out = Vec::new();
        let last_import = base.binding(&module).is_some_and(|b| b.import_only() && b.choice + 1 >= b.candidates.len());
        let usage = usage_of(ctx, &module);
        if last_import && library_names::may_be_a_variable(ctx, &module, &usage) && !base.not_modules.contains(&module) {
            let f = FreeName { name: module.clone(), first_line: line.unwrap_or(1), usage };
            let values = value_binding(ctx, &f, false);
            if !values.candidates.is_empty() {
                let mut p = base.clone();
                p.not_modules.push(module.clone());
                if let Some(b) = p.binding_mut(&module) {
                    *b = values;
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
    use crate::synth::prefix::{Binding, Candidate};
    use expect_test::expect;

    #[test]
    fn a_name_used_unlike_its_module_gets_values() {
        refine_with(&super::VariableNamedLikeModule, "if signal.code is None:\n    print('no code')\n", |p| { *p.binding_mut("signal").unwrap() = Binding::new("signal", vec![Candidate::Import("import signal".into())]); }, ExceptionInfo { name: Some("code".into()), obj_type: Some("module".into()), ..raised("AttributeError", "module 'signal' has no attribute 'code'", 1) }, expect![[r#"
            (nothing)
        "#]]);
    }
}
