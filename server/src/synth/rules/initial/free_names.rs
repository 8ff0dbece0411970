//! Every name the fragment reads and never binds gets a binding: a
//! library name its imports only, any other its values inferred from how
//! the fragment uses it (`bindings::binding_for`).

use crate::synth::bindings::binding_for;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct FreeNames;

impl Rule for FreeNames {
    fn name(&self) -> &'static str {
        "free-names"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        let mut p = so_far.clone();
        for f in ctx.analysis.free_names.iter() {
            p.bindings.push(binding_for(ctx, f, true));
        }
        vec![p]
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn free_names_get_imports_or_values_from_their_usage() {
        initial(&super::FreeNames, "print(np.zeros(3), len(items))\n", expect![[r#"
            ## 1
            import numpy as np


            items = [1, 2, 3]
        "#]]);
    }

    #[test]
    fn a_function_of_the_module_a_sibling_name_comes_from_is_imported_first() {
        // `dataclass` and `field` lost the same import line.
        initial(&super::FreeNames, "@dataclass\nclass P:\n    tags: list = field(default_factory=list)\n", expect![[r#"
            ## 1
            from dataclasses import dataclass
            from dataclasses import field
        "#]]);
    }

    #[test]
    fn a_function_of_a_standard_module_the_fragment_uses_is_imported_first() {
        // `ET` is `xml.etree.ElementTree`, which alone exports `iterparse`:
        // its import, never a hand-written `iterparse` that runs.
        initial(&super::FreeNames, "root = ET.fromstring(text)\nfor ev, el in iterparse(path):\n    print(el.tag)\n", expect![[r###"
            ## 1
            import xml.etree.ElementTree as ET
            from xml.etree.ElementTree import iterparse


            text = '<root><item id="1">apple</item><item id="2">banana</item></root>'
            path = 'data.xml'
        "###]]);
    }
}
