//! Which names the fragment needs from outside: free names (read, bound
//! nowhere, not builtins) and names read at top level before their first
//! top-level binding.

use super::bindings::Bindings;
use super::builtins::is_builtin;
use super::facts::FreeName;
use super::usage::{Root, Store};
use super::walker::Reads;
use std::collections::HashMap;

pub(crate) struct Resolved {
    pub free: Vec<FreeName>,
    pub used_before_bound: Vec<FreeName>,
    pub builtins_read: Vec<FreeName>,
}

pub(crate) fn resolve(
    reads: &HashMap<String, Reads>,
    binds: &Bindings,
    store: &mut Store,
) -> Resolved {
    let mut free: Vec<(usize, String, u32)> = Vec::new();
    let mut early: Vec<(usize, String, u32)> = Vec::new();
    let mut builtins: Vec<(usize, String, u32)> = Vec::new();
    for (name, r) in reads {
        if is_builtin(name) {
            if !binds.names.contains_key(name) {
                builtins.push((r.first.0, name.clone(), r.first.1));
            }
            continue;
        }
        match binds.names.get(name) {
            None => free.push((r.first.0, name.clone(), r.first.1)),
            Some(info) => {
                if let Some((pos, line)) = r.top {
                    if info.top_effect.is_none_or(|effect| pos < effect) {
                        early.push((pos, name.clone(), line));
                    }
                }
            }
        }
    }
    let mut finish = |mut v: Vec<(usize, String, u32)>| -> Vec<FreeName> {
        v.sort();
        v.into_iter()
            .map(|(_, name, first_line)| {
                let usage = store.take(&Root::Name(name.clone()));
                FreeName {
                    name,
                    first_line,
                    usage,
                }
            })
            .collect()
    };
    Resolved {
        free: finish(free),
        used_before_bound: finish(early),
        builtins_read: finish(builtins),
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::{analyze, Wrap};

    fn free(src: &str) -> Vec<String> {
        analyze(src)
            .free_names
            .into_iter()
            .map(|f| f.name)
            .collect()
    }

    fn early(src: &str) -> Vec<(String, u32)> {
        analyze(src)
            .used_before_bound
            .into_iter()
            .map(|f| (f.name, f.first_line))
            .collect()
    }

    #[test]
    fn parameters_bind_only_inside_their_function() {
        assert_eq!(free("def f(a):\n    return a + b\n"), ["b"]);
        assert_eq!(free("def f(a):\n    pass\nprint(a)\n"), ["a"]);
        assert_eq!(
            free("def outer(a):\n    def inner():\n        return a\n    return inner\n"),
            Vec::<String>::new()
        );
        assert_eq!(free("f = lambda a, b=c: a + d\n"), ["c", "d"]);
    }

    #[test]
    fn comprehension_variables_are_local() {
        assert_eq!(free("ys = [x * k for x in xs if x]\n"), ["k", "xs"]);
        assert_eq!(
            free("d = {k: v for k, v in pairs}\ns = {y for x in xss for y in x}\n"),
            ["pairs", "xss"]
        );
        assert_eq!(free("print(x)\nys = [x for x in range(3)]\n"), ["x"]);
    }

    #[test]
    fn binding_forms() {
        assert_eq!(
            free("def f():\n    global g\n    g = 1\nprint(g)\n"),
            Vec::<String>::new()
        );
        assert_eq!(
            free("try:\n    pass\nexcept ValueError as e:\n    print(e)\n"),
            Vec::<String>::new()
        );
        assert_eq!(free("with open(p) as fh:\n    fh.read()\n"), ["p"]);
        assert_eq!(free("if (n := len(a)) > 10:\n    print(n)\n"), ["a"]);
        assert_eq!(free("for i in range(3):\n    pass\ndel x\n"), ["x"]);
        assert_eq!(
            free("class A:\n    x = 1\n    def m(self):\n        return self.x + y\n"),
            ["y"]
        );
        assert_eq!(free("import os.path\nos.path.join(a)\n"), ["a"]);
        assert_eq!(free("from m import *\nfoo()\n"), ["foo"]);
        assert_eq!(free("match cmd:\n    case Point(x=0) as p:\n        print(p)\n    case Color.RED:\n        pass\n"), [
            "cmd", "Point", "Color"
        ]);
    }

    #[test]
    fn builtins_are_not_free() {
        assert_eq!(
            free("print(len(__name__), __file__, exit, quit, Ellipsis, ValueError)\n"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn builtins_read_keep_their_usage_unless_bound() {
        let a = analyze("del dict[key]\nfor x in list: pass\nlen(x)\n");
        let names: Vec<&str> = a.builtins_read.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["dict", "list", "len"]);
        assert_eq!(a.builtins_read[0].usage.subscripts.len(), 1);
        assert!(a.builtins_read[1].usage.iterated);
        assert!(analyze("dict = {}\ndict['a']\n").builtins_read.is_empty());
    }

    #[test]
    fn function_body_fragments() {
        let a = analyze("self.x = cls.y\nreturn param\n");
        assert_eq!(
            a.wrap,
            Wrap::Function {
                is_async: false,
                is_generator: false
            }
        );
        assert_eq!(
            a.free_names
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>(),
            ["self", "cls", "param"]
        );
        // Local annotations are not evaluated; keyword names are not reads.
        assert_eq!(free("y: Foo = f(a=1)\nreturn y\n"), ["f"]);
        assert_eq!(
            free("def f(x: np.ndarray) -> pd.DataFrame:\n    pass\n"),
            ["np", "pd"]
        );
    }

    #[test]
    fn order_and_first_line() {
        let a = analyze("\n\nb.x\na(b)\n");
        let got: Vec<(&str, u32)> = a
            .free_names
            .iter()
            .map(|f| (f.name.as_str(), f.first_line))
            .collect();
        assert_eq!(got, vec![("b", 3), ("a", 4)]);
        assert_eq!(free("@app.route('/')\ndef index():\n    pass\n"), ["app"]);
    }

    #[test]
    fn bound_names() {
        let a = analyze(
            "import numpy as np\nx = 1\nfor i in y: pass\ndef f(p): pass\nz = [q for q in y]\n",
        );
        assert_eq!(
            a.bound_names.into_iter().collect::<Vec<_>>(),
            ["f", "i", "np", "x", "z"]
        );
    }

    #[test]
    fn used_before_bound() {
        assert_eq!(early("print(x)\nx = 1\n"), vec![("x".to_string(), 1)]);
        assert_eq!(early("total += 1\n"), vec![("total".to_string(), 1)]);
        assert_eq!(early("x = x + 1\n"), vec![("x".to_string(), 1)]);
        assert_eq!(
            early("os.getcwd()\nimport os\n"),
            vec![("os".to_string(), 1)]
        );
        assert_eq!(early("class A:\n    me = A\n"), vec![("A".to_string(), 2)]);
        assert!(early("x = 1\nprint(x)\n").is_empty());
        assert!(early("def f():\n    return y\ny = 1\nf()\n").is_empty());
        assert!(early("print(list)\nlist = [1]\n").is_empty());
        assert!(early("for i in range(3):\n    print(i)\n").is_empty());
        // Bound only inside a function: undefined at top level.
        assert_eq!(
            early("def f():\n    loc = 1\nprint(loc)\n"),
            vec![("loc".to_string(), 3)]
        );
        assert!(early("def init():\n    global cfg\n    cfg = 1\ninit()\nprint(cfg)\n").is_empty());
        let a = analyze("print(x.upper())\nx = 'a'\n");
        assert!(a.free_names.is_empty());
        assert!(a.used_before_bound[0].usage.attrs.contains_key("upper"));
    }

    #[test]
    fn branches_name_free_inputs() {
        let a = analyze("for row in rows:\n    if row > limit and ok:\n        pass\nok = True\nwhile n < 3:\n    n += 1\n");
        let got: Vec<(u32, Vec<String>, String)> = a
            .branches
            .into_iter()
            .map(|b| (b.line, b.names, b.text))
            .collect();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            got,
            vec![
                (
                    2,
                    s(&["rows", "limit", "ok"]),
                    "row > limit and ok".to_string()
                ),
                (5, s(&["n"]), "n < 3".to_string()),
            ]
        );
    }
}
