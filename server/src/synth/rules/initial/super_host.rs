//! A method body (wrapped) that calls `super()` only runs as a method: the
//! wrapper becomes a method of a subclass of `self`'s class.

use crate::analysis::Wrap;
use crate::synth::prefix::{Binding, Prefix};
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;
use crate::synth::value::{class_ident, Value};

pub struct SuperHost;

impl Rule for SuperHost {
    fn name(&self) -> &'static str {
        "super-host"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn applies(&self, ctx: &Context, _: &Trigger) -> bool {
        ctx.analysis.wrap != Wrap::None && ctx.fragment.contains("super(")
    }
    fn propose(&self, _ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        let mut p = so_far.clone();
        if let Some(Value::Object { class, .. }) = p.binding("self").and_then(Binding::value) {
            p.host = Some(class_ident(class).to_string());
        }
        vec![p]
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_method_body_calling_super_gets_a_host_class() {
        initial_after(&super::SuperHost, "super().save()\nreturn self.name\n", expect![[r#"
            ## 1
            class Self:
                name = 'name'


            self = Self()
            -- host: Self --
        "#]]);
    }
}
