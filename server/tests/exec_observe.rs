//! What a run reports besides the trace: exception details, probed values,
//! hit counts, resources, output.

mod exec_support;

use exec_support::*;
use runnable::exec::*;
use std::collections::BTreeMap;

fn raised(pool: &WorkerPool, program: &str) -> ExceptionInfo {
    let o = run(pool, program);
    assert_eq!(o.status, RunStatus::Raised, "{program}: {o:?}");
    o.exception.unwrap_or_else(|| panic!("{program}: no exception info"))
}

#[test]
fn where_an_exception_comes_from() {
    // What the version fallback reads: the module of the innermost frame
    // when it is not the program's, and the module defining what the error
    // is about. Standard-library stand-ins for library code here.
    let pool = pool();

    let e = raised(&pool, "import json\njson.loads('{')\n");
    assert_eq!(e.raised_in.as_deref(), Some("json.decoder"));
    // And its file, which the host checks before it believes the module name.
    assert!(e.raised_file.as_deref().is_some_and(|f| f.ends_with("json/decoder.py")), "{:?}", e.raised_file);

    let e = raised(&pool, "import collections\ncollections.OrderedDict().iteritems()\n");
    assert_eq!(e.origin.as_deref(), Some("collections"));
    assert_eq!(e.raised_in, None, "raised in the program's frame");
    assert_eq!(e.raised_file, None);

    let e = raised(&pool, "import os\nos.getcwdu()\n");
    assert_eq!(e.origin.as_deref(), Some("os"), "a module's missing attribute");

    let e = raised(&pool, "from fractions import gcd\n");
    assert_eq!(e.origin.as_deref(), Some("fractions"));

    // Signature errors name their callee: found among what the frame sees.
    let e = raised(&pool, "import textwrap\ntextwrap.dedent('x', 'y')\n");
    assert!(e.message.starts_with("dedent() takes 1 positional argument"), "{}", e.message);
    assert_eq!(e.origin.as_deref(), Some("textwrap"));
    let e = raised(&pool, "import fractions\nf = fractions.Fraction(1, 2)\nf.limit_denominator(max_denominator=3, x=1)\n");
    assert_eq!(e.origin.as_deref(), Some("fractions"), "{}", e.message);
    let e = raised(&pool, "def f(a):\n    return a\nf(1, 2)\n");
    assert_eq!(e.origin.as_deref(), Some("__main__"));
    let e = raised(&pool, "int('1', 2, 3)\n");
    assert_eq!(e.origin.as_deref(), Some("builtins"), "{}", e.message);

    let e = raised(&pool, "x = None\nx.clf()\n");
    assert_eq!(e.origin.as_deref(), Some("builtins"));
}

#[test]
fn exception_details() {
    let pool = pool();

    let e = raised(&pool, "x = 1\ny = undefined_thing + x\n");
    assert_eq!(e.type_name, "NameError");
    assert_eq!(e.name.as_deref(), Some("undefined_thing"));
    assert_eq!(e.line, Some(2));
    assert!(e.bases.contains(&"Exception".to_string()));

    let e = raised(&pool, "class A:\n    pass\na = A()\na.missing_attr\n");
    assert_eq!(e.type_name, "AttributeError");
    assert_eq!(e.name.as_deref(), Some("missing_attr"));
    assert_eq!(e.obj_type.as_deref(), Some("A"));
    assert_eq!(e.line, Some(4));

    let e = raised(&pool, "d = {'a': 1}\nd['b']\n");
    assert_eq!(e.type_name, "KeyError");
    assert_eq!(e.key.as_deref(), Some("'b'"));
    assert_eq!(e.bases, vec!["KeyError", "LookupError", "Exception", "BaseException", "object"]);

    let e = raised(&pool, "xs = [1, 2]\nxs[5]\n");
    assert_eq!(e.type_name, "IndexError");
    assert_eq!(e.key.as_deref(), Some("'list index out of range'"));
    assert!(e.bases.contains(&"LookupError".to_string()));

    let e = raised(&pool, "import os\nimport no_such_module_xyz.sub\n");
    assert_eq!(e.type_name, "ModuleNotFoundError");
    assert_eq!(e.module.as_deref(), Some("no_such_module_xyz"));
    assert_eq!(e.line, Some(2));
    assert!(e.bases.contains(&"ImportError".to_string()));

    let e = raised(&pool, "from os import no_such_name\n");
    assert_eq!(e.type_name, "ImportError");
    assert_eq!(e.module.as_deref(), Some("os"));
    assert_eq!(e.name.as_deref(), Some("no_such_name"));

    let e = raised(&pool, "with open('data/missing.csv') as f:\n    f.read()\n");
    assert_eq!(e.type_name, "FileNotFoundError");
    assert_eq!(e.path.as_deref(), Some("data/missing.csv"));
    assert!(e.bases.contains(&"OSError".to_string()));

    let e = raised(&pool, "def f(a):\n    return a + 1\nf('x')\n");
    assert_eq!(e.type_name, "TypeError");
    assert_eq!(e.line, Some(2), "innermost program frame");
    assert!(e.message.contains("str"), "{}", e.message);

    // non-builtin exceptions are qualified by module
    let e = raised(&pool, "import json\njson.loads('{')\n");
    assert_eq!(e.type_name, "json.decoder.JSONDecodeError");
    assert!(e.bases.contains(&"ValueError".to_string()));
    assert_eq!(e.line, Some(2), "the line in the program, not in json/");

    let e = raised(&pool, "x = (\n");
    assert_eq!(e.type_name, "SyntaxError");
    assert_eq!(e.line, Some(1));

    let e = raised(&pool, "import sys\nsys.exit(3)\n");
    assert_eq!(e.type_name, "SystemExit");

    let o = run(&pool, "import sys\nsys.exit()\nnever = 1\n");
    assert_eq!(o.status, RunStatus::Completed, "SystemExit(None) counts as completed");
    assert!(!o.hit.contains(&3));
}

#[test]
fn probes_record_first_values_and_counts_hits() {
    let pool = pool();
    let program = r#"x = 5
y = [1, 2, 3]
for i in range(3):
    z = i * 10
def f(a):
    b = a + 1
    return b
f(41)
s = "a" * 500
class R:
    def __repr__(self):
        marker = 1
        return "R!"
r = R()
big = list(range(100000))
"#;
    let mut rq = req(program);
    let probes: BTreeMap<u32, Vec<String>> = [
        (1, vec!["x"]),
        (2, vec!["y"]),
        (4, vec!["z", "i"]),
        (6, vec!["b", "a", "nonexistent"]),
        (9, vec!["s"]),
        (14, vec!["r"]),
        (15, vec!["big"]),
    ]
    .into_iter()
    .map(|(l, ns)| (l, ns.into_iter().map(String::from).collect()))
    .collect();
    rq.probes = probes;
    let o = pool.run(&rq).unwrap();
    assert_eq!(o.status, RunStatus::Completed, "{o:?}");
    let v = |line: u32| o.values.get(&line).cloned().unwrap_or_default();
    let pair = |n: &str, r: &str| (n.to_string(), r.to_string());
    assert_eq!(v(1), vec![pair("x", "5")]);
    assert_eq!(v(2), vec![pair("y", "[1, 2, 3]")]);
    assert_eq!(v(4), vec![pair("z", "0"), pair("i", "0")], "first value only");
    assert_eq!(v(6), vec![pair("b", "42"), pair("a", "41")], "function locals; unknown names skipped");
    let s = &v(9)[0].1;
    assert!(s.len() <= 80 && s.starts_with("'aaaa") && s.ends_with("..."), "{s}");
    assert_eq!(v(14), vec![pair("r", "R!")]);
    assert!(v(15)[0].1.len() <= 80);
    // the probe's repr ran user code, which must not show in the trace
    assert!(!o.hit.contains(&12) && !o.hit.contains(&13), "{:?}", o.hit);
    // hit counts: how many times each statement started (the `for` once,
    // its body three times), not line events
    assert_eq!(o.hit_counts.get(&4), Some(&3));
    assert_eq!(o.hit_counts.get(&3), Some(&1));
    assert_eq!(o.hit_counts.get(&6), Some(&1));
    assert_eq!(o.hit_counts.keys().copied().collect::<Vec<_>>(), o.hit);
}

#[test]
fn resources_are_created_and_readable() {
    let pool = pool();
    let mut rq = req(r#"import csv, os, sys
rows = list(csv.reader(open("data/table.csv")))
blob = open("blob.bin", "rb").read()
import helper
print(rows[1][1], len(blob), blob[255], helper.VALUE, os.path.basename(os.getcwd()) != "", sys.argv[0] == __file__)
print(sorted(os.listdir(".")))
"#);
    rq.resources = vec![
        Resource { path: "data/table.csv".into(), content: b"a,b\n1,2\n".to_vec() },
        Resource { path: "blob.bin".into(), content: (0..=255u8).collect() },
        Resource { path: "helper.py".into(), content: b"VALUE = 'from-helper'\n".to_vec() },
    ];
    let o = pool.run(&rq).unwrap();
    assert_eq!(o.status, RunStatus::Completed, "{o:?}");
    let first = o.stdout.lines().next().unwrap();
    assert_eq!(first, "2 256 255 from-helper True True");
    assert!(o.stdout.contains("'blob.bin'") && o.stdout.contains("'data'") && o.stdout.contains("'program.py'"));

    // A path may go up as far as the fragment is nested in its run directory
    // (`exec::run_dir::MAX_UP_LEVELS`), never further, never absolute.
    let mut up = req("print(open('../up.txt').read())\n");
    up.resources = vec![Resource { path: "../up.txt".into(), content: b"inside".to_vec() }];
    let o = pool.run(&up).unwrap();
    assert_eq!(o.stdout.trim(), "inside", "{o:?}");
    for bad in ["../../../../escape.txt", "/etc/escape", "a/../../../../../b", ""] {
        let mut rq = req("pass\n");
        rq.resources = vec![Resource { path: bad.into(), content: b"x".to_vec() }];
        match pool.run(&rq) {
            Err(ExecError::ResourcePath(p)) => assert_eq!(p, bad),
            other => panic!("{bad:?} accepted: {other:?}"),
        }
    }
}

#[test]
fn output_is_captured_and_truncated() {
    let pool = pool_with(|c| c.limits.output_bytes = 1000);
    let o = run(&pool, "import sys\nprint('hello')\nprint('to err', file=sys.stderr)\nprint('y' * 5000)\n");
    assert_eq!(o.status, RunStatus::Completed);
    assert!(o.stdout.starts_with("hello\nyyy"));
    assert_eq!(o.stdout.len(), 1000, "truncated to output_bytes");
    assert_eq!(o.stderr, "to err\n");

    let o = run(&pool, "print('before')\nraise ValueError('boom')\n");
    assert_eq!(o.status, RunStatus::Raised);
    assert_eq!(o.stdout, "before\n");
    assert!(o.stderr.contains("ValueError: boom") && o.stderr.contains("line 2"), "{}", o.stderr);
}

#[test]
fn runs_do_not_see_each_other() {
    let pool = pool();
    let o = run(
        &pool,
        "import os, json\nopen('left.txt', 'w').write('x')\nopen(os.path.expanduser('~/home.txt'), 'w').write('x')\n\
         json.marker = 1\nprint('ok')\n",
    );
    assert_eq!(o.stdout, "ok\n");
    let o = run(
        &pool,
        "import os, json\nprint(os.path.exists('left.txt'), os.path.exists(os.path.expanduser('~/home.txt')), \
         hasattr(json, 'marker'))\n",
    );
    assert_eq!(o.stdout, "False False False\n", "{o:?}");
}

#[test]
fn an_unremovable_run_directory_does_not_break_the_worker() {
    let pool = pool();
    let o = run(&pool, "import os\nos.makedirs('locked/inner')\nopen('locked/inner/f', 'w').write('x')\nos.chmod('locked/inner', 0)\nos.chmod('locked', 0)\nprint('locked')\n");
    assert_eq!(o.stdout, "locked\n");
    let o = run(&pool, "import os\nprint(sorted(os.listdir('.')))\n");
    // (the captured output lives in anonymous files, not in the directory)
    assert_eq!(o.stdout, "['program.py']\n", "{o:?}");
}

#[test]
fn the_program_path_is_stable_across_runs() {
    let pool = pool();
    let a = run(&pool, "print(__file__)\n");
    let b = run(&pool, "print(__file__)\n");
    assert_eq!(a.stdout, b.stdout);
    assert!(a.stdout.trim_end().ends_with("/program.py"));
}
