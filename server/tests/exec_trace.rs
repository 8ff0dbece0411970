//! The line trace agrees, to the line, with the independent tracer of
//! `shared/bench/measure.py` (a verbatim copy lives in
//! `exec_support/measure_tracer.py`; a test checks it has not drifted).

mod exec_support;

use exec_support::*;
use runnable::exec::*;
use std::path::Path;
use std::process::{Command, Stdio};

const MEASURE_TRACER: &str = include_str!("exec_support/measure_tracer.py");

#[derive(serde::Deserialize, Debug)]
struct Reference {
    hit: Vec<u32>,
    completed_lines: Vec<u32>,
    done: bool,
}

/// Run `program` under measure.py's tracer, as measure.py does. None when
/// it wrote no trace (the program does not compile on this Python).
fn reference(program: &str) -> Option<Reference> {
    let d = tempfile::tempdir().unwrap();
    let prog = d.path().join("program_under_test.py");
    std::fs::write(&prog, program).unwrap();
    let tracer = d.path().join("..tracer.py");
    std::fs::write(&tracer, MEASURE_TRACER).unwrap();
    let out = d.path().join("..trace.json");
    let status = Command::new(python())
        .arg(&tracer)
        .arg(&prog)
        .arg(&out)
        .current_dir(d.path())
        .env("MPLBACKEND", "Agg")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let _ = status;
    let text = std::fs::read_to_string(&out).ok()?;
    Some(serde_json::from_str(&text).unwrap())
}

const FIXTURES: &[(&str, &str)] = &[
    (
        "loops and multi-line statements",
        r#"total = 0
for i in range(3):
    total += i
else:
    total += 10
values = [
    1,
    2,
]
d = {
    "a": 1,
    "b": (2 +
          3),
}
while total > 0:
    total -= 5
    if total < 3:
        break
s = sum(x * 2
        for x in values)
text = """a
b"""
"#,
    ),
    (
        "functions, recursion, lambdas, classes",
        r#"def f(a, b=2):
    c = a + b
    return c

def g(n):
    if n == 0:
        return 0
    return n + g(n - 1)

x = f(1)
y = g(3)
z = (lambda q: q + 1)(x)
class K:
    attr = 1
    def m(self):
        return self.attr
k = K().m()
"#,
    ),
    (
        "exceptions caught in the same frame",
        r#"try:
    a = 1
    b = {}["missing"]
    c = 2
except KeyError:
    a = 3
finally:
    a += 1
def h():
    try:
        raise ValueError("x")
    except ValueError as e:
        return str(e)
h()
try:
    int("nope")
except ValueError:
    pass
for j in range(2):
    try:
        [][j]
    except IndexError:
        continue
"#,
    ),
    (
        "generators and comprehensions",
        r#"def gen(n):
    for i in range(n):
        yield i
    return "done"
out = list(gen(3))
g2 = gen(2)
first = next(g2)
squares = [v * v for v in gen(4)]
evens = {v for v in range(6) if v % 2 == 0}
total = sum(
    v
    for v in gen(3)
)
"#,
    ),
    (
        "an uncaught exception",
        r#"x = 1
def bad():
    y = 2
    return undefined_name
bad()
z = 3
"#,
    ),
    (
        "with, decorators, closures, asyncio",
        r#"import contextlib
@contextlib.contextmanager
def cm():
    yield 1
with cm() as v:
    w = v + 1
def deco(fn):
    def wrapper(*a):
        return fn(*a)
    return wrapper
@deco
def add(a, b):
    return a + b
r = add(1, 2)
import asyncio
async def co():
    await asyncio.sleep(0)
    return 5
res = asyncio.run(co())
"#,
    ),
    (
        "threads",
        r#"import threading
box = []
def work():
    box.append(1)
    box.append(2)
t = threading.Thread(target=work)
t.start()
t.join()
n = len(box)
"#,
    ),
    (
        "sys.exit(0) in the middle",
        r#"import sys
a = 1
if a:
    sys.exit(0)
b = 2
"#,
    ),
    (
        "sys.exit(2)",
        r#"import sys
a = 1
sys.exit(2)
"#,
    ),
    (
        "match statement",
        r#"cmd = ("go", 3)
match cmd:
    case ("stop",):
        r = 0
    case ("go", n):
        r = n
"#,
    ),
];

#[test]
fn measure_tracer_copy_matches_shared_bench() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench/measure.py");
    let Ok(text) = std::fs::read_to_string(&shared) else {
        exec_support::precondition::skip(&format!("{} not found: cannot check the tracer copy for drift", shared.display()));
        return;
    };
    let start = text.find("TRACER = r'''").expect("measure.py defines TRACER") + "TRACER = r'''".len();
    let end = start + text[start..].find("'''").unwrap();
    assert_eq!(&text[start..end], MEASURE_TRACER, "exec_support/measure_tracer.py drifted from measure.py");
}

#[test]
fn trace_agrees_with_measure_py_on_fixtures() {
    let pool = pool();
    for (name, program) in FIXTURES {
        let ours = run(&pool, program);
        let Some(theirs) = reference(program) else {
            // e.g. `match` before Python 3.10: both must see a syntax error
            assert_eq!(ours.exception.map(|e| e.type_name), Some("SyntaxError".into()), "{name}");
            eprintln!("note: {name}: not valid on this Python, skipped");
            continue;
        };
        assert_eq!(ours.hit, theirs.hit, "{name}: hit lines differ (ours {:?})", ours);
        assert_eq!(ours.completed, theirs.completed_lines, "{name}: completed lines differ (ours {:?})", ours);
        assert_eq!(ours.status == RunStatus::Completed, theirs.done, "{name}: completion differs: {:?}", ours);
        assert!(!ours.hit.is_empty(), "{name}: nothing traced");
    }
}

#[test]
fn exact_lines_of_an_exception_caught_in_the_same_frame() {
    let pool = pool();
    let o = run(&pool, FIXTURES[2].1);
    assert_eq!(o.status, RunStatus::Completed);
    // `b = {}["missing"]` ran but did not complete; `c = 2` never ran.
    assert!(o.hit.contains(&3) && !o.completed.contains(&3), "{o:?}");
    assert!(!o.hit.contains(&4));
    assert!(o.completed.contains(&6) && o.completed.contains(&8));
    // the raise in h() does not complete, its handler's return does
    assert!(o.hit.contains(&11) && !o.completed.contains(&11));
    assert!(o.completed.contains(&13));
}

#[test]
fn exact_lines_of_an_uncaught_exception() {
    let pool = pool();
    let o = run(&pool, FIXTURES[4].1);
    assert_eq!(o.status, RunStatus::Raised);
    assert_eq!(o.hit, vec![1, 2, 3, 4, 5]);
    assert_eq!(o.completed, vec![1, 2, 3]);
    let e = o.exception.expect("exception info");
    assert_eq!(e.type_name, "NameError");
    assert_eq!(e.line, Some(4), "innermost program line");
}

#[test]
fn generator_lines_complete_across_resumptions() {
    let pool = pool();
    let o = run(&pool, FIXTURES[3].1);
    assert_eq!(o.status, RunStatus::Completed);
    // `yield i` completes (return event at each suspension); `return "done"` too.
    assert!(o.completed.contains(&3) && o.completed.contains(&4), "{o:?}");
    // line 10-13: a multi-line call, the generator expression body on line 12
    assert!(o.hit.contains(&12));
}
