//! INI files a `configparser` parser reads, with the sections and options
//! the fragment asks of it: `ConfigParser.read(path)` ignores a missing
//! file without a word, so the first `get('settings', 'key')` fails far
//! from the cause (`NoSectionError`). The file the run needs has exactly
//! those sections and options, each a value of the type its getter
//! converts to (`getint`: an integer).

use super::facts::{ConfigRead, ConfigSection, OptionKind};
use super::literal::{line, named, str_value, text, unparen};
use super::tree::Node;

/// Classes of `configparser` whose instances read INI files.
const PARSERS: &[&str] = &["ConfigParser", "RawConfigParser", "SafeConfigParser"];

pub(crate) fn config_reads(root: Node, src: &str) -> Vec<ConfigRead> {
    let parsers = parser_names(root, src);
    let mut out: Vec<ConfigRead> = Vec::new();
    for p in &parsers {
        let mut read = ConfigRead { parser: p.clone(), paths: Vec::new(), sections: Vec::new(), line: 0 };
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            visit(node, src, &mut read);
            stack.extend(named(node).rev());
        }
        if !read.paths.is_empty() {
            out.push(read);
        }
    }
    out
}

/// Names assigned a parser: `parser = ConfigParser()`, `cfg = configparser.RawConfigParser(...)`.
fn parser_names(root: Node, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "assignment" {
            let (Some(left), Some(right)) = (node.child_by_field_name("left"), node.child_by_field_name("right")) else { continue };
            let right = unparen(right);
            if left.kind() == "identifier" && right.kind() == "call" {
                let callee = right.child_by_field_name("function").map(|f| text(f, src)).unwrap_or("");
                if PARSERS.contains(&callee.rsplit('.').next().unwrap_or("")) && !out.iter().any(|n| n == text(left, src)) {
                    out.push(text(left, src).to_string());
                }
            }
        }
        stack.extend(named(node).rev());
    }
    out
}

fn visit(node: Node, src: &str, read: &mut ConfigRead) {
    match node.kind() {
        "call" => {
            // `int(parser.get('db', 'port'))`: the text must convert.
            let converted = match node.child_by_field_name("function").map(|f| text(f, src)) {
                Some("int") => Some(OptionKind::Int),
                Some("float") => Some(OptionKind::Float),
                _ => None,
            };
            let inner = node.child_by_field_name("arguments").and_then(|a| named(a).next()).map(unparen).filter(|a| a.kind() == "call");
            if let (Some(kind), Some(inner)) = (converted, inner) {
                call(inner, src, read, Some(kind));
            }
            call(node, src, read, None)
        }
        // `parser['db']['port']`
        "subscript" => {
            let Some(value) = node.child_by_field_name("value").map(unparen) else { return };
            let Some(key) = node.child_by_field_name("subscript").and_then(|k| str_value(k, src)) else { return };
            if text(value, src) == read.parser {
                section(read, &key);
            } else if let Some(s) = section_of(value, src, &read.parser) {
                option(read, &s, &key, OptionKind::Str);
            }
        }
        // `'db' in parser`
        "comparison_operator" => {
            let parts: Vec<Node> = named(node).collect();
            if parts.len() == 2 && text(node, src).contains(" in ") && text(parts[1], src) == read.parser {
                if let Some(s) = str_value(parts[0], src) {
                    section(read, &s);
                }
            }
        }
        _ => {}
    }
}

/// `parser.get('s', 'o')`, `parser.getint(...)`, `parser['s'].getboolean('o')`,
/// `parser.options('s')`, `parser.read('app.ini')`; a plain `get` whose
/// text is `converted` asks for that kind.
fn call(node: Node, src: &str, read: &mut ConfigRead, converted: Option<OptionKind>) {
    let Some(func) = node.child_by_field_name("function") else { return };
    if func.kind() != "attribute" {
        return;
    }
    let (Some(obj), Some(attr)) = (func.child_by_field_name("object").map(unparen), func.child_by_field_name("attribute")) else { return };
    let method = text(attr, src);
    let args: Vec<Node> = node.child_by_field_name("arguments").map(|a| named(a).filter(|n| n.kind() != "keyword_argument").collect()).unwrap_or_default();
    let strings: Vec<Option<String>> = args.iter().map(|a| str_value(*a, src)).collect();
    let arg = |i: usize| strings.get(i).cloned().flatten();
    if text(obj, src) == read.parser {
        match method {
            "read" => {
                if let Some(first) = args.first() {
                    read.paths.extend(paths(*first, src));
                    read.line = line(node);
                }
            }
            "read_file" | "readfp" => {
                // `parser.read_file(open('app.ini'))`
                let opened = args.first().filter(|a| a.kind() == "call").and_then(|a| a.child_by_field_name("arguments")).and_then(|a| named(a).next());
                if let Some(p) = opened.and_then(|p| str_value(p, src)) {
                    read.paths.push(p);
                    read.line = line(node);
                }
            }
            "options" | "items" | "has_section" => {
                if let Some(s) = arg(0) {
                    section(read, &s);
                }
            }
            getter => {
                if let (Some(kind), Some(s), Some(o)) = (getter_kind(getter), arg(0), arg(1)) {
                    option(read, &s, &o, if kind == OptionKind::Str { converted.unwrap_or(kind) } else { kind });
                }
            }
        }
    } else if let Some(s) = section_of(obj, src, &read.parser) {
        if let (Some(kind), Some(o)) = (getter_kind(method), arg(0)) {
            option(read, &s, &o, if kind == OptionKind::Str { converted.unwrap_or(kind) } else { kind });
        }
    }
}

/// The section `node` is, when it is `parser['s']`.
fn section_of(node: Node, src: &str, parser: &str) -> Option<String> {
    if node.kind() != "subscript" || node.child_by_field_name("value").map(|v| text(unparen(v), src)) != Some(parser) {
        return None;
    }
    str_value(node.child_by_field_name("subscript")?, src)
}

fn getter_kind(method: &str) -> Option<OptionKind> {
    match method {
        "get" | "has_option" => Some(OptionKind::Str),
        "getint" => Some(OptionKind::Int),
        "getfloat" => Some(OptionKind::Float),
        "getboolean" => Some(OptionKind::Bool),
        _ => None,
    }
}

/// A literal path or a list of them (`read(['a.ini', 'b.ini'])`).
fn paths(node: Node, src: &str) -> Vec<String> {
    match node.kind() {
        "list" | "tuple" => named(node).filter_map(|n| str_value(n, src)).collect(),
        _ => str_value(node, src).into_iter().collect(),
    }
}

fn section<'r>(read: &'r mut ConfigRead, name: &str) -> &'r mut ConfigSection {
    let i = match read.sections.iter().position(|s| s.name == name) {
        Some(i) => i,
        None => {
            read.sections.push(ConfigSection { name: name.to_string(), options: Vec::new() });
            read.sections.len() - 1
        }
    };
    &mut read.sections[i]
}

fn option(read: &mut ConfigRead, section_name: &str, option: &str, kind: OptionKind) {
    let s = section(read, section_name);
    match s.options.iter_mut().find(|(o, _)| o == option) {
        // A typed getter decides over a plain `get` of the same option.
        Some((_, k)) if *k == OptionKind::Str => *k = kind,
        Some(_) => {}
        None => s.options.push((option.to_string(), kind)),
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::analyze;
    use crate::analysis::OptionKind;

    #[test]
    fn sections_and_options_asked_of_a_parser_that_reads_a_file() {
        let src = "\
import configparser
cfg = configparser.ConfigParser()
cfg.read('conf/app.ini')
print(cfg.sections(), 'db' in cfg)
port = cfg.getint('db', 'port')
debug = cfg['server'].getboolean('debug')
name = cfg['server']['name']
ratio = cfg.getfloat('db', 'ratio', fallback=0.5)
print(cfg.get('db', 'name'), int(cfg.get('db', 'workers')))
other = {}
other['x']
";
        let reads = analyze(src).config_reads;
        assert_eq!(reads.len(), 1);
        let r = &reads[0];
        assert_eq!((r.parser.as_str(), r.paths.as_slice(), r.line), ("cfg", &["conf/app.ini".to_string()][..], 3));
        let got: Vec<(&str, Vec<(&str, OptionKind)>)> = r.sections.iter().map(|s| (s.name.as_str(), s.options.iter().map(|(o, k)| (o.as_str(), *k)).collect())).collect();
        assert_eq!(got, [("db", vec![("port", OptionKind::Int), ("ratio", OptionKind::Float), ("name", OptionKind::Str), ("workers", OptionKind::Int)]), ("server", vec![("debug", OptionKind::Bool), ("name", OptionKind::Str)])]);
        assert!(analyze(src).files.iter().any(|f| f.path == "conf/app.ini" && !f.writes), "the file is one the fragment reads");
    }

    #[test]
    fn a_parser_that_reads_no_literal_file_asks_for_none() {
        assert!(analyze("from configparser import ConfigParser\np = ConfigParser()\np.read_string(text)\nprint(p.get('a', 'b'))\n").config_reads.is_empty());
        assert!(analyze("p = make()\np.read('x.ini')\n").config_reads.is_empty(), "not a configparser parser");
    }
}
