//! The store under the conditions it meets: several writers at once, a
//! corrupt or foreign file, secrets in what would be kept, duplicates and
//! failures to consolidate, and the hook that offers templates.

use super::store::{Observation, Store, FILE};
use super::*;
use crate::analysis::analyze;
use crate::exec::RunStatus;
use crate::synth::deterministic::Deterministic;
use crate::synth::prefix::Candidate;
use crate::synth::rules::check::{attempt, raised};
use crate::synth::session::Context;
use crate::synth::value::Value;
use crate::synth::Proposer;
use std::collections::BTreeSet;

/// A template observation the search found (when it worked): one that is
/// offered again.
fn template(sig: &str, code: &str, worked: bool) -> Observation {
    Observation::Template { signature: sig.into(), code: code.into(), imports: vec![], worked, found: true }
}

#[test]
fn two_writers_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // Each writer opens its own connection, as two processes would.
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let path = dir.path().to_path_buf();
            std::thread::spawn(move || {
                let store = Store::open(&path).unwrap();
                for i in 0..100 {
                    store.observe(&[template(&format!("sig{w}"), &format!("{i}"), true)]).unwrap();
                    store.put_result(&format!("key-{w}-{i}"), "{}").unwrap();
                    if i % 10 == 0 {
                        // Consolidation may find the other writer holding the lock: fine.
                        store.consolidate(CAP, &format!("writer{w}")).unwrap();
                    }
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("a writer failed");
    }
    let store = Store::open(dir.path()).unwrap();
    while store.consolidate(CAP, "final").unwrap().is_none() {}
    let stats = store.stats().unwrap();
    assert_eq!(stats.results, 200);
    assert_eq!(stats.templates, 200);
    assert_eq!(stats.pending_observations, 0);
    assert_eq!(stats.schema_version, schema_version());
    let mode: String = rusqlite::Connection::open(dir.path().join(FILE)).unwrap().query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn two_processes_open_a_new_store_at_once() {
    // Creating and migrating races too: both must end with one schema.
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let openers: Vec<_> = (0..2).map(|_| { let p = dir.path().to_path_buf(); std::thread::spawn(move || Store::open(&p).map(|s| s.stats().unwrap().schema_version)) }).collect();
        for o in openers {
            assert_eq!(o.join().unwrap().unwrap(), schema_version());
        }
    }
}

#[test]
fn a_garbage_file_is_moved_aside_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE);
    std::fs::write(&path, b"this is not a database, just garbage bytes \x00\x01\x02 repeated ".repeat(200)).unwrap();
    let store = Store::open(dir.path()).expect("a corrupt store is rebuilt, not an error");
    let aside = store.moved_aside.clone().expect("the garbage was moved aside");
    assert!(aside.exists());
    assert!(std::fs::read(&aside).unwrap().starts_with(b"this is not a database"));
    store.put_result("k", "{\"x\": 1}").unwrap();
    assert_eq!(store.result("k").unwrap().as_deref(), Some("{\"x\": 1}"));
    // Memory over the same folder works as well.
    std::fs::write(&path, b"garbage again").unwrap();
    let memory = Memory::open(dir.path().parent().unwrap(), Mode::On);
    drop(memory);
}

#[test]
fn a_damaged_database_is_moved_aside_too() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open(dir.path()).unwrap();
        for i in 0..300 {
            store.put_result(&format!("key{i}"), &"x".repeat(500)).unwrap();
        }
    }
    // Keep the header, overwrite pages in the middle.
    let path = dir.path().join(FILE);
    let _ = std::fs::remove_file(dir.path().join(format!("{FILE}-wal")));
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 20_000, "{}", bytes.len());
    for b in &mut bytes[4096..20_000] {
        *b = 0xAB;
    }
    std::fs::write(&path, &bytes).unwrap();
    let store = Store::open(dir.path()).expect("rebuilt");
    assert!(store.moved_aside.is_some());
    assert_eq!(store.stats().unwrap().results, 0);
}

#[test]
fn a_store_from_a_newer_engine_is_not_touched_but_set_aside() {
    let dir = tempfile::tempdir().unwrap();
    {
        let conn = rusqlite::Connection::open(dir.path().join(FILE)).unwrap();
        conn.pragma_update(None, "user_version", schema_version() + 5).unwrap();
    }
    let store = Store::open(dir.path()).unwrap();
    assert!(store.moved_aside.is_some());
    assert_eq!(store.stats().unwrap().schema_version, schema_version());
}

#[test]
fn an_older_schema_is_migrated_keeping_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    {
        let conn = rusqlite::Connection::open(dir.path().join(FILE)).unwrap();
        conn.execute_batch(schema::MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute("INSERT INTO results (key, report, created, last_used) VALUES ('old', '{}', 1, 1)", []).unwrap();
    }
    let store = Store::open(dir.path()).unwrap();
    assert!(store.moved_aside.is_none());
    assert_eq!(store.stats().unwrap().schema_version, schema_version());
    assert_eq!(store.result("old").unwrap().as_deref(), Some("{}"));
    let conn = rusqlite::Connection::open(dir.path().join(FILE)).unwrap();
    let index: i64 = conn.query_row("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'templates_rank'", [], |r| r.get(0)).unwrap();
    assert_eq!(index, 1);
}

#[test]
fn no_stored_row_holds_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    let memory = Memory::open(dir.path(), Mode::On);
    let secrets = ["sk-proj-abcdefghijklmnop1234", "AKIAIOSFODNN7EXAMPLE", "hunter2pass", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"];
    memory.learn(vec![
        template("[\"api_key\"]", &format!("{{'api_key': '{}'}}", secrets[0]), true),
        template(&format!("to({})", secrets[1]), "[1, 2]", true),
        template("[\"name\"]", "{'name': 'Ada', 'password': 'hunter2pass'}", true),
        template("[\"name\"]", "{'name': 'Ada'}", true),
        Observation::Import { module: "requests".into(), distribution: "requests".into() },
    ]);
    let mut report = crate::lsp::convert::tests::report(&format!("token = '{}'\n", secrets[3]), "", &[1], &[1]);
    memory.remember_result("with-secret", &report);
    report.prefix = "x = 1\n".into();
    memory.remember_result("clean", &report);
    let store = memory.store().unwrap();
    let rows = store.all_text().unwrap();
    assert!(!rows.is_empty());
    for row in &rows {
        for s in secrets {
            assert!(!row.contains(s), "a stored row holds {s}: {row}");
        }
    }
    // What held no secret is kept.
    assert_eq!(store.templates_for("[\"name\"]", 5).unwrap().len(), 1);
    assert!(store.result("clean").unwrap().is_some());
    assert!(store.result("with-secret").unwrap().is_none());
    assert_eq!(store.stats().unwrap().imports, 1);
}

#[test]
fn consolidation_merges_ranks_demotes_and_prunes() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.observe(&[template("s", "[1]", true), template("s", "[1]", true), template("s", "[2]", true), template("s", "[3]", true), template("s", "[3]", false)]).unwrap();
    let done = store.consolidate(CAP, "me").unwrap().unwrap();
    assert_eq!(done.folded, 5);
    let offered = store.templates_for("s", 5).unwrap();
    // Duplicates are one row; most net uses first; one that failed as
    // often as it worked is not offered.
    assert_eq!(offered.iter().map(|t| (t.code.as_str(), t.uses)).collect::<Vec<_>>(), vec![("[1]", 2), ("[2]", 1)]);
    // Failing once in three tries: no longer worth a run (uses must outnumber twice the failures).
    store.observe(&[template("s", "[1]", false)]).unwrap();
    store.consolidate(CAP, "me").unwrap().unwrap();
    let offered: Vec<String> = store.templates_for("s", 5).unwrap().into_iter().map(|t| t.code).collect();
    assert_eq!(offered, vec!["[2]".to_string()]);
    // Working twice more, it is offered again, below the one that never failed.
    store.observe(&[template("s", "[1]", true), template("s", "[1]", true)]).unwrap();
    store.consolidate(CAP, "me").unwrap().unwrap();
    let offered: Vec<String> = store.templates_for("s", 5).unwrap().into_iter().map(|t| t.code).collect();
    assert_eq!(offered, vec!["[1]".to_string(), "[2]".to_string()]);
    store.observe(&[template("s", "[1]", false)]).unwrap();
    store.consolidate(CAP, "me").unwrap().unwrap();
    // Pruned to the cap, the best kept.
    let done = store.consolidate(1, "me").unwrap().unwrap();
    assert!(done.pruned >= 2, "{done:?}");
    assert_eq!(store.stats().unwrap().templates, 1);
    assert_eq!(store.templates_for("s", 5).unwrap()[0].code, "[2]");
}

#[test]
fn one_consolidation_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let a = Store::open(dir.path()).unwrap();
    let b = Store::open(dir.path()).unwrap();
    // `a` holds the lock (as mid-consolidation); `b` must not enter.
    let conn = rusqlite::Connection::open(dir.path().join(FILE)).unwrap();
    conn.execute("UPDATE lock SET holder = 'a', until = ?1 WHERE id = 1", [store::now() + 60]).unwrap();
    assert!(b.locked().unwrap());
    b.observe(&[template("s", "[1]", true)]).unwrap();
    assert_eq!(b.consolidate(CAP, "b").unwrap(), None);
    assert_eq!(b.stats().unwrap().pending_observations, 1);
    // Released: the next consolidation folds what `b` observed.
    conn.execute("UPDATE lock SET holder = NULL, until = 0 WHERE id = 1", []).unwrap();
    assert!(a.consolidate(CAP, "a").unwrap().is_some());
    assert!(!a.locked().unwrap());
    assert_eq!(b.templates_for("s", 5).unwrap().len(), 1);
    // A lock whose holder died (expired) is taken over.
    conn.execute("UPDATE lock SET holder = 'dead', until = 1 WHERE id = 1", []).unwrap();
    assert!(b.consolidate(CAP, "b").unwrap().is_some());
}

#[test]
fn off_reads_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let memory = Memory::open(dir.path(), Mode::Off);
    memory.learn(vec![template("s", "[1]", true)]);
    assert!(memory.store().is_none());
    assert!(!dir.path().join(DIR).exists());
    let templates_only = Memory::open(dir.path(), Mode::Templates);
    assert!(templates_only.templates_enabled() && !templates_only.results_enabled());
    assert!(templates_only.cached("k").is_none());
}

/// A fragment with what a `Context` of it borrows: its analysis and a
/// standard library (empty unless a test names modules).
struct Fixture {
    src: &'static str,
    analysis: crate::analysis::Analysis,
    stdlib: BTreeSet<String>,
}

impl Fixture {
    fn new(src: &'static str) -> Self {
        Fixture { src, analysis: analyze(src), stdlib: BTreeSet::new() }
    }
    fn ctx(&self) -> Context<'_> {
        Context { fragment: self.src, analysis: &self.analysis, stdlib: &self.stdlib }
    }
}

/// What a memory offers `first` when it holds `templates` (given the
/// signature) for the signature of `name`'s usage in `ctx`, and nothing else.
fn offered(ctx: &Context, first: &crate::synth::prefix::Prefix, name: &str, templates: impl Fn(&str) -> Vec<store::Template>) -> Vec<recall::Offer> {
    let sig = signature::signature_in(ctx, &ctx.usage_of(name)).unwrap();
    recall::offers(ctx, first, &mut |s: &str| if s == sig { templates(&sig) } else { vec![] })
}

/// A template the search found (not the rules' first guess) each time it worked.
fn remembered(sig: &str, code: &str, uses: i64, failures: i64) -> store::Template {
    store::Template { signature: sig.into(), code: code.into(), imports: vec![], uses, failures, found: uses, last_used: 1 }
}

#[test]
fn a_clean_template_leads_and_one_that_also_failed_follows_the_first_guess() {
    let src = "for r in people:\n    print(r['name'].upper(), r['age'] + 5)\n";
    let fixture = Fixture { stdlib: ["json".to_string()].into(), ..Fixture::new(src) };
    let ctx = fixture.ctx();
    let first = Deterministic.initial(&ctx);
    let rules = first.binding("people").unwrap();
    let catch_all_of = |b: &crate::synth::prefix::Binding| b.candidates.iter().position(|c| *c == Candidate::Value(Value::Anything)).unwrap();
    let expr = |code: &str| Candidate::Value(Value::Expr { code: code.into(), imports: vec![] });
    let (clean, mixed) = ("[{'name': 'Bo', 'age': 3}]", "[{'name': 'Al', 'age': 4}]");

    // Only ever worked for this signature: the first run tries it.
    let offers = offered(&ctx, &first, "people", |sig| vec![remembered(sig, clean, 3, 0)]);
    assert!(offers.len() == 1 && offers[0].clean);
    let p = recall::Remembering { rules: &Deterministic, offers }.initial(&ctx);
    let b = p.binding("people").unwrap();
    assert_eq!((b.candidates[0].clone(), b.choice), (expr(clean), 0), "a clean template leads");
    assert_eq!(b.candidates[1], rules.candidates[0], "the rules' first guess is next");
    assert!(catch_all_of(b) > 1);

    // Also failed (fewer times than it worked): after the rules' first guess, before the catch-all.
    let offers = offered(&ctx, &first, "people", |sig| vec![remembered(sig, mixed, 3, 1)]);
    assert!(offers.len() == 1 && !offers[0].clean);
    let p = recall::Remembering { rules: &Deterministic, offers }.initial(&ctx);
    let b = p.binding("people").unwrap();
    assert_eq!((b.candidates[0].clone(), b.choice), (rules.candidates[0].clone(), 0), "the rules' first guess stays first");
    assert_eq!(b.candidates[1], expr(mixed));
    assert!(catch_all_of(b) > 1);

    // Both: the clean one leads, the other follows the first guess.
    let offers = offered(&ctx, &first, "people", |sig| vec![remembered(sig, clean, 3, 0), remembered(sig, mixed, 3, 1)]);
    let p = recall::Remembering { rules: &Deterministic, offers }.initial(&ctx);
    let b = p.binding("people").unwrap();
    assert_eq!(b.candidates[..3], [expr(clean), rules.candidates[0].clone(), expr(mixed)]);
    assert_eq!(b.choice, 0);
}

#[test]
fn a_template_the_rules_already_propose_is_not_offered() {
    let src = "for r in people:\n    print(r['name'].upper(), r['age'] + 5)\n";
    let fixture = Fixture::new(src);
    let ctx = fixture.ctx();
    let first = Deterministic.initial(&ctx);
    let Some(Candidate::Value(guess)) = first.binding("people").map(|b| b.candidates[0].clone()) else { panic!("people has a value") };
    let code = guess.expr();
    let mut lookup = |s: &str| vec![remembered(s, &code, 5, 0)];
    assert!(recall::offers(&ctx, &first, &mut lookup).is_empty(), "{code} is the rules' own first guess");
}

#[test]
fn refinements_are_the_rules_own_and_a_remembered_value_is_no_variant() {
    let src = "if n > 10:\n    print(n.bit_length())\nelse:\n    print(-n)\n";
    let fixture = Fixture::new(src);
    let ctx = fixture.ctx();
    let first = Deterministic.initial(&ctx);
    // 7 is none of the values the rules try for `n > 10` (0, -1, n + 100, 10 and its neighbours).
    let offers = offered(&ctx, &first, "n", |sig| vec![remembered(sig, "7", 2, 1)]);
    assert_eq!(offers.len(), 1);
    let memory = recall::Remembering { rules: &Deterministic, offers };
    let start = memory.initial(&ctx);
    let seven = Candidate::Value(Value::Expr { code: "7".into(), imports: vec![] });
    assert!(start.binding("n").unwrap().candidates.contains(&seven));
    assert_ne!(*start.binding("n").unwrap().current(), seven);

    // A failed run: exactly what the rules propose, in their order.
    let failed = attempt(&ctx, start.clone(), RunStatus::Raised, Some(raised("AttributeError", "'str' object has no attribute 'bit_length'", 2)), &[1]);
    assert_eq!(memory.refine(&ctx, &failed), Deterministic.refine(&ctx, &failed));

    // A run that took the first branch: the rules alone would try the
    // remembered 7 as one of `n`'s other values; with memory it is not a variant.
    let ran = attempt(&ctx, start, RunStatus::Completed, None, &[1, 2]);
    let takes_seven = |ps: &[crate::synth::prefix::Prefix]| ps.iter().any(|p| *p.binding("n").unwrap().current() == seven);
    assert!(takes_seven(&Deterministic.variants(&ctx, &ran, &[4])), "the fixture must make the rules propose it");
    let variants = memory.variants(&ctx, &ran, &[4]);
    assert!(!variants.is_empty() && !takes_seven(&variants));
}

#[test]
fn a_leading_template_that_fails_costs_one_run_then_the_rules_start_over() {
    let src = "for r in people:\n    print(r['name'].upper(), r['age'] + 5)\n";
    let fixture = Fixture::new(src);
    let ctx = fixture.ctx();
    let first = Deterministic.initial(&ctx);
    let offers = offered(&ctx, &first, "people", |sig| vec![remembered(sig, "[{'name': 'Bo'}]", 2, 0)]);
    let memory = recall::Remembering { rules: &Deterministic, offers };
    let start = memory.initial(&ctx);
    // The first run, with the template, raised: the rules' own first prefix
    // comes first, then exactly the rules' refinements of that run.
    let failed = attempt(&ctx, start.clone(), RunStatus::Raised, Some(raised("KeyError", "'age'", 2)), &[1]);
    let proposed = memory.refine(&ctx, &failed);
    assert_eq!(proposed[0].render(), first.render());
    assert_eq!(proposed[1..], Deterministic.refine(&ctx, &failed)[..]);
    // A later attempt (the search moved on from the first prefix): the rules' only.
    let mut later = start.clone();
    later.binding_mut("people").unwrap().choice = 1;
    let later = attempt(&ctx, later, RunStatus::Raised, Some(raised("KeyError", "'age'", 2)), &[1]);
    assert_eq!(memory.refine(&ctx, &later), Deterministic.refine(&ctx, &later));
    // A first run that ran everything needs nothing more.
    let ran = attempt(&ctx, start.clone(), RunStatus::Completed, None, &[1, 2]);
    assert!(!memory.refine(&ctx, &ran).iter().any(|p| p.render() == first.render()));
    // A first run that ran without an error but not every line is the first
    // run: the search goes on from it, not from the rules' first prefix.
    let part = attempt(&ctx, start, RunStatus::Completed, None, &[1]);
    assert!(!memory.refine(&ctx, &part).iter().any(|p| p.render() == first.render()));
}

#[test]
fn a_leading_template_is_not_blamed_for_a_line_that_does_not_read_it() {
    let src = "for r in people:\n    print(r['name'].upper())\nprint(total + 1)\n";
    let fixture = Fixture::new(src);
    let ctx = fixture.ctx();
    let first = Deterministic.initial(&ctx);
    let offers = offered(&ctx, &first, "people", |sig| vec![remembered(sig, "[{'name': 'Bo'}]", 2, 0)]);
    assert!(offers.len() == 1 && offers[0].leads);
    let memory = recall::Remembering { rules: &Deterministic, offers };
    let start = memory.initial(&ctx);
    // `total + 1` failed: the template ran its lines; the rules go on from this run.
    let failed = attempt(&ctx, start.clone(), RunStatus::Raised, Some(raised("TypeError", "unsupported operand type(s)", 3)), &[1, 2]);
    assert_eq!(memory.refine(&ctx, &failed), Deterministic.refine(&ctx, &failed));
    // `r['name']` failed: `r` comes from `people`, the remembered name: back to the rules' first prefix.
    let failed = attempt(&ctx, start, RunStatus::Raised, Some(raised("KeyError", "'name'", 2)), &[1]);
    assert_eq!(memory.refine(&ctx, &failed)[0].render(), first.render());
}

#[test]
fn a_template_that_was_only_the_rules_first_guess_where_learnt_is_not_offered() {
    // Worked three times, never failed, but each time it was the rules' own
    // first guess: the rules make their own for the next text.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let guessed = |code: &str| Observation::Template { signature: "s".into(), code: code.into(), imports: vec![], worked: true, found: false };
    store.observe(&[guessed("[1]"), guessed("[1]"), guessed("[1]"), guessed("[2]"), template("s", "[2]", true)]).unwrap();
    store.consolidate(CAP, "me").unwrap().unwrap();
    let offered: Vec<String> = store.templates_for("s", 5).unwrap().into_iter().map(|t| t.code).collect();
    // [2] was found once by a search (and was the rules' guess once): offered.
    assert_eq!(offered, vec!["[2]".to_string()]);
}

#[test]
fn no_template_for_a_usage_that_reads_nothing_in_the_value() {
    // `deco` is called and its result decorates: no attribute or key of
    // either is read, so a remembered function (returning whatever it did
    // where it was learnt) would be another fragment's accident.
    let src = "@deco(f)\ndef g():\n    pass\nfor w in words:\n    print(w)\n";
    let fixture = Fixture::new(src);
    let ctx = fixture.ctx();
    let first = Deterministic.initial(&ctx);
    let mut asked = Vec::new();
    let mut lookup = |s: &str| {
        asked.push(s.to_string());
        vec![remembered(s, "[1, 2]", 5, 0)]
    };
    assert!(recall::offers(&ctx, &first, &mut lookup).is_empty());
    assert!(asked.is_empty(), "{asked:?}");
}

#[test]
fn a_template_the_rules_evolution_makes_from_their_guess_is_not_offered() {
    // The empty form of the rules' list: a branch that wants it gets it in
    // one variant run; leading with it would only start on that branch.
    let src = "for r in rows:\n    print(r['name'].upper())\n";
    let fixture = Fixture::new(src);
    let ctx = fixture.ctx();
    let first = Deterministic.initial(&ctx);
    assert!(matches!(first.binding("rows").and_then(|b| b.value()), Some(Value::List(items)) if !items.is_empty()), "{first:?}");
    let empty = Value::List(vec![]);
    assert!(!first.binding("rows").unwrap().candidates.iter().any(|c| matches!(c, Candidate::Value(v) if recall::same_value(v, &empty))), "not already a candidate");
    let mut lookup = |s: &str| vec![remembered(s, "[]", 5, 0)];
    assert!(recall::offers(&ctx, &first, &mut lookup).is_empty());
    // Another list is offered (and leads).
    let mut lookup = |s: &str| vec![remembered(s, "[{'name': 'Bo'}]", 5, 0)];
    let offers = recall::offers(&ctx, &first, &mut lookup);
    assert!(offers.len() == 1 && offers[0].leads, "{offers:?}");
}

#[test]
fn a_template_that_is_the_rules_guess_under_another_class_name_is_not_offered() {
    let src = "print(alpha.minimize([3], method='slsqp'))\n";
    let fixture = Fixture::new(src);
    let ctx = fixture.ctx();
    let first = Deterministic.initial(&ctx);
    let Some(Candidate::Value(Value::Object { class, attrs, methods })) = first.binding("alpha").map(|b| b.current().clone()) else { panic!("alpha is an object: {first:?}") };
    // Learnt from `optimize.minimize(...)`: the same object, named after that variable.
    assert_ne!(class, "Optimize");
    let learnt = crate::memory::stored_value::encode(&Value::Object { class: "Optimize".into(), attrs, methods }).unwrap();
    let mut lookup = |s: &str| vec![remembered(s, &learnt, 4, 0)];
    assert!(recall::offers(&ctx, &first, &mut lookup).is_empty());
}

#[test]
fn a_library_name_is_never_offered_a_template() {
    // `np` is numpy's conventional alias: bound by an import only.
    let src = "x = np.array([1, 2])\nprint(x.shape)\n";
    let fixture = Fixture::new(src);
    let ctx = fixture.ctx();
    let first = Deterministic.initial(&ctx);
    let mut lookup = |s: &str| vec![remembered(s, "[1, 2]", 9, 0)];
    let offers = recall::offers(&ctx, &first, &mut lookup);
    assert!(offers.iter().all(|o| o.name != "np"), "{offers:?}");
    // And a template whose import the environment lacks is not offered.
    let src = "print(df['a'].sum())\n";
    let fixture = Fixture::new(src);
    let ctx = fixture.ctx();
    let first = Deterministic.initial(&ctx);
    let mut lookup = |s: &str| vec![store::Template { imports: vec!["import polars".into()], ..remembered(s, "polars.DataFrame({'a': [1]})", 9, 0) }];
    let offers = recall::offers(&ctx, &first, &mut lookup);
    assert!(offers.is_empty(), "{offers:?}");
}

#[test]
fn an_object_learnt_under_one_name_is_offered_to_a_renamed_variable_and_rendered_for_it() {
    // What the rules found for `order` in one fragment...
    let learnt = Fixture::new("print(order.total + 1, order.items[0].upper())\n");
    let ctx = learnt.ctx();
    let sig = signature::signature_in(&ctx, &ctx.usage_of("order")).unwrap();
    let object = Value::Object {
        class: "Order".into(),
        attrs: vec![("total".into(), Value::Int(3)), ("items".into(), Value::List(vec![Value::Str("a".into())]))],
        methods: vec![],
    };
    let code = crate::memory::stored_value::encode(&object).unwrap();
    // ...offered to the same usage with the variable renamed and a constant changed.
    let edited = Fixture::new("print(alpha.total + 2, alpha.items[0].upper())\n");
    let ctx = edited.ctx();
    assert_eq!(signature::signature_in(&ctx, &ctx.usage_of("alpha")).as_ref(), Some(&sig));
    let first = Deterministic.initial(&ctx);
    let offers = offered(&ctx, &first, "alpha", |sig| vec![remembered(sig, &code, 2, 0)]);
    assert_eq!(offers.len(), 1, "{offers:?}");
    assert_eq!(offers[0].value(), object);
    assert!(offers[0].rendered().contains("alpha = Order("), "{}", offers[0].rendered());
    let p = recall::Remembering { rules: &Deterministic, offers }.initial(&ctx);
    assert!(p.binding("alpha").unwrap().candidates.contains(&Candidate::Value(object)));
}
