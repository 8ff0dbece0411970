//! End to end: command-line entry points (click, typer) run through their
//! library's own test runner, or with a command line when the fragment
//! starts them itself, with click and typer really installed (`--install`;
//! without PyPI the test is skipped, and fails under CI).

#[path = "support/precondition.rs"]
mod precondition;

use serde_json::Value;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `fix --json --install` on a fixture of `tests/fixtures/cli/`; `None`
/// (with a note, or a failure under CI) when its packages could not be
/// installed.
fn fix(name: &str) -> Option<Value> {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runnable-cache");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_runnable"))
        .env("RUNNABLE_MEMORY", "off")
        .arg("fix")
        .arg(repo().join("tests/fixtures/cli").join(name))
        .args(["--json", "--install", "--cache-dir"])
        .arg(cache)
        .output()
        .expect("runnable runs");
    let j: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&out.stderr)));
    if !j["missing_packages"].as_array().unwrap().is_empty() {
        precondition::skip(&format!("{name}: packages not installed ({})", j["failed_packages"]));
        return None;
    }
    // The library is only imported: never bound by a value or a stand-in.
    for n in j["names"].as_array().unwrap() {
        assert_ne!(n["kind"], "stand-in", "{}", j["names"]);
        assert!(!matches!(n["name"].as_str(), Some("click" | "typer" | "CliRunner")) || n["kind"] == "import", "{}", j["names"]);
    }
    assert!(!j["prefix"].as_str().unwrap().contains("class Click"), "{}", j["prefix"]);
    Some(j)
}

fn covered(coverage: &Value) -> Vec<u64> {
    coverage["covered"].as_array().unwrap().iter().filter_map(Value::as_u64).collect()
}

#[test]
fn a_click_group_with_a_required_option_runs_every_subcommand() {
    let Some(j) = fix("click_group.py") else { return };
    let suffix = j["suffix"].as_str().unwrap();
    assert!(suffix.contains("from click.testing import CliRunner"), "{suffix}");
    assert!(suffix.contains("runner.invoke(cli, ['--source', source, 'greet', name], standalone_mode=False)"), "{suffix}");
    assert!(suffix.contains("'repeat'"), "{suffix}");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["coverage"]["ratio"], 1.0, "every command's body ran: {}\n{}", j["prefix"], suffix);
}

#[test]
fn a_group_the_script_starts_itself_gets_a_command_line_per_subcommand() {
    let Some(j) = fix("click_main_guard.py") else { return };
    let prefix = j["prefix"].as_str().unwrap();
    assert!(prefix.contains("import sys") && prefix.contains("sys.argv[1:] = ["), "{prefix}");
    // The guard's own `cli()` ran the command; click's exit 0 completes
    // (the metric never counts that call itself: it ends in `SystemExit`).
    assert_eq!(j["status"], "completed", "{j}");
    // Both subcommands' bodies ran: one in the best run, one in a variant.
    let union = covered(&j["union_coverage"]);
    assert!(union.contains(&16) && union.contains(&22), "{union:?}\n{j}");
}

#[test]
fn a_typer_argument_gets_values_its_callback_accepts() {
    let Some(j) = fix("typer_callback.py") else { return };
    let suffix = j["suffix"].as_str().unwrap();
    assert!(suffix.contains("from typer.testing import CliRunner"), "{suffix}");
    assert!(j["prefix"].as_str().unwrap().contains("targets = ['alpha'"), "{}", j["prefix"]);
    // The command's body ran through typer, its callback accepting the values.
    let lines = covered(&j["coverage"]);
    assert!([10, 11, 13, 18, 19].iter().all(|l| lines.contains(l)), "{lines:?}\n{j}");
}
