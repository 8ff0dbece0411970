//! Analysis must stay linear: a 5,000-line file has to be cheap next to
//! parsing it. The bound is loose (debug builds, a shared 2-core machine);
//! it exists to catch accidental quadratic passes, which would blow it by
//! orders of magnitude.

use std::fmt::Write;
use std::time::{Duration, Instant};

fn generated(lines: usize) -> String {
    let mut src = String::from("import os, sys\nimport numpy as np\n");
    let mut i = 0;
    while src.lines().count() < lines {
        write!(
            src,
            "def func_{i}(a, b, *args, k=1, **kw):\n\
             \x20   x_{i} = a.attr_{m}(b, k=k)\n\
             \x20   for row in b:\n\
             \x20       if row['key'] > {i} and x_{i}:\n\
             \x20           total_{i} = sum(r * 2 for r in row.values)\n\
             \x20   return [v for v in kw.items() if v]\n\
             result_{i} = func_{i}(data_{d}, items[{i}])\n\
             with open('file_{i}.txt') as fh:\n\
             \x20   print(f'{{result_{i}}}', fh.read(), counter_{d} + 1)\n\
             class C_{i}(Base):\n\
             \x20   def method(self, value):\n\
             \x20       self.value = value or self.default\n",
            m = i % 7,
            d = i % 50
        )
        .unwrap();
        i += 1;
    }
    src
}

fn time(src: &str) -> Duration {
    let start = Instant::now();
    let a = runnable::analysis::analyze(src);
    let elapsed = start.elapsed();
    assert!(a.syntax_errors.is_empty());
    assert!(a.free_names.iter().any(|f| f.name == "data_0"));
    elapsed
}

#[test]
fn analysis_of_5000_lines_is_fast() {
    let src = generated(5000);
    let t = time(&src).min(time(&src));
    eprintln!("analysed {} lines in {t:?}", src.lines().count());
    let bound = if cfg!(debug_assertions) { 5 } else { 1 };
    assert!(t < Duration::from_secs(bound), "took {t:?}");
}
