//! The prefix under construction: imports, bound names with ranked
//! candidate values, and the resource files the program needs.

use super::attribution::{Origin, Trail};
use super::render::py_str;
use super::value::{Value, ANYTHING_DEF};
use crate::exec::Resource;

/// One way to define a name.
#[derive(Debug, Clone, PartialEq)]
pub enum Candidate {
    /// An import statement that binds the name.
    Import(String),
    Value(Value),
}

impl Candidate {
    pub fn kind(&self) -> &'static str {
        match self {
            Candidate::Import(_) => "import",
            Candidate::Value(v) => v.kind(),
        }
    }
    pub fn is_stub(&self) -> bool {
        matches!(self, Candidate::Value(v) if v.is_stub() || matches!(v, Value::Anything))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub name: String,
    pub candidates: Vec<Candidate>,
    pub choice: usize,
    /// The rule that gave it its current candidate (never part of equality).
    pub rule: Origin,
}

impl Binding {
    pub fn new(name: impl Into<String>, candidates: Vec<Candidate>) -> Self {
        Binding { name: name.into(), candidates, choice: 0, rule: Origin::default() }
    }
    pub fn current(&self) -> &Candidate {
        &self.candidates[self.choice.min(self.candidates.len() - 1)]
    }
    pub fn current_mut(&mut self) -> &mut Candidate {
        let i = self.choice.min(self.candidates.len() - 1);
        &mut self.candidates[i]
    }
    /// Only imports can bind it (a module or a library member).
    pub fn import_only(&self) -> bool {
        self.candidates.iter().all(|c| matches!(c, Candidate::Import(_)))
    }
    /// Add `value` as a candidate and make it the current one; a name only
    /// imports bind stays as it is.
    pub fn choose(&mut self, value: Value) {
        if self.import_only() {
            return;
        }
        self.candidates.push(Candidate::Value(value));
        self.choice = self.candidates.len() - 1;
    }

    pub fn value(&self) -> Option<&Value> {
        match self.current() {
            Candidate::Value(v) => Some(v),
            Candidate::Import(_) => None,
        }
    }
}

/// A module of the asker's own that the fragment imports, with the members
/// it takes from it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocalModule {
    pub name: String,
    pub members: Vec<(String, Value)>,
}

impl LocalModule {
    pub fn source(&self) -> String {
        let mut s = String::from("# Created so that the fragment's import works.\n");
        // A member that is a module it imports goes with the imports.
        let import_of = |v: &Value| match v {
            Value::Code { source, .. } if source.starts_with("import ") && !source.contains('\n') => Some(source.clone()),
            _ => None,
        };
        for (name, v) in self.members.iter().filter(|(_, v)| import_of(v).is_none()) {
            s.push_str(&format!("\n\n{}\n", v.definition(name)));
        }
        if self.members.iter().any(|(_, v)| v.uses_anything()) {
            s = format!("{}\n\n\n{s}", super::value::ANYTHING_DEF);
        }
        let mut imports: Vec<String> = self.members.iter().filter_map(|(_, v)| import_of(v)).collect();
        for (_, v) in &self.members {
            v.imports(&mut imports);
        }
        imports.sort();
        imports.dedup();
        if !imports.is_empty() {
            s = format!("{}\n{s}", imports.join("\n"));
        }
        s
    }

    /// The module file and the `__init__.py` of each enclosing package.
    pub fn files(&self) -> Vec<Resource> {
        let parts: Vec<&str> = self.name.split('.').collect();
        let mut out = Vec::new();
        for i in 1..parts.len() {
            out.push(Resource { path: format!("{}/__init__.py", parts[..i].join("/")), content: Vec::new() });
        }
        out.push(Resource { path: format!("{}.py", parts.join("/")), content: self.source().into_bytes() });
        out
    }
}

/// A second pass of the driver: the values some bindings take for it, and
/// the driver lines it runs (see `program::Replay`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replay {
    pub values: Vec<(String, Value)>,
    /// Environment variables set (`Some`) or removed (`None`) before it.
    pub environment: Vec<(String, Option<String>)>,
    pub driver: Vec<String>,
    /// Run outside the context the best runs in (a variant without it,
    /// where Flask's globals are unbound: rule `outside-context`).
    pub outside_context: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prefix {
    /// Imports the fragment forgot (module aliases, bare library names).
    pub bindings: Vec<Binding>,
    /// Files the program reads.
    pub resources: Vec<Resource>,
    /// Modules the fragment imports that exist nowhere: created next to it.
    pub modules: Vec<LocalModule>,
    /// Statements run after the fragment (calls of functions it defines).
    pub driver: Vec<String>,
    /// A context manager the wrapped body's call runs inside
    /// (`self.test_request_context()` for a Flask application's method).
    pub context: Option<String>,
    /// Imports the context needs that no binding makes
    /// (`from flask import Flask` for `Flask(__name__).app_context()`).
    pub context_imports: Vec<String>,
    /// Functions the driver runs other than by calling them (a route, by a
    /// request through its framework's test client).
    pub driven: Vec<String>,
    /// Parameters of the wrapper function (names read before assignment in a body).
    pub wrapper_params: Vec<String>,
    /// For a method body that calls `super()`: the class of `self`, which
    /// the wrapper subclasses.
    pub host: Option<String>,
    /// Names of modules a run showed are not what the fragment means by
    /// them (`module 'signal' has no attribute 'code'`: a variable named
    /// like a module); values may bind them.
    pub not_modules: Vec<String>,
    /// Environment variables set before the fragment runs (name, value).
    pub environment: Vec<(String, String)>,
    /// The command line the program runs with (`sys.argv[1:]`), as Python
    /// list items: bindings for a command-line entry point the fragment
    /// starts itself (`cli()` under the main guard), which parses
    /// `sys.argv` (`cli_args`); string literals for a script that reads it
    /// by position (`script-arguments`). Empty: the interpreter's own.
    pub argv: Vec<String>,
    /// The driver again after the first pass, with names rebound to the
    /// values of a variant that took other branches (`synth::replay`).
    pub replays: Vec<Replay>,
    /// The rules that made it, in order (never part of equality).
    pub trail: Trail,
}

impl Prefix {
    pub fn binding(&self, name: &str) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.name == name)
    }
    pub fn binding_mut(&mut self, name: &str) -> Option<&mut Binding> {
        self.bindings.iter_mut().find(|b| b.name == name)
    }
    /// Every file the program needs: resources and local modules.
    pub fn all_resources(&self) -> Vec<Resource> {
        let mut out = self.resources.clone();
        // A module that turned out to be a package too (`twisted`, then
        // `twisted.internet`) is that package's `__init__.py`.
        let packages: Vec<String> = self
            .modules
            .iter()
            .flat_map(|m| {
                let parts: Vec<&str> = m.name.split('.').collect();
                (1..parts.len()).map(move |i| parts[..i].join("/"))
            })
            .collect();
        for m in &self.modules {
            for mut f in m.files() {
                if f.path.strip_suffix(".py").is_some_and(|stem| packages.iter().any(|p| p == stem)) {
                    f.path = format!("{}/__init__.py", &f.path[..f.path.len() - 3]);
                }
                match out.iter_mut().find(|r| r.path == f.path) {
                    Some(r) if r.content.is_empty() => *r = f,
                    Some(_) => {}
                    None => out.push(f),
                }
            }
        }
        out
    }

    /// Set environment variable `name` (replacing an earlier value).
    pub fn set_env(&mut self, name: &str, value: &str) {
        self.environment.retain(|(n, _)| n != name);
        self.environment.push((name.to_string(), value.to_string()));
    }

    pub fn module_mut(&mut self, name: &str) -> Option<&mut LocalModule> {
        self.modules.iter_mut().find(|m| m.name == name)
    }

    pub fn add_resource(&mut self, r: Resource) {
        match self.resources.iter_mut().find(|x| x.path == r.path) {
            Some(x) => *x = r,
            None => self.resources.push(r),
        }
    }

    /// Readable Python: imports first (plain, then `from`), the placeholder
    /// class if any value needs it, then definitions in binding order.
    pub fn render(&self) -> String {
        let mut imports: Vec<String> = Vec::new();
        let mut defs: Vec<String> = Vec::new();
        let mut anything = false;
        let mut values: Vec<Candidate> = self.bindings.iter().map(|b| b.current().clone()).collect();
        let mut classes: Vec<(String, String)> = Vec::new();
        for c in values.iter_mut() {
            if let Candidate::Value(v) = c {
                v.uniquify_classes(&mut classes);
            }
        }
        let mut named_defs: Vec<(&str, String)> = Vec::new();
        for r in &self.replays {
            for (_, v) in &r.values {
                v.imports(&mut imports);
            }
        }
        for (b, current) in self.bindings.iter().zip(&values) {
            match current {
                Candidate::Import(stmt) => imports.push(stmt.clone()),
                Candidate::Value(v) => {
                    v.imports(&mut imports);
                    anything |= v.uses_anything();
                    named_defs.push((&b.name, v.definition(&b.name)));
                }
            }
        }
        // Values of several bindings may share a class (the same members, so
        // the same name): it is defined once, where first needed.
        let mut classes_defined: Vec<String> = Vec::new();
        for d in in_dependency_order(named_defs) {
            let blocks: Vec<&str> = d
                .split("\n\n\n")
                .filter(|b| {
                    let repeated = b.starts_with("class ") && classes_defined.iter().any(|c| c == b);
                    if b.starts_with("class ") && !repeated {
                        classes_defined.push(b.to_string());
                    }
                    !repeated
                })
                .collect();
            defs.push(blocks.join("\n\n\n"));
        }
        imports.extend(self.context_imports.iter().cloned());
        if !self.environment.is_empty() || self.replays.iter().any(|r| !r.environment.is_empty()) {
            imports.push("import os".to_string());
        }
        if !self.argv.is_empty() {
            imports.push("import sys".to_string());
        }
        imports.sort_by_key(|i| (i.starts_with("from "), i.clone()));
        imports.dedup();
        let mut out = String::new();
        if !imports.is_empty() {
            out.push_str(&imports.join("\n"));
            out.push('\n');
        }
        let mut blocks: Vec<String> = Vec::new();
        if !self.environment.is_empty() {
            // What the shell would export: first, before anything reads it.
            blocks.push(self.environment.iter().map(|(n, v)| format!("os.environ[{}] = {}", py_str(n), py_str(v))).collect::<Vec<_>>().join("\n"));
        }
        if anything {
            blocks.push(ANYTHING_DEF.to_string());
        }
        // Multi-line definitions get blank lines around them, as PEP 8 asks.
        let mut simple: Vec<String> = Vec::new();
        for d in defs {
            if d.contains('\n') {
                if !simple.is_empty() {
                    blocks.push(simple.join("\n"));
                    simple.clear();
                }
                blocks.push(d);
            } else {
                simple.push(d);
            }
        }
        if !simple.is_empty() {
            blocks.push(simple.join("\n"));
        }
        if !self.argv.is_empty() {
            // What the shell would pass, after the values it names. The list
            // is changed in place: `sys.argv` stays the interpreter's own.
            blocks.push(format!("sys.argv[1:] = [{}]", self.argv.join(", ")));
        }
        if !blocks.is_empty() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&blocks.join("\n\n\n"));
            out.push('\n');
        }
        out
    }

    pub fn suffix(&self) -> String {
        if self.driver.is_empty() { String::new() } else { self.driver.join("\n") + "\n" }
    }

    /// The program this prefix makes of `fragment`.
    pub fn program(&self, fragment: &str, analysis: &crate::analysis::Analysis) -> crate::program::Program {
        let replays: Vec<crate::program::Replay> = self
            .replays
            .iter()
            .map(|r| {
                let why = if r.outside_context && r.values.is_empty() && r.environment.is_empty() {
                    "# Again, outside the context, as a caller without one runs it."
                } else {
                    "# Again, with the values that take the other branches."
                };
                let mut rebind = vec![why.to_string()];
                rebind.extend(r.environment.iter().map(|(n, v)| match v {
                    Some(v) => format!("os.environ[{}] = {}", py_str(n), py_str(v)),
                    None => format!("os.environ.pop({}, None)", py_str(n)),
                }));
                rebind.extend(r.values.iter().map(|(name, v)| v.definition(name)));
                crate::program::Replay { rebind: rebind.join("\n"), driver: r.driver.join("\n"), outside_context: r.outside_context }
            })
            .collect();
        crate::program::assemble(fragment, analysis, &self.render(), &self.suffix(), &self.wrapper_params, self.host.as_deref(), self.context.as_deref(), &replays)
    }

    /// Imports this prefix makes (for the environment and warm preloading).
    pub fn imported_modules(&self) -> Vec<String> {
        let mut stmts = Vec::new();
        for b in &self.bindings {
            match b.current() {
                Candidate::Import(s) => stmts.push(s.clone()),
                Candidate::Value(v) => v.imports(&mut stmts),
            }
        }
        stmts.extend(self.context_imports.iter().cloned());
        stmts.iter().filter_map(|s| module_of_import(s)).collect()
    }
}

/// Definitions in binding order, except that one naming another defined
/// later (`class E(RoutingException)`) moves after it. Stable; a cycle
/// keeps its order.
fn in_dependency_order(defs: Vec<(&str, String)>) -> Vec<String> {
    let names: Vec<&str> = defs.iter().map(|(n, _)| *n).collect();
    let deps: Vec<Vec<usize>> = defs
        .iter()
        .map(|(own, text)| {
            let used: Vec<String> = text.lines().flat_map(super::lexical::identifiers).collect();
            // A class the definition makes for itself is not a dependency.
            let own_classes: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("class ")).map(|l| l.split([':', '(']).next().unwrap_or("")).collect();
            names
                .iter()
                .enumerate()
                .filter(|(_, n)| *n != own && !own_classes.contains(n) && used.iter().any(|u| u == *n))
                .map(|(j, _)| j)
                .collect()
        })
        .collect();
    let mut done = vec![false; defs.len()];
    let mut order = Vec::new();
    while order.len() < defs.len() {
        let ready = (0..defs.len()).find(|&i| !done[i] && deps[i].iter().all(|&j| done[j]));
        let next = ready.unwrap_or_else(|| (0..defs.len()).find(|&i| !done[i]).unwrap());
        done[next] = true;
        order.push(next);
    }
    let mut defs: Vec<Option<String>> = defs.into_iter().map(|(_, d)| Some(d)).collect();
    order.into_iter().filter_map(|i| defs[i].take()).collect()
}

/// The names an import statement binds: `import a.b` -> `a`,
/// `import a as c` -> `c`, `from m import x, y as z` -> `x`, `z`.
pub fn names_bound_by_import(stmt: &str) -> Vec<String> {
    let stmt = stmt.trim();
    let list = match stmt.strip_prefix("from ") {
        Some(rest) => rest.split_once(" import ").map(|(_, l)| l).unwrap_or(""),
        None => stmt.strip_prefix("import ").unwrap_or(""),
    };
    let from = stmt.starts_with("from ");
    list.trim_matches(['(', ')', ' '])
        .split(',')
        .filter_map(|item| {
            let mut words = item.split_whitespace();
            let first = words.next()?;
            Some(match (words.next(), words.next()) {
                (Some("as"), Some(alias)) => alias.to_string(),
                _ if from => first.to_string(),
                _ => first.split('.').next().unwrap_or(first).to_string(),
            })
        })
        .collect()
}

/// `import a.b as c` -> `a.b`; `from a import b` -> `a`, or `a.b` where
/// the import table knows `a` only by its `a.b` (`from ruamel import yaml`).
pub fn module_of_import(stmt: &str) -> Option<String> {
    let mut words = stmt.split_whitespace();
    match words.next()? {
        "import" => words.next().map(|m| m.trim_end_matches(',').to_string()),
        "from" => {
            let module = words.next()?;
            // The names imported (not their aliases).
            let list = stmt.split_once(" import ").map(|(_, l)| l).unwrap_or("");
            let names = list.trim_matches(['(', ')', ' ']).split(',').filter_map(|item| item.split_whitespace().next());
            Some(crate::knowledge::from_import_path(module, names))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_follows_the_ones_it_names() {
        let defs = vec![("e", "class E(Failure):\n    pass\n\n\ne = E()".to_string()), ("n", "n = 3".to_string()), ("Failure", "class Failure(Exception):\n    pass".to_string())];
        let order = in_dependency_order(defs);
        assert!(order[0].starts_with("n = 3") && order[1].starts_with("class Failure") && order[2].starts_with("class E"), "{order:?}");
    }

    #[test]
    fn a_module_that_is_also_a_package_is_its_init() {
        let mut p = Prefix::default();
        p.modules.push(LocalModule { name: "twisted".into(), members: vec![("deferLater".into(), Value::Int(1))] });
        p.modules.push(LocalModule { name: "twisted.internet".into(), members: vec![] });
        let paths: Vec<String> = p.all_resources().into_iter().map(|r| r.path).collect();
        assert_eq!(paths, ["twisted/__init__.py", "twisted/internet.py"]);
        let init = p.all_resources().into_iter().find(|r| r.path == "twisted/__init__.py").unwrap();
        assert!(String::from_utf8(init.content).unwrap().contains("deferLater = 1"));
    }

    #[test]
    fn the_module_an_import_needs() {
        assert_eq!(module_of_import("import numpy as np").as_deref(), Some("numpy"));
        assert_eq!(module_of_import("from lxml import html").as_deref(), Some("lxml"));
        // The table knows ruamel only by `ruamel.yaml`.
        assert_eq!(module_of_import("from ruamel import yaml as y").as_deref(), Some("ruamel.yaml"));
        assert_eq!(module_of_import("from os import path").as_deref(), Some("os"));
    }

    #[test]
    fn names_bound_by_imports() {
        assert_eq!(names_bound_by_import("import os.path"), ["os"]);
        assert_eq!(names_bound_by_import("import numpy as np, sys"), ["np", "sys"]);
        assert_eq!(names_bound_by_import("from datetime import timezone"), ["timezone"]);
        assert_eq!(names_bound_by_import("from a.b import (c, d as e)"), ["c", "e"]);
    }

    #[test]
    fn a_class_two_values_share_is_defined_once() {
        let leaf = || Value::Object { class: "Leaf".into(), attrs: vec![("kind".into(), Value::Str("a".into()))], methods: vec![] };
        let holder = |class: &str| Value::Object { class: class.into(), attrs: vec![("leaf".into(), leaf())], methods: vec![] };
        let mut p = Prefix::default();
        p.bindings.push(Binding::new("first", vec![Candidate::Value(holder("First"))]));
        p.bindings.push(Binding::new("second", vec![Candidate::Value(holder("Second"))]));
        let text = p.render();
        assert_eq!(text.matches("class Leaf:").count(), 1, "{text}");
        assert!(text.contains("class Second:\n    leaf = Leaf()") && text.ends_with("second = Second()\n"), "{text}");
    }

    #[test]
    fn renders_imports_then_definitions() {
        let mut p = Prefix::default();
        p.bindings.push(Binding::new("np", vec![Candidate::Import("import numpy as np".into())]));
        p.bindings.push(Binding::new("items", vec![Candidate::Value(Value::List(vec![Value::Int(1), Value::Int(2)]))]));
        p.bindings.push(Binding::new(
            "helper",
            vec![Candidate::Value(Value::Function { returns: Box::new(Value::Anything), is_async: false })],
        ));
        p.bindings.push(Binding::new("when", vec![Candidate::Value(Value::Expr { code: "datetime.date(2024, 1, 15)".into(), imports: vec!["import datetime".into()] })]));
        let text = p.render();
        assert!(text.starts_with("import datetime\nimport numpy as np\n\n\nclass _Anything:"), "{text}");
        assert!(text.contains("items = [1, 2]\n\n\ndef helper(*args, **kwargs):\n    return _Anything()\n\n\nwhen = datetime.date(2024, 1, 15)\n"), "{text}");
        assert_eq!(p.imported_modules(), vec!["numpy".to_string(), "datetime".to_string()]);
    }
}
