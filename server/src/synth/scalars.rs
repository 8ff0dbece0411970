//! Strings and ints that suit a name and its usage: the constant it is
//! compared with, what its callee takes (a path, a URL, HTML, a date), a
//! text or a number its name suggests. Pure.

use super::knowledge::argument_kind;
use crate::analysis::{Key, Literal, Usage};
/// An address from the documentation range, and a network holding it.
const IP: &str = "192.168.1.1";
const CIDR: &str = "192.168.1.0/24";
/// XML text when the fragment reads nothing in particular of it.
pub(super) const XML_TEXT: &str = "<root><item id=\"1\">apple</item><item id=\"2\">banana</item></root>";

/// A string that suits the name and the usage, cut by `split` into the
/// parts the fragment takes of it.
pub(super) fn string_for(name: &str, u: &Usage) -> String {
    let text = string_by_use(name, u);
    match split_shape(u) {
        Some((sep, parts, exact)) if !fits_split(&text, sep, parts, exact) => split_text(sep, parts),
        _ => text,
    }
}

/// A string that suits the name and the usage, its splits aside.
fn string_by_use(name: &str, u: &Usage) -> String {
    // Parsed as a date in a format the fragment spells out.
    if let Some(date) = u.date_formats.iter().find_map(|f| super::date_formats::sample(f)) {
        return date;
    }
    // Searched with a pattern the fragment spells out: a text it matches.
    if let Some(text) = u.searched_with.iter().find_map(|p| super::regex_sample::sample(p)) {
        return text;
    }
    if let Some(s) = u.compared.iter().find_map(|(op, l)| match l {
        Literal::Str(s) if op == "==" || op == "in" => Some(s.clone()),
        _ => None,
    }) {
        return s;
    }
    if let Some(s) = string_by_callee(name, u) {
        return s;
    }
    if u.attrs.contains_key("decode") {
        return "hello".into();
    }
    if ["isdigit", "isnumeric", "isdecimal"].iter().any(|m| u.attrs.contains_key(*m)) {
        return "42".into();
    }
    let n = name.to_lowercase();
    let pick = |words: &[&str]| words.iter().any(|w| n.contains(w));
    // Short words are whole words of the name (`ip`, not the one in `zip`).
    let words: Vec<&str> = n.split('_').collect();
    let word = |ws: &[&str]| words.iter().any(|w| ws.contains(w));
    if word(&["ip", "ipaddr", "ipv4"]) || n.ends_with("ip_address") {
        return IP.into();
    }
    if word(&["cidr", "subnet"]) || words.last().is_some_and(|w| ["net", "network"].contains(w)) {
        return CIDR.into();
    }
    if word(&["netmask"]) {
        return "255.255.255.0".into();
    }
    if pick(&["encoding", "charset", "codec"]) {
        "utf-8".into()
    } else if pick(&["url", "link", "href", "endpoint"]) {
        "https://example.com/api/items".into()
    } else if pick(&["path", "file", "fname"]) {
        format!("{}.txt", ident_base(name, "data"))
    } else if pick(&["dir", "folder"]) {
        ".".into()
    } else if pick(&["version"]) {
        "1.0.0".into()
    } else if pick(&["date"]) {
        "2024-01-15".into()
    } else if pick(&["email", "mail"]) {
        "ada@example.com".into()
    } else if pick(&["name", "user"]) {
        "Ada".into()
    } else if pick(&["html"]) {
        "<html><body><p>Hello</p></body></html>".into()
    } else if pick(&["json"]) {
        "{\"name\": \"Ada\", \"id\": 1}".into()
    } else if pick(&["word", "key", "token", "char"]) {
        if pick(&["char"]) { "a".into() } else { "apple".into() }
    } else if pick(&["num", "digit"]) {
        "42".into()
    } else {
        DEFAULT_TEXT.into()
    }
}

/// The string a function the name is passed to takes there (a path, a URL,
/// a command), by what the callee's argument is (`data/callee_kinds.txt`).
pub(crate) fn string_by_callee(name: &str, u: &Usage) -> Option<String> {
    for arg in &u.passed_to {
        match argument_kind(&arg.callee, arg.position, arg.keyword.as_deref()) {
            Some("path") => return Some(format!("{}.txt", ident_base(name, "data"))),
            // The file made for it is the XML document the fragment reads (`resources::xml`).
            Some("xml-path") => return Some(format!("{}.xml", ident_base(name, "data"))),
            // A table pandas reads as CSV (`resources` shapes it by the frame's use).
            Some("table-path") => return Some(format!("{}.csv", ident_base(name, "data"))),
            // An image file the reader decodes (`resources::image_file`).
            Some("image-path") => return Some(format!("{}.png", ident_base(name, "image"))),
            // A directory that exists wherever the program runs: its own.
            Some("dir") => return Some(".".into()),
            Some("url") => return Some("https://example.com/api/items".into()),
            // A database the library opens without a server or a file.
            Some("database-url") => return Some("sqlite://".into()),
            // A SQLite file, named as such projects name theirs (`db.sqlite3`).
            Some("database-path") => {
                let base = ident_base(name, "data");
                return Some(if base.ends_with("db") { format!("{base}.sqlite3") } else { format!("{base}.db") });
            }
            Some("html") => return Some("<html><body><p class=\"intro\">Hello</p><a href=\"/a\">A</a></body></html>".into()),
            Some("json-str") => return Some("{\"name\": \"Ada\", \"id\": 1}".into()),
            // A document; the `xml-documents` rule gives it what the fragment reads.
            Some("xml-str") => return Some(XML_TEXT.into()),
            Some("date-str") => return Some("2024-01-15".into()),
            Some("ip-str") => return Some(IP.into()),
            // Text a number is parsed from (`float(row['amount'])`).
            Some("int-str") => return Some("42".into()),
            Some("float-str") => return Some("3.5".into()),
            Some("cidr-str") => return Some(CIDR.into()),
            Some("command-str") => return Some("echo hello".into()),
            // A program run without a shell: its name alone.
            Some("command") => return Some("echo".into()),
            // An attribute name: a prefix can give the object that member.
            Some("attr-name") => return Some("name".into()),
            Some("agg-name") => return Some("sum".into()),
            Some("encoding") => return Some("utf-8".into()),
            // Reading: the mode every file the prefix creates allows.
            Some("open-mode") => return Some("r".into()),
            // A module every interpreter has.
            Some("module-name") => return Some("json".into()),
            Some("int") => return Some("42".into()),
            _ => {}
        }
    }
    None
}

/// What `split(sep)` (or `rsplit`) must cut a text into: the separator
/// (`None`: whitespace), how many parts the fragment takes of the result,
/// and whether exactly that many (unpacked into n names) or at least
/// (indexed up to `[k]`).
fn split_shape(u: &Usage) -> Option<(Option<&str>, usize, bool)> {
    ["split", "rsplit"].iter().find_map(|m| {
        let call = u.attrs.get(*m).filter(|c| !c.calls.is_empty())?;
        let result = call.returns.as_deref()?;
        let indexed = result
            .subscripts
            .iter()
            .filter_map(|(k, _)| match k {
                Key::Int(i) if *i >= 0 => Some(*i as usize + 1),
                Key::Int(i) => Some(i.unsigned_abs() as usize),
                _ => None,
            })
            .max();
        let (parts, exact) = match (result.unpack, indexed) {
            (Some(n), _) => (n, true),
            (None, Some(k)) => (k, false),
            (None, None) => return None,
        };
        // `split(sep, maxsplit)` cuts fewer times: not shaped here.
        let plain = call.calls.iter().all(|c| c.positional <= 1 && c.keywords.is_empty());
        // A separator the fragment computes is not known here.
        let sep = match (call.first_str_args.first(), call.calls.iter().any(|c| c.positional == 1)) {
            (Some(s), _) if !s.is_empty() => Some(s.as_str()),
            (None, false) => None,
            _ => return None,
        };
        (plain && (1..=16).contains(&parts)).then_some((sep, parts, exact))
    })
}

fn fits_split(text: &str, sep: Option<&str>, parts: usize, exact: bool) -> bool {
    let n = match sep {
        Some(s) => text.split(s).count(),
        None => text.split_whitespace().count(),
    };
    if exact { n == parts } else { n >= parts }
}

/// Words joined by the separator, as many as the parts.
fn split_text(sep: Option<&str>, parts: usize) -> String {
    const WORDS: &[&str] = &["apple", "banana", "cherry", "date", "elderberry", "fig", "grape", "honeydew"];
    let words: Vec<&str> = WORDS.iter().copied().filter(|w| sep.is_none_or(|s| !w.contains(s) && !s.contains(w))).collect();
    let word = |i: usize| words.get(i % words.len().max(1)).map_or_else(|| (i + 1).to_string(), |w| w.to_string());
    (0..parts).map(word).collect::<Vec<_>>().join(sep.unwrap_or(" "))
}

/// Text for a name nothing else tells about.
pub(super) const DEFAULT_TEXT: &str = "The quick brown fox jumps over the lazy dog";
/// Text a helper returns when nothing tells about it: a function's result
/// comes from elsewhere than its argument, and two values from different
/// places are equal only by accident, so the synthesised result differs from
/// the synthesised input (`out = clean(text); if out == text:` is the branch
/// where the helper changed nothing, not the default one). Any text but
/// `DEFAULT_TEXT` would do.
pub(super) const HELPER_TEXT: &str = "Pack my box with five dozen liquor jugs";

pub(super) fn ident_base(name: &str, fallback: &str) -> String {
    let base: String = name
        .to_lowercase()
        .trim_end_matches("_path")
        .trim_end_matches("path")
        .trim_end_matches("_name")
        .trim_end_matches("name")
        .trim_end_matches('_')
        .to_string();
    if base.is_empty() || base == "file" || base == "f" {
        fallback.to_string()
    } else {
        base
    }
}

pub(super) fn int_for(name: &str, u: &Usage) -> i64 {
    // Satisfy the first comparison with a literal, so the guarded code runs.
    for (op, lit) in &u.compared {
        if let Literal::Int(v) = lit {
            return match op.as_str() {
                ">" => v + 1,
                "<" => v - 1,
                "!=" => v + 1,
                _ => *v,
            };
        }
    }
    let n = name.to_lowercase();
    // A word of the name, alone or between underscores (`low`, `low_cut`, `f_max`).
    let word = |w: &str| n.split('_').any(|part| part == w);
    if ["i", "j", "idx", "index", "start", "offset", "pos"].contains(&n.as_str()) {
        1
    } else if ["sample_rate", "sampling_rate", "samplerate", "sr", "fs"].contains(&n.as_str()) {
        // A sampling rate in hertz, high enough for the frequencies beside it.
        1000
    } else if ["low", "lo", "min", "lower"].iter().any(|w| word(w)) {
        // The two ends of a range: the low one below the high one.
        1
    } else if ["high", "hi", "max", "upper"].iter().any(|w| word(w)) {
        10
    } else if n.contains("year") {
        2024
    } else if n.contains("port") {
        8080
    } else if n.contains("age") {
        30
    } else {
        3
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::ArgUse;

    #[test]
    fn text_parsed_as_a_date_is_a_date_in_that_format() {
        let u = Usage { date_formats: vec!["%d/%m/%Y".into()], ..Default::default() };
        assert_eq!(string_for("when", &u), "15/01/2024");
    }

    #[test]
    fn the_ends_of_a_range_and_a_sampling_rate_by_name() {
        let none = Usage::default();
        assert!(int_for("low", &none) < int_for("high", &none));
        assert!(int_for("min_value", &none) < int_for("max_value", &none));
        assert!(int_for("f_lo", &none) < int_for("f_hi", &none));
        assert_eq!(int_for("sample_rate", &none), 1000);
        // A word inside another is not that word.
        assert_eq!(int_for("slow", &none), int_for("count", &none));
    }

    #[test]
    fn network_addresses_by_name_and_by_the_parser_they_go_to() {
        let none = Usage::default();
        assert_eq!(string_for("ip", &none), IP);
        assert_eq!(string_for("client_ip", &none), IP);
        assert_eq!(string_for("subnet", &none), CIDR);
        assert_eq!(string_for("net", &none), CIDR);
        assert_ne!(string_for("zip_code", &none), IP, "`ip` only as a word");
        let parsed = Usage { passed_to: vec![ArgUse { callee: "socket.inet_aton".into(), position: Some(0), keyword: None }], ..Default::default() };
        assert_eq!(string_for("value", &parsed), IP);
        let network = Usage { passed_to: vec![ArgUse { callee: "ipaddress.ip_network".into(), position: Some(0), keyword: None }], ..Default::default() };
        assert_eq!(string_for("s", &network), CIDR);
    }

    #[test]
    fn a_text_split_into_parts_has_the_parts_the_fragment_takes() {
        let usage = |src: &str| crate::analysis::analyze(src).free_names.into_iter().find(|f| f.name == "token").unwrap().usage;
        assert_eq!(string_for("token", &usage("head, body, sig = token.split('.')\n")), "apple.banana.cherry");
        assert_eq!(string_for("token", &usage("print(token.split('\\t')[2])\n")), "apple\tbanana\tcherry");
        assert_eq!(string_for("token", &usage("first, second = token.split()\n")), "apple banana");
        // A computed separator is not known.
        assert_eq!(string_for("token", &usage("a, b = token.split('a')\n")), "apple", "already two parts");
        assert_eq!(string_for("token", &usage("a, b, c = token.split('e')\n")), "bananaefigebanana", "words without the separator");
        assert_eq!(string_for("token", &usage("print(token.split(sep)[1])\n")), "apple");
    }

    #[test]
    fn a_database_url_an_engine_opens_is_one_it_opens_offline() {
        let engine = |callee: &str| Usage { passed_to: vec![ArgUse { callee: callee.into(), position: Some(0), keyword: None }], ..Default::default() };
        assert_eq!(string_for("DATABASE_URL", &engine("create_engine")), "sqlite://");
        assert_eq!(string_for("url", &engine("sqlalchemy.create_engine")), "sqlite://");
        // Named like a URL and going nowhere in particular: a web address.
        assert!(string_for("DATABASE_URL", &Usage::default()).starts_with("https://"));
    }
}
