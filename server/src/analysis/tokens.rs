//! The one lexer of Python text: tree-sitter-python's leaves, classified
//! as names, string literals, comments and the rest. Every place that asks
//! "is this inside a string or a comment?" asks here, instead of scanning
//! quotes by hand (an f-string's `{...}` is code, a `#` in a string is not
//! a comment, `'''` spans lines). Pure.

use super::tree::language;
use std::cell::RefCell;
use tree_sitter::Parser;

thread_local! {
    // Lines are lexed one at a time, many times a run: one parser a thread.
    static PARSER: RefCell<Parser> = RefCell::new({
        let mut p = Parser::new();
        p.set_language(language()).expect("tree-sitter-python matches the tree-sitter ABI");
        p
    });
}

fn parse(text: &str) -> tree_sitter::Tree {
    PARSER.with(|p| p.borrow_mut().parse(text, None)).expect("no timeout or cancellation is set")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// An identifier (keywords used as names, `print`, `match`, included).
    Name,
    /// A whole string literal, prefix and quotes included; an f-string's
    /// replacement fields are tokens of their own, inside its span.
    Str,
    Comment,
    Number,
    /// Keywords, operators and punctuation.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    /// UTF-8 byte span in the text.
    pub start: usize,
    pub end: usize,
    /// Right after a `.` (an attribute name, not a name of its own).
    pub after_dot: bool,
}

/// The tokens of `text`, in order (a literal's replacement fields follow
/// the literal's own token).
pub fn tokens(text: &str) -> Vec<Token> {
    let tree = parse(text);
    let mut out = Vec::new();
    let mut prev_dot = false;
    // Pre-order with an explicit stack: hostile nesting cannot overflow it.
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let kind = node.kind();
        let token = match kind {
            "string" => Some(TokenKind::Str),
            "comment" => Some(TokenKind::Comment),
            "identifier" => Some(TokenKind::Name),
            "integer" | "float" => Some(TokenKind::Number),
            _ if node.child_count() == 0 && !node.is_missing() && node.end_byte() > node.start_byte() => Some(TokenKind::Other),
            _ => None,
        };
        if let Some(k) = token {
            out.push(Token { kind: k, start: node.start_byte(), end: node.end_byte(), after_dot: prev_dot && k == TokenKind::Name });
            prev_dot = k == TokenKind::Other && kind == ".";
        }
        // Into a string only for the code of its replacement fields.
        let children = (0..node.child_count()).rev().filter_map(|i| node.child(i));
        match token {
            None => stack.extend(children),
            Some(TokenKind::Str) => stack.extend(children.filter(|c| c.kind() == "interpolation")),
            Some(_) => {}
        }
    }
    out
}

/// The tokens of one line of Python read alone (a line of a fragment or a
/// prefix), spans in the line: the same lexer, given the line dedented and
/// followed by an indented body, so that a block header (`if x == 'a':`)
/// parses as a statement and is not lexed in error recovery.
pub fn line_tokens(line: &str) -> Vec<Token> {
    let code = line.trim_start();
    let indent = line.len() - code.len();
    let text = format!("{code}\n pass");
    let n = code.len();
    let mut toks: Vec<Token> = tokens(&text).into_iter().filter(|t| t.end <= n).collect();
    for t in &mut toks {
        t.start += indent;
        t.end += indent;
    }
    toks
}

/// Python identifiers on a line that are not attribute names, each once,
/// in order, outside strings and comments.
pub fn identifiers(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in line_tokens(line).iter().filter(|t| t.kind == TokenKind::Name && !t.after_dot) {
        let word = &line[t.start..t.end];
        if !out.iter().any(|w| w == word) {
            out.push(word.to_string());
        }
    }
    out
}

/// The dotted names of a line outside its strings and comment (`p.parent`
/// in `if not p.parent and x:`), each once, in order; plain names are left out.
pub fn dotted_paths(line: &str) -> Vec<String> {
    let toks = line_tokens(line);
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i].kind != TokenKind::Name || toks[i].after_dot {
            i += 1;
            continue;
        }
        let mut path = line[toks[i].start..toks[i].end].to_string();
        let mut j = i + 1;
        while j + 1 < toks.len() && &line[toks[j].start..toks[j].end] == "." && toks[j + 1].kind == TokenKind::Name && toks[j + 1].after_dot {
            path.push('.');
            path.push_str(&line[toks[j + 1].start..toks[j + 1].end]);
            j += 2;
        }
        if j > i + 1 && !out.contains(&path) {
            out.push(path);
        }
        i = j;
    }
    out
}

/// The 1-based lines of `text` (a fragment, dedented first) where `name`
/// is read or bound as a name of its own (not as an attribute, in a string
/// or in a comment), in order.
pub fn name_lines(text: &str, name: &str) -> Vec<u32> {
    let (text, _) = super::parse::dedent(text);
    let mut line_starts = vec![0];
    line_starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
    tokens(&text)
        .into_iter()
        .filter(|t| t.kind == TokenKind::Name && !t.after_dot && &text[t.start..t.end] == name)
        .map(|t| line_starts.partition_point(|s| *s <= t.start) as u32)
        .collect()
}

/// Byte column of the first use of the name `word` on `line` as a name of
/// its own (not an attribute, not in a string or comment; an f-string's
/// replacement fields are code).
pub fn find_name(line: &str, word: &str) -> Option<usize> {
    line_tokens(line).into_iter().find(|t| t.kind == TokenKind::Name && !t.after_dot && &line[t.start..t.end] == word).map(|t| t.start)
}

/// The byte length of a line without its trailing comment and whitespace.
pub fn code_end(line: &str) -> usize {
    match line_tokens(line).iter().find(|t| t.kind == TokenKind::Comment) {
        Some(c) => line[..c.start].trim_end().len(),
        None => line.trim_end().len(),
    }
}

/// A string literal of Python text: its value (escapes left as written)
/// and its byte span, quotes included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrLit {
    pub value: String,
    pub start: usize,
    pub end: usize,
}

/// The plain string literals of `text` (not f-strings, nor bytes), in order.
pub fn string_literals(text: &str) -> Vec<StrLit> {
    literals_of(text, tokens(text))
}

fn literals_of(text: &str, toks: Vec<Token>) -> Vec<StrLit> {
    toks.into_iter()
        .filter(|t| t.kind == TokenKind::Str)
        .filter_map(|t| {
            let lit = &text[t.start..t.end];
            let body = lit.trim_start_matches(['r', 'R', 'u', 'U']);
            let q = if body.starts_with("\"\"\"") || body.starts_with("'''") { 3 } else { 1 };
            if !body.starts_with(['\'', '"']) || body.len() < 2 * q {
                return None;
            }
            Some(StrLit { value: body[q..body.len() - q].to_string(), start: t.start, end: t.end })
        })
        .collect()
}

/// The text inside the quotes of every string literal of `text` (a
/// fragment, dedented first), f-strings included with their replacement
/// fields as written, in order: where SQL or a format is spelled.
pub fn string_texts(text: &str) -> Vec<String> {
    let (text, _) = super::parse::dedent(text);
    tokens(&text)
        .into_iter()
        .filter(|t| t.kind == TokenKind::Str)
        .filter_map(|t| {
            let body = text[t.start..t.end].trim_start_matches(|c: char| c.is_ascii_alphabetic());
            let q = if body.starts_with("\"\"\"") || body.starts_with("'''") { 3 } else { 1 };
            (body.starts_with(['\'', '"']) && body.len() >= 2 * q).then(|| body[q..body.len() - q].to_string())
        })
        .collect()
}

/// The string literals of one line read alone (see [`line_tokens`]).
pub fn line_string_literals(line: &str) -> Vec<StrLit> {
    let toks = line_tokens(line);
    literals_of(line, toks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_skip_attributes_strings_and_comments() {
        assert_eq!(identifiers("x = obj.attr + y['k'] # z"), ["x", "obj", "y"]);
        assert_eq!(identifiers("elif mode == 'fast' and n:"), ["mode", "n"]);
        assert_eq!(identifiers("print(f'{user.name}: {count}')"), ["print", "user", "count"]);
        assert_eq!(identifiers("s = \"it's # not a comment\" + t"), ["s", "t"]);
    }

    #[test]
    fn dotted_paths_are_read_outside_strings() {
        assert_eq!(dotted_paths("if not p.parent and p.type == 'a.b': # x.y"), ["p.parent", "p.type"]);
        assert_eq!(dotted_paths("len(node.children) != 3.5 or f(x)"), ["node.children"]);
        assert_eq!(dotted_paths("a.b().c"), ["a.b"]);
    }

    #[test]
    fn the_lines_a_name_stands_on() {
        assert_eq!(name_lines("  x = 1\n  s = 'x'  # x\n  if y.x:\n      print(x)\n", "x"), [1, 4]);
    }

    #[test]
    fn a_name_is_found_as_a_name_only() {
        assert_eq!(find_name("x = 'np' + np.zeros(3)", "np"), Some(11));
        assert_eq!(find_name("obj.np = 1 # np", "np"), None);
        assert_eq!(find_name("print(f'{np}')", "np"), Some(9));
    }

    #[test]
    fn code_ends_before_a_comment_outside_strings() {
        assert_eq!(code_end("print x  # a comment"), 7);
        assert_eq!(code_end("s = '#'   "), 7);
    }

    #[test]
    fn string_literals_with_their_spans() {
        let lits = string_literals("open('a.csv', \"w\"); x = f'{y}.txt'; z = b'raw'\n'''doc\nstring'''");
        let values: Vec<&str> = lits.iter().map(|l| l.value.as_str()).collect();
        assert_eq!(values, ["a.csv", "w", "doc\nstring"]);
        assert_eq!((lits[0].start, lits[0].end), (5, 12));
        let texts = string_texts("    c.execute(f'SELECT {col} FROM t')\n    x = \"it's\" + '''a\nb''' # 'no'\n");
        assert_eq!(texts, ["SELECT {col} FROM t", "it's", "a\nb"]);
        assert_eq!(line_string_literals("if path == 'out/data':").iter().map(|l| l.value.as_str()).collect::<Vec<_>>(), ["out/data"]);
    }
}
