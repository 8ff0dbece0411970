//! Re-analysing a document as the server does on every change: the
//! engine's analysis of the whole text, the static findings, and their
//! conversion to LSP diagnostics. Target: a 5,000-line file well under 30 ms.

use criterion::{criterion_group, criterion_main, Criterion};
use ropey::Rope;
use runnable::lsp::convert;
use runnable::lsp::chunks;
use runnable::lsp::diagnostics::{self, EnvFacts, Scope};
use runnable::lsp::position::Encoding;
use runnable::lsp::document::{Document, Language, Snapshot};
use runnable::lsp::regions::{self, Region};
use tower_lsp_server::lsp_types::{Position, Range, TextDocumentContentChangeEvent};
use std::collections::BTreeSet;
use std::hint::black_box;

/// A realistic 5,000-line module: imports, functions with loops and
/// branches, classes, file reads, undefined names, emoji and CJK strings.
fn document(lines: usize) -> String {
    let mut out = String::from("import os\nimport json\nfrom collections import Counter\nimport numpy as np\n\n");
    let mut i = 0;
    while out.lines().count() < lines {
        out.push_str(&format!(
            "def step_{i}(rows, limit={i}):\n    \"\"\"Step {i} 😀 漢字.\"\"\"\n    total = 0\n    for row in rows:\n        if row[\"size\"] > limit:\n            total += row[\"size\"] * factor_{i}\n        else:\n            total -= len(row.get(\"name\", \"\"))\n    with open(\"data_{i}.csv\") as handle:\n        header = handle.readline().strip().split(\",\")\n    counts = Counter(header)\n    return np.mean([total, len(counts)]) + helper_{i}(total)\n\n\nclass Model{i}:\n    def __init__(self, path):\n        self.path = os.path.join(base_dir, path)\n\n    def load(self):\n        return json.loads(open(self.path).read())\n\n\nresult_{i} = step_{i}(records, limit={i})\n\n",
        ));
        i += 1;
    }
    out.lines().take(lines).collect::<Vec<_>>().join("\n") + "\n"
}

/// What the server does with a document's text on each change: the
/// Python regions, the (chunk-cached) analysis, the findings, the LSP diagnostics.
fn reanalyse(cache: &mut chunks::Cache, text: &str, stdlib: &BTreeSet<String>) -> usize {
    let rope = Rope::from_str(text);
    let regions = vec![Region { first_line: 0, lines: rope.len_lines() as u32, text: rope.to_string() }];
    let analysed = cache.analyse(&regions, None);
    let exists = |p: &str| p.starts_with("data_1");
    let findings = chunks::document_findings(&analysed, Some(stdlib), &mut |_| Some(Vec::new()), &exists);
    findings.iter().map(|f| convert::diagnostic(&rope, f, Encoding::Utf16)).count()
}

/// The same from a document snapshot, with its kept syntax tree.
fn reanalyse_doc(cache: &mut chunks::Cache, snap: &Snapshot, stdlib: &BTreeSet<String>) -> usize {
    let regions = regions::python_regions(snap);
    let analysed = cache.analyse(&regions, snap.python_tree());
    let exists = |p: &str| p.starts_with("data_1");
    let findings = chunks::document_findings(&analysed, Some(stdlib), &mut |_| Some(Vec::new()), &exists);
    findings.iter().map(|f| convert::diagnostic(&snap.rope, f, Encoding::Utf16)).count()
}

fn bench(c: &mut Criterion) {
    let text = document(5_000);
    assert_eq!(text.lines().count(), 5_000);
    let stdlib: BTreeSet<String> = ["os", "json", "collections", "re", "sys"].into_iter().map(String::from).collect();
    assert!(reanalyse(&mut chunks::Cache::default(), &text, &stdlib) > 100, "the document has findings to report");
    // A keystroke in the middle of the file: two texts that differ in one line.
    let edited = text.replacen("total = 0\n", "total = 1\n", 1);
    let mid = text.len() / 2;
    let edited_mid = format!("{}{}", &text[..mid], &text[mid..].replacen("total = 0", "total = 7", 1));
    assert_ne!(edited, text);
    let mut group = c.benchmark_group("reanalyse 5000 lines");
    // Without a kept tree every change parses the whole text again.
    group.bench_function("after a one-line edit, no kept tree (full parse)", |b| {
        let mut cache = chunks::Cache::default();
        reanalyse(&mut cache, &text, &stdlib);
        let mut flip = false;
        b.iter(|| {
            flip = !flip;
            reanalyse(&mut cache, black_box(if flip { &edited_mid } else { &text }), &stdlib)
        })
    });
    // What `didChange` + publishing now do: the kept tree edited and
    // re-parsed incrementally, then the chunks read from it re-analysed.
    group.bench_function("5,000-line file, one-line edit, incremental parse + re-analysis", |b| {
        let uri: tower_lsp_server::lsp_types::Uri = "file:///bench/big.py".parse().unwrap();
        let mut doc = Document::new(uri, Language::Python, 1, &text);
        let line = (2_400u32..).find(|&l| doc.rope.line(l as usize).to_string().trim() == "total = 0").unwrap();
        let mut cache = chunks::Cache::default();
        reanalyse_doc(&mut cache, &doc.snapshot(), &stdlib);
        let mut version = 1;
        b.iter(|| {
            version += 1;
            let digit = if version % 2 == 0 { "7" } else { "0" };
            let range = Range::new(Position::new(line, 12), Position::new(line, 13));
            let change = TextDocumentContentChangeEvent { range: Some(range), range_length: None, text: digit.into() };
            doc.apply(vec![change], version, Encoding::Utf16);
            reanalyse_doc(&mut cache, black_box(&doc.snapshot()), &stdlib)
        })
    });
    group.sample_size(20);
    group.bench_function("from scratch (document opened)", |b| b.iter(|| reanalyse(&mut chunks::Cache::default(), black_box(&text), &stdlib)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches, parts_group);

fn parts(c: &mut Criterion) {
    let text = document(5_000);
    c.bench_function("analyze only", |b| b.iter(|| runnable::analysis::analyze(black_box(&text)).free_names.len()));
    let region = Region { first_line: 0, lines: 5000, text: text.clone() };
    let analysis = runnable::analysis::analyze(&region.text);
    let stdlib: BTreeSet<String> = ["os", "json", "collections", "re", "sys"].into_iter().map(String::from).collect();
    let missing: Vec<String> = Vec::new();
    c.bench_function("findings only", |b| {
        b.iter(|| {
            let env = EnvFacts { stdlib: Some(&stdlib), missing: Some(&missing) };
            let scope = Scope { env, defined: &BTreeSet::new(), star_import: false, fix_line: 0, exists: &|p: &str| p.starts_with("data_1") };
            diagnostics::findings(&region, &analysis, &scope).len()
        })
    });
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).unwrap();
    c.bench_function("parse only", |b| b.iter(|| parser.parse(black_box(&text), None).unwrap().root_node().child_count()));
}
criterion_group!(parts_group, parts);
