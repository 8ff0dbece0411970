//! AttributeError for a member of the io protocol (`readable`, `seekable`,
//! `closed`, `fileno`, `read`) that a callee reached for on a value the
//! fragment passed it (`io.TextIOWrapper(raw)`, `json.load(fp)`): the callee
//! wants an open file, so the value becomes a real in-memory stream holding
//! what its reader parses (`synth::streams`), never a value that grows the
//! protocol's members one lambda at a time (`missing-attribute` leaves
//! these to this rule).

use crate::analysis::Usage;
use crate::synth::bindings::usage_of;
use crate::synth::edits::with_candidate;
use crate::synth::prefix::{Binding, Prefix};
use crate::synth::rules::refine::Refine;
use crate::synth::rules::Failure;
use crate::synth::session::Context;
use crate::synth::streams;
use crate::synth::value::Value;

pub struct StreamProtocol;

/// Whether a callee, not the fragment, read io member `attr` of the value
/// a name used as `usage` holds: the fragment never reads that member
/// itself, and passes the name on or the error comes from library code
/// (a name the fragment binds itself has no usage facts: `shlex.split(cmd)`
/// reads `cmd.read` when `cmd` is not a `str`).
pub(crate) fn callee_wants_a_stream(fail: &Failure, usage: &Usage, attr: &str) -> bool {
    streams::protocol_member(attr).is_some() && !usage.attrs.contains_key(attr) && (!usage.passed_to.is_empty() || fail.error.raised_in.is_some())
}

/// Whether the value lacking the member is `v` itself: its type is the
/// one the error names, or it is an expression whose type the prefix does
/// not spell (`command.encode('utf8')`, the fragment's own, moved up).
pub(crate) fn lacks_it_itself(v: &Value, obj_type: Option<&str>) -> bool {
    obj_type == Some(v.type_name().as_str()) || matches!(v, Value::Expr { .. })
}

impl Refine for StreamProtocol {
    fn name(&self) -> &'static str {
        "stream-protocol"
    }
    fn exception(&self) -> &'static str {
        "AttributeError"
    }
    fn reads(&self, _ctx: &Context, fail: &Failure) -> bool {
        fail.error.name.as_deref().is_some_and(|a| streams::protocol_member(a).is_some())
    }
    fn refine(&self, ctx: &Context, fail: &Failure) -> Vec<Prefix> {
        let Some(attr) = fail.error.name.as_deref() else { return Vec::new() };
        let mut out = Vec::new();
        for n in &fail.names_on_line {
            let usage = usage_of(ctx, n);
            let Some(current) = fail.base.binding(n).and_then(Binding::value) else { continue };
            if !lacks_it_itself(current, fail.error.obj_type.as_deref()) || !callee_wants_a_stream(fail, &usage, attr) {
                continue;
            }
            for s in streams::for_missing_member(&usage, attr) {
                let v = streams::value(ctx, s);
                if v != *current {
                    out.push(with_candidate(fail.base, n, v));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::exec::ExceptionInfo;
    use crate::synth::prefix::{Binding, Candidate};
    use crate::synth::rules::check::*;
    use crate::synth::value::Value;
    use expect_test::expect;

    fn lacks(obj_type: &str, attr: &str, line: u32) -> ExceptionInfo {
        ExceptionInfo { name: Some(attr.into()), obj_type: Some(obj_type.into()), ..raised("AttributeError", &format!("'{obj_type}' object has no attribute '{attr}'"), line) }
    }

    #[test]
    fn a_text_a_callee_reads_as_a_file_becomes_a_stream() {
        // `load(src)` calls `src.read()`: a text stream first, then bytes.
        refine_with(&super::StreamProtocol, "data = load(src)\nprint(data)\n", |p| { *p.binding_mut("src").unwrap() = Binding::new("src", vec![Candidate::Value(Value::Str("data.txt".into()))]); }, lacks("str", "read", 1), expect![[r#"
            ## 1
            import io


            def load(*args, **kwargs):
                return 'Pack my box with five dozen liquor jugs'


            src = io.StringIO('first line\nsecond line\nthird line\n')
            ## 2
            import io


            def load(*args, **kwargs):
                return 'Pack my box with five dozen liquor jugs'


            src = io.BytesIO(b'first line\nsecond line\nthird line\n')
        "#]]);
    }

    #[test]
    fn a_member_the_fragment_reads_itself_is_not_a_callees() {
        refine_with(&super::StreamProtocol, "print(doc.closed, len(doc))\n", |p| { *p.binding_mut("doc").unwrap() = Binding::new("doc", vec![Candidate::Value(Value::Str("x".into()))]); }, lacks("str", "closed", 1), expect![[r#"
            (nothing)
        "#]]);
    }
}
