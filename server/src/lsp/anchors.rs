//! Results of a run pinned to document lines (inlay hints, the runtime-error
//! diagnostic) that follow later edits: each is keyed to its line number and
//! the line's text. An edit above shifts it; an edit that touches its own
//! line removes it; a full-text replacement keeps it only where the line is
//! in the unchanged head or tail of the text.

use ropey::Rope;

#[derive(Debug, Clone, PartialEq)]
pub struct Anchored<T> {
    /// 0-based document line.
    pub line: u32,
    /// The line's text when the result was produced.
    pub text: String,
    pub value: T,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Anchors<T> {
    items: Vec<Anchored<T>>,
}

impl<T> Default for Anchors<T> {
    fn default() -> Self {
        Anchors { items: Vec::new() }
    }
}

impl<T> Anchors<T> {
    pub fn set(&mut self, items: Vec<Anchored<T>>) {
        self.items = items;
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }

    pub fn iter(&self) -> impl Iterator<Item = &Anchored<T>> {
        self.items.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Old lines `first..first + old_count` were replaced by `new_count`
    /// lines: what was on them goes, what follows shifts.
    pub fn edited(&mut self, first: u32, old_count: u32, new_count: u32) {
        let end = first as i64 + old_count as i64;
        let delta = new_count as i64 - old_count as i64;
        self.items.retain_mut(|a| {
            let l = a.line as i64;
            if l < first as i64 {
                true
            } else if l >= end {
                a.line = (l + delta) as u32;
                true
            } else {
                false
            }
        });
    }

    /// The whole text was replaced: keep what lies in the common head or
    /// tail of the old and new texts.
    pub fn replaced(&mut self, old: &Rope, new: &Rope) {
        let (o, n) = (old.len_lines(), new.len_lines());
        let mut head = 0;
        while head < o && head < n && old.line(head) == new.line(head) {
            head += 1;
        }
        let mut tail = 0;
        while tail < o - head && tail < n - head && old.line(o - 1 - tail) == new.line(n - 1 - tail) {
            tail += 1;
        }
        let delta = n as i64 - o as i64;
        self.items.retain_mut(|a| {
            let l = a.line as usize;
            if l < head {
                true
            } else if l >= o - tail && l < o {
                a.line = (l as i64 + delta) as u32;
                true
            } else {
                false
            }
        });
    }

    /// Drop anything whose line no longer has the text it was made for
    /// (a safety net after the remapping).
    pub fn verify(&mut self, rope: &Rope) {
        self.items.retain(|a| super::position::line_text(rope, a.line as usize) == a.text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(lines: &[(u32, &str)]) -> Anchors<u32> {
        let mut s = Anchors::default();
        s.set(lines.iter().map(|(l, t)| Anchored { line: *l, text: t.to_string(), value: *l }).collect());
        s
    }

    fn lines(s: &Anchors<u32>) -> Vec<(u32, u32)> {
        s.iter().map(|a| (a.value, a.line)).collect()
    }

    #[test]
    fn lines_inserted_above_shift_the_hints_down() {
        let mut s = store(&[(2, "a = 1"), (3, "b = 2")]);
        // Two whole lines inserted before line 2 (the prefix).
        s.edited(2, 0, 2);
        assert_eq!(lines(&s), vec![(2, 4), (3, 5)]);
    }

    #[test]
    fn editing_a_line_removes_only_its_hint() {
        let mut s = store(&[(0, "x"), (1, "y"), (2, "z")]);
        s.edited(1, 1, 1);
        assert_eq!(lines(&s), vec![(0, 0), (2, 2)]);
    }

    #[test]
    fn deleting_lines_shifts_up_and_drops_the_deleted() {
        let mut s = store(&[(0, "x"), (1, "y"), (2, "z"), (5, "w")]);
        s.edited(1, 2, 1);
        assert_eq!(lines(&s), vec![(0, 0), (5, 4)]);
    }

    #[test]
    fn full_replacement_keeps_the_unchanged_head_and_tail() {
        let old = Rope::from_str("a\nb\nc\nd\n");
        let new = Rope::from_str("a\nNEW\nNEW2\nc\nd\n");
        let mut s = store(&[(0, "a"), (1, "b"), (2, "c"), (3, "d")]);
        s.replaced(&old, &new);
        assert_eq!(lines(&s), vec![(0, 0), (2, 3), (3, 4)]);
        s.verify(&new);
        assert_eq!(s.iter().count(), 3);
    }

    #[test]
    fn verify_drops_stale_text() {
        let mut s = store(&[(0, "a"), (1, "b")]);
        s.verify(&Rope::from_str("a\nchanged\n"));
        assert_eq!(lines(&s), vec![(0, 0)]);
    }
}
