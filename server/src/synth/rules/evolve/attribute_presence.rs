//! `hasattr(obj, "name")`: a variant where the object lacks the attribute
//! it has (the lazy set-up `if not hasattr(self, "_cache"): self._cache = ...`
//! runs only for an object that does not have it yet).

use crate::analysis::{Condition, Constant};
use crate::synth::paths::value_at_mut;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;
use crate::synth::value::Value;

pub struct AttributePresence;

impl Rule for AttributePresence {
    fn name(&self) -> &'static str {
        "attribute-presence"
    }
    fn stage(&self) -> Stage {
        Stage::Branch
    }
    fn propose(&self, _ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(b) = t.branch() else { return Vec::new() };
        b.condition.leaves().into_iter().filter_map(|leaf| without_attribute(&b.best.prefix, leaf)).collect()
    }
}

/// The prefix with the attribute `hasattr` tests taken off the object the
/// prefix built, when it has it.
fn without_attribute(prefix: &Prefix, test: &Condition) -> Option<Prefix> {
    let Condition::Call { func, args, .. } = test else { return None };
    let ([subject, Condition::Constant { value: Constant::Str(attr) }], Some("hasattr")) = (args.as_slice(), func.dotted().as_deref()) else {
        return None;
    };
    let mut p = prefix.clone();
    match value_at_mut(&mut p, &subject.dotted()?)? {
        Value::Object { attrs, methods, .. } | Value::Class { attrs, methods } | Value::Derived { attrs, methods, .. } => {
            let before = attrs.len() + methods.len();
            attrs.retain(|(n, _)| n != attr);
            methods.retain(|(n, _)| n != attr);
            (attrs.len() + methods.len() < before).then_some(p)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn an_attribute_set_up_lazily_is_taken_off() {
        let src = "if not hasattr(cache, '_rows'):\n    cache._rows = []\nprint(cache._rows, cache.size)\n";
        branch(&super::AttributePresence, src, 1, &[2], expect![[r#"
            ## 1
            class Cache:
                size = 3


            cache = Cache()
        "#]]);
    }
}
