//! Names read before the fragment assigns them would fail at once: they
//! get a binding (the fragment's own import of the name first, when it
//! imports it later), and in a wrapped function body they are its parameters.

use crate::synth::bindings::binding_for;
use crate::synth::library_names::import_binding;
use crate::synth::prefix::{Candidate, Prefix};
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;
use crate::analysis::Wrap;
use crate::knowledge::conventional_import;

pub struct ReadBeforeAssigned;

impl Rule for ReadBeforeAssigned {
    fn name(&self) -> &'static str {
        "read-before-assigned"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        let mut p = so_far.clone();
        let a = ctx.analysis;
        for f in &a.used_before_bound {
            if p.binding(&f.name).is_none() {
                let mut b = binding_for(ctx, f, false);
                // Used before the fragment imports it: that import, earlier.
                if let Some(stmt) = import_binding(ctx, &f.name).or_else(|| conventional_import(&f.name).map(str::to_string)) {
                    if !b.candidates.contains(&Candidate::Import(stmt.clone())) {
                        b.candidates.insert(0, Candidate::Import(stmt));
                    }
                }
                p.bindings.push(b);
            }
            if a.wrap != Wrap::None {
                p.wrapper_params.push(f.name.clone());
            }
        }
        vec![p]
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_name_read_before_its_assignment_gets_that_value_first() {
        initial(&super::ReadBeforeAssigned, "print(total)\ntotal = 5\n", expect![[r#"
            ## 1
            total = 5
        "#]]);
    }
}
