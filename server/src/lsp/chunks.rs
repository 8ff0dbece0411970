//! Re-analysis as you type, proportional to the edit rather than the file.
//!
//! Parsing and analysing a 5,000-line file from scratch takes far longer
//! than a keystroke should (see `benches/diagnostics.rs`). So a region is
//! split into its top-level statements (read from the document's syntax
//! tree, which tree-sitter re-parses incrementally; see `syntax`), each is
//! analysed on its own, and
//! analyses are cached by the statement's text: an edit re-analyses the
//! statements it touched. What crosses statements is combined afterwards:
//! a name bound by any statement is not undefined in another, a star import
//! anywhere silences undefined names, and the environment is asked about
//! the imports of the whole region.

use super::diagnostics::{self, EnvFacts, Finding, Scope};
use super::regions::Region;
use super::syntax;
use crate::analysis::{self, Analysis};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Split a region into chunks of whole top-level statements (with the
/// comments and blank lines that follow each). `tree` is the syntax tree of
/// the region's text when one is kept (a Python document's, edited
/// incrementally); otherwise the region is parsed. A chunk starts at a
/// statement that begins its line below the previous statement's end.
pub fn split(region: &Region, tree: Option<&tree_sitter::Tree>) -> Vec<Region> {
    let lines: Vec<&str> = region.text.split_inclusive('\n').collect();
    let parsed;
    let tree = match tree {
        Some(tree) => Some(tree),
        None => {
            parsed = syntax::parse_text(&region.text);
            parsed.as_ref()
        }
    };
    let mut starts = vec![0usize];
    let mut covered: Option<usize> = None;
    for statement in tree.map(|t| syntax::top_level_statements(t, &region.text)).unwrap_or_default() {
        if statement.at_line_start && statement.first > 0 && covered.is_none_or(|c| statement.first > c) {
            starts.push(statement.first);
        }
        covered = Some(covered.map_or(statement.last, |c| c.max(statement.last)));
    }
    starts.dedup();
    let mut out = Vec::with_capacity(starts.len());
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(lines.len()).min(lines.len());
        if s >= e {
            continue;
        }
        let text: String = lines[s..e].concat();
        out.push(Region { first_line: region.first_line + s as u32, lines: (e - s) as u32, text });
    }
    if out.is_empty() {
        out.push(region.clone());
    }
    out
}

/// Analyses by chunk text, kept between edits of one document.
#[derive(Default)]
pub struct Cache {
    map: HashMap<(u64, usize), Arc<Analysis>>,
}

fn key(text: &str) -> (u64, usize) {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    (h.finish(), text.len())
}

/// A region's chunks with their analyses.
pub struct Analysed {
    pub region: Region,
    pub chunks: Vec<(Region, Arc<Analysis>)>,
}

impl Analysed {
    pub fn bound_names(&self) -> impl Iterator<Item = &String> {
        self.chunks.iter().flat_map(|(_, a)| a.bound_names.iter())
    }

    pub fn star_import(&self) -> bool {
        self.chunks.iter().any(|(_, a)| diagnostics::has_star_import(a))
    }

    /// Distributions the region's imports need.
    pub fn distributions(&self, stdlib: &BTreeSet<String>) -> BTreeSet<String> {
        self.chunks.iter().flat_map(|(_, a)| diagnostics::distributions(a, stdlib)).collect()
    }
}

impl Cache {
    /// Analyse `regions` chunk by chunk, reusing cached analyses; the cache
    /// keeps only what this text uses. `tree`: the kept syntax tree of a
    /// Python document, whose single region is the whole text (None for
    /// Markdown fences, which are parsed one by one).
    pub fn analyse(&mut self, regions: &[Region], tree: Option<&tree_sitter::Tree>) -> Vec<Analysed> {
        let tree = tree.filter(|_| regions.len() == 1 && regions[0].first_line == 0);
        let mut next = HashMap::new();
        let out = regions
            .iter()
            .map(|region| {
                let chunks = split(region, tree)
                    .into_iter()
                    .map(|chunk| {
                        let k = key(&chunk.text);
                        let a = match self.map.get(&k).or_else(|| next.get(&k)) {
                            Some(a) => Arc::clone(a),
                            None => Arc::new(analysis::analyze(&chunk.text)),
                        };
                        next.insert(k, a.clone());
                        (chunk, a)
                    })
                    .collect();
                Analysed { region: region.clone(), chunks }
            })
            .collect();
        self.map = next;
        out
    }
}

/// The findings of a whole document. `env_missing` says what the
/// environment for a set of distributions lacks (None: not known yet).
pub fn document_findings(
    analysed: &[Analysed],
    stdlib: Option<&BTreeSet<String>>,
    env_missing: &mut dyn FnMut(BTreeSet<String>) -> Option<Vec<String>>,
    exists: &dyn Fn(&str) -> bool,
) -> Vec<Finding> {
    let defined: BTreeSet<String> = analysed.iter().flat_map(|a| a.bound_names().cloned()).collect();
    let star_import = analysed.iter().any(Analysed::star_import);
    let mut out = Vec::new();
    for a in analysed {
        let missing = stdlib.and_then(|std| env_missing(a.distributions(std)));
        let scope = Scope {
            env: EnvFacts { stdlib, missing: missing.as_deref() },
            defined: &defined,
            star_import,
            fix_line: diagnostics::fix_line(&a.region),
            exists,
        };
        for (chunk, analysis) in &a.chunks {
            out.extend(diagnostics::findings(chunk, analysis, &scope));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(text: &str) -> Region {
        Region { first_line: 10, lines: text.lines().count() as u32, text: text.into() }
    }

    fn starts(text: &str) -> Vec<u32> {
        split(&region(text), None).iter().map(|c| c.first_line).collect()
    }

    #[test]
    fn statements_split_at_column_zero_outside_brackets_strings_and_clauses() {
        let text = "import os\n\n@deco\ndef f(a,\nb):\n    return '''\nx = 1\n'''\n\nif a:\n    pass\nelse:\n    pass\ny = [1,\n2]\nz = 1 + \\\n2\n# comment\nw = \"(\"\n";
        assert_eq!(starts(text), vec![10, 12, 19, 23, 25, 28]);
        let chunks = split(&region(text), None);
        assert!(chunks[1].text.starts_with("@deco\ndef f"), "{:?}", chunks[1].text);
        assert_eq!(chunks.iter().map(|c| c.text.as_str()).collect::<String>(), text, "nothing lost");
        assert_eq!(chunks.iter().map(|c| c.lines).sum::<u32>(), 19);
        // Two statements on one line stay one chunk; so does a broken tail.
        assert_eq!(starts("a = 1; b = 2\nc = (\n"), vec![10, 11]);
    }

    #[test]
    fn a_kept_tree_splits_like_a_fresh_parse() {
        use super::super::document::{Document, Language};
        use super::super::position::Encoding;
        use tower_lsp_server::lsp_types::{Position, Range, TextDocumentContentChangeEvent};
        let text = "import os\n\ndef f():\n    return '😀'\n\nx = f()\n";
        let mut doc = Document::new("file:///t/a.py".parse().unwrap(), Language::Python, 1, text);
        let change = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(4, 0), Position::new(4, 0))),
            range_length: None,
            text: "class 漢:\n    pass\n".into(),
        };
        doc.apply(vec![change], 2, Encoding::Utf16);
        let whole = Region { first_line: 0, lines: doc.rope.len_lines() as u32, text: doc.rope.to_string() };
        let kept = split(&whole, doc.tree.as_ref());
        assert_eq!(kept, split(&whole, None));
        assert_eq!(kept.iter().map(|c| c.first_line).collect::<Vec<_>>(), vec![0, 2, 4, 7]);
    }

    #[test]
    fn cached_chunks_are_reused_and_cross_chunk_bindings_count() {
        let mut cache = Cache::default();
        let r = region("def helper():\n    return 1\n\nprint(helper(), missing)\n");
        let first = cache.analyse(std::slice::from_ref(&r), None);
        let never = |_: BTreeSet<String>| -> Option<Vec<String>> { None };
        let findings = document_findings(&first, None, &mut { never }, &|_| true);
        let names: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(names[0].contains("`missing`"));
        assert_eq!(findings[0].line, 13);
        // Editing the second statement re-analyses only it.
        let r2 = region("def helper():\n    return 1\n\nprint(helper(), other)\n");
        let second = cache.analyse(std::slice::from_ref(&r2), None);
        assert!(Arc::ptr_eq(&first[0].chunks[0].1, &second[0].chunks[0].1));
        assert!(!Arc::ptr_eq(&first[0].chunks[1].1, &second[0].chunks[1].1));
    }

    #[test]
    fn a_star_import_in_any_statement_silences_undefined_names() {
        let mut cache = Cache::default();
        let r = region("from thing import *\n\nprint(missing)\n");
        let a = cache.analyse(std::slice::from_ref(&r), None);
        let findings = document_findings(&a, None, &mut |_| None, &|_| true);
        assert!(findings.is_empty(), "{findings:?}");
    }
}
