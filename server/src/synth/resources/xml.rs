//! An XML document holding what the fragment reads of it
//! (`analysis::XmlReads`): each element its paths name, nested as they
//! say, twice where it is iterated over (so a loop runs more than once),
//! with the attributes read of it (the value a predicate tests, else a
//! number) and text on every leaf and wherever `.text` is read. Names are
//! XML names already (the analysis keeps no other); values are escaped.

use crate::analysis::{XmlElement, XmlReads};

/// Below this depth each element is written twice; deeper, once (the
/// document stays small however deep the paths go).
const TWICE_TO_DEPTH: usize = 3;

/// The document, or `None` when the fragment reads nothing of one.
pub fn document(reads: &XmlReads) -> Option<Vec<u8>> {
    if reads.is_empty() {
        return None;
    }
    let root = XmlElement {
        tag: Some(reads.root.clone().unwrap_or_else(|| "root".into())),
        children: reads.elements.clone(),
        ..XmlElement::default()
    };
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    write(&mut out, &root, &reads.attributes, 0, 1);
    Some(out.into_bytes())
}

fn write(out: &mut String, e: &XmlElement, global: &[String], depth: usize, n: usize) {
    let indent = "  ".repeat(depth);
    let tag = e.tag.as_deref().unwrap_or("item");
    out.push_str(&format!("{indent}<{tag}"));
    let mut names: Vec<&str> = Vec::new();
    for (k, v) in e.attrs.iter().map(|(k, v)| (k.as_str(), v.clone())).chain(global.iter().map(|g| (g.as_str(), None))) {
        if names.contains(&k) {
            continue;
        }
        names.push(k);
        let value = v.unwrap_or_else(|| n.to_string());
        out.push_str(&format!(" {k}=\"{}\"", escape(&value)));
    }
    out.push('>');
    // A leaf's text, or text read of this element: the one a predicate
    // says, else a number (what `int(e.text)` and `e.text.strip()` both take).
    let text = match &e.text {
        Some(t) if !t.is_empty() => Some(t.clone()),
        Some(_) => Some(n.to_string()),
        None if e.children.is_empty() && depth > 0 => Some(n.to_string()),
        None => None,
    };
    if let Some(t) = &text {
        out.push_str(&escape(t));
    }
    if !e.children.is_empty() {
        out.push('\n');
        for c in &e.children {
            let copies = if depth < TWICE_TO_DEPTH { 2 } else { 1 };
            for i in 1..=copies {
                write(out, c, global, depth + 1, i);
            }
        }
        out.push_str(&indent);
    }
    out.push_str(&format!("</{tag}>\n"));
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot hold at all.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;

    fn doc(src: &str) -> String {
        String::from_utf8(document(&analyze(src).xml_reads).unwrap()).unwrap()
    }

    #[test]
    fn the_document_holds_the_elements_attributes_and_text_read() {
        let src = "import xml.etree.ElementTree as ET\nroot = ET.parse('c.xml').getroot()\nfor c in root.findall('country'):\n    print(c.get('name'), int(c.find('rank').text))\nhome = root.find(\".//*[@id='home']\")\n";
        assert_eq!(
            doc(src),
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root>\n  <country name=\"1\">\n    <rank>1</rank>\n    <rank>2</rank>\n  </country>\n  <country name=\"2\">\n    <rank>1</rank>\n    <rank>2</rank>\n  </country>\n  <item id=\"home\">1</item>\n  <item id=\"home\">2</item>\n</root>\n"
        );
    }

    #[test]
    fn values_are_escaped_and_global_attributes_are_everywhere() {
        let src = "for ev, e in ET.iterparse(f):\n    print(e.get('kind'))\nroot.findall(\"item[@q='a<b&\\\"c']\")\n";
        let d = doc(src);
        assert!(d.contains("<root kind=\"1\">"), "{d}");
        assert!(d.contains("<item q=\"a&lt;b&amp;&quot;c\" kind=\"1\">1</item>"), "{d}");
        assert!(document(&XmlReads::default()).is_none());
    }
}
