//! A KeyError names the key a mapping the line reads lacks (pandas groupby:
//! `Column not found: amount`): each such mapping (or DataFrame) gets it.

use crate::synth::additions::add_key;
use crate::synth::error_text::{key_error_key, pandas_missing_labels};
use crate::synth::prefix::{Binding, Prefix};
use crate::synth::value::Value;
use crate::synth::rules::refine::Refine;
use crate::synth::rules::Failure;
use crate::synth::session::Context;

pub struct MissingKey;

impl Refine for MissingKey {
    fn name(&self) -> &'static str {
        "missing-key"
    }
    fn exception(&self) -> &'static str {
        "KeyError"
    }
    fn reads(&self, _ctx: &Context, fail: &Failure) -> bool {
        pandas_missing_labels(&fail.error.message).is_empty()
    }
    fn refine(&self, ctx: &Context, fail: &Failure) -> Vec<Prefix> {
        let mut out = fail.edit_each_name_on_line(|b| self.edit_name(ctx, fail, b));
        // A key pandas looks up in several frames at once (`a.merge(b,
        // on='id')` needs it in both): every frame the line reads gets it.
        let Some(key) = key_error_key(fail.error) else { return out };
        let mut all = fail.base.clone();
        let mut frames = 0;
        for n in &fail.names_on_line {
            if let Some(b) = all.binding_mut(n) {
                if b.value().is_some_and(Value::is_dataframe) && add_key(b, &key) {
                    frames += 1;
                }
            }
        }
        if frames > 1 {
            out.push(all);
        }
        out
    }
    fn edit_name(&self, _ctx: &Context, fail: &Failure, b: &mut Binding) -> bool {
        key_error_key(fail.error).is_some_and(|key| add_key(b, &key))
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::exec::ExceptionInfo;
    use crate::synth::prefix::{Binding, Candidate};
    use crate::synth::value::Value;
    use expect_test::expect;

    #[test]
    fn the_missing_key_is_added_to_the_mapping_the_line_reads() {
        refine_with(&super::MissingKey, "key = 'mode'\nprint(settings[key])\n", |p| { *p.binding_mut("settings").unwrap() = Binding::new("settings", vec![Candidate::Value(Value::Dict(vec![(Value::Str("debug".into()), Value::Bool(true))]))]); }, ExceptionInfo { key: Some("'mode'".into()), ..raised("KeyError", "'mode'", 2) }, expect![[r#"
            ## 1
            settings = {'debug': True, 'mode': True}
        "#]]);
    }
}
