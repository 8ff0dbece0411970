//! What a branch or an assertion tests, as trees (`analysis::Condition`):
//! the test's own expressions and the statements before it that assign the
//! names it reads (`h = self.find(e)`; `if h is None`). The vocabulary that
//! `alternatives` and `string_shapes` draw other values from; nothing here
//! reads source text. Pure.

use crate::analysis::{line_statement, Condition, Constant, LineStatement};

#[derive(Debug, Clone, Default)]
pub(crate) struct Tests {
    /// The test: a branch's condition; an assertion's test and message.
    pub test: Vec<Condition>,
    /// The statements before the test that assign names it reads, in order.
    pub assigned: Vec<LineStatement>,
}

impl Tests {
    /// A condition alone.
    pub fn of(condition: &Condition) -> Tests {
        Tests { test: vec![condition.clone()], assigned: Vec::new() }
    }

    /// The statement on one line of the fragment (an `assert`).
    pub fn line(text: &str) -> Tests {
        Tests { test: line_statement(text).expressions, assigned: Vec::new() }
    }

    /// Every node of the test, then of the assignments, each pre-order.
    pub fn nodes(&self) -> Vec<&Condition> {
        let mut out = Vec::new();
        for e in self.test.iter().chain(self.assigned.iter().flat_map(|s| &s.expressions)) {
            e.visit(&mut |c| out.push(c));
        }
        out
    }

    /// The constants the test compares with: its own, then those the
    /// statements before it assign a name as its value (`limit = 3`,
    /// `VALID = ('a', 'b')`), not the arguments of what they call (a
    /// prompt `input("Go on? (y/n)")` is no value to test for).
    pub fn constants(&self) -> Vec<&Constant> {
        let mut out: Vec<&Constant> = self.test.iter().flat_map(Condition::constants).collect();
        for (_, value) in self.assigned.iter().flat_map(|s| &s.assigns) {
            if matches!(value, Condition::Constant { .. }) || value.is_constant_display() {
                out.extend(value.constants());
            }
        }
        out
    }

    /// Plain names the test itself reads (not the assignments), each once.
    pub fn test_names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for n in self.test.iter().flat_map(Condition::names) {
            if !out.contains(&n) {
                out.push(n);
            }
        }
        out
    }

    /// A call of the plain function `name` anywhere (`len(x)`).
    pub fn calls(&self, name: &str) -> bool {
        self.nodes().into_iter().any(|c| matches!(c, Condition::Call { func, .. } if matches!(&**func, Condition::Name { id } if id == name)))
    }

    /// Whether the value at `path` (`obj.code`, `pair[0].x`) is read.
    pub fn reads_path(&self, path: &str) -> bool {
        self.nodes().into_iter().any(|c| matches!(c, Condition::Attribute { .. } | Condition::Subscript { .. } | Condition::Name { .. }) && c.path().as_deref() == Some(path))
    }

    /// The string literal the statements before the test give the plain
    /// name `name` (`NBSP = "\xa0"`), the first that does.
    pub fn assigned_str(&self, name: &str) -> Option<&str> {
        self.assigned.iter().flat_map(|s| &s.assigns).find_map(|(n, v)| match v {
            Condition::Constant { value: Constant::Str(s) } if n == name => Some(s.as_str()),
            _ => None,
        })
    }
}

#[cfg(test)]
pub(crate) fn tests_of(test: &str, before: &[&str]) -> Tests {
    Tests { test: line_statement(test).expressions, assigned: before.iter().map(|l| line_statement(l)).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_calls_paths_and_assigned_strings_come_from_the_trees() {
        let t = tests_of("if len(self.items) > limit and s != 'len(':", &["limit = 3", "sep = ','", "s = sep", "x = ask('size 7?')"]);
        assert_eq!(t.test_names(), ["len", "self", "limit", "s"]);
        assert!(t.calls("len") && !t.calls("items"));
        assert!(t.reads_path("self.items") && !t.reads_path("self.item"));
        assert_eq!(t.assigned_str("sep"), Some(","));
        assert_eq!(t.assigned_str("s"), None);
        // The test's constants, then what names are assigned, not a call's arguments.
        assert_eq!(t.constants(), [&Constant::Str("len(".into()), &Constant::Int(3), &Constant::Str(",".into())]);
    }
}
