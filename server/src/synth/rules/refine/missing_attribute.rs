//! AttributeError for a member a prefix value lacks: the value gets it (a
//! method when the line calls it); a builtin value becomes a subclass of
//! its type that has it, or the other builtin kind that has it (`decode`:
//! bytes); a nested value lacking it gets it where it sits; through
//! `super()`, `self`'s own class gets it.

use crate::synth::additions::add_member;
use crate::synth::bindings::usage_of;
use crate::synth::edits::buildable;
use crate::synth::prefix::{Binding, Candidate};
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::rules::refine::Refine;
use crate::synth::rules::Failure;
use crate::synth::session::Context;

pub struct MissingAttribute;

/// The types of builtin values, whose `type_name` is exact.
const BUILTIN_TYPES: &[&str] = &["int", "float", "str", "bytes", "bool", "NoneType", "list", "tuple", "set", "dict"];

impl Refine for MissingAttribute {
    fn name(&self) -> &'static str {
        "missing-attribute"
    }
    fn exception(&self) -> &'static str {
        "AttributeError"
    }
    fn reads(&self, _ctx: &Context, fail: &Failure) -> bool {
        fail.error.name.is_some()
    }
    fn refine(&self, ctx: &Context, fail: &Failure) -> Vec<Prefix> {
        let Some((attr, called)) = fail.missing_member(ctx) else { return Vec::new() };
        let (e, base) = (fail.error, fail.base);
        let mut out = Vec::new();
        // `super()` stands for `self`: the base class (self's own) lacks it.
        let mut targets = fail.names_on_line.clone();
        if e.obj_type.as_deref() == Some("super") && base.binding("self").is_some() {
            let mut p = base.clone();
            let member = Value::Function { returns: Box::new(Value::None), is_async: false };
            if let Some(Candidate::Value(Value::Object { attrs, methods, .. })) = p.binding_mut("self").map(Binding::current_mut) {
                if !attrs.iter().chain(methods.iter()).any(|(n, _)| *n == attr) {
                    if called { methods.push((attr.clone(), member)) } else { attrs.push((attr.clone(), Value::None)) }
                    out.push(p);
                }
            }
            targets.clear();
        }
        for n in &targets {
            let mut p = base.clone();
            let whole = usage_of(ctx, n);
            let own_type = base.binding(n).and_then(Binding::value).map(Value::type_name);
            if own_type.is_some() && own_type.as_deref() != e.obj_type.as_deref() {
                // The value lacking it sits inside this one (`parcel.sender.name`).
                let member = if called { Value::Function { returns: Box::new(Value::None), is_async: false } } else { Value::Str(attr.clone()) };
                if let Some(Candidate::Value(v)) = p.binding_mut(n).map(Binding::current_mut) {
                    if v.give_nested_attr(e.obj_type.as_deref().unwrap_or(""), &attr, &member, n, 0) {
                        out.push(p);
                        continue;
                    }
                }
                // A builtin value of another type holds nothing: it is not
                // what lacks the member (`obj` beside `app.json.dumps(obj)`).
                if own_type.as_deref().is_some_and(|t| BUILTIN_TYPES.contains(&t)) {
                    continue;
                }
            }
            // A callee reached for a member of the io protocol: it wants a
            // real stream (`stream-protocol`), not one more member.
            let itself = base.binding(n).and_then(Binding::value).is_some_and(|v| super::stream_protocol::lacks_it_itself(v, e.obj_type.as_deref()));
            if itself && super::stream_protocol::callee_wants_a_stream(fail, &whole, &attr) {
                continue;
            }
            let returns = whole.attrs.get(&attr).cloned().unwrap_or_default();
            if add_member(p.binding_mut(n).unwrap(), &attr, called, &returns, &whole, |v| buildable(ctx, v)) {
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
    use crate::synth::value::Value;
    use crate::synth::prefix::{Binding, Candidate};
    use expect_test::expect;

    #[test]
    fn a_builtin_value_lacking_a_method_becomes_a_subclass_with_it() {
        refine_with(&super::MissingAttribute, "print(user.display_name())\n", |p| { *p.binding_mut("user").unwrap() = Binding::new("user", vec![Candidate::Value(Value::Str("Ada".into()))]); }, ExceptionInfo { name: Some("display_name".into()), obj_type: Some("str".into()), ..raised("AttributeError", r#"'str' object has no attribute 'display_name'"#, 1) }, expect![[r#"
            ## 1
            class User(str):
                def display_name(self, *args, **kwargs):
                    return 'Ada'


            user = User('Ada')
        "#]]);
    }

    #[test]
    fn an_io_member_a_callee_reads_is_left_to_the_stream_rule() {
        // `io.TextIOWrapper(raw)` asks `raw.readable()`: a real stream is
        // wanted (`stream-protocol`), not a `str` subclass with a lambda.
        refine_with(&super::MissingAttribute, "t = io.TextIOWrapper(raw)\n", |p| { *p.binding_mut("raw").unwrap() = Binding::new("raw", vec![Candidate::Value(Value::Str("raw.txt".into()))]); }, ExceptionInfo { name: Some("readable".into()), obj_type: Some("str".into()), ..raised("AttributeError", "'str' object has no attribute 'readable'", 1) }, expect![[r#"
            (nothing)
        "#]]);
    }
}
