//! A name the fragment hands an XML parser holds the document it reads:
//! XML text (`ET.fromstring(text)`, `minidom.parseString(s)`) is that
//! document, a file name (`ET.parse(path)`, `iterparse(fh)`) names a file
//! made with it (`resources::file_for`, shaped by `analysis::XmlReads`), so
//! that `root.findall('item')` finds items on the first run.

use crate::synth::knowledge::argument_kind;
use crate::synth::prefix::Prefix;
use crate::synth::resources::{file_for, xml_text};
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;
use crate::synth::value::Value;

pub struct XmlDocuments;

/// The argument kind (`xml-str`, `xml-path`) of the first XML parser the
/// name is passed to.
fn parsed_as(usage: &crate::analysis::Usage) -> Option<&'static str> {
    usage.passed_to.iter().find_map(|a| argument_kind(&a.callee, a.position, a.keyword.as_deref()).filter(|k| matches!(*k, "xml-str" | "xml-path")))
}

impl Rule for XmlDocuments {
    fn name(&self) -> &'static str {
        "xml-documents"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn applies(&self, ctx: &Context, _t: &Trigger) -> bool {
        !ctx.analysis.xml_reads.is_empty()
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        let mut p = so_far.clone();
        let a = ctx.analysis;
        for free in a.free_names.iter().chain(&a.used_before_bound) {
            let Some(kind) = parsed_as(&free.usage) else { continue };
            let Some(b) = p.binding_mut(&free.name) else { continue };
            match (kind, b.value()) {
                ("xml-str", Some(Value::Str(_))) => {
                    if let Some(doc) = xml_text(a) {
                        b.choose(Value::Str(doc));
                    }
                }
                ("xml-path", Some(Value::Str(path))) => {
                    let path = path.clone();
                    if let Some(r) = file_for(a, &path, "open") {
                        p.add_resource(r);
                    }
                }
                _ => {}
            }
        }
        vec![p]
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn xml_text_and_files_hold_what_the_fragment_reads() {
        initial_after(&super::XmlDocuments, "import xml.etree.ElementTree as ET\nroot = ET.fromstring(payload)\nfor b in root.iter('book'):\n    print(b.get('isbn'), b.find('title').text)\n", expect![[r###"
            ## 1
            payload = '<root>\n  <book isbn="1">\n    <title>1</title>\n    <title>2</title>\n  </book>\n  <book isbn="2">\n    <title>1</title>\n    <title>2</title>\n  </book>\n</root>\n'
        "###]]);
        initial_after(&super::XmlDocuments, "import xml.etree.ElementTree as ET\nfor ev, el in ET.iterparse(source):\n    if el.tag == 'entry':\n        print(el.attrib['key'])\n", expect![[r#"
            ## 1
            source = 'source.xml'
            -- file source.xml --
        "#]]);
    }
}
