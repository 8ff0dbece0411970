//! Re-analysis as you type, proportional to the edit rather than the file.
//!
//! Parsing and analysing a 5,000-line file from scratch takes far longer
//! than a keystroke should (see `benches/diagnostics.rs`). So a region is
//! split into its top-level statements (a cheap line scan that follows
//! brackets, strings and continuations), each is analysed on its own, and
//! analyses are cached by the statement's text: an edit re-analyses the
//! statements it touched. What crosses statements is combined afterwards:
//! a name bound by any statement is not undefined in another, a star import
//! anywhere silences undefined names, and the environment is asked about
//! the imports of the whole region.

use super::diagnostics::{self, EnvFacts, Finding, Scope};
use super::regions::Region;
use crate::analysis::{self, Analysis};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Split a region into chunks of whole top-level statements (with the
/// comments and blank lines that follow each).
pub fn split(region: &Region) -> Vec<Region> {
    let lines: Vec<&str> = region.text.split_inclusive('\n').collect();
    let mut starts = vec![0usize];
    let mut scan = Scanner::default();
    let mut after_decorator = false;
    for (i, line) in lines.iter().enumerate() {
        let at_statement_start = scan.depth == 0 && scan.triple.is_none() && !scan.continued;
        let first = line.chars().next().unwrap_or('\n');
        if at_statement_start && i > 0 && !first.is_whitespace() && first != '#' {
            let word = line.split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or("");
            let clause = matches!(word, "else" | "elif" | "except" | "finally");
            if !clause && !after_decorator {
                starts.push(i);
            }
        }
        if at_statement_start && !first.is_whitespace() && first != '#' {
            after_decorator = first == '@';
        }
        scan.line(line);
    }
    starts.dedup();
    let mut out = Vec::with_capacity(starts.len());
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(lines.len());
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

/// Tracks what a line leaves open: brackets, a triple-quoted string, a
/// backslash continuation.
#[derive(Default)]
struct Scanner {
    depth: i32,
    triple: Option<&'static str>,
    continued: bool,
}

impl Scanner {
    fn line(&mut self, line: &str) {
        let b = line.as_bytes();
        let mut i = 0;
        self.continued = false;
        while i < b.len() {
            if let Some(q) = self.triple {
                match line[i..].find(q) {
                    Some(j) => {
                        i += j + 3;
                        self.triple = None;
                    }
                    None => return,
                }
                continue;
            }
            match b[i] {
                b'#' => return,
                b'\\' if i + 1 < b.len() && (b[i + 1] == b'\n' || b[i + 1] == b'\r') => {
                    self.continued = true;
                    return;
                }
                b'(' | b'[' | b'{' => self.depth += 1,
                b')' | b']' | b'}' => self.depth = (self.depth - 1).max(0),
                q @ (b'"' | b'\'') => {
                    if line[i..].starts_with("\"\"\"") || line[i..].starts_with("'''") {
                        self.triple = Some(if q == b'"' { "\"\"\"" } else { "'''" });
                        i += 3;
                        continue;
                    }
                    // A one-line string: skip to its end (or the end of the line).
                    i += 1;
                    while i < b.len() && b[i] != q && b[i] != b'\n' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
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
    /// keeps only what this text uses.
    pub fn analyse(&mut self, regions: &[Region]) -> Vec<Analysed> {
        let mut next = HashMap::new();
        let out = regions
            .iter()
            .map(|region| {
                let chunks = split(region)
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
        split(&region(text)).iter().map(|c| c.first_line).collect()
    }

    #[test]
    fn statements_split_at_column_zero_outside_brackets_strings_and_clauses() {
        let text = "import os\n\n@deco\ndef f(a,\nb):\n    return '''\nx = 1\n'''\n\nif a:\n    pass\nelse:\n    pass\ny = [1,\n2]\nz = 1 + \\\n2\n# comment\nw = \"(\"\n";
        assert_eq!(starts(text), vec![10, 12, 19, 23, 25, 28]);
        let chunks = split(&region(text));
        assert!(chunks[1].text.starts_with("@deco\ndef f"), "{:?}", chunks[1].text);
        assert_eq!(chunks.iter().map(|c| c.text.as_str()).collect::<String>(), text, "nothing lost");
        assert_eq!(chunks.iter().map(|c| c.lines).sum::<u32>(), 19);
    }

    #[test]
    fn cached_chunks_are_reused_and_cross_chunk_bindings_count() {
        let mut cache = Cache::default();
        let r = region("def helper():\n    return 1\n\nprint(helper(), missing)\n");
        let first = cache.analyse(std::slice::from_ref(&r));
        let never = |_: BTreeSet<String>| -> Option<Vec<String>> { None };
        let findings = document_findings(&first, None, &mut { never }, &|_| true);
        let names: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(names[0].contains("`missing`"));
        assert_eq!(findings[0].line, 13);
        // Editing the second statement re-analyses only it.
        let r2 = region("def helper():\n    return 1\n\nprint(helper(), other)\n");
        let second = cache.analyse(std::slice::from_ref(&r2));
        assert!(Arc::ptr_eq(&first[0].chunks[0].1, &second[0].chunks[0].1));
        assert!(!Arc::ptr_eq(&first[0].chunks[1].1, &second[0].chunks[1].1));
    }

    #[test]
    fn a_star_import_in_any_statement_silences_undefined_names() {
        let mut cache = Cache::default();
        let r = region("from thing import *\n\nprint(missing)\n");
        let a = cache.analyse(std::slice::from_ref(&r));
        let findings = document_findings(&a, None, &mut |_| None, &|_| true);
        assert!(findings.is_empty(), "{findings:?}");
    }
}
