//! An open document: its text as a rope, its version, and the results of
//! the last run pinned to its lines, and for Python its syntax tree. Edits
//! (full or incremental) apply here, to the rope and, incrementally, to the tree.

use super::anchors::{Anchored, Anchors};
use super::position::{self, Encoding};
use super::syntax;
use ropey::Rope;
use std::path::PathBuf;
use tower_lsp_server::lsp_types::{TextDocumentContentChangeEvent, Uri};
use tower_lsp_server::UriExt;

/// Larger documents are kept in sync (the rope) but never analysed: no
/// syntax tree, no diagnostics, no "Make this runnable". A tree-sitter tree
/// and the per-statement analyses of a 20 MB file took gigabytes, and no
/// fragment worth making runnable is that large.
pub const MAX_ANALYSED_BYTES: usize = 2 * 1024 * 1024;

/// Whether a text of `bytes` is too large to analyse.
pub fn too_large(bytes: usize) -> bool {
    bytes > MAX_ANALYSED_BYTES
}

/// The log line for a document that is too large to analyse.
pub fn too_large_message(uri: &Uri, bytes: usize) -> String {
    let mb = |b: usize| b as f64 / (1024.0 * 1024.0);
    format!("{} is too large to analyse ({:.1} MB > {:.0} MB): Runnable skips it", uri.as_str(), mb(bytes), mb(MAX_ANALYSED_BYTES))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Python,
    Markdown,
    Other,
}

impl Language {
    pub fn from_id(id: &str, uri: &Uri) -> Language {
        match id {
            "python" => Language::Python,
            "markdown" => Language::Markdown,
            _ => {
                let path = uri.path().as_str().to_ascii_lowercase();
                if path.ends_with(".py") {
                    Language::Python
                } else if path.ends_with(".md") || path.ends_with(".markdown") {
                    Language::Markdown
                } else {
                    Language::Other
                }
            }
        }
    }
}

/// What a run left on a fragment line.
#[derive(Debug, Clone, PartialEq)]
pub struct LineResult {
    /// Whether the line is a counted statement (else no coverage hint).
    pub executable: bool,
    /// How often it ran (0 = not reached).
    pub hits: u64,
    /// First values assigned on the line: (name, repr).
    pub values: Vec<(String, String)>,
    /// What the run printed from this line (stdout), if anything.
    pub printed: Option<String>,
}

/// The exception that stopped a run, on its line.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeError {
    pub type_name: String,
    pub message: String,
    /// The run did not start: the fragment does not parse (a `syntax-error`
    /// diagnostic, unless the analysis as you type shows it already).
    pub syntax: bool,
    /// Why the fragment cannot run as written, when the error says so (a
    /// path on the author's machine, Python 2: `blockers`), as the terminal
    /// says it (`human::blocker_line`).
    pub why: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Document {
    pub uri: Uri,
    pub language: Language,
    pub version: i32,
    pub rope: Rope,
    /// The tree-sitter tree of `rope` (Python documents), edited and
    /// re-parsed incrementally on every change.
    pub tree: Option<tree_sitter::Tree>,
    pub hints: Anchors<LineResult>,
    pub errors: Anchors<RuntimeError>,
}

/// A read-only copy for work off the message loop (cloning a rope is O(1)).
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub uri: Uri,
    pub language: Language,
    pub version: i32,
    pub rope: Rope,
    /// The syntax tree of `rope` (Python documents; cloning is O(1)).
    pub tree: Option<tree_sitter::Tree>,
}

impl Snapshot {
    pub fn too_large(&self) -> bool {
        too_large(self.rope.len_bytes())
    }

    /// The Python syntax tree of the whole text, when the document is Python.
    pub fn python_tree(&self) -> Option<&tree_sitter::Tree> {
        self.tree.as_ref().filter(|_| self.language == Language::Python)
    }

    /// The document's file, when it is one.
    pub fn path(&self) -> Option<PathBuf> {
        file_path(&self.uri)
    }

    /// The folder the document lives in.
    pub fn folder(&self) -> Option<PathBuf> {
        self.path().and_then(|p| p.parent().map(|d| d.to_path_buf()))
    }
}

pub fn file_path(uri: &Uri) -> Option<PathBuf> {
    if uri.scheme().map(|s| s.as_str()) != Some("file") {
        return None;
    }
    uri.to_file_path().map(|p| p.into_owned())
}

impl Document {
    pub fn new(uri: Uri, language: Language, version: i32, text: &str) -> Document {
        let rope = Rope::from_str(text);
        let tree = (language == Language::Python && !too_large(rope.len_bytes())).then(|| syntax::parse_rope(&rope, None)).flatten();
        Document { uri, language, version, rope, tree, hints: Anchors::default(), errors: Anchors::default() }
    }

    pub fn too_large(&self) -> bool {
        too_large(self.rope.len_bytes())
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot { uri: self.uri.clone(), language: self.language, version: self.version, rope: self.rope.clone(), tree: self.tree.clone() }
    }

    /// Apply `didChange` content changes in order. Ranges past the end are
    /// clamped (a notification cannot be answered with an error).
    /// The syntax tree gets a `Tree::edit` per ranged change and one
    /// re-parse with the edited tree at the end (from scratch after a full
    /// replacement). A document above `MAX_ANALYSED_BYTES` keeps no tree; one
    /// that shrinks below it is parsed from scratch.
    pub fn apply(&mut self, changes: Vec<TextDocumentContentChangeEvent>, version: i32, enc: Encoding) {
        let python = self.language == Language::Python;
        for change in changes {
            // Lines are compared only when a run left something on them
            // (copying the lines of a huge change costs as much as the text).
            let anchored = !self.hints.is_empty() || !self.errors.is_empty();
            match change.range {
                None => {
                    let new = Rope::from_str(&change.text);
                    if anchored {
                        self.hints.replaced(&self.rope, &new);
                        self.errors.replaced(&self.rope, &new);
                    }
                    self.rope = new;
                    self.tree = None;
                }
                Some(range) => {
                    let start = position::to_char_clamped(&self.rope, range.start, enc);
                    let end = position::to_char_clamped(&self.rope, range.end, enc).max(start);
                    let first = self.rope.char_to_line(start);
                    let last = self.rope.char_to_line(end);
                    let old: Vec<String> = if anchored { (first..=last).map(|l| position::line_text(&self.rope, l)).collect() } else { Vec::new() };
                    if let Some(tree) = self.tree.as_mut() {
                        tree.edit(&position::input_edit(&self.rope, start, end, &change.text));
                    }
                    self.rope.remove(start..end);
                    self.rope.insert(start, &change.text);
                    if !anchored {
                        continue;
                    }
                    let added = change.text.matches('\n').count();
                    let new: Vec<String> = (first..=first + added).map(|l| position::line_text(&self.rope, l)).collect();
                    let (head, tail) = unchanged_ends(&old, &new);
                    let (at, removed, inserted) = ((first + head) as u32, (old.len() - head - tail) as u32, (new.len() - head - tail) as u32);
                    self.hints.edited(at, removed, inserted);
                    self.errors.edited(at, removed, inserted);
                }
            }
        }
        self.tree = if python && !self.too_large() { syntax::parse_rope(&self.rope, self.tree.as_ref()) } else { None };
        self.hints.verify(&self.rope);
        self.errors.verify(&self.rope);
        self.version = version;
    }

    pub fn set_results(&mut self, hints: Vec<Anchored<LineResult>>, errors: Vec<Anchored<RuntimeError>>) {
        self.hints.set(hints);
        self.errors.set(errors);
    }
}

/// How many lines at the start and at the end of the edited stretch kept
/// their text (inserting lines above a line, or pressing Enter at its end,
/// does not change that line).
fn unchanged_ends(old: &[String], new: &[String]) -> (usize, usize) {
    let max = old.len().min(new.len());
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count().min(max);
    let tail = old.iter().rev().zip(new.iter().rev()).take(max - head).take_while(|(a, b)| a == b).count();
    (head, tail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::lsp_types::{Position, Range};

    fn change(l1: u32, c1: u32, l2: u32, c2: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l1, c1), Position::new(l2, c2))),
            range_length: None,
            text: text.into(),
        }
    }

    fn doc(text: &str) -> Document {
        Document::new("file:///t/a.py".parse().unwrap(), Language::Python, 1, text)
    }

    fn result(hits: u64) -> LineResult {
        LineResult { executable: true, hits, values: vec![], printed: None }
    }

    #[test]
    fn incremental_edits_in_utf16_on_emoji_lines() {
        let mut d = doc("s = '😀'\nt = 1\n");
        // Replace `1` (after the emoji line) and append after the emoji.
        d.apply(vec![change(1, 4, 1, 5, "2"), change(0, 8, 0, 8, "!")], 2, Encoding::Utf16);
        assert_eq!(d.rope.to_string(), "s = '😀'!\nt = 2\n");
        assert_eq!(d.version, 2);
        d.apply(vec![change(0, 11, 0, 11, "?")], 3, Encoding::Utf8);
        assert_eq!(d.rope.to_string(), "s = '😀'!?\nt = 2\n");
    }

    #[test]
    fn full_sync_replaces_the_text() {
        let mut d = doc("a\n");
        d.apply(vec![TextDocumentContentChangeEvent { range: None, range_length: None, text: "漢字\n".into() }], 5, Encoding::Utf16);
        assert_eq!(d.rope.to_string(), "漢字\n");
    }

    #[test]
    fn out_of_range_changes_are_clamped() {
        let mut d = doc("a\n");
        d.apply(vec![change(9, 0, 9, 0, "z")], 2, Encoding::Utf16);
        assert_eq!(d.rope.to_string(), "a\nz");
    }

    #[test]
    fn hints_move_back_when_the_inserted_prefix_is_undone_and_redone() {
        let mut d = doc("# c\nx = s.strip()\nprint(x)\n");
        d.set_results(
            vec![
                Anchored { line: 1, text: "x = s.strip()".into(), value: result(1) },
                Anchored { line: 2, text: "print(x)".into(), value: result(2) },
            ],
            vec![],
        );
        let at = |d: &Document| d.hints.iter().map(|a| (a.line, a.value.hits)).collect::<Vec<_>>();
        // The run's edit: the prefix above the fragment.
        d.apply(vec![change(1, 0, 1, 0, "s = ' a '\n\n")], 2, Encoding::Utf16);
        assert_eq!(at(&d), vec![(3, 1), (4, 2)]);
        // VS Code's undo: the inverse edit, deleting the lines it inserted.
        d.apply(vec![change(1, 0, 3, 0, "")], 3, Encoding::Utf16);
        assert_eq!(d.rope.to_string(), "# c\nx = s.strip()\nprint(x)\n");
        assert_eq!(at(&d), vec![(1, 1), (2, 2)]);
        // Neovim's undo: the same as one change ending at the previous line's end.
        d.apply(vec![change(0, 3, 0, 3, "\ns = ' a '\n")], 4, Encoding::Utf16);
        assert_eq!(at(&d), vec![(3, 1), (4, 2)]);
        d.apply(vec![change(0, 3, 2, 0, "")], 5, Encoding::Utf16);
        assert_eq!(at(&d), vec![(1, 1), (2, 2)]);
        // A whole-text undo (full sync).
        d.apply(vec![TextDocumentContentChangeEvent { range: None, range_length: None, text: "# c\ns = ' a '\n\nx = s.strip()\nprint(x)\n".into() }], 6, Encoding::Utf16);
        assert_eq!(at(&d), vec![(3, 1), (4, 2)]);
        d.apply(vec![TextDocumentContentChangeEvent { range: None, range_length: None, text: "# c\nx = s.strip()\nprint(x)\n".into() }], 7, Encoding::Utf16);
        assert_eq!(at(&d), vec![(1, 1), (2, 2)]);
    }

    #[test]
    fn hints_follow_an_inserted_prefix_and_vanish_on_their_own_edit() {
        let mut d = doc("x = s.strip()\nprint(x)\n");
        d.set_results(
            vec![
                Anchored { line: 0, text: "x = s.strip()".into(), value: result(1) },
                Anchored { line: 1, text: "print(x)".into(), value: result(1) },
            ],
            vec![],
        );
        d.apply(vec![change(0, 0, 0, 0, "s = 'a'\n\n")], 2, Encoding::Utf16);
        assert_eq!(d.hints.iter().map(|a| a.line).collect::<Vec<_>>(), vec![2, 3]);
        d.apply(vec![change(3, 6, 3, 7, "s")], 3, Encoding::Utf16);
        assert_eq!(d.hints.iter().map(|a| a.line).collect::<Vec<_>>(), vec![2]);
        // Deleting the prefix moves it back up.
        d.apply(vec![change(0, 0, 2, 0, "")], 4, Encoding::Utf16);
        assert_eq!(d.hints.iter().map(|a| a.line).collect::<Vec<_>>(), vec![0]);
        // Enter at the end of the hinted line keeps it; typing in it does not.
        d.apply(vec![change(0, 13, 0, 13, "\n")], 5, Encoding::Utf16);
        assert_eq!(d.hints.iter().map(|a| a.line).collect::<Vec<_>>(), vec![0]);
        d.apply(vec![change(1, 0, 1, 0, "y = 1")], 6, Encoding::Utf16);
        assert_eq!(d.hints.iter().map(|a| a.line).collect::<Vec<_>>(), vec![0]);
        d.apply(vec![change(0, 0, 0, 0, "  ")], 7, Encoding::Utf16);
        assert!(d.hints.is_empty());
    }

    /// Every node's kind, byte range and points, in order.
    fn nodes(tree: &tree_sitter::Tree) -> Vec<(String, std::ops::Range<usize>, tree_sitter::Point, tree_sitter::Point)> {
        let mut out = Vec::new();
        let mut cursor = tree.walk();
        'walk: loop {
            let n = cursor.node();
            out.push((n.kind().to_string(), n.byte_range(), n.start_position(), n.end_position()));
            if cursor.goto_first_child() || cursor.goto_next_sibling() {
                continue;
            }
            loop {
                if !cursor.goto_parent() {
                    break 'walk;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn the_tree_is_edited_incrementally_and_equals_a_fresh_parse() {
        let mut d = doc("def f(s):\n    return s + '😀'\n\nclass C:\n    x = '漢字'\n\nprint(f('a'))\n");
        let steps: Vec<(Vec<TextDocumentContentChangeEvent>, Encoding)> = vec![
            // After the emoji (UTF-16: the emoji is two units).
            (vec![change(1, 19, 1, 19, " + '🎉'")], Encoding::Utf16),
            // Inside the CJK string, in UTF-8 bytes: between 漢 and 字.
            (vec![change(4, 12, 4, 12, "語")], Encoding::Utf8),
            // Several changes in one notification: a new function, a line removed.
            (vec![change(2, 0, 2, 0, "def g():\n    '''多行\n文字列'''\n    return 1\n"), change(0, 0, 1, 0, "")], Encoding::Utf16),
            // Typing a syntax error, then fixing it, in UTF-32.
            (vec![change(6, 0, 6, 0, "y = (")], Encoding::Utf32),
            (vec![change(6, 5, 6, 5, "1)\n")], Encoding::Utf32),
            // A change spanning lines with emoji, and an insertion at the end.
            (vec![change(0, 20, 2, 2, "🎈\n  ")], Encoding::Utf16),
            (vec![change(99, 0, 99, 0, "z = [f(x) for x in '😀漢']\n")], Encoding::Utf16),
        ];
        for (i, (changes, enc)) in steps.into_iter().enumerate() {
            d.apply(changes, i as i32 + 2, enc);
            let text = d.rope.to_string();
            let fresh = syntax::parse_text(&text).unwrap();
            let kept = d.tree.as_ref().expect("a Python document keeps its tree");
            assert_eq!(kept.root_node().to_sexp(), fresh.root_node().to_sexp(), "step {i}: {text:?}");
            assert_eq!(nodes(kept), nodes(&fresh), "step {i}: {text:?}");
        }
        assert!(d.rope.to_string().contains("語"));
        // A full replacement parses from scratch.
        d.apply(vec![TextDocumentContentChangeEvent { range: None, range_length: None, text: "a = 1\n".into() }], 20, Encoding::Utf16);
        assert_eq!(d.tree.as_ref().unwrap().root_node().to_sexp(), syntax::parse_text("a = 1\n").unwrap().root_node().to_sexp());
        let md = Document::new("file:///t/a.md".parse().unwrap(), Language::Markdown, 1, "# x\n");
        assert!(md.tree.is_none(), "Markdown keeps no Python tree");
    }

    #[test]
    fn a_document_above_the_limit_keeps_its_text_but_no_tree() {
        let line = "x = 1\n";
        let big = line.repeat(MAX_ANALYSED_BYTES / line.len() + 10);
        let mut d = doc(&big);
        assert!(d.too_large() && d.tree.is_none());
        assert!(too_large_message(&d.uri, d.rope.len_bytes()).contains("too large to analyse (2.0 MB > 2 MB): Runnable skips it"));
        // Edits keep the rope in sync, still without a tree.
        d.apply(vec![change(0, 0, 0, 1, "y")], 2, Encoding::Utf16);
        assert!(d.rope.line(0).to_string().starts_with("y = 1") && d.tree.is_none());
        // Shrinking below the limit parses again, from scratch.
        let lines = d.rope.len_lines() as u32;
        d.apply(vec![change(1, 0, lines, 0, "print(y)\n")], 3, Encoding::Utf16);
        assert_eq!(d.rope.to_string(), "y = 1\nprint(y)\n");
        assert!(!d.too_large());
        let tree = d.tree.as_ref().expect("parsed again");
        assert_eq!(tree.root_node().to_sexp(), syntax::parse_text("y = 1\nprint(y)\n").unwrap().root_node().to_sexp());
        // Growing past it again drops the tree.
        d.apply(vec![TextDocumentContentChangeEvent { range: None, range_length: None, text: big }], 4, Encoding::Utf16);
        assert!(d.too_large() && d.tree.is_none());
    }

    #[test]
    fn language_from_id_or_extension() {
        let uri: Uri = "file:///t/notes.md".parse().unwrap();
        assert_eq!(Language::from_id("markdown", &uri), Language::Markdown);
        assert_eq!(Language::from_id("", &uri), Language::Markdown);
        assert_eq!(Language::from_id("python", &uri), Language::Python);
        assert_eq!(Language::from_id("rust", &"file:///a.rs".parse().unwrap()), Language::Other);
    }
}
