//! The one place where positions convert: LSP `Position`s (in the negotiated
//! encoding: UTF-8 bytes, UTF-16 code units or UTF-32 chars) <-> rope char
//! offsets <-> the engine's (1-based line, 0-based UTF-8 byte column).
//!
//! Rules (LSP 3.17): a character offset past the end of its line means the
//! end of the line; an offset inside a character (half a surrogate pair, the
//! middle of a UTF-8 sequence) means the start of that character. A line
//! past the end of the document is an error: the client and the server
//! disagree about the text, and guessing would corrupt it.

use ropey::{Rope, RopeSlice};
use tower_lsp_server::lsp_types::{Position, PositionEncodingKind, Range};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    Utf8,
    #[default]
    Utf16,
    Utf32,
}

impl Encoding {
    /// The server's choice among what the client offers
    /// (`general.positionEncodings`): UTF-8 when offered (our texts are
    /// UTF-8), else UTF-32, else the mandatory UTF-16.
    pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        let offered = offered.unwrap_or(&[]);
        if offered.contains(&PositionEncodingKind::UTF8) {
            Encoding::Utf8
        } else if offered.contains(&PositionEncodingKind::UTF32) {
            Encoding::Utf32
        } else {
            Encoding::Utf16
        }
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("line {line} is past the end of the document ({lines} lines)")]
    LinePastEnd { line: u32, lines: usize },
    #[error("range end {end:?} comes before its start {start:?}")]
    Reversed { start: Position, end: Position },
}

/// Number of lines as LSP counts them: a text ending in a newline has an
/// empty last line after it.
pub fn line_count(rope: &Rope) -> usize {
    rope.len_lines()
}

/// Line `line` (0-based) without its line ending.
pub fn line_slice(rope: &Rope, line: usize) -> RopeSlice<'_> {
    let slice = rope.line(line);
    let mut len = slice.len_chars();
    while len > 0 && matches!(slice.char(len - 1), '\n' | '\r') {
        len -= 1;
    }
    slice.slice(..len)
}

/// The text of line `line` without its line ending (empty past the end).
pub fn line_text(rope: &Rope, line: usize) -> String {
    if line >= rope.len_lines() {
        return String::new();
    }
    line_slice(rope, line).to_string()
}

/// Rope char offset of an LSP position. Errors when the line is past the end.
pub fn to_char(rope: &Rope, pos: Position, enc: Encoding) -> Result<usize, PositionError> {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return Err(PositionError::LinePastEnd { line: pos.line, lines: rope.len_lines() });
    }
    let start = rope.line_to_char(line);
    let text = line_slice(rope, line);
    let col = pos.character as usize;
    let chars = match enc {
        Encoding::Utf32 => col.min(text.len_chars()),
        Encoding::Utf8 => text.byte_to_char(col.min(text.len_bytes())),
        Encoding::Utf16 => text.utf16_cu_to_char(col.min(text.len_utf16_cu())),
    };
    Ok(start + chars)
}

/// Like [`to_char`], but a position past the end means the end of the
/// document (for notifications, which cannot answer with an error).
pub fn to_char_clamped(rope: &Rope, pos: Position, enc: Encoding) -> usize {
    to_char(rope, pos, enc).unwrap_or_else(|_| rope.len_chars())
}

/// LSP position of a rope char offset (clamped to the end of the text).
pub fn to_position(rope: &Rope, char_idx: usize, enc: Encoding) -> Position {
    let char_idx = char_idx.min(rope.len_chars());
    let line = rope.char_to_line(char_idx);
    let start = rope.line_to_char(line);
    let character = match enc {
        Encoding::Utf32 => char_idx - start,
        Encoding::Utf8 => rope.char_to_byte(char_idx) - rope.char_to_byte(start),
        Encoding::Utf16 => rope.char_to_utf16_cu(char_idx) - rope.char_to_utf16_cu(start),
    };
    Position::new(line as u32, character as u32)
}

/// Char range of an LSP range; errors on lines past the end or a reversed range.
pub fn to_char_range(rope: &Rope, range: Range, enc: Encoding) -> Result<std::ops::Range<usize>, PositionError> {
    let start = to_char(rope, range.start, enc)?;
    let end = to_char(rope, range.end, enc)?;
    if end < start {
        return Err(PositionError::Reversed { start: range.start, end: range.end });
    }
    Ok(start..end)
}

/// Checks a range against the document without converting it.
pub fn check_range(rope: &Rope, range: Range, enc: Encoding) -> Result<(), PositionError> {
    to_char_range(rope, range, enc).map(|_| ())
}

/// LSP position of an engine position: `line0` a 0-based document line, `byte_col`
/// a UTF-8 byte column in that line (clamped to the line).
pub fn from_byte_col(rope: &Rope, line0: usize, byte_col: usize, enc: Encoding) -> Position {
    if line0 >= rope.len_lines() {
        return to_position(rope, rope.len_chars(), enc);
    }
    let text = line_slice(rope, line0);
    let chars = text.byte_to_char(byte_col.min(text.len_bytes()));
    to_position(rope, rope.line_to_char(line0) + chars, enc)
}

/// LSP range of `[start, end)` UTF-8 byte columns on one document line.
pub fn byte_span(rope: &Rope, line0: usize, start: usize, end: usize, enc: Encoding) -> Range {
    Range::new(from_byte_col(rope, line0, start, enc), from_byte_col(rope, line0, end, enc))
}

/// The end of line `line0` (before its line ending).
pub fn line_end(rope: &Rope, line0: usize, enc: Encoding) -> Position {
    if line0 >= rope.len_lines() {
        return to_position(rope, rope.len_chars(), enc);
    }
    to_position(rope, rope.line_to_char(line0) + line_slice(rope, line0).len_chars(), enc)
}

/// Byte offset and tree-sitter point (row = line, column = UTF-8 byte
/// offset in the line) of a rope char offset. The rows are the rope's
/// lines, which are tree-sitter's rows for `\n` and `\r\n` line endings;
/// readers of the tree take lines from byte offsets, which are always exact.
pub fn ts_point(rope: &Rope, char_idx: usize) -> (usize, tree_sitter::Point) {
    let char_idx = char_idx.min(rope.len_chars());
    let byte = rope.char_to_byte(char_idx);
    let line = rope.char_to_line(char_idx);
    (byte, tree_sitter::Point { row: line, column: byte - rope.line_to_byte(line) })
}

/// The tree-sitter edit for replacing chars `start..end` of `rope` (the text
/// before the change) with `text`.
pub fn input_edit(rope: &Rope, start: usize, end: usize, text: &str) -> tree_sitter::InputEdit {
    let (start_byte, start_position) = ts_point(rope, start);
    let (old_end_byte, old_end_position) = ts_point(rope, end.max(start));
    let new_end_position = match text.rfind('\n') {
        Some(i) => tree_sitter::Point { row: start_position.row + text.matches('\n').count(), column: text.len() - i - 1 },
        None => tree_sitter::Point { row: start_position.row, column: start_position.column + text.len() },
    };
    tree_sitter::InputEdit { start_byte, old_end_byte, new_end_byte: start_byte + text.len(), start_position, old_end_position, new_end_position }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position::new(line, character)
    }

    // "a😀b" : 😀 is 4 UTF-8 bytes, 2 UTF-16 units, 1 char.
    // "漢字x" : each CJK char is 3 bytes, 1 UTF-16 unit.
    const TEXT: &str = "a😀b = 1\n漢字x = 2\r\nplain\n";

    #[test]
    fn negotiation_prefers_utf8_then_utf32_then_utf16() {
        use PositionEncodingKind as K;
        assert_eq!(Encoding::negotiate(Some(&[K::UTF16, K::UTF8])), Encoding::Utf8);
        assert_eq!(Encoding::negotiate(Some(&[K::UTF16, K::UTF32])), Encoding::Utf32);
        assert_eq!(Encoding::negotiate(Some(&[K::UTF16])), Encoding::Utf16);
        assert_eq!(Encoding::negotiate(None), Encoding::Utf16);
    }

    #[test]
    fn emoji_columns_differ_per_encoding() {
        let rope = Rope::from_str(TEXT);
        // `b` is char 2 of line 0.
        assert_eq!(to_char(&rope, pos(0, 5), Encoding::Utf8).unwrap(), 2);
        assert_eq!(to_char(&rope, pos(0, 3), Encoding::Utf16).unwrap(), 2);
        assert_eq!(to_char(&rope, pos(0, 2), Encoding::Utf32).unwrap(), 2);
        assert_eq!(to_position(&rope, 2, Encoding::Utf8), pos(0, 5));
        assert_eq!(to_position(&rope, 2, Encoding::Utf16), pos(0, 3));
        assert_eq!(to_position(&rope, 2, Encoding::Utf32), pos(0, 2));
    }

    #[test]
    fn inside_a_character_means_its_start() {
        let rope = Rope::from_str(TEXT);
        // Between the two UTF-16 units of 😀, and inside its UTF-8 bytes.
        assert_eq!(to_char(&rope, pos(0, 2), Encoding::Utf16).unwrap(), 1);
        assert_eq!(to_char(&rope, pos(0, 3), Encoding::Utf8).unwrap(), 1);
    }

    #[test]
    fn cjk_and_crlf_lines() {
        let rope = Rope::from_str(TEXT);
        let x = rope.line_to_char(1) + 2;
        assert_eq!(to_position(&rope, x, Encoding::Utf16), pos(1, 2));
        assert_eq!(to_position(&rope, x, Encoding::Utf8), pos(1, 6));
        assert_eq!(line_text(&rope, 1), "漢字x = 2");
        assert_eq!(line_end(&rope, 1, Encoding::Utf16), pos(1, 7));
        assert_eq!(line_end(&rope, 1, Encoding::Utf8), pos(1, 11));
    }

    #[test]
    fn past_the_line_end_clamps_past_the_document_errors() {
        let rope = Rope::from_str(TEXT);
        assert_eq!(to_char(&rope, pos(2, 99), Encoding::Utf16).unwrap(), rope.line_to_char(2) + 5);
        // The empty line after the final newline exists.
        assert_eq!(to_char(&rope, pos(3, 0), Encoding::Utf16).unwrap(), rope.len_chars());
        assert!(matches!(to_char(&rope, pos(4, 0), Encoding::Utf16), Err(PositionError::LinePastEnd { .. })));
        assert_eq!(to_char_clamped(&rope, pos(40, 0), Encoding::Utf16), rope.len_chars());
        let reversed = Range::new(pos(1, 0), pos(0, 0));
        assert!(matches!(to_char_range(&rope, reversed, Encoding::Utf8), Err(PositionError::Reversed { .. })));
    }

    #[test]
    fn engine_byte_columns_become_lsp_positions() {
        let rope = Rope::from_str(TEXT);
        // `b` on line 0 is at byte 5.
        assert_eq!(from_byte_col(&rope, 0, 5, Encoding::Utf16), pos(0, 3));
        assert_eq!(byte_span(&rope, 1, 6, 7, Encoding::Utf16), Range::new(pos(1, 2), pos(1, 3)));
        assert_eq!(from_byte_col(&rope, 9, 0, Encoding::Utf16), pos(3, 0));
    }

    #[test]
    fn tree_sitter_edits_count_bytes_and_byte_columns() {
        let rope = Rope::from_str(TEXT);
        // `b` on line 0: char 2, byte 5; `x` on line 1: byte column 6.
        assert_eq!(ts_point(&rope, 2), (5, tree_sitter::Point { row: 0, column: 5 }));
        let x = rope.line_to_char(1) + 2;
        let e = input_edit(&rope, x, x + 1, "😀\n漢");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (17, 18, 17 + 8));
        assert_eq!(e.start_position, tree_sitter::Point { row: 1, column: 6 });
        assert_eq!(e.old_end_position, tree_sitter::Point { row: 1, column: 7 });
        assert_eq!(e.new_end_position, tree_sitter::Point { row: 2, column: 3 });
    }
}
