//! File objects a fragment reads or writes through: a free name passed
//! where a callee wants an open file (`io.TextIOWrapper(f)`, `json.load(f)`,
//! `csv.reader(f)`: `data/callee_kinds.txt`'s stream kinds), or lacking a
//! member of the io protocol that a callee reached for (`readable`,
//! `seekable`, `closed`), is a real in-memory stream (`io.BytesIO`,
//! `io.StringIO`) holding what its reader parses, never an object that
//! imitates the protocol. Pure.

use super::knowledge::{argument_kind, kind_attrs};
use super::render::py_bytes;
use super::resources::stream_content;
use super::session::Context;
use super::value::{call, Value};
use crate::analysis::Usage;

/// Whether a stream holds bytes or text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Binary,
    Text,
}

/// What a stream must be: bytes or text, and the format its reader parses
/// (`csv`, `json`, `yaml`, `pickle`; `None`: lines of text; `empty`: a
/// stream the callee writes to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream {
    pub mode: Mode,
    pub format: Option<&'static str>,
}

/// The format of a stream that starts empty: the callee writes to it.
const EMPTY: &str = "empty";

/// The stream an argument kind of `callee_kinds.txt` names.
pub fn of_kind(kind: &str) -> Option<Stream> {
    let (mode, format) = match kind {
        "binary-stream" => (Mode::Binary, None),
        "text-stream" => (Mode::Text, None),
        "csv-stream" => (Mode::Text, Some("csv")),
        "json-stream" => (Mode::Text, Some("json")),
        "yaml-stream" => (Mode::Text, Some("yaml")),
        "pickle-stream" => (Mode::Binary, Some("pickle")),
        "text-output" => (Mode::Text, Some(EMPTY)),
        "binary-output" => (Mode::Binary, Some(EMPTY)),
        _ => return None,
    };
    Some(Stream { mode, format })
}

/// The stream a name must be, from the callees it is passed to (the first
/// that wants one), with the callee.
pub fn wanted(usage: &Usage) -> Option<(Stream, &str)> {
    usage.passed_to.iter().find_map(|a| Some((of_kind(argument_kind(&a.callee, a.position, a.keyword.as_deref())?)?, a.callee.as_str())))
}

/// Members of the io protocol only a binary stream has (`io.BytesIO`,
/// `io.BufferedReader`) or only a text stream (`io.TextIOWrapper`).
const BINARY_ONLY: &[&str] = &["read1", "readinto", "readinto1", "getbuffer", "peek", "raw"];
const TEXT_ONLY: &[&str] = &["buffer", "encoding", "newlines", "line_buffering", "reconfigure", "write_through"];

/// Whether `attr` belongs to the io protocol (`kinds.txt`'s `file`, the
/// members of `io.IOBase` and its readers), and which mode it implies.
pub fn protocol_member(attr: &str) -> Option<Option<Mode>> {
    if BINARY_ONLY.contains(&attr) {
        return Some(Some(Mode::Binary));
    }
    if TEXT_ONLY.contains(&attr) {
        return Some(Some(Mode::Text));
    }
    kind_attrs("file").is_some_and(|f| f.contains(attr)).then_some(None)
}

/// The streams to try for a name a callee read io member `attr` of:
/// the mode the callee's argument kind or the member says, else text
/// first (most readers take `str` from `read()`), then bytes.
pub fn for_missing_member(usage: &Usage, attr: &str) -> Vec<Stream> {
    if let Some((s, _)) = wanted(usage) {
        return vec![s];
    }
    match protocol_member(attr) {
        Some(Some(mode)) => vec![Stream { mode, format: None }],
        Some(None) => vec![Stream { mode: Mode::Text, format: None }, Stream { mode: Mode::Binary, format: None }],
        None => Vec::new(),
    }
}

/// A real in-memory stream of `stream`'s mode holding what its reader
/// parses: its format's sample, or for lines of text CSV when the fragment
/// parses CSV (`csv.Sniffer().sniff(f.read())`), else lines.
pub fn value(ctx: &Context, stream: Stream) -> Value {
    let format = stream.format.or_else(|| parses_csv(ctx).then_some("csv"));
    let content = if format == Some(EMPTY) { Vec::new() } else { stream_content(format) };
    if content.is_empty() {
        let func = if stream.mode == Mode::Text { "io.StringIO" } else { "io.BytesIO" };
        return call(func, vec![], "import io");
    }
    match (stream.mode, String::from_utf8(content)) {
        (Mode::Text, Ok(text)) => call("io.StringIO", vec![Value::Str(text)], "import io"),
        (Mode::Binary, Ok(text)) if text.is_ascii() => call("io.BytesIO", vec![Value::Bytes(text)], "import io"),
        // Bytes no text literal spells (a pickle): escaped.
        (_, content) => {
            let bytes = content.map(String::into_bytes).unwrap_or_else(|e| e.into_bytes());
            call("io.BytesIO", vec![Value::Expr { code: py_bytes(&bytes), imports: vec![] }], "import io")
        }
    }
}

/// Whether the fragment parses CSV text with the csv module's readers.
fn parses_csv(ctx: &Context) -> bool {
    const READERS: &[&str] = &["reader", "DictReader", "Sniffer"];
    let reads = |u: &Usage| READERS.iter().any(|r| u.attrs.contains_key(*r));
    reads(&ctx.usage_of("csv"))
        || ctx.analysis.imported_usage.get("csv").is_some_and(reads)
        || ctx.analysis.imports.iter().any(|i| i.module == "csv" && i.names.iter().any(|(n, _)| READERS.contains(&n.as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use crate::synth::rules::check::with_ctx;

    fn stream_of(src: &str, name: &str) -> Option<String> {
        with_ctx(src, |ctx| {
            let (s, _) = wanted(&ctx.usage_of(name))?;
            Some(value(ctx, s).expr())
        })
    }

    #[test]
    fn a_name_a_callee_reads_as_a_file_is_a_real_stream_in_its_mode() {
        // `TextIOWrapper` decodes bytes; the fragment sniffs CSV from the text.
        let src = "import csv, io\nt = io.TextIOWrapper(raw)\ndialect = csv.Sniffer().sniff(t.read(1024))\n";
        let v = stream_of(src, "raw").unwrap();
        assert!(v.starts_with("io.BytesIO(b'id,name,value\\n"), "{v}");
        // A JSON reader gets a JSON document, as text.
        let v = stream_of("import json\ndata = json.load(fp)\n", "fp").unwrap();
        assert!(v.starts_with("io.StringIO('{"), "{v}");
        let v = stream_of("import csv\nfor row in csv.reader(f):\n    print(row)\n", "f").unwrap();
        assert!(v.starts_with("io.StringIO('id,name,value\\n"), "{v}");
        // A stream written to starts empty.
        assert_eq!(stream_of("import pickle\npickle.dump({'a': 1}, out)\n", "out").unwrap(), "io.BytesIO()");
        assert_eq!(stream_of("print('done', file=log)\n", "log").unwrap(), "io.StringIO()");
        // A pickle reader gets a real pickle, its bytes escaped.
        let v = stream_of("import pickle\nobj = pickle.load(fh)\n", "fh").unwrap();
        assert!(v.starts_with("io.BytesIO(b'\\x80\\x04"), "{v}");
        // Nothing passed where a file goes: no stream.
        assert_eq!(stream_of("print(len(f))\n", "f"), None);
    }

    #[test]
    fn the_missing_member_tells_the_mode_when_the_callee_does_not() {
        let u = Usage::default();
        assert_eq!(for_missing_member(&u, "readinto"), [Stream { mode: Mode::Binary, format: None }]);
        assert_eq!(for_missing_member(&u, "encoding"), [Stream { mode: Mode::Text, format: None }]);
        assert_eq!(for_missing_member(&u, "readable").len(), 2);
        assert!(for_missing_member(&u, "display_name").is_empty());
        let wrapped = analyze("t = io.TextIOWrapper(raw)\n").free_names.into_iter().find(|f| f.name == "raw").unwrap().usage;
        assert_eq!(for_missing_member(&wrapped, "closed"), [Stream { mode: Mode::Binary, format: None }]);
    }
}
