//! The statement table must equal `statement_lines()` of the benchmark's own
//! checker (`shared/bench/measure.py`, Python's `ast`) on every benchmark
//! fragment, or coverage numbers reported by the tool and by the checker
//! would disagree.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

type Table = BTreeMap<u32, Option<Vec<u32>>>;

/// One python3 process for all files: `statement_lines` per path, with the
/// sets sorted into lists so they survive JSON (or the error text when
/// measure.py itself cannot handle the file).
const SCRIPT: &str = r#"
import json, sys
sys.path.insert(0, sys.argv[1])
import measure
out = {}
for path in sys.argv[2:]:
    try:
        src = open(path, encoding="utf-8").read()
        t = measure.statement_lines(src)
        out[path] = {str(k): (sorted(v) if v is not None else None) for k, v in t.items()}
    except Exception as e:
        out[path] = type(e).__name__ + ": " + str(e)
print(json.dumps(out))
"#;

fn bench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench")
}

fn fragments(bench: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for sub in ["so-snippets/snippets", "functions/bodies"] {
        let Ok(entries) = std::fs::read_dir(bench.join(sub)) else {
            continue;
        };
        files.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "py")),
        );
    }
    // Extra corpora for local stress runs (e.g. the stdlib directory).
    if let Some(extra) = std::env::var_os("ANALYSIS_EXTRA_PY_DIR") {
        if let Ok(entries) = std::fs::read_dir(extra) {
            files.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "py")),
            );
        }
    }
    files.sort();
    files
}

#[test]
fn analysis_statement_table_matches_measure_py() {
    let bench = bench_dir();
    if !bench.join("measure.py").is_file() {
        eprintln!(
            "note: {} not found; skipping the statement-table comparison",
            bench.display()
        );
        return;
    }
    let files = fragments(&bench);
    if files.is_empty() {
        eprintln!(
            "note: no benchmark fragments under {}; skipping",
            bench.display()
        );
        return;
    }
    let output = match Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(&bench)
        .args(&files)
        .output()
    {
        Ok(o) if o.status.success() => o,
        Ok(o) => panic!("measure.py failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => {
            eprintln!("note: python3 not runnable ({e}); skipping");
            return;
        }
    };
    let expected: BTreeMap<String, serde_json::Value> =
        serde_json::from_slice(&output.stdout).expect("measure.py printed JSON");

    let mut mismatches = Vec::new();
    let mut skipped = Vec::new();
    for file in &files {
        let key = file.to_string_lossy().to_string();
        let want = match &expected[&key] {
            serde_json::Value::String(err) => {
                skipped.push(format!("{key}: {err}"));
                continue;
            }
            v => serde_json::from_value::<BTreeMap<String, Option<Vec<u32>>>>(v.clone())
                .expect("table shape")
                .into_iter()
                .map(|(k, v)| (k.parse::<u32>().expect("line number"), v))
                .collect::<Table>(),
        };
        let src = std::fs::read_to_string(file).expect("python read it as UTF-8");
        let analysis = runnable::analysis::analyze(&src);
        // Python parsed it, so we must not report syntax errors either.
        if let Some(e) = analysis.syntax_errors.first() {
            mismatches.push(format!(
                "{key}: spurious syntax error {}:{} {}",
                e.line, e.column, e.message
            ));
        }
        let got: Table = analysis
            .statements
            .into_iter()
            .map(|s| (s.line, s.body_first_lines))
            .collect();
        if got != want {
            let lines: std::collections::BTreeSet<u32> =
                got.keys().chain(want.keys()).copied().collect();
            let diff: Vec<String> = lines
                .into_iter()
                .filter(|l| got.get(l) != want.get(l))
                .map(|l| {
                    format!(
                        "    line {l}: ours {:?}, measure.py {:?}",
                        got.get(&l),
                        want.get(&l)
                    )
                })
                .collect();
            mismatches.push(format!("{key}:\n{}", diff.join("\n")));
        }
    }
    let compared = files.len() - skipped.len();
    eprintln!(
        "statement table: {} of {} fragments match measure.py ({} not parseable by measure.py)",
        compared - mismatches.len(),
        compared,
        skipped.len()
    );
    for s in &skipped {
        eprintln!("  skipped {s}");
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
