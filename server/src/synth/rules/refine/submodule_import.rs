//! `module 'urllib' has no attribute 'request'`: a submodule that
//! `import urllib` does not load; it is imported too (still an import),
//! only for an attribute the fragment uses like a module itself
//! (`urllib.request.urlopen`, not `signal.code is None`).

use crate::synth::bindings::usage_of;
use crate::synth::module_use;
use crate::synth::prefix::Candidate;
use crate::synth::prefix::Prefix;
use crate::synth::rules::refine::Refine;
use crate::synth::rules::Failure;
use crate::synth::session::Context;

pub struct SubmoduleImport;

impl Refine for SubmoduleImport {
    fn name(&self) -> &'static str {
        "submodule-import"
    }
    fn exception(&self) -> &'static str {
        "AttributeError"
    }
    fn reads(&self, _ctx: &Context, fail: &Failure) -> bool {
        fail.module_lacking_member().is_some()
    }
    fn refine(&self, ctx: &Context, fail: &Failure) -> Vec<Prefix> {
        let Some(module) = fail.module_lacking_member() else { return Vec::new() };
        let (e, base) = (fail.error, fail.base);
        let mut out = Vec::new();
        let submodule_use = e.name.as_deref().and_then(|a| usage_of(ctx, &module).attrs.get(a).cloned()).is_some_and(|u| module_use::used_like_a_module(&u));
        if let (Some(attr), Some(b), true) = (e.name.as_deref(), base.binding(&module), submodule_use) {
            let stmt = Candidate::Import(format!("import {module}.{attr}"));
            let plain = attr.chars().all(|c| c.is_alphanumeric() || c == '_') && !module.contains('.');
            if plain && b.import_only() && !b.candidates.contains(&stmt) && !module.starts_with('_') {
                let mut p = base.clone();
                let b = p.binding_mut(&module).unwrap();
                b.candidates.insert(b.choice + 1, stmt);
                b.choice += 1;
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
    fn a_submodule_used_as_a_module_is_imported() {
        refine(&super::SubmoduleImport, "print(urllib.request.urlopen('http://example.com'))\n", ExceptionInfo { name: Some("request".into()), obj_type: Some("module".into()), ..raised("AttributeError", r#"module 'urllib' has no attribute 'request'"#, 1) }, expect![[r#"
            ## 1
            import urllib.request
        "#]]);
    }
}
