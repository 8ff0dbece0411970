//! Fixture tests of the engine -> LSP conversions: a report and a document
//! in, edits, hints and diagnostics out.

use super::*;
use crate::coverage::Coverage;
use crate::report::{ErrorInfo, ResourceFile, Stats, Status};
use std::collections::BTreeMap;

pub(crate) fn report(prefix: &str, suffix: &str, executable: &[u32], covered: &[u32]) -> FixReport {
    let coverage = Coverage::new(executable.to_vec(), covered.iter().copied().collect());
    FixReport {
        program: String::new(),
        prefix: prefix.into(),
        suffix: suffix.into(),
        fragment_lines: Vec::new(),
        resources: Vec::new(),
        python: "python3".into(),
        packages: Vec::new(),
        union_coverage: coverage.clone(),
        coverage,
        status: Status::Completed,
        error: None,
        blocker: None,
        names: Vec::new(),
        refinements: Vec::new(),
        rules: Vec::new(),
        stats: Stats { executions: 1, seconds: 0.1, ..Stats::default() },
        variants: Vec::new(),
        hits: BTreeMap::new(),
        values: BTreeMap::new(),
        printed: BTreeMap::new(),
        syntax_errors: Vec::new(),
        missing_packages: Vec::new(),
        unknown_imports: Vec::new(),
        failed_packages: Vec::new(),
        legacy: None,
        optional: Vec::new(),
        wrapped: false,
        containment: None,
        notes: Vec::new(),
        denied: Vec::new(),
        stdout: String::new(),
        stderr: String::new(),
        llm: None,
        memory: None,
    }
}

fn snap(name: &str, language: Language, text: &str) -> Snapshot {
    Snapshot { uri: format!("file:///work/{name}").parse().unwrap(), language, version: 3, rope: Rope::from_str(text), tree: None }
}

fn opts(encoding: Encoding) -> EditOptions<'static> {
    EditOptions { resource_dir: ".runnable", document_changes: true, encoding }
}

/// The edits of the document itself, as (range, text).
fn doc_edits(e: &WorkspaceEdit) -> Vec<(Range, String)> {
    let edits: Vec<&TextDocumentEdit> = match &e.document_changes {
        Some(DocumentChanges::Operations(ops)) => ops
            .iter()
            .filter_map(|op| match op {
                DocumentChangeOperation::Edit(te) => Some(te),
                _ => None,
            })
            .collect(),
        Some(DocumentChanges::Edits(edits)) => edits.iter().collect(),
        None => return vec![],
    };
    edits
        .into_iter()
        .filter(|te| te.text_document.version.is_some())
        .flat_map(|te| te.edits.iter().map(|e| match e {
            OneOf::Left(t) => (t.range, t.new_text.clone()),
            OneOf::Right(a) => (a.text_edit.range, a.text_edit.new_text.clone()),
        }))
        .collect()
}

fn pos(l: u32, c: u32) -> Position {
    Position::new(l, c)
}

#[test]
fn prefix_above_and_driver_below_as_one_versioned_edit() {
    let s = snap("a.py", Language::Python, "import os\nx = s.strip()\nprint(x)\n\nmore = 1\n");
    let r = report("s = 'abc'\n", "main()\n", &[1, 2], &[1, 2]);
    let out = result_edit(&s, Fragment { start: 1, end: 2 }, &r, &opts(Encoding::Utf16));
    assert_eq!(
        doc_edits(&out.edit),
        vec![(Range::new(pos(1, 0), pos(1, 0)), "s = 'abc'\n\n".into()), (Range::new(pos(3, 0), pos(3, 0)), "\nmain()\n".into())]
    );
    let Some(DocumentChanges::Operations(ops)) = &out.edit.document_changes else { panic!() };
    assert_eq!(ops.len(), 1, "one TextDocumentEdit: undone as one");
    assert!(out.files.is_empty() && out.show.is_none() && out.folder.is_none());
}

#[test]
fn the_prefix_goes_below_the_fragments_docstring_and_imports_and_repeats_none() {
    let text = "\"\"\"Report.\"\"\"\nfrom __future__ import annotations\nimport os\n\nprint(open(path).read(), os.sep)\n";
    let s = snap("inv.py", Language::Python, text);
    let mut r = report("import os\nimport json\npath = 'in.txt'\n", "", &[1], &[1]);
    r.resources = vec![ResourceFile { path: "in.txt".into(), content: "a\n".into(), encoding: "utf-8" }];
    let out = result_edit(&s, Fragment { start: 0, end: 4 }, &r, &opts(Encoding::Utf16));
    let edits = doc_edits(&out.edit);
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0].0, Range::new(pos(3, 0), pos(3, 0)), "below the imports");
    assert_eq!(
        edits[0].1,
        "os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), \".runnable\"))\nimport json\npath = 'in.txt'\n\n",
        "no second `import os`"
    );
}

#[test]
fn an_indented_fragment_gets_an_indented_prefix() {
    let s = snap("a.py", Language::Python, "def f():\n    y = s.upper()\n    return y\n");
    let r = report("s = 'a'\n", "", &[1], &[1]);
    let out = result_edit(&s, Fragment { start: 1, end: 1 }, &r, &opts(Encoding::Utf16));
    assert_eq!(doc_edits(&out.edit), vec![(Range::new(pos(1, 0), pos(1, 0)), "    s = 'a'\n\n".into())]);
}

#[test]
fn a_last_line_without_newline_gets_the_driver_at_its_end_in_the_negotiated_encoding() {
    let s = snap("a.py", Language::Python, "t = '😀'\ndef go(): print(t)");
    let r = report("", "go()\n", &[1, 2], &[1, 2]);
    let utf16 = result_edit(&s, Fragment { start: 0, end: 1 }, &r, &opts(Encoding::Utf16));
    assert_eq!(doc_edits(&utf16.edit), vec![(Range::new(pos(1, 18), pos(1, 18)), "\n\ngo()\n".into())]);
    let s = snap("a.py", Language::Python, "def go(): print('😀')");
    let utf8 = result_edit(&s, Fragment { start: 0, end: 0 }, &r, &opts(Encoding::Utf8));
    let utf16 = result_edit(&s, Fragment { start: 0, end: 0 }, &r, &opts(Encoding::Utf16));
    assert_eq!(doc_edits(&utf8.edit)[0].0.start, pos(0, 23));
    assert_eq!(doc_edits(&utf16.edit)[0].0.start, pos(0, 21));
}

#[test]
fn resources_are_created_in_the_resource_dir_and_the_prefix_changes_directory() {
    let s = snap("inv.py", Language::Python, "data = open('in.txt').read()\n");
    let mut r = report("", "", &[1], &[1]);
    r.resources = vec![
        ResourceFile { path: "in.txt".into(), content: "a\nb\n".into(), encoding: "utf-8" },
        ResourceFile { path: "img/p.png".into(), content: "iVBORw0KGgo=".into(), encoding: "base64" },
    ];
    let out = result_edit(&s, Fragment { start: 0, end: 0 }, &r, &opts(Encoding::Utf16));
    let edits = doc_edits(&out.edit);
    assert_eq!(edits.len(), 1);
    assert_eq!(
        edits[0].1,
        "import os  # runnable: the files this code reads are in .runnable/\nos.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), \".runnable\"))\n\n"
    );
    // Files never go through the edit (an editor would follow a symlink at
    // the path): the server writes them into the resource folder itself.
    let Some(DocumentChanges::Operations(ops)) = &out.edit.document_changes else { panic!() };
    assert_eq!(ops.len(), 1, "only the document's edit: {ops:?}");
    assert!(ops.iter().all(|op| !matches!(op, DocumentChangeOperation::Op(_))));
    let names: Vec<&Path> = out.files.iter().map(|(p, _)| p.as_path()).collect();
    assert_eq!(names, vec![Path::new("in.txt"), Path::new("img/p.png")]);
    assert_eq!(out.files[0].1, b"a\nb\n");
    assert_eq!(&out.files[1].1[..4], b"\x89PNG");
    assert_eq!(out.folder, Some((PathBuf::from("/work"), PathBuf::from(".runnable"))));
}

#[test]
fn without_document_changes_the_edit_uses_changes_and_files_are_written() {
    let s = snap("inv.py", Language::Python, "print(open('in.txt').read())\n");
    let mut r = report("", "", &[1], &[1]);
    r.resources = vec![ResourceFile { path: "in.txt".into(), content: "a\n".into(), encoding: "utf-8" }];
    let out = result_edit(&s, Fragment { start: 0, end: 0 }, &r, &EditOptions { document_changes: false, ..opts(Encoding::Utf16) });
    assert!(out.edit.document_changes.is_none());
    assert_eq!(out.edit.changes.as_ref().unwrap().len(), 1);
    assert_eq!(out.files.len(), 1);
}

#[test]
fn markdown_changes_directory_relative_to_its_folder() {
    let s = snap("notes.md", Language::Markdown, "```python\nprint(open('in.txt').read())\n```\n");
    let mut r = report("", "", &[1], &[1]);
    r.resources = vec![ResourceFile { path: "in.txt".into(), content: "a\n".into(), encoding: "utf-8" }];
    let out = result_edit(&s, Fragment { start: 1, end: 1 }, &r, &opts(Encoding::Utf16));
    assert!(doc_edits(&out.edit)[0].1.contains("os.chdir(\".runnable\")"));
}

#[test]
fn a_wrapped_fragment_becomes_a_runnable_copy_instead() {
    let s = snap("body.py", Language::Python, "first = self.items[0]\nreturn first\n");
    let mut r = report("self = X()\n", "__runnable_fragment()\n", &[1, 2], &[1, 2]);
    r.wrapped = true;
    r.program = "self = X()\n\ndef __runnable_fragment():\n    first = self.items[0]\n    return first\n\n__runnable_fragment()\n".into();
    let out = result_edit(&s, Fragment { start: 0, end: 1 }, &r, &opts(Encoding::Utf16));
    assert!(doc_edits(&out.edit).is_empty(), "the user's code is not re-indented");
    assert_eq!(out.show.as_deref(), Some(Path::new("body.runnable.py")));
    assert!(out.edit.document_changes.is_none(), "nothing to edit: the copy is written by the server");
    assert_eq!(out.folder, Some((PathBuf::from("/work"), PathBuf::from(".runnable"))));
    assert_eq!(out.files, vec![(PathBuf::from("body.runnable.py"), r.program.clone().into_bytes())]);
}

#[test]
fn line_results_are_pinned_to_document_lines() {
    let s = snap("a.py", Language::Python, "import os\n# c\nx = 1\nif x > 5:\n    y = 2\n");
    let mut r = report("", "", &[2, 3, 4], &[2, 3]);
    r.hits = BTreeMap::from([(2, 1), (3, 1)]);
    r.values = BTreeMap::from([(2, vec![("x".to_string(), "1".to_string())])]);
    r.status = Status::Raised;
    r.error = Some(ErrorInfo { type_name: "ValueError".into(), message: "bad".into(), line: Some(3) });
    let (hints, errors) = line_results(&r, Fragment { start: 1, end: 4 }, &s.rope);
    let got: Vec<(u32, &str, u64, usize)> = hints.iter().map(|a| (a.line, a.text.as_str(), a.value.hits, a.value.values.len())).collect();
    assert_eq!(got, vec![(2, "x = 1", 1, 1), (3, "if x > 5:", 1, 0), (4, "    y = 2", 0, 0)]);
    assert_eq!(errors.len(), 1);
    assert_eq!((errors[0].line, errors[0].text.as_str()), (3, "if x > 5:"));
    let d = runtime_diagnostic(&s.rope, &errors[0], Encoding::Utf16);
    assert_eq!(d.range, Range::new(pos(3, 0), pos(3, 9)));
    assert_eq!(d.code, Some(NumberOrString::String("runtime-error".into())));
    assert_eq!(error_text(&r, Fragment { start: 1, end: 4 }).unwrap(), "ValueError: bad (line 4)");
}

#[test]
fn an_error_that_says_why_the_fragment_cannot_run_says_so_at_its_line() {
    let s = snap("a.py", Language::Python, "df = pd.read_csv('/Users/ann/data.csv')\n");
    let mut r = report("", "", &[1], &[]);
    r.status = Status::Raised;
    r.error = Some(ErrorInfo { type_name: "FileNotFoundError".into(), message: "No such file".into(), line: Some(1) });
    r.blocker = Some(crate::blockers::Blocker { class: crate::blockers::BlockerClass::AbsolutePath, detail: "/Users/ann/data.csv".into() });
    let (_, errors) = line_results(&r, Fragment { start: 0, end: 0 }, &s.rope);
    let d = runtime_diagnostic(&s.rope, &errors[0], Encoding::Utf16);
    assert!(d.message.starts_with("the run stopped here: FileNotFoundError: No such file\ncannot run as written (absolute-path): `/Users/ann/data.csv`"), "{}", d.message);
}

#[test]
fn a_statement_counts_its_starts_on_its_first_line() {
    // The harness counts starts on a statement's first line: a comprehension
    // looping 5 times started once, a loop body 3 times; the second line of
    // a multi-line statement is no statement and gets no hint.
    let s = snap("a.py", Language::Python, "rows = [r for r in range(5)]\nfor r in rows[:3]:\n    print(r)\nx = [1,\n     2]\n");
    let mut r = report("", "", &[1, 2, 3, 4], &[1, 2, 3, 4]);
    r.hits = BTreeMap::from([(1, 1), (2, 1), (3, 3)]);
    let (hints, _) = line_results(&r, Fragment { start: 0, end: 4 }, &s.rope);
    let got: Vec<(u32, u64)> = hints.iter().map(|a| (a.line, a.value.hits)).collect();
    // Line 4 ran (covered) though no start was counted there: still once.
    assert_eq!(got, vec![(0, 1), (1, 1), (2, 3), (3, 1)]);
}

#[test]
fn a_run_that_did_not_parse_pins_its_syntax_errors() {
    let s = snap("a.py", Language::Python, "# c\nx = 1\nif x >:\n    pass\n");
    let mut r = report("", "", &[], &[]);
    r.status = Status::SyntaxError;
    r.syntax_errors = vec![
        crate::analysis::SyntaxIssue { line: 2, column: 6, message: "unexpected `:`".into() },
        crate::analysis::SyntaxIssue { line: 2, column: 7, message: "again".into() },
    ];
    let (_, errors) = line_results(&r, Fragment { start: 1, end: 3 }, &s.rope);
    assert_eq!(errors.len(), 1, "one per line");
    assert_eq!((errors[0].line, errors[0].value.syntax), (2, true));
    let d = runtime_diagnostic(&s.rope, &errors[0], Encoding::Utf16);
    assert_eq!(d.code, Some(NumberOrString::String("syntax-error".into())));
    assert!(is_syntax_error(&d));
    assert_eq!(d.message, "syntax error: unexpected `:` (nothing ran)");
}

#[test]
fn inlay_hints_at_line_ends_with_switches() {
    let s = snap("a.py", Language::Python, "s = name.upper()\nif s:\n    pass\nt = '漢字'\n");
    let results = [
        Anchored { line: 0, text: "s = name.upper()".into(), value: LineResult { executable: true, hits: 3, values: vec![("s".into(), "'漢字'".into())], printed: None } },
        Anchored { line: 1, text: "if s:".into(), value: LineResult { executable: true, hits: 1, values: vec![], printed: None } },
        Anchored { line: 2, text: "    pass".into(), value: LineResult { executable: true, hits: 0, values: vec![], printed: None } },
        Anchored { line: 3, text: "t = '漢字'".into(), value: LineResult { executable: true, hits: 1, values: vec![("t".into(), "'漢字'".into())], printed: None } },
    ];
    let settings = Settings::default();
    let labels = |hints: Vec<InlayHint>| {
        hints
            .into_iter()
            .map(|h| match h.label {
                InlayHintLabel::String(s) => (h.position, s),
                _ => unreachable!(),
            })
            .collect::<Vec<_>>()
    };
    // Counts above one and "not reached" only; no value the line spells itself.
    let all = labels(inlay_hints(&s.rope, results.iter(), 0, 3, &settings, Encoding::Utf16));
    assert_eq!(all, vec![(pos(0, 16), "ran ×3".into()), (pos(0, 16), "= '漢字'".into()), (pos(2, 8), "not reached".into())]);
    let utf8 = labels(inlay_hints(&s.rope, results.iter(), 3, 3, &settings, Encoding::Utf8));
    assert!(utf8.is_empty(), "{utf8:?}");
    let only_values = Settings { hints_coverage: false, ..Settings::default() };
    assert_eq!(labels(inlay_hints(&s.rope, results.iter(), 0, 2, &only_values, Encoding::Utf16)), vec![(pos(0, 16), "= '漢字'".into())]);
    let in_range = labels(inlay_hints(&s.rope, results.iter(), 1, 2, &settings, Encoding::Utf16));
    assert_eq!(in_range.len(), 1);
}

#[test]
fn values_the_line_spells_are_not_hinted() {
    let v = |pairs: &[(&str, &str)]| pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect::<Vec<_>>();
    let names = |line: &str, values: &[(&str, &str)]| unspelled_values(line, &v(values)).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
    assert!(names("left = 4", &[("left", "4")]).is_empty());
    assert!(names("greeting = \"hi\"  # a comment", &[("greeting", "'hi'")]).is_empty());
    assert!(names("a, b = 1, 'x'", &[("a", "1"), ("b", "'x'")]).is_empty());
    assert!(names("pair = (1, 2)", &[("pair", "(1, 2)")]).is_empty());
    assert!(names("xs = [1,2]", &[("xs", "[1, 2]")]).is_empty());
    // Computed values are what a hint is for.
    assert_eq!(names("n = len(xs)", &[("n", "3")]), vec!["n"]);
    assert_eq!(names("total = 4 * 1", &[("total", "4")]), vec!["total"]);
    assert_eq!(names("if x == 4: y = f(x)", &[("y", "4")]), vec!["y"]);
    assert_eq!(names("for line in fh:", &[("line", "'a\\n'")]), vec!["line"]);
}

#[test]
fn value_labels_are_short_and_on_one_line() {
    assert_eq!(values_label(&[("x".into(), "42".into())]), "= 42");
    assert_eq!(values_label(&[("a".into(), "1".into()), ("b".into(), "'s'".into())]), "a = 1, b = 's'");
    let long = values_label(&[("x".into(), "y".repeat(100))]);
    assert_eq!(long.chars().count(), 2 + 40);
    assert!(long.ends_with('…'));
    // A pandas Series' repr: its rows, padding collapsed.
    let series = "customer\n1    10\n2    20\nName: amount, dtype: int64";
    assert_eq!(values_label(&[("s".into(), series.into())]), "= customer ⏎ 1 10 ⏎ 2 20 ⏎ Name: amount, …");
}

#[test]
fn the_hover_has_the_count_and_the_whole_value_in_an_inert_block() {
    let series = "customer\n1    10\n2    20\nName: amount, dtype: int64";
    let md = hover_markdown(&LineResult { executable: true, hits: 4, values: vec![("s".into(), series.into())], printed: None }).unwrap();
    assert!(md.starts_with("Runnable: ran 4 times in the last run"), "{md}");
    assert!(md.contains(&format!("```python\ns = {series}\n```")), "{md}");
    // Run text that looks like Markdown stays in the code block.
    let md = hover_markdown(&LineResult { executable: false, hits: 0, values: vec![("u".into(), "'```![x](http://e/)'".into())], printed: None }).unwrap();
    assert!(md.contains("````python\nu = '```![x](http://e/)'\n````"), "{md}");
    assert_eq!(hover_markdown(&LineResult { executable: true, hits: 0, values: vec![], printed: None }).unwrap(), "Runnable: not reached in the last run");
    assert!(hover_markdown(&LineResult { executable: false, hits: 0, values: vec![], printed: None }).is_none());
}

#[test]
fn diagnostics_and_their_quick_fix() {
    let s = snap("a.py", Language::Python, "x = 'é'; y = np.pi\n");
    let f = Finding { line: 0, start: 14, end: 16, code: "undefined-name", message: "`np`".into(), fix: Some("import numpy as np".into()), fix_line: 0, rewrite: None, offer: None };
    let d = diagnostic(&s.rope, &f, Encoding::Utf16);
    assert_eq!(d.range, Range::new(pos(0, 13), pos(0, 15)), "é is two bytes, one UTF-16 unit");
    assert_eq!(d.source.as_deref(), Some("runnable"));
    let action = quick_fix(&s.uri, 3, &d, &s.rope).unwrap();
    assert_eq!(action.kind, Some(CodeActionKind::QUICKFIX));
    let Some(DocumentChanges::Edits(edits)) = action.edit.unwrap().document_changes else { panic!() };
    assert_eq!(edits[0].text_document.version, Some(3));
    let OneOf::Left(e) = &edits[0].edits[0] else { panic!() };
    assert_eq!((e.range.start, e.new_text.as_str()), (pos(0, 0), "import numpy as np\n"));
    // Diagnostics from elsewhere, or without a fix, get none.
    let mut other = d.clone();
    other.source = Some("pyright".into());
    assert!(quick_fix(&s.uri, 3, &other, &s.rope).is_none());
}

#[test]
fn run_finished_carries_the_protocol_fields() {
    let mut r = report("", "", &[1, 2, 3], &[1, 2]);
    r.status = Status::Raised;
    let uri: Uri = "file:///work/a.py".parse().unwrap();
    let v = run_finished(&uri, 4, &status_text(&r), Some(&r), Some("KeyError: 'k' (line 3)".into()));
    assert_eq!(
        v,
        json!({"uri": "file:///work/a.py", "version": 4, "status": "raised", "covered": 2, "executable": 3, "ratio": 2.0 / 3.0,
               "error": "KeyError: 'k' (line 3)", "denied": [], "network": false, "cached": false})
    );
    let v = run_finished(&uri, 4, "cancelled", None, None);
    assert!(v.get("error").is_none());
    assert_eq!(v["status"], "cancelled");
    assert_eq!(v["denied"], json!([]));
    // A denial and a run with the network allowed, as the editors read them.
    r.denied = vec![crate::exec::Denial { layer: "network namespace (bubblewrap --unshare-net)".into(), what: "network".into(), detail: "d".into() }];
    r.containment = Some(crate::exec::Containment { bubblewrap: true, unprivileged_uid: None, network: true, note: None, seccomp: true, layers: Vec::new() });
    let v = run_finished(&uri, 4, "raised", Some(&r), None);
    assert_eq!(v["denied"], json!([{"layer": "network namespace (bubblewrap --unshare-net)", "what": "network", "detail": "d"}]));
    assert_eq!(v["network"], true);
    // A result from the results cache says so.
    r.memory = Some(crate::report::MemoryReport { cached: true, ..Default::default() });
    assert_eq!(run_finished(&uri, 4, "raised", Some(&r), None)["cached"], true);
}

#[test]
fn what_a_line_printed_is_a_short_hint_and_whole_on_hover() {
    assert_eq!(printed_label("hello\n"), "› hello");
    assert_eq!(printed_label("a\nb\n"), "› a ⏎ b");
    assert_eq!(printed_label("\x1b[31mred\x1b[0m\n"), "› \u{fffd}[31mred\u{fffd}[0m", "escape sequences are not passed to the editor");
    let long = printed_label(&"x".repeat(200));
    assert_eq!(long.chars().count(), 2 + 50);
    let md = hover_markdown(&LineResult { executable: true, hits: 1, values: vec![], printed: Some("1\n2\n```\n".into()) }).unwrap();
    assert!(md.contains("Printed:\n\n````text\n1\n2\n```\n````"), "{md}");
    // The report's printed lines land on the fragment's lines.
    let s = snap("a.py", Language::Python, "import os\nprint('hi')\n");
    let mut r = report("", "", &[1], &[1]);
    r.printed.insert(1, "hi\n".into());
    let (hints, _) = line_results(&r, Fragment { start: 1, end: 1 }, &s.rope);
    assert_eq!(hints[0].value.printed.as_deref(), Some("hi\n"));
    let labels: Vec<String> = inlay_hints(&s.rope, hints.iter(), 0, 1, &Settings::default(), Encoding::Utf16)
        .into_iter()
        .map(|h| match h.label {
            InlayHintLabel::String(s) => s,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(labels, vec!["› hi"]);
    let off = Settings { hints_output: false, ..Settings::default() };
    assert!(inlay_hints(&s.rope, hints.iter(), 0, 1, &off, Encoding::Utf16).is_empty());
}

#[test]
fn all_missing_imports_in_one_edit_and_stubs_and_samples_as_actions() {
    let s = snap("a.py", Language::Python, "\"\"\"Doc.\"\"\"\nx = np.pi + pd.x + np.e\nsummarize(x)\nopen('scores.csv')\n");
    let finding = |start: usize, fix: &str| Finding { line: 1, start, end: start + 2, code: "undefined-name", message: String::new(), fix: Some(fix.into()), fix_line: 1, rewrite: None, offer: None };
    let diags: Vec<Diagnostic> = [finding(4, "import numpy as np"), finding(12, "import pandas as pd"), finding(20, "import numpy as np")].iter().map(|f| diagnostic(&s.rope, f, Encoding::Utf16)).collect();
    let all = all_imports_fix(&s.uri, 2, &diags, &s.rope).unwrap();
    assert_eq!(all.title, "Add all missing imports (2)");
    assert_eq!(doc_edits(all.edit.as_ref().unwrap()), vec![(Range::new(pos(1, 0), pos(1, 0)), "import numpy as np\nimport pandas as pd\n".to_string())]);
    assert!(all_imports_fix(&s.uri, 2, &diags[..1], &s.rope).is_none(), "one import: the plain quick fix is enough");

    let define = Finding {
        line: 2, start: 0, end: 9, code: "undefined-name", message: String::new(), fix: None, fix_line: 1, rewrite: None,
        offer: Some(Offer::Define { name: "summarize".into(), stub: "def summarize(*args, **kwargs):\n    return None\n\n\n".into(), line: 1 }),
    };
    let action = quick_fix(&s.uri, 2, &diagnostic(&s.rope, &define, Encoding::Utf16), &s.rope).unwrap();
    assert_eq!(action.title, "Define `summarize` (a stub)");
    assert_eq!(doc_edits(action.edit.as_ref().unwrap())[0].0.start, pos(1, 0));
    let sample = Finding {
        line: 3, start: 6, end: 16, code: "missing-file", message: String::new(), fix: None, fix_line: 1, rewrite: None,
        offer: Some(Offer::Sample { path: "scores.csv".into(), how: "open".into() }),
    };
    let action = quick_fix(&s.uri, 2, &diagnostic(&s.rope, &sample, Encoding::Utf16), &s.rope).unwrap();
    assert_eq!(action.title, "Create a sample `scores.csv`");
    assert!(action.edit.is_none(), "the server writes the file, never the editor");
    let cmd = action.command.unwrap();
    assert_eq!(cmd.command, "runnable.createSample");
    assert_eq!(cmd.arguments.unwrap()[0]["path"], "scores.csv");
}
