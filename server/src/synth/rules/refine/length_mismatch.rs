//! `Length of values (5) does not match length of index (3)`: a list the
//! line reads has one of the lengths and gets the other.

use crate::synth::infer;
use crate::synth::prefix::{Binding, Candidate};
use crate::synth::value::Value;
use crate::synth::rules::refine::Refine;
use crate::synth::rules::Failure;
use crate::synth::session::Context;

pub struct LengthMismatch;

impl Refine for LengthMismatch {
    fn name(&self) -> &'static str {
        "length-mismatch"
    }
    fn exception(&self) -> &'static str {
        "ValueError"
    }
    fn reads(&self, _ctx: &Context, fail: &Failure) -> bool {
        mismatched_lengths(&fail.error.message).is_some()
    }
    fn edit_name(&self, _ctx: &Context, fail: &Failure, b: &mut Binding) -> bool {
        mismatched_lengths(&fail.error.message).is_some_and(|lengths| resize(b, lengths))
    }
}

/// The two lengths a length-mismatch message names, when it names two.
fn mismatched_lengths(message: &str) -> Option<(usize, usize)> {
    if !message.to_lowercase().contains("length") {
        return None;
    }
    let mut numbers = message
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|t| t.parse::<usize>().ok());
    let (a, b) = (numbers.next()?, numbers.next()?);
    (a != b && numbers.next().is_none()).then_some((a, b))
}

/// A list of one of the two lengths gets the other (repeating its first
/// item with variations, or dropping the last ones).
fn resize(b: &mut Binding, (x, y): (usize, usize)) -> bool {
    let Candidate::Value(Value::List(items)) = b.current_mut() else { return false };
    let want = if items.len() == x { y } else if items.len() == y { x } else { return false };
    let Some(first) = items.first().cloned() else { return false };
    if !(1..=50).contains(&want) {
        return false;
    }
    items.truncate(want);
    for i in items.len()..want {
        items.push(infer::vary(&first, i));
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::synth::value::Value;
    use crate::synth::prefix::{Binding, Candidate};
    use expect_test::expect;

    #[test]
    fn a_list_of_one_length_gets_the_other() {
        refine_with(&super::LengthMismatch, "frame['label'] = labels\n", |p| { *p.binding_mut("labels").unwrap() = Binding::new("labels", vec![Candidate::Value(Value::List(vec![Value::Int(1), Value::Int(2), Value::Int(3)]))]); }, raised("ValueError", r#"Length of values (3) does not match length of index (5)"#, 1), expect![[r#"
            ## 1
            frame = {'a': 1, 'b': 2, 'c': 3}
            labels = [1, 2, 3, 4, 5]
        "#]]);
    }
}
