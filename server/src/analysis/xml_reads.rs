//! What the fragment reads of parsed XML (ElementTree, lxml, minidom), so
//! that a document it parses holds it: the paths of `find`/`findall`/`iter`/
//! `iterfind`/`xpath`/`getElementsByTagName` (ElementPath and simple XPath:
//! steps, `*`, `..`, `[@a='v']`, `[child]`, a trailing `@a` or `text()`),
//! nested below the element the call is made on (`for c in
//! root.findall('country'): c.find('rank')` reads `country/rank`), the
//! attributes `.get('x')`/`.attrib['x']`/`.getAttribute('x')` read, the
//! text `.text` reads, and the tags `.tag == 'x'` tests. Like
//! `html_queries`, one fact for the whole fragment.

use std::collections::HashMap;

use super::facts::{XmlElement, XmlReads};
use super::literal::{named, str_value, text, unparen};
use super::tree::Node;

/// Methods that look elements up by a path or tag, with whether they give
/// many (a list or an iterator) or one.
const FINDERS: &[(&str, bool)] = &[
    ("find", false),
    ("findall", true),
    ("iter", true),
    ("iterfind", true),
    ("getiterator", true),
    ("xpath", true),
    ("getElementsByTagName", true),
    ("findtext", false),
];

/// Where an expression's elements are: the path from the root, and whether
/// it is many of them (iterating it gives the path's elements) or one
/// (iterating it gives its children).
#[derive(Debug, Clone)]
struct Place {
    path: Vec<XmlElement>,
    many: bool,
}

/// A path string read: the root's tag (absolute XPath), the steps, an
/// attribute or the text read of the last step.
#[derive(Debug, Default)]
struct ParsedPath {
    root: Option<String>,
    steps: Vec<XmlElement>,
    attr: Option<String>,
    text: bool,
}

pub(crate) fn xml_reads(root: Node, src: &str) -> XmlReads {
    let nodes = preorder(root);
    // Names bound to elements, twice over so a use before a later binding
    // in the text (a comprehension's clause) still finds it.
    let mut env: HashMap<String, Place> = HashMap::new();
    for _ in 0..2 {
        for n in &nodes {
            bind(*n, src, &mut env);
        }
    }
    let mut out = XmlReads::default();
    for n in &nodes {
        read(*n, src, &env, &mut out);
    }
    out
}

fn preorder(root: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        out.push(node);
        stack.extend(named(node).rev());
    }
    out
}

fn method_call<'t>(call: Node<'t>, src: &str) -> Option<(Node<'t>, &'static str, Vec<Node<'t>>)> {
    if call.kind() != "call" {
        return None;
    }
    let func = call.child_by_field_name("function").filter(|f| f.kind() == "attribute")?;
    let name = func.child_by_field_name("attribute").map_or("", |a| text(a, src));
    let receiver = func.child_by_field_name("object")?;
    let args: Vec<Node> = call.child_by_field_name("arguments").map(|a| named(a).collect()).unwrap_or_default();
    let known = FINDERS.iter().map(|(m, _)| *m).chain(["get", "getAttribute", "hasAttribute", "getroot", "parse", "fromstring", "XML", "parseString", "iterparse"]);
    let method = known.into_iter().find(|m| *m == name)?;
    Some((receiver, method, args))
}

fn first_str(args: &[Node], src: &str) -> Option<String> {
    args.iter().find(|a| a.kind() != "keyword_argument").and_then(|a| str_value(*a, src))
}

/// Where the elements `expr` evaluates to are, when it evaluates to elements.
fn place_of(expr: Node, src: &str, env: &HashMap<String, Place>) -> Option<Place> {
    let expr = unparen(expr);
    match expr.kind() {
        "identifier" => env.get(text(expr, src)).cloned(),
        "subscript" => {
            // One of many (`root.findall('x')[0]`).
            let p = place_of(expr.child_by_field_name("value")?, src, env)?;
            Some(Place { path: p.path, many: false })
        }
        "attribute" if expr.child_by_field_name("attribute").is_some_and(|a| text(a, src) == "documentElement") => {
            place_of(expr.child_by_field_name("object")?, src, env).or(Some(Place { path: Vec::new(), many: false }))
        }
        "call" => {
            let (receiver, method, args) = method_call(expr, src)?;
            match method {
                // The document's root: what its paths start from.
                "getroot" | "parse" | "fromstring" | "XML" | "parseString" => Some(Place { path: Vec::new(), many: false }),
                "findtext" | "get" | "getAttribute" | "hasAttribute" | "iterparse" => None,
                _ => {
                    let many = FINDERS.iter().any(|(m, many)| *m == method && *many);
                    let base = place_of(receiver, src, env).map(|p| p.path).unwrap_or_default();
                    let Some(arg) = first_str(&args, src) else {
                        // `elem.iter()`: the element and everything below.
                        return (method == "iter").then(|| Place { path: with_step(&base, XmlElement::default()), many: true });
                    };
                    let parsed = parse_path(&arg)?;
                    if parsed.attr.is_some() || parsed.text {
                        return None;
                    }
                    Some(Place { path: [base, parsed.steps].concat(), many })
                }
            }
        }
        _ => None,
    }
}

fn with_step(path: &[XmlElement], step: XmlElement) -> Vec<XmlElement> {
    let mut p = path.to_vec();
    p.push(step);
    p
}

/// Bind the names an assignment or a loop gives elements.
fn bind(node: Node, src: &str, env: &mut HashMap<String, Place>) {
    let (left, right, iterating) = match node.kind() {
        "assignment" => (node.child_by_field_name("left"), node.child_by_field_name("right"), false),
        "for_statement" | "for_in_clause" => (node.child_by_field_name("left"), node.child_by_field_name("right"), true),
        _ => return,
    };
    let (Some(left), Some(right)) = (left, right) else { return };
    let right = unparen(right);
    if iterating {
        // `for event, elem in ET.iterparse(f)`: any element of the document.
        if let Some((_, "iterparse", _)) = method_call(right, src).or_else(|| bare_call(right, src, "iterparse")) {
            if let Some(second) = pattern_names(left, src).get(1) {
                env.insert(second.clone(), Place { path: vec![XmlElement::default()], many: false });
            }
            return;
        }
        // `for i, x in enumerate(elems)`
        let (left, right) = match enumerated(right, src) {
            Some(inner) => match pattern_names(left, src).get(1) {
                Some(_) => (named(left).nth(1).unwrap_or(left), inner),
                None => return,
            },
            None => (left, right),
        };
        if left.kind() != "identifier" {
            return;
        }
        if let Some(p) = place_of(right, src, env) {
            let path = if p.many { p.path } else { with_step(&p.path, XmlElement::default()) };
            env.insert(text(left, src).to_string(), Place { path, many: false });
        }
    } else if left.kind() == "identifier" {
        if let Some(p) = place_of(right, src, env) {
            env.insert(text(left, src).to_string(), p);
        }
    }
}

/// `f(...)` called by its bare name `name` (`iterparse(path)` imported
/// from its module), as (receiver placeholder, name, args).
fn bare_call<'t>(call: Node<'t>, src: &str, name: &'static str) -> Option<(Node<'t>, &'static str, Vec<Node<'t>>)> {
    let func = call.child_by_field_name("function").filter(|f| f.kind() == "identifier" && text(*f, src) == name)?;
    Some((func, name, Vec::new()))
}

fn enumerated<'t>(call: Node<'t>, src: &str) -> Option<Node<'t>> {
    let func = call.child_by_field_name("function").filter(|f| f.kind() == "identifier" && text(*f, src) == "enumerate")?;
    let _ = func;
    call.child_by_field_name("arguments").and_then(|a| named(a).next())
}

fn pattern_names(left: Node, src: &str) -> Vec<String> {
    match left.kind() {
        "pattern_list" | "tuple_pattern" | "tuple" | "list_pattern" => named(left).map(|n| text(n, src).to_string()).collect(),
        _ => Vec::new(),
    }
}

/// Record what one node reads.
fn read(node: Node, src: &str, env: &HashMap<String, Place>, out: &mut XmlReads) {
    match node.kind() {
        "call" => {
            let Some((receiver, method, args)) = method_call(node, src) else { return };
            let place = place_of(receiver, src, env);
            match method {
                "get" | "getAttribute" | "hasAttribute" => {
                    let Some(name) = first_str(&args, src).filter(|n| is_name(n)) else { return };
                    // `e.attrib.get('x')` reads the same attribute.
                    let attrib_of = (receiver.kind() == "attribute" && receiver.child_by_field_name("attribute").is_some_and(|a| text(a, src) == "attrib"))
                        .then(|| receiver.child_by_field_name("object").and_then(|o| place_of(o, src, env)))
                        .flatten();
                    match attrib_of.or(place) {
                        Some(p) if !p.many => attribute_at(out, &p.path, &name),
                        // minidom's getter is never a dict's.
                        None if method != "get" => attribute_at(out, &[XmlElement::default()], &name),
                        _ => {}
                    }
                }
                _ if FINDERS.iter().any(|(m, _)| *m == method) => {
                    let Some(parsed) = first_str(&args, src).and_then(|a| parse_path(&a)) else { return };
                    if parsed.root.is_some() && out.root.is_none() {
                        out.root = parsed.root.clone();
                    }
                    let mut steps = [place.map(|p| p.path).unwrap_or_default(), parsed.steps].concat();
                    if let Some(last) = steps.last_mut() {
                        if let Some(a) = parsed.attr {
                            add_attr(last, &a, None);
                        }
                        if (parsed.text || method == "findtext") && last.text.is_none() {
                            last.text = Some(String::new());
                        }
                    }
                    insert(&mut out.elements, &steps);
                }
                _ => {}
            }
        }
        // `e.attrib['x']`
        "subscript" => {
            let value = node.child_by_field_name("value").filter(|v| v.kind() == "attribute");
            let Some(value) = value.filter(|v| v.child_by_field_name("attribute").is_some_and(|a| text(a, src) == "attrib")) else { return };
            let Some(p) = value.child_by_field_name("object").and_then(|o| place_of(o, src, env)).filter(|p| !p.many) else { return };
            let Some(key) = node.child_by_field_name("subscript").and_then(|k| str_value(k, src)).filter(|k| is_name(k)) else { return };
            attribute_at(out, &p.path, &key);
        }
        // `e.text` where `e` is placed: that element has text.
        "attribute" if node.child_by_field_name("attribute").is_some_and(|a| text(a, src) == "text") => {
            let Some(p) = node.child_by_field_name("object").and_then(|o| place_of(o, src, env)).filter(|p| !p.many && !p.path.is_empty()) else { return };
            let mut steps = p.path;
            if let Some(last) = steps.last_mut().filter(|l| l.text.is_none()) {
                last.text = Some(String::new());
            }
            insert(&mut out.elements, &steps);
        }
        // `elem.tag == 'x'`, `elem.tag in ('a', 'b')`: such elements exist
        // where `elem` is (beside it), or below the root.
        "comparison_operator" => {
            let parts: Vec<Node> = named(node).collect();
            let tag_side = parts.iter().find(|p| p.kind() == "attribute" && p.child_by_field_name("attribute").is_some_and(|a| text(a, src) == "tag"));
            let Some(side) = tag_side else { return };
            let parent = side
                .child_by_field_name("object")
                .and_then(|o| place_of(o, src, env))
                .map(|p| if p.many { p.path } else { p.path[..p.path.len().saturating_sub(1)].to_vec() })
                .unwrap_or_default();
            for other in parts.iter().filter(|p| p.id() != side.id()) {
                let values: Vec<String> = match other.kind() {
                    "tuple" | "list" | "set" => named(*other).filter_map(|n| str_value(n, src)).collect(),
                    _ => str_value(*other, src).into_iter().collect(),
                };
                for tag in values.into_iter().filter(|t| is_name(t)) {
                    insert(&mut out.elements, &with_step(&parent, XmlElement { tag: Some(tag), ..XmlElement::default() }));
                }
            }
        }
        _ => {}
    }
}

/// Attribute `name` read of the element at `path`; of every element when
/// the path ends in one not told apart (`*`, what `iterparse` yields) or is
/// the root itself.
fn attribute_at(out: &mut XmlReads, path: &[XmlElement], name: &str) {
    match path.last() {
        Some(last) if last.tag.is_some() => {
            let mut steps = path.to_vec();
            if let Some(l) = steps.last_mut() {
                add_attr(l, name, None);
            }
            insert(&mut out.elements, &steps);
        }
        _ => {
            if !out.attributes.iter().any(|a| a == name) {
                out.attributes.push(name.to_string());
            }
        }
    }
}

fn add_attr(e: &mut XmlElement, name: &str, value: Option<String>) {
    match e.attrs.iter_mut().find(|(k, _)| k == name) {
        Some((_, v)) => {
            if v.is_none() {
                *v = value;
            }
        }
        None => e.attrs.push((name.to_string(), value)),
    }
}

/// Whether `existing` can be the element `step` asks for: the same tag
/// and no attribute or text given another value.
fn compatible(existing: &XmlElement, step: &XmlElement) -> bool {
    // `*` gets an element of its own: the named ones keep their own values.
    let tag_ok = existing.tag == step.tag;
    let attrs_ok = step.attrs.iter().all(|(k, v)| match (v, existing.attrs.iter().find(|(x, _)| x == k)) {
        (Some(v), Some((_, Some(w)))) => v == w,
        _ => true,
    });
    let text_ok = match (&step.text, &existing.text) {
        (Some(a), Some(b)) => a.is_empty() || b.is_empty() || a == b,
        _ => true,
    };
    tag_ok && attrs_ok && text_ok
}

fn merge(into: &mut XmlElement, step: &XmlElement) {
    for (k, v) in &step.attrs {
        add_attr(into, k, v.clone());
    }
    if into.text.as_deref().is_none_or(str::is_empty) && step.text.is_some() {
        into.text = step.text.clone();
    }
    for c in &step.children {
        insert(&mut into.children, std::slice::from_ref(c));
    }
}

/// Add `path` below `level`, sharing the elements already there that fit.
fn insert(level: &mut Vec<XmlElement>, path: &[XmlElement]) {
    let Some((step, rest)) = path.split_first() else { return };
    let i = match level.iter().position(|e| compatible(e, step)) {
        Some(i) => i,
        None => {
            level.push(XmlElement { tag: step.tag.clone(), ..XmlElement::default() });
            level.len() - 1
        }
    };
    merge(&mut level[i], step);
    insert(&mut level[i].children, rest);
}

/// An XML name (no namespace prefix): letters, digits, `_`, `-`, `.`.
fn is_name(t: &str) -> bool {
    t.len() < 64
        && t.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && t.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// An ElementPath or simple XPath as steps; `None` for anything this does
/// not read (namespaces, functions, unions).
fn parse_path(s: &str) -> Option<ParsedPath> {
    let s = s.trim();
    if s.is_empty() || s.contains(['{', '|', ':']) {
        return None;
    }
    let mut out = ParsedPath::default();
    let absolute = s.starts_with('/') && !s.starts_with("//");
    let mut parts = split_steps(s)?;
    if absolute {
        parts.remove(0);
        let first = parts.first().cloned().unwrap_or_default();
        parts.remove(0);
        if !is_name(&first) {
            return None;
        }
        out.root = Some(first);
    }
    for part in parts {
        match part.as_str() {
            "" | "." => {}
            p if p == ".." || p.starts_with("..[") => {
                // The parent of the last step: an element holding it.
                let child = out.steps.pop()?;
                let mut parent = out.steps.pop().unwrap_or_default();
                let preds = step(&format!("*{}", &p[2..]))?;
                merge(&mut parent, &preds);
                insert(&mut parent.children, &[child]);
                out.steps.push(parent);
            }
            "text()" => out.text = true,
            p if p.starts_with('@') => {
                let a = &p[1..];
                if !is_name(a) {
                    return None;
                }
                out.attr = Some(a.to_string());
            }
            p => out.steps.push(step(p)?),
        }
    }
    Some(out)
}

/// Split at `/` outside brackets and quotes.
fn split_steps(s: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let (mut depth, mut quote) = (0i32, None::<char>);
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[') => depth += 1,
            (None, ']') => depth -= 1,
            (None, '/') if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    (depth == 0 && quote.is_none()).then_some(parts)
}

/// `tag[@a='v'][child]`, `*[@id]`.
fn step(p: &str) -> Option<XmlElement> {
    let (tag, preds) = p.split_once('[').map_or((p, ""), |(t, r)| (t, r));
    let mut e = XmlElement { tag: (tag != "*").then(|| tag.to_string()), ..XmlElement::default() };
    if e.tag.as_deref().is_some_and(|t| !is_name(t)) {
        return None;
    }
    let preds = if preds.is_empty() { String::new() } else { format!("[{preds}") };
    for pred in preds.split('[').map(|x| x.trim_end_matches(']').trim()).filter(|x| !x.is_empty()) {
        let (lhs, value) = match pred.split_once('=') {
            Some((l, v)) if !l.ends_with('!') => (l.trim(), unquote(v.trim())),
            Some(_) => continue,
            None => (pred, None),
        };
        if let Some(a) = lhs.strip_prefix('@') {
            if is_name(a) {
                add_attr(&mut e, a, value);
            }
        } else if lhs == "." || lhs == "text()" {
            e.text = Some(value.unwrap_or_default());
        } else if is_name(lhs) {
            e.children.push(XmlElement { tag: Some(lhs.to_string()), text: value, ..XmlElement::default() });
        }
        // A position (`[1]`, `[last()]`) or a function: every element serves.
    }
    Some(e)
}

fn unquote(v: &str) -> Option<String> {
    let q = v.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    v.strip_prefix(q)?.strip_suffix(q).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use crate::analysis::{analyze, XmlElement, XmlReads};

    fn el(tag: &str, attrs: &[(&str, Option<&str>)], text: Option<&str>, children: Vec<XmlElement>) -> XmlElement {
        XmlElement {
            tag: Some(tag.into()),
            attrs: attrs.iter().map(|(k, v)| (k.to_string(), v.map(Into::into))).collect(),
            text: text.map(Into::into),
            children,
        }
    }

    #[test]
    fn paths_nest_below_the_element_they_are_read_from() {
        let src = "import xml.etree.ElementTree as ET\nroot = ET.parse('c.xml').getroot()\nfor c in root.findall('country'):\n    print(c.get('name'), c.find('rank').text)\n    for n in c.iter('neighbor'):\n        print(n.attrib['direction'])\n";
        let r = analyze(src).xml_reads;
        assert_eq!(
            r.elements,
            [el("country", &[("name", None)], None, vec![el("rank", &[], Some(""), vec![]), el("neighbor", &[("direction", None)], None, vec![])])]
        );
        assert!(r.attributes.is_empty() && r.root.is_none());
    }

    #[test]
    fn predicates_give_attribute_values_children_and_the_parent() {
        let r = analyze("hits = tree.findall(\".//*[@id='home']\")\nroot.findall(\".//year/..[@name='Singapore']\")\nx = tree.xpath('/rss/channel/item/link/text()')\n").xml_reads;
        assert_eq!(r.root.as_deref(), Some("rss"));
        // Any element with `id='home'`; one named Singapore holding a year:
        // both can be one element.
        let any = XmlElement { attrs: vec![("id".into(), Some("home".into())), ("name".into(), Some("Singapore".into()))], children: vec![el("year", &[], None, vec![])], ..XmlElement::default() };
        assert_eq!(r.elements[0], any);
        assert_eq!(r.elements[1], el("channel", &[], None, vec![el("item", &[], None, vec![el("link", &[], Some(""), vec![])])]));
        // Namespaces and functions are not read.
        assert_eq!(analyze("root.findall('{urn:x}item')\nroot.xpath('count(//a)')\n").xml_reads, XmlReads::default());
    }

    #[test]
    fn what_iterparse_yields_is_any_element_and_tag_tests_name_them() {
        let src = "for event, elem in ET.iterparse(fh, events=('end',)):\n    if elem.tag == 'interesting':\n        print(elem.get('kind'))\n    elif elem.tag in ('a', 'b'):\n        pass\n";
        let r = analyze(src).xml_reads;
        let tags: Vec<_> = r.elements.iter().map(|e| e.tag.clone().unwrap()).collect();
        assert_eq!(tags, ["interesting", "a", "b"]);
        assert_eq!(r.attributes, ["kind"]);
        // A dict's `get` is not an attribute; minidom's getter always is.
        let r = analyze("d.get('x')\nfor n in doc.getElementsByTagName('item'):\n    print(n.getAttribute('id'))\n").xml_reads;
        assert_eq!(r.elements, [el("item", &[("id", None)], None, vec![])]);
    }
}
