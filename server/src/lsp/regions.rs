//! Where the Python is in a document (all of a `.py` file, the ```python
//! fences of a Markdown file) and which lines a "Make this runnable"
//! request means: a selection's lines, or, for an empty selection, the
//! enclosing top-level statement, function or class (or fence).

use super::document::{Language, Snapshot};
use super::position;
use super::syntax;

/// A stretch of Python source inside a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// 0-based document line of the region's first line.
    pub first_line: u32,
    /// Number of lines.
    pub lines: u32,
    pub text: String,
}

impl Region {
    pub fn last_line(&self) -> u32 {
        self.first_line + self.lines.saturating_sub(1)
    }
    pub fn contains(&self, line: u32) -> bool {
        self.lines > 0 && line >= self.first_line && line <= self.last_line()
    }
}

/// The lines (0-based, inclusive) of one fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fragment {
    pub start: u32,
    pub end: u32,
}

pub fn python_regions(doc: &Snapshot) -> Vec<Region> {
    match doc.language {
        Language::Python => {
            vec![Region { first_line: 0, lines: doc.rope.len_lines() as u32, text: doc.rope.to_string() }]
        }
        Language::Markdown => fences(&doc.rope.to_string()),
        Language::Other => Vec::new(),
    }
}

/// The bodies of ```python (or ```py, ~~~python, ```{.python}) fences.
pub fn fences(text: &str) -> Vec<Region> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end_matches('\r');
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let fence_char = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let Some(fc) = fence_char.filter(|_| indent <= 3) else {
            i += 1;
            continue;
        };
        let width = trimmed.chars().take_while(|c| *c == fc).count();
        if width < 3 {
            i += 1;
            continue;
        }
        let info = trimmed[width..].trim().trim_start_matches('{').trim_start_matches('.');
        let lang = info.split(|c: char| c.is_whitespace() || c == '}' || c == ',').next().unwrap_or("").to_ascii_lowercase();
        let is_python = matches!(lang.as_str(), "python" | "py" | "python3" | "pycon3");
        // Find the closing fence.
        let mut j = i + 1;
        while j < lines.len() {
            let t = lines[j].trim_end_matches('\r').trim();
            if t.chars().take_while(|c| *c == fc).count() >= width && t.chars().all(|c| c == fc) {
                break;
            }
            j += 1;
        }
        if is_python && j > i + 1 {
            let body: Vec<&str> = lines[i + 1..j].iter().map(|l| l.trim_end_matches('\r')).collect();
            out.push(Region { first_line: (i + 1) as u32, lines: (j - i - 1) as u32, text: body.join("\n") + "\n" });
        }
        i = j + 1;
    }
    out
}

/// The fragment a request for lines `start..=end` means (an empty selection
/// has `empty == true` and `start == end`). None when there is nothing to run there.
pub fn fragment_for(doc: &Snapshot, start: u32, end: u32, empty: bool) -> Option<Fragment> {
    let regions = python_regions(doc);
    let region = regions.iter().find(|r| r.contains(start))?;
    let fragment = if empty {
        match doc.language {
            Language::Markdown => Fragment { start: region.first_line, end: region.last_line() },
            _ => enclosing_statement(region, start, doc.python_tree())?,
        }
    } else {
        Fragment { start, end: end.min(region.last_line()) }
    };
    let has_code = (fragment.start..=fragment.end).any(|l| !position::line_text(&doc.rope, l as usize).trim().is_empty());
    has_code.then_some(fragment)
}

/// The top-level statement (function, class, decorated definition, ...) of
/// `region` whose lines contain `line`. `tree` is the document's kept
/// syntax tree when the region is the whole (Python) document; otherwise
/// the region is parsed.
fn enclosing_statement(region: &Region, line: u32, tree: Option<&tree_sitter::Tree>) -> Option<Fragment> {
    let parsed;
    let tree = match tree.filter(|_| region.first_line == 0) {
        Some(tree) => tree,
        None => {
            parsed = syntax::parse_text(&region.text)?;
            &parsed
        }
    };
    let row = (line - region.first_line) as usize;
    let found = syntax::top_level_statements(tree, &region.text).into_iter().find(|s| s.first <= row && row <= s.last)?;
    Some(Fragment { start: region.first_line + found.first as u32, end: region.first_line + found.last as u32 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ropey::Rope;

    fn snap(text: &str, language: Language) -> Snapshot {
        let rope = Rope::from_str(text);
        let tree = syntax::parse_rope(&rope, None);
        Snapshot { uri: "file:///t/a".parse().unwrap(), language, version: 1, rope, tree }
    }

    const PY: &str = "import os\n\n@deco\ndef f(x):\n    y = x + 1\n\n    return y\n\n# note\nprint(f(1))\n";

    #[test]
    fn empty_selection_takes_the_enclosing_top_level_statement() {
        let d = snap(PY, Language::Python);
        // Inside the body, on the blank line in the body, on the decorator.
        for line in [4, 5, 2, 6] {
            assert_eq!(fragment_for(&d, line, line, true), Some(Fragment { start: 2, end: 6 }), "line {line}");
        }
        assert_eq!(fragment_for(&d, 9, 9, true), Some(Fragment { start: 9, end: 9 }));
        // Blank line between statements, and a comment: nothing.
        assert_eq!(fragment_for(&d, 1, 1, true), None);
        assert_eq!(fragment_for(&d, 8, 8, true), None);
        // Without a kept tree the region is parsed: same answers.
        let untreed = Snapshot { tree: None, ..d };
        assert_eq!(fragment_for(&untreed, 4, 4, true), Some(Fragment { start: 2, end: 6 }));
    }

    #[test]
    fn the_kept_tree_follows_edits() {
        use super::super::document::Document;
        use tower_lsp_server::lsp_types::{Position, Range, TextDocumentContentChangeEvent};
        let mut doc = Document::new("file:///t/a.py".parse().unwrap(), Language::Python, 1, PY);
        // Two lines into f's body: f now spans lines 2..=8.
        let change = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(5, 0), Position::new(5, 0))),
            range_length: None,
            text: "    z = '😀'\n    w = '漢'\n".into(),
        };
        doc.apply(vec![change], 2, super::super::position::Encoding::Utf16);
        let snap = doc.snapshot();
        assert!(snap.tree.is_some());
        assert_eq!(fragment_for(&snap, 6, 6, true), Some(Fragment { start: 2, end: 8 }));
        assert_eq!(fragment_for(&snap, 11, 11, true), Some(Fragment { start: 11, end: 11 }));
    }

    #[test]
    fn a_selection_takes_its_lines() {
        let d = snap(PY, Language::Python);
        assert_eq!(fragment_for(&d, 3, 6, false), Some(Fragment { start: 3, end: 6 }));
        assert_eq!(fragment_for(&d, 7, 7, false), None, "blank lines only");
    }

    const MD: &str = "# Title\n\n```python\nx = load()\nprint(x)\n```\n\ntext\n\n~~~ py\ny = 1\n~~~\n```js\nz\n```\n";

    #[test]
    fn markdown_fences_are_python_regions() {
        let regions = fences(MD);
        assert_eq!(regions.len(), 2);
        assert_eq!(regions[0], Region { first_line: 3, lines: 2, text: "x = load()\nprint(x)\n".into() });
        assert_eq!(regions[1].first_line, 10);
        let d = snap(MD, Language::Markdown);
        assert_eq!(fragment_for(&d, 4, 4, true), Some(Fragment { start: 3, end: 4 }));
        assert_eq!(fragment_for(&d, 3, 9, false), Some(Fragment { start: 3, end: 4 }), "clipped to the fence");
        assert_eq!(fragment_for(&d, 0, 0, true), None, "outside any fence");
        assert_eq!(fragment_for(&d, 13, 13, true), None, "not python");
    }
}
