//! End-to-end tests of the `runnable` binary: the JSON contract, agreement
//! with the independent scorer, and every kind of bad input.

#[path = "support/precondition.rs"]
mod precondition;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn bin() -> Command {
    // Memory off: each test sees fresh runs (tests/memory.rs tests memory).
    let mut c = Command::new(env!("CARGO_BIN_EXE_runnable"));
    c.env("RUNNABLE_MEMORY", "off");
    c
}

fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runnable-cache")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Write a fragment to a temp file and run `fix --json` on it.
fn fix_source(src: &str, extra: &[&str]) -> (Output, Option<Value>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fragment.py");
    std::fs::write(&path, src).unwrap();
    let (out, json) = fix_file(&path, extra);
    (out, json, dir)
}

/// `fix --json` on a file of the repository, its JSON contract checked.
fn fix_checked(rel: &str) -> Value {
    let (out, json) = fix_file(&repo().join(rel), &[]);
    let j = json.unwrap_or_else(|| panic!("no JSON: {}", String::from_utf8_lossy(&out.stderr)));
    assert_contract(&j);
    j
}

/// Whether the best prefix or a kept variant has `needle` in `field`
/// (`prefix`, `suffix`): what one finds, the other may have taken over.
/// Whether the best prefix or a kept variant has `needle` in `field`. A
/// variant's values may live on as the best program's second pass (its
/// driver, `suffix`, rebinds them): for `prefix`, the driver counts too.
fn some_kept_has(j: &Value, field: &str, needle: &str) -> bool {
    let has = |v: &Value, f: &str| v[f].as_str().is_some_and(|t| t.contains(needle));
    std::iter::once(j).chain(j["variants"].as_array().unwrap()).any(|v| has(v, field) || (field == "prefix" && has(v, "suffix")))
}

fn fix_file(path: &Path, extra: &[&str]) -> (Output, Option<Value>) {
    let out = bin()
        .arg("fix")
        .arg(path)
        .arg("--json")
        .arg("--cache-dir")
        .arg(cache_dir())
        .args(extra)
        .output()
        .expect("runnable runs");
    let json = serde_json::from_slice(&out.stdout).ok();
    (out, json)
}

/// What `shared/bench/measure.py` says of a result, when the scorer is there.
fn measure(fragment: &Path, result: &Value) -> Option<Value> {
    let script = repo().parent()?.join("shared/bench/measure.py");
    if !script.exists() {
        precondition::skip(&format!("{} not found: the independent check", script.display()));
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let res = dir.path().join("result.json");
    std::fs::write(&res, result.to_string()).unwrap();
    let out = Command::new("python3").arg(script).arg(fragment).arg(&res).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last()?).ok()
}

const FIELDS: &[&str] =
    &["program", "prefix", "suffix", "fragment_lines", "resources", "python", "packages", "coverage", "status", "error", "names", "stats"];

fn assert_contract(j: &Value) {
    for f in FIELDS {
        assert!(j.get(*f).is_some(), "field {f} missing in {j}");
    }
    let cov = &j["coverage"];
    let executable = cov["executable"].as_array().unwrap().len();
    let covered = cov["covered"].as_array().unwrap().len();
    let ratio = cov["ratio"].as_f64().unwrap();
    if executable > 0 {
        assert!((ratio - covered as f64 / executable as f64).abs() < 1e-9);
    }
    assert_eq!(j["stats"]["llm_calls"], 0);
    // The union is what the best prefix and the kept variants cover, no more.
    let lines = |c: &Value| c.as_array().unwrap().iter().map(|l| l.as_u64().unwrap()).collect::<std::collections::BTreeSet<_>>();
    let kept = std::iter::once(&cov["covered"]).chain(j["variants"].as_array().unwrap().iter().map(|v| &v["covered"])).flat_map(lines).collect();
    assert_eq!(lines(&j["union_coverage"]["covered"]), kept, "{j}");
    for n in j["names"].as_array().unwrap() {
        assert!(n["name"].is_string() && n["kind"].is_string() && n["stub"].is_boolean(), "{n}");
    }
    assert_no_faked_library(j);
}

/// The names an import statement binds: `import a.b` -> `a`, `import a as
/// c` -> `c`, `from m import x, y as z` -> `x`, `z`.
fn bound_by_import(line: &str) -> Vec<String> {
    let line = line.trim();
    let (list, from) = match line.strip_prefix("from ") {
        Some(rest) => (rest.split_once(" import ").map(|(_, l)| l).unwrap_or(""), true),
        None => (line.strip_prefix("import ").unwrap_or(""), false),
    };
    list.trim_matches(['(', ')', ' '])
        .split(',')
        .filter_map(|item| {
            let words: Vec<&str> = item.split_whitespace().collect();
            match words.as_slice() {
                [_, "as", alias] => Some(alias.to_string()),
                [name] if from => Some(name.to_string()),
                [name] => name.split('.').next().map(str::to_string),
                _ => None,
            }
        })
        .filter(|n| n != "*")
        .collect()
}

/// Names only an import may bind (issue 14): the conventional aliases and
/// the capitalised well-known members of the tables, and every name the
/// fragment's own import statements bind.
fn library_names(j: &Value) -> std::collections::BTreeSet<String> {
    let table = |rel: &str| std::fs::read_to_string(repo().join(rel)).unwrap();
    let mut names = std::collections::BTreeSet::new();
    for line in table("server/src/knowledge/aliases.txt").lines().filter(|l| !l.starts_with('#')) {
        names.extend(line.split_whitespace().next().map(str::to_string));
    }
    for line in table("server/src/synth/data/well_known_names.txt").lines().filter(|l| !l.starts_with('#')) {
        names.extend(line.split(':').next().map(str::trim).filter(|n| n.starts_with(char::is_uppercase)).map(str::to_string));
    }
    let program = j["program"].as_str().unwrap();
    let fragment = program.strip_prefix(j["prefix"].as_str().unwrap()).unwrap_or(program);
    for line in fragment.lines().map(str::trim).filter(|l| l.starts_with("import ") || l.starts_with("from ")) {
        names.extend(bound_by_import(line));
    }
    names
}

/// The invariant of issue 14 on a report: a library name is bound by an
/// import only, and no prefix (best or kept variant) assigns to an attribute
/// of something it imports, except the declared offline transport.
fn assert_no_faked_library(j: &Value) {
    let library = library_names(j);
    for n in j["names"].as_array().unwrap() {
        let name = n["name"].as_str().unwrap();
        assert!(!library.contains(name) || n["kind"] == "import", "{name} is a library name bound by a {}:\n{}", n["kind"], j["prefix"]);
    }
    // The declared transport (`synth/offline.rs`, `PATCHES`), written out
    // here so a new patch point needs a test's agreement too.
    const TRANSPORT: &[&str] = &["requests.adapters.HTTPAdapter.send", "httpx.HTTPTransport.handle_request", "httpx.AsyncHTTPTransport.handle_async_request", "aiohttp.TCPConnector._create_connection"];
    for prefix in std::iter::once(j).chain(j["variants"].as_array().unwrap()).map(|v| v["prefix"].as_str().unwrap()) {
        let imported: Vec<String> = prefix.lines().filter(|l| l.starts_with("import ") || l.starts_with("from ")).flat_map(bound_by_import).collect();
        for line in prefix.lines() {
            let Some((target, _)) = line.split_once(" = ") else { continue };
            let dotted = target.contains('.') && target.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.');
            let root = target.split('.').next().unwrap_or("");
            assert!(!(dotted && imported.iter().any(|i| i == root)) || TRANSPORT.contains(&target), "the prefix assigns to a library's attribute: {line}\n{prefix}");
        }
    }
}

/// `fix --install` on `path`, its contract checked; `None` (with a note)
/// when its packages could not be installed (no network to PyPI).
fn fix_installed(path: &Path) -> Option<Value> {
    let (_, json) = fix_file(path, &["--install"]);
    let j = json.unwrap();
    if !j["missing_packages"].as_array().unwrap().is_empty() {
        precondition::skip(&format!("{}: packages not installed ({})", path.display(), j["failed_packages"]));
        return None;
    }
    assert_contract(&j);
    Some(j)
}

/// A fixture of `tests/fixtures/libraries/` fixed with `--install`; its
/// names, as (name, kind).
fn library_fixture(name: &str) -> Option<(Value, Vec<(String, String)>)> {
    let j = fix_installed(&repo().join("tests/fixtures/libraries").join(name))?;
    let names = j["names"].as_array().unwrap().iter().map(|n| (n["name"].as_str().unwrap().to_string(), n["kind"].as_str().unwrap().to_string())).collect();
    Some((j, names))
}

fn kind_of<'a>(names: &'a [(String, String)], name: &str) -> Option<&'a str> {
    names.iter().find(|(n, _)| n == name).map(|(_, k)| k.as_str())
}

#[test]
fn a_module_whose_function_raises_stays_the_module() {
    // numpy raises on a scalar where `solve` wants a square array: the
    // inputs change, or numpy's own error is reported; `np` is never faked.
    let Some((j, names)) = library_fixture("numpy_solve.py") else { return };
    assert_eq!(kind_of(&names, "np"), Some("import"), "{}", j["prefix"]);
    assert!(j["prefix"].as_str().unwrap().contains("import numpy as np"), "{}", j["prefix"]);
    assert!(j["status"] == "completed" || j["error"]["type"].as_str().unwrap().contains("numpy"), "{j}");
    // numpy's error shaped the inputs: a square matrix and a vector.
    assert!(j["prefix"].as_str().unwrap().contains("A = np.array([["), "{}", j["prefix"]);
}

#[test]
fn standard_library_modules_are_imported_whatever_their_functions_raise() {
    for (fixture, module) in [("json_settings.py", "json"), ("sqlite_query.py", "sqlite3"), ("asyncio_main.py", "asyncio")] {
        let Some((j, names)) = library_fixture(fixture) else { return };
        assert_eq!(kind_of(&names, module), Some("import"), "{fixture}: {}", j["prefix"]);
        assert!(j["prefix"].as_str().unwrap().lines().any(|l| l == format!("import {module}")), "{fixture}: {}", j["prefix"]);
        assert!(!j["prefix"].as_str().unwrap().contains("class "), "{fixture}: no class mimics the module\n{}", j["prefix"]);
        assert_eq!(j["status"], "completed", "{fixture}: {j}");
    }
}

#[test]
fn a_submodule_is_imported_and_the_network_answered_below_the_library() {
    let Some((j, names)) = library_fixture("urllib_fetch.py") else { return };
    let prefix = j["prefix"].as_str().unwrap();
    assert_eq!(kind_of(&names, "urllib"), Some("import"), "{prefix}");
    assert!(prefix.contains("import urllib.request") && prefix.contains("urllib.request.install_opener("), "{prefix}");
    assert!(!prefix.contains("urllib.request.urlopen ="), "{prefix}");
    assert_eq!(j["status"], "completed", "{j}");
}

#[test]
fn data_a_library_reads_is_shaped_by_the_fragment() {
    // The key the fragment reads goes into the JSON file `json.load` reads.
    let Some((j, _)) = library_fixture("json_settings.py") else { return };
    let settings = j["resources"].as_array().unwrap().iter().find(|r| r["path"] == "settings.json").unwrap();
    assert!(settings["content"].as_str().unwrap().contains("\"theme\""), "{settings}");
    // The table the query names is created, by sqlite3, in the file it opens.
    let Some((j, _)) = library_fixture("sqlite_query.py") else { return };
    let prefix = j["prefix"].as_str().unwrap();
    assert!(prefix.contains("sqlite3.connect('shop.db')") && prefix.contains("CREATE TABLE IF NOT EXISTS products (name, price)"), "{prefix}");
}

#[test]
fn library_members_used_bare_are_imported_from_their_library() {
    for (fixture, member, stmt) in [("tabulate_rows.py", "tabulate", "from tabulate import tabulate"), ("counter_words.py", "Counter", "from collections import Counter")] {
        let Some((j, names)) = library_fixture(fixture) else { return };
        assert_eq!(kind_of(&names, member), Some("import"), "{fixture}: {}", j["prefix"]);
        assert!(j["prefix"].as_str().unwrap().contains(stmt), "{fixture}: {}", j["prefix"]);
        assert_eq!(j["status"], "completed", "{fixture}: {j}");
    }
}

#[test]
fn an_object_used_as_a_library_instance_is_a_real_one() {
    // `@app.route` with `from flask import Flask`: a real Flask application
    // (never a hand-written `app` that is not called a stand-in).
    let Some((j, names)) = library_fixture("flask_route.py") else { return };
    let prefix = j["prefix"].as_str().unwrap();
    let real = prefix.contains("app = Flask(__name__)");
    assert!(real || kind_of(&names, "app") == Some("stand-in"), "{names:?}\n{prefix}");
    assert!(!prefix.contains("Flask =") && !prefix.contains("class Flask"), "{prefix}");
    // The real application's `route` gives the view back, so it runs.
    assert!(real && j["status"] == "completed", "{j}");
}

#[test]
fn a_model_the_fragment_queries_is_a_real_declarative_class() {
    // `select(Book)` on a class the fragment does not define: a class
    // mapped with SQLAlchemy's declarative API, its table created where
    // the engine connects, the added object a row the filter finds.
    let Some((j, names)) = library_fixture("sqlalchemy_orm.py") else { return };
    let prefix = j["prefix"].as_str().unwrap();
    assert!(prefix.contains("Base = declarative_base()") && prefix.contains("class Book(Base):"), "{prefix}");
    assert!(prefix.contains("title = Column(String)") && prefix.contains("book = Book(title='Dune')"), "{prefix}");
    assert_eq!(kind_of(&names, "Book"), Some("class"), "{names:?}");
    assert_eq!(j["status"], "completed", "{j}");
    assert!(j["stdout"].as_str().unwrap().contains("Dune"), "{j}");
}

#[test]
fn an_aiohttp_fetch_is_answered_by_the_declared_transport() {
    let Some((j, names)) = library_fixture("aiohttp_fetch.py") else { return };
    assert_eq!(kind_of(&names, "_offline_aiohttp"), Some("transport"), "{names:?}");
    // aiohttp stays the fragment's own import: nothing binds it otherwise.
    assert_eq!(kind_of(&names, "aiohttp"), None, "{names:?}");
    assert_eq!(j["status"], "completed", "{j}");
    assert!(j["stdout"].as_str().unwrap().contains("200"), "{j}");
}

#[test]
fn common_tasks_run_whole_with_real_data() {
    // Fragments of everyday tasks written from their semantics (a config
    // read through a name, a log parsed by date, records grouped by a key
    // function, a declared command line, a database or a folder named by
    // a variable, text searched with a pattern): each runs to the end with
    // every statement and no placeholder, the data shaped by its use.
    for entry in std::fs::read_dir(repo().join("tests/fixtures/unseen")).unwrap() {
        let path = entry.unwrap().path();
        let Some(j) = fix_installed(&path) else { return };
        assert_eq!(j["status"], "completed", "{}: {}", path.display(), j["error"]);
        assert_eq!(j["coverage"]["ratio"], 1.0, "{}: {}", path.display(), j["prefix"]);
        assert!(j["names"].as_array().unwrap().iter().all(|n| n["stub"] == false && n["kind"] != "stand-in" && n["kind"] != "placeholder"), "{}: {}", path.display(), j["names"]);
    }
}

#[test]
fn every_library_fixture_binds_libraries_by_import_only() {
    // The invariant (checked by `assert_contract` on every report) over each
    // library family's fixture, new ones included.
    for entry in std::fs::read_dir(repo().join("tests/fixtures/libraries")).unwrap() {
        let path = entry.unwrap().path();
        if let Some(j) = fix_installed(&path) {
            assert!(j["names"].as_array().unwrap().iter().all(|n| n["kind"] != "stand-in"), "{}: {}", path.display(), j["names"]);
        }
    }
}

#[test]
fn a_library_that_is_not_installed_is_reported_not_faked() {
    // A fresh cache: nothing is installed, and installing is off.
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fragment.py");
    std::fs::write(&path, "print(tabulate([[1, 2]], headers=['a', 'b']))\n").unwrap();
    let out = bin().arg("fix").arg(&path).arg("--json").arg("--cache-dir").arg(cache.path()).output().unwrap();
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_contract(&j);
    assert_eq!(j["status"], "raised", "{j}");
    assert!(j["error"]["message"].as_str().unwrap().starts_with("needs tabulate: not installed"), "{}", j["error"]);
    assert_eq!(j["names"][0]["kind"], "import", "{}", j["prefix"]);
}

#[test]
fn a_file_at_an_absolute_path_is_reported_by_class_and_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fragment.py");
    // A path on the author's machine: the engine writes only beside the fragment.
    let absolute = "/Users/runnable-test-author/Desktop/sales.txt";
    std::fs::write(&path, format!("with open('{absolute}') as f:\n    print(f.read())\n")).unwrap();
    let out = bin().arg("fix").arg(&path).arg("--json").arg("--no-memory").output().unwrap();
    let j: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_contract(&j);
    assert_eq!(j["status"], "raised", "{j}");
    assert_eq!(j["blocker"]["class"], "absolute-path", "{j}");
    assert_eq!(j["blocker"]["detail"], absolute, "{j}");
    assert!(!std::path::Path::new(absolute).exists());
    assert!(j["resources"].as_array().unwrap().iter().all(|r| r["path"] != absolute), "{}", j["resources"]);
    // The terminal rendering names the class too.
    let human = bin().arg("fix").arg(&path).arg("--no-memory").output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("cannot run as written (absolute-path)"), "{text}");
}

#[test]
fn fixes_a_fragment_and_agrees_with_the_independent_scorer() {
    let path = repo().join("examples/word_count.py");
    let (out, json) = fix_file(&path, &[]);
    let j = json.unwrap_or_else(|| panic!("no JSON: {}", String::from_utf8_lossy(&out.stderr)));
    assert_contract(&j);
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["coverage"]["ratio"], 1.0, "{j}");
    assert!(j["prefix"].as_str().unwrap().contains("from collections import Counter"), "{}", j["prefix"]);
    assert!(j["names"].as_array().unwrap().iter().all(|n| n["stub"] == false), "{}", j["names"]);
    assert_eq!(out.status.code(), Some(0));
    if let Some(m) = measure(&path, &j) {
        assert_eq!(m["ok"], true, "{m}");
        assert_eq!(m["covered"].as_u64().unwrap() as usize, j["coverage"]["covered"].as_array().unwrap().len(), "{m}");
    }
}

#[test]
fn function_bodies_are_wrapped_and_driven() {
    let path = repo().join("examples/config_body.py");
    let (_, json) = fix_file(&path, &[]);
    let j = json.unwrap();
    assert_contract(&j);
    assert!(j["program"].as_str().unwrap().contains("def __runnable_fragment("), "{}", j["program"]);
    assert!(j["suffix"].as_str().unwrap().contains("__runnable_fragment("));
    assert_eq!(j["status"], "completed", "{j}");
    if let Some(m) = measure(&path, &j) {
        assert_eq!(m["covered"].as_u64().unwrap() as usize, j["coverage"]["covered"].as_array().unwrap().len(), "{m}");
    }
}

#[test]
fn a_fragment_that_does_not_parse_is_reported_with_its_position() {
    let (out, json, _d) = fix_source("x = 1\nif x >:\n    pass\n", &[]);
    assert_eq!(out.status.code(), Some(4));
    let j = json.unwrap();
    assert_eq!(j["status"], "syntax-error");
    assert_eq!(j["error"]["line"], 2, "{j}");
    assert!(!j["syntax_errors"].as_array().unwrap().is_empty());
}

#[test]
fn a_missing_interpreter_is_a_clear_error() {
    let (out, json, _d) = fix_source("print(1)\n", &["--python", "/nonexistent/python3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(json.is_none());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/python3"), "{err}");
}

#[test]
fn an_unknown_package_is_reported_not_installed() {
    let (_, json, _d) = fix_source("import runnable_surely_not_a_package_xyz\nprint(1)\n", &["--install"]);
    let j = json.unwrap();
    let unknown = j["unknown_imports"].as_array().unwrap();
    assert!(unknown.iter().any(|u| u == "runnable_surely_not_a_package_xyz"), "{j}");
    assert!(j["packages"].as_array().unwrap().is_empty());
}

#[test]
fn an_infinite_loop_times_out_within_the_budget() {
    let t = Instant::now();
    let (out, json, _d) = fix_source("n = 0\nwhile True:\n    n += 1\n", &["--budget-seconds", "4"]);
    let j = json.unwrap();
    assert_eq!(j["status"], "timeout", "{j}");
    assert_eq!(out.status.code(), Some(3));
    // The loop's lines ran even though it never ended.
    assert!(j["coverage"]["covered"].as_array().unwrap().contains(&Value::from(1)));
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
}

#[test]
fn a_fork_bomb_is_stopped_by_a_limit() {
    let t = Instant::now();
    let (_, json, _d) = fix_source("import os\nwhile True:\n    os.fork()\n", &["--budget-seconds", "4"]);
    let j = json.unwrap();
    assert!(["limit", "timeout"].contains(&j["status"].as_str().unwrap()), "{j}");
    assert!(t.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_memory_hog_is_stopped_by_a_limit() {
    // One huge allocation: the address-space limit refuses it at once.
    let (_, json, _d) = fix_source("block = bytearray(1 << 36)\n", &["--budget-seconds", "6"]);
    let j = json.unwrap();
    assert_eq!(j["status"], "limit", "{j}");
    // Growing without end: stopped by the memory limit or the clock, within the budget.
    let t = Instant::now();
    let (_, json, _d) = fix_source("blocks = []\nwhile True:\n    blocks.append(bytearray(500_000_000))\n", &["--budget-seconds", "6"]);
    let j = json.unwrap();
    assert!(["limit", "timeout"].contains(&j["status"].as_str().unwrap()), "{j}");
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
}

#[test]
fn huge_output_is_cut_off() {
    let t = Instant::now();
    let (_, json, _d) = fix_source("while True:\n    print('x' * 100000)\n", &["--budget-seconds", "4"]);
    let j = json.unwrap();
    assert!(["limit", "timeout"].contains(&j["status"].as_str().unwrap()), "{j}");
    assert!(j.to_string().len() < 1_000_000, "the report stays small");
    assert!(t.elapsed() < Duration::from_secs(30));
}

#[test]
fn writes_outside_the_scratch_directory_fail() {
    let target = std::env::temp_dir().join(format!("runnable-escape-{}", std::process::id()));
    let src = format!("with open({:?}, 'w') as f:\n    f.write('escaped')\n", target.display().to_string());
    let (_, json, _d) = fix_source(&src, &["--budget-seconds", "4"]);
    let j = json.unwrap();
    assert_ne!(j["status"], "completed", "{j}");
    assert!(!target.exists(), "the fragment wrote {}", target.display());
}

#[test]
fn fixture_classes_reach_full_coverage() {
    // Each fixture reproduces one failure class the synthesiser handles.
    let dir = repo().join("tests/fixtures");
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "py") {
            continue;
        }
        let (_, json) = fix_file(&path, &[]);
        let Some(j) = json else {
            failures.push(format!("{}: no JSON", path.display()));
            continue;
        };
        assert_contract(&j);
        if j["status"] != "completed" || j["coverage"]["ratio"] != 1.0 {
            failures.push(format!("{}: {} {} {}\n{}", path.display(), j["status"], j["coverage"]["ratio"], j["error"], j["prefix"].as_str().unwrap_or("")));
        }
        if let Some(m) = measure(&path, &j) {
            if m["covered"].as_u64().map(|c| c as usize) != Some(j["coverage"]["covered"].as_array().unwrap().len()) {
                failures.push(format!("{}: scorer disagrees: {m}", path.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn bench_writes_a_row_per_file_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "x = 1\nprint(x)\n").unwrap();
    std::fs::write(dir.path().join("b.py"), "print(undefined_thing.upper())\n").unwrap();
    let csv = dir.path().join("out.csv");
    let out = bin()
        .args(["bench"])
        .arg(dir.path())
        .args(["-j", "2", "--out"])
        .arg(&csv)
        .arg("--cache-dir")
        .arg(cache_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("mean coverage 1.000"), "{stdout}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    // New columns are added at the end: older readers of the CSV keep working.
    assert!(header.starts_with("file,executable,covered,ratio") && header.contains(",stand_in_names,real,"), "{header}");
    assert_eq!(lines.count(), 2);
    assert!(stdout.contains("real 1.000  real coverage 1.000"), "{stdout}");
}

#[test]
fn evolution_covers_the_other_branch_with_a_variant() {
    let j = fix_checked("tests/fixtures/branches/threshold.py");
    assert!(j["coverage"]["ratio"].as_f64().unwrap() < 1.0, "one prefix takes one branch: {j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(!j["variants"].as_array().unwrap().is_empty());
}

#[test]
fn a_variant_makes_an_import_fail_to_reach_its_fallback() {
    let j = fix_checked("tests/fixtures/branches/import_fallback.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(some_kept_has(&j, "prefix", "sys.modules['tomllib'] = None"), "{j}");
}

#[test]
fn variants_call_a_function_with_each_type_it_tests_for() {
    let j = fix_checked("tests/fixtures/branches/type_tested_argument.py");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(some_kept_has(&j, "suffix", "describe(decimal.Decimal("), "{j}");
}

#[test]
fn a_variant_passes_a_time_zone_where_one_is_wanted() {
    let j = fix_checked("tests/fixtures/branches/timezone_argument.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(some_kept_has(&j, "suffix", "timezone.utc") && some_kept_has(&j, "prefix", "from datetime import timezone"), "{j}");
}

#[test]
fn variants_take_each_early_return_a_member_decides() {
    let j = fix_checked("tests/fixtures/branches/members_decide_returns.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    // `isinstance(signal, RedirectSignal)` is taken by an instance of a subclass.
    assert!(some_kept_has(&j, "prefix", "class Signal(RedirectSignal):"), "{j}");
}

#[test]
fn a_variant_makes_a_member_method_raise_to_reach_its_handler() {
    let j = fix_checked("tests/fixtures/branches/member_method_raises.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(some_kept_has(&j, "prefix", "raise ValueError('push failed')"), "{j}");
}

#[test]
fn awaited_helpers_are_coroutine_functions() {
    let j = fix_checked("tests/fixtures/branches/awaited_helpers.py");
    assert_eq!(j["status"], "completed", "{j}");
    let prefix = j["prefix"].as_str().unwrap();
    assert!(prefix.contains("async def fetch_page(") && prefix.contains("async def parse("), "{prefix}");
    assert!(prefix.contains("'title':"), "what the await gives is subscripted: {prefix}");
}

#[test]
fn a_variant_has_as_many_items_as_a_length_test_names() {
    let j = fix_checked("tests/fixtures/branches/length_decides.py");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(some_kept_has(&j, "prefix", "names = ['Ada']"), "{j}");
    // One program covers both: the body runs again with the other value.
    assert_eq!(j["coverage"]["ratio"], 1.0, "{j}");
    assert!(j["suffix"].as_str().unwrap().contains("names = ['Ada']\n__runnable_fragment()"), "{j}");
}

#[test]
fn variants_reach_the_items_a_body_unpacks_and_its_length_test() {
    let j = fix_checked("tests/fixtures/branches/unpacked_items_tested.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(some_kept_has(&j, "prefix", "parts = ()"), "{j}");
    // The prefix the better one displaced keeps the line only it reached.
    assert!(some_kept_has(&j, "prefix", "kind = 'header'"), "{j}");
}

#[test]
fn variants_reach_members_through_a_name_the_body_assigns() {
    let j = fix_checked("tests/fixtures/branches/alias_walks_up.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(some_kept_has(&j, "prefix", "owner = None"), "{j}");
}

#[test]
fn a_raised_name_is_an_exception_and_variants_reach_both_raises() {
    let j = fix_checked("tests/fixtures/branches/unchanged_signal.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert!(j["prefix"].as_str().unwrap().contains("class Unchanged(Exception):"), "{j}");
    // Every line but the two `raise`s (a raise never completes) ran in some kept prefix.
    assert_eq!(j["union_coverage"]["covered"], serde_json::json!([3, 5, 6, 8]), "{j}");
    assert!(some_kept_has(&j, "prefix", "text = ''"), "both clauses hold at once: {j}");
}

#[test]
fn environment_variables_are_set_as_the_shell_would_export_them() {
    let j = fix_checked("tests/fixtures/environment_variables.py");
    assert_eq!(j["status"], "completed", "{j}");
    let prefix = j["prefix"].as_str().unwrap();
    assert!(prefix.starts_with("import os\n") && prefix.contains("os.environ['SERVICE_TOKEN'] = 'dev-secret-123'"), "{prefix}");
    // The optional variable names a file, which exists.
    assert!(prefix.contains("os.environ['SERVICE_CONFIG'] = 'service_config.txt'"), "{prefix}");
    assert!(j["resources"].as_array().unwrap().iter().any(|r| r["path"] == "service_config.txt"), "{j}");
}

#[test]
fn the_only_key_of_a_mapping_is_looked_up_in_a_registry_variant() {
    let j = fix_checked("tests/fixtures/branches/single_item_mapping.py");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    // `next(iter(payload))` is a key of `payload`, which is then subscripted by it.
    assert!(some_kept_has(&j, "prefix", "payload = {'a': 1}"), "{j}");
    assert!(some_kept_has(&j, "prefix", "handlers = {'a': Handler()}"), "{j}");
}

#[test]
fn a_conjunction_of_a_type_test_and_a_method_holds_in_one_variant() {
    let j = fix_checked("tests/fixtures/branches/instance_and_method_clause.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(some_kept_has(&j, "prefix", "class Error(ServiceError, RemoteError):"), "{j}");
    assert!(some_kept_has(&j, "prefix", "def should_retry(self, *args, **kwargs):\n        return False"), "{j}");
}

#[test]
fn an_identity_test_gets_the_very_object_the_other_side_names() {
    let j = fix_checked("tests/fixtures/branches/same_object.py");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    // Reached through what a method returns: `current = registry.lookup(None)`.
    assert!(some_kept_has(&j, "prefix", "class Lookup:\n    app = self.app"), "{j}");
}

#[test]
fn inequalities_and_items_reached_through_an_alias_take_both_ways() {
    let j = fix_checked("tests/fixtures/branches/first_child_kind.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(some_kept_has(&j, "prefix", "kind = 'simple'") && some_kept_has(&j, "prefix", "kind = 'import'"), "{j}");
}

#[test]
fn each_item_of_a_loop_takes_its_own_arm_in_one_prefix() {
    let j = fix_checked("tests/fixtures/branches/arm_per_item.py");
    assert_eq!(j["status"], "completed", "{j}");
    // Not only the union: the single best prefix runs every arm of the chain.
    assert_eq!(j["coverage"]["ratio"], 1.0, "{j}");
    let prefix = j["prefix"].as_str().unwrap();
    assert!(prefix.contains("kind = 'add'") && prefix.contains("kind = 'remove'"), "{prefix}");
}

#[test]
fn a_variant_has_the_directory_a_file_exists_handler_expects() {
    let j = fix_checked("tests/fixtures/branches/directory_exists.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    // The best run makes the directory; the variant finds it there.
    assert!(j["resources"].as_array().unwrap().is_empty(), "{j}");
    let handler = j["variants"].as_array().unwrap().iter().find(|v| v["covered"].as_array().unwrap().contains(&serde_json::json!(9)));
    let resources = &handler.unwrap_or_else(|| panic!("{j}"))["resources"];
    assert!(resources.as_array().unwrap().iter().any(|r| r["path"].as_str().unwrap().starts_with("reports/2024/")), "{resources}");
}

#[test]
fn an_undefined_exception_name_becomes_an_exception_class() {
    let j = fix_checked("tests/fixtures/branches/raised_by_name.py");
    assert!(j["prefix"].as_str().unwrap().contains("class InsufficientFundsError(Exception):"), "{j}");
    // The handler's lines ran: what was raised was caught as the class it names.
    let union: Vec<u64> = j["union_coverage"]["covered"].as_array().unwrap().iter().map(|l| l.as_u64().unwrap()).collect();
    assert!(union.contains(&11) && union.contains(&12), "{j}");
}

#[test]
fn variants_pass_values_that_implement_an_abstract_base_class() {
    let j = fix_checked("tests/fixtures/branches/abstract_types.py");
    assert_eq!(j["status"], "completed", "{j}");
    let union: Vec<u64> = j["union_coverage"]["covered"].as_array().unwrap().iter().map(|l| l.as_u64().unwrap()).collect();
    // Line 9 takes the `Mapping` branch, 15 the `AsyncIterable` one (the
    // `return` awaits, and a line that awaits never counts as completed).
    assert!(union.contains(&9) && union.contains(&15), "{j}");
    assert!(some_kept_has(&j, "prefix", "async def _feed_items():"), "{j}");
}

#[test]
fn a_variant_makes_every_clause_of_a_condition_hold_at_once() {
    let j = fix_checked("tests/fixtures/branches/all_clauses_hold.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(some_kept_has(&j, "prefix", "cached = False") && some_kept_has(&j, "prefix", "verbose = False"), "{j}");
}

#[test]
fn an_error_the_fragment_catches_is_refined_and_its_handler_kept_as_a_variant() {
    let j = fix_checked("tests/fixtures/branches/failure_swallowed.py");
    assert_eq!(j["status"], "completed", "{j}");
    // The best prefix runs the try body to its end ...
    let covered: Vec<u64> = j["coverage"]["covered"].as_array().unwrap().iter().map(|l| l.as_u64().unwrap()).collect();
    assert!(covered.contains(&5) && covered.contains(&6), "{j}");
    assert!(j["prefix"].as_str().unwrap().contains("callback_kwargs = {"), "{j}");
    // ... and a variant still reaches the handler.
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
}

#[test]
fn a_helper_asked_by_several_tests_answers_no_then_yes() {
    let j = fix_checked("tests/fixtures/branches/asked_in_turn.py");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    assert!(some_kept_has(&j, "prefix", "iter([False, True])"), "{j}");
}

#[test]
fn a_name_defined_further_down_takes_that_definition() {
    let j = fix_checked("tests/fixtures/defined_further_down.py");
    assert_eq!(j["status"], "completed", "{j}");
    let prefix = j["prefix"].as_str().unwrap();
    assert!(prefix.contains(r#"scores = {"ada": [3, 5], "grace": [4, 4, 1]}"#) && prefix.contains("threshold = 2 ** 3"), "{prefix}");
}

#[test]
fn installed_fixture_classes_reach_full_coverage() {
    // Failure classes of library values (pandas); they need the packages
    // from PyPI through uv, so a fixture is skipped when they could not be installed.
    let dir = repo().join("tests/fixtures/installed");
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(j) = fix_installed(&path) else { continue };
        if j["status"] != "completed" || j["coverage"]["ratio"] != 1.0 || j["names"].as_array().unwrap().iter().any(|n| n["stub"] == true) {
            failures.push(format!("{}: {} {} {}\n{}", path.display(), j["status"], j["coverage"]["ratio"], j["error"], j["prefix"].as_str().unwrap_or("")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_library_asking_for_an_optional_dependency_gets_it() {
    // pandas' Styler imports Jinja2 only when `.style` is used: the first
    // environment (pandas) stops there, the second one adds Jinja2. Reaches
    // PyPI through uv; skipped when pandas could not be installed (no network).
    let path = repo().join("tests/fixtures/optional/styled_table.py");
    let Some(j) = fix_installed(&path) else { return };
    let optional = &j["optional"][0];
    assert_eq!(optional["distribution"], "Jinja2", "{j}");
    assert_eq!(optional["library"], "pandas", "{optional}");
    assert_eq!(optional["used"], true, "{optional}");
    assert!(optional["reason"].as_str().unwrap().contains("jinja2"), "{optional}");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["coverage"]["ratio"], 1.0, "{j}");
    assert!(j["packages"].as_array().unwrap().iter().any(|p| p == "Jinja2"), "{}", j["packages"]);
    // The prefix is the fragment's own: the real DataFrame, no stand-in.
    assert!(j["names"].as_array().unwrap().is_empty(), "{}", j["names"]);
    if let Some(m) = measure(&path, &j) {
        assert_eq!(m["ok"], true, "{m}");
        assert_eq!(m["ratio"], 1.0, "{m}");
    }
    // Without --install it is said, not done (pandas' venv exists by now).
    let (_, json) = fix_file(&path, &[]);
    let j = json.unwrap();
    let optional = &j["optional"][0];
    assert_eq!((&optional["distribution"], &optional["used"]), (&Value::from("Jinja2"), &Value::from(false)), "{j}");
    assert!(optional["error"].as_str().unwrap().contains("--install"), "{optional}");
    assert!(!j["packages"].as_array().unwrap().iter().any(|p| p == "Jinja2"), "{}", j["packages"]);
}

#[test]
fn the_program_runs_as_main_like_python_would_run_it() {
    // Pickling a function and inspecting sys.modules[__name__] need the
    // program to be the real __main__ module. (shared/bench/measure.py runs
    // programs inside its own __main__, so it cannot be the judge here:
    // plain `python3 program.py` is.)
    let j = fix_checked("tests/fixtures/main_module/current_module.py");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["coverage"]["ratio"], 1.0, "{j}");
    let dir = tempfile::tempdir().unwrap();
    let prog = dir.path().join("program.py");
    std::fs::write(&prog, j["program"].as_str().unwrap()).unwrap();
    let out = Command::new("python3").arg(&prog).current_dir(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "6 True");
}

#[test]
fn an_old_pandas_idiom_completes_with_older_releases() {
    // DataFrame.append and positional pivot(): gone from the newest pandas,
    // so the version fallback builds pandas<2 / numpy<1.24 and runs there.
    // Reaches PyPI through uv; skipped when even the newest pandas could not
    // be installed (no network).
    let path = repo().join("tests/fixtures/legacy/grow_then_reshape.py");
    let Some(j) = fix_installed(&path) else { return };
    let legacy = &j["legacy"];
    assert_eq!(legacy["used"], true, "{legacy}");
    assert!(legacy["reason"].as_str().unwrap().contains("'append'"), "{legacy}");
    assert!(legacy["constraints"].as_array().unwrap().iter().any(|c| c == "pandas<2"), "{legacy}");
    assert!(legacy["newest_covered"].as_u64().unwrap() < 6, "{legacy}");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["coverage"]["ratio"], 1.0, "{j}");
    let packages: Vec<&str> = j["packages"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert!(packages.iter().any(|p| p.starts_with("pandas==1.")), "{packages:?}");
    assert!(packages.iter().any(|p| p.starts_with("numpy==1.")), "{packages:?}");
    // `python` is the interpreter that ran it: the older pandas is its.
    let out = Command::new(j["python"].as_str().unwrap()).args(["-c", "import pandas; print(pandas.__version__)"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("1."), "{out:?}");
    if let Some(m) = measure(&path, &j) {
        assert_eq!(m["ok"], true, "{m}");
        assert_eq!(m["covered"].as_u64().unwrap() as usize, j["coverage"]["covered"].as_array().unwrap().len(), "{m}");
    }
}

#[test]
fn python_2_code_does_not_call_for_older_releases() {
    // An error about a builtin is the fragment's own, whatever is installed.
    let (_, json, _d) = fix_source("text = b'abc'.decode('ascii')\nprint(text.decode('ascii'))\n", &["--install"]);
    let j = json.unwrap();
    assert_eq!(j["status"], "raised", "{j}");
    assert!(j["legacy"].is_null(), "{j}");
}
