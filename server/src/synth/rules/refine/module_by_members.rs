//! `module 'html' has no attribute 'fromstring'` for a module the prefix
//! imported by the name the fragment uses: the fragment means a library's
//! same-named module that has what it reads (`from lxml import html`),
//! found in the library index (`module_choice`). Never for a name the
//! fragment imports itself: its import says which module it is (a
//! submodule import may still be missing, `submodule-import`).

use crate::synth::bindings::usage_of;
use crate::synth::library_names::import_binding;
use crate::synth::module_choice;
use crate::synth::prefix::{Candidate, Prefix};
use crate::synth::rules::refine::Refine;
use crate::synth::rules::Failure;
use crate::synth::session::Context;

pub struct ModuleByMembers;

impl Refine for ModuleByMembers {
    fn name(&self) -> &'static str {
        "module-by-members"
    }
    fn exception(&self) -> &'static str {
        "AttributeError"
    }
    fn reads(&self, _ctx: &Context, fail: &Failure) -> bool {
        fail.module_lacking_member().is_some() && fail.error.name.is_some()
    }
    fn refine(&self, ctx: &Context, fail: &Failure) -> Vec<Prefix> {
        let (Some(module), Some(missing)) = (fail.module_lacking_member(), fail.error.name.as_deref()) else { return Vec::new() };
        if import_binding(ctx, &module).is_some() {
            return Vec::new();
        }
        let plain = Candidate::Import(format!("import {module}"));
        let Some(b) = fail.base.binding(&module).filter(|b| *b.current() == plain) else { return Vec::new() };
        let usage = usage_of(ctx, &module);
        let mut used: Vec<&str> = usage.attrs.keys().map(String::as_str).collect();
        if !used.contains(&missing) {
            used.push(missing);
        }
        let choices: Vec<Candidate> = module_choice::having(ctx, &module, &used).into_iter().map(Candidate::Import).filter(|c| !b.candidates.contains(c)).collect();
        if choices.is_empty() {
            return Vec::new();
        }
        let mut p = fail.base.clone();
        let b = p.binding_mut(&module).unwrap();
        let at = b.choice + 1;
        b.candidates.splice(at..at, choices);
        b.choice = at;
        vec![p]
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::prefix::{Binding, Candidate};
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn the_same_named_library_module_with_the_member_is_tried_next() {
        let src = "tree = html.fromstring(page)\nprint(tree.xpath('//a/@href'))\n";
        let plain = |p: &mut crate::synth::prefix::Prefix| *p.binding_mut("html").unwrap() = Binding::new("html", vec![Candidate::Import("import html".into())]);
        refine_with(&super::ModuleByMembers, src, plain, module_lacking("html", "fromstring", 1), expect![[r###"
            ## 1
            from lxml import html


            page = '<html><body><p class="intro">Hello</p><a href="/a">A</a></body></html>'
        "###]]);
    }

    #[test]
    fn a_module_the_fragment_imports_is_never_swapped() {
        let src = "import html\ntree = html.fromstring(page)\n";
        refine(&super::ModuleByMembers, src, module_lacking("html", "fromstring", 2), expect![[r#"
            (nothing)
        "#]]);
    }

    #[test]
    fn nothing_when_no_library_module_has_the_member() {
        let src = "print(json.parse(text))\n";
        refine(&super::ModuleByMembers, src, module_lacking("json", "parse", 1), expect![[r#"
            (nothing)
        "#]]);
    }
}
