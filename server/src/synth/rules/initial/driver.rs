//! Functions and methods the fragment defines but never uses are called
//! after it (a generator drained with `list`, a coroutine run with
//! `asyncio.run`), so that their bodies run.

use crate::analysis::{FunctionDef, Wrap};
use crate::synth::blocks::referenced;
use crate::synth::drivers::{driver_arg_list, driver_args, instance_of};
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct Driver;

impl Rule for Driver {
    fn name(&self) -> &'static str {
        "driver"
    }
    fn stage(&self) -> Stage {
        Stage::Initial
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(so_far) = t.so_far() else { return Vec::new() };
        let mut p = so_far.clone();
        add_driver(ctx, &mut p);
        vec![p]
    }
}

/// Calls of the functions and methods the fragment defines but never uses,
/// so that their bodies run.
fn add_driver(ctx: &Context, p: &mut Prefix) {
    let a = ctx.analysis;
    if a.wrap != Wrap::None {
        // Definitions inside a wrapped body are local to the wrapper.
        return;
    }
    let def_lines = |name: &str| -> Vec<u32> {
        a.functions.iter().filter(|f| f.name == name).map(|f| f.line).chain(a.classes.iter().filter(|c| c.name == name).map(|c| c.line)).collect()
    };
    let mut done: Vec<&str> = Vec::new();
    // The last definition of a name is the one a call reaches.
    for f in a.functions.iter().rev() {
        if done.contains(&f.name.as_str()) || p.driven.contains(&f.name) || referenced(ctx, &f.name, &def_lines(&f.name)) {
            continue;
        }
        done.push(&f.name);
        let call = format!("{}({})", f.name, driver_args(ctx, p, f, false));
        let statement = if is_context_manager(f) { entered(f, &call) } else { run_through(ctx, p, f, call) };
        p.driver.insert(0, statement);
        if f.is_async {
            import_asyncio(p);
        }
    }
    for c in &a.classes {
        if referenced(ctx, &c.name, &def_lines(&c.name)) {
            continue;
        }
        let init = c.methods.iter().find(|m| m.name == "__init__").or(c.generated_init.as_ref());
        let init_args = init.map(|m| driver_args(ctx, p, m, true)).unwrap_or_default();
        let Some(instance) = instance_of(c, &init_args) else { continue };
        let obj = format!("{}_instance", c.name.to_lowercase());
        p.driver.push(format!("{obj} = {instance}"));
        let exits = c.methods.iter().any(|x| x.name == "__exit__");
        for m in &c.methods {
            if m.name.starts_with("__") {
                // A special method runs through the operation Python maps to
                // it. Its arguments are made on a copy, kept only when some
                // operation invokes it (so no binding is left for `__del__`).
                if m.name != "__enter__" || exits {
                    let mut with_args = p.clone();
                    let args = driver_arg_list(ctx, &mut with_args, m, true);
                    if let Some(statement) = special_method_use(&obj, m, &args) {
                        *p = with_args;
                        p.driver.push(statement);
                    }
                }
                continue;
            }
            let is_static = m.params.first().is_none_or(|p| p.name != "self" && p.name != "cls");
            let call = format!("{obj}.{}({})", m.name, driver_args(ctx, p, m, !is_static));
            p.driver.push(if m.is_async { format!("asyncio.run({call})") } else { call });
        }
        if c.methods.iter().any(|m| m.is_async) {
            import_asyncio(p);
        }
    }
}

/// The statement that invokes special method `m` of `obj` the way Python
/// does (the data model's operations: `len(obj)` for `__len__`, `obj[k]`
/// for `__getitem__`, `x in obj` for `__contains__`), with `args` for its
/// parameters after `self`; `None` for one no plain statement invokes
/// (construction, `__del__`, class hooks) or with other arguments.
fn special_method_use(obj: &str, m: &FunctionDef, args: &[String]) -> Option<String> {
    if m.is_async {
        return None;
    }
    let statement = match (m.name.as_str(), args) {
        ("__len__", []) => format!("len({obj})"),
        ("__str__", []) => format!("str({obj})"),
        ("__repr__", []) => format!("repr({obj})"),
        ("__bool__", []) => format!("bool({obj})"),
        ("__hash__", []) => format!("hash({obj})"),
        ("__int__", []) => format!("int({obj})"),
        ("__float__", []) => format!("float({obj})"),
        // A generator drains; an iterator object gives its first item, so
        // one that never ends does not hang the run.
        ("__iter__", []) if m.is_generator => format!("list({obj})"),
        ("__iter__", []) => format!("next(iter({obj}))"),
        ("__next__", []) => format!("next({obj})"),
        ("__enter__", []) => format!("with {obj}:\n    pass"),
        ("__call__", args) => format!("{obj}({})", args.join(", ")),
        ("__getitem__", [k]) => format!("{obj}[{k}]"),
        ("__contains__", [x]) => format!("{x} in {obj}"),
        ("__setitem__", [k, v]) => format!("{obj}[{k}] = {v}"),
        ("__delitem__", [k]) => format!("del {obj}[{k}]"),
        ("__eq__", [x]) => format!("{obj} == {x}"),
        ("__lt__", [x]) => format!("{obj} < {x}"),
        ("__le__", [x]) => format!("{obj} <= {x}"),
        ("__gt__", [x]) => format!("{obj} > {x}"),
        ("__ge__", [x]) => format!("{obj} >= {x}"),
        ("__add__", [x]) => format!("{obj} + {x}"),
        ("__sub__", [x]) => format!("{obj} - {x}"),
        ("__mul__", [x]) => format!("{obj} * {x}"),
        _ => return None,
    };
    Some(statement)
}

/// The statement that runs `call` of `f` to the end: a generator drained,
/// a returned function called too (a decorator or closure factory:
/// `timer(func)()`), a coroutine run with `asyncio.run`.
fn run_through(ctx: &Context, p: &mut Prefix, f: &FunctionDef, mut call: String) -> String {
    if f.is_generator {
        call = format!("list({call})");
    }
    let mut inner = f.returns_function.as_deref();
    while let Some(g) = inner.filter(|g| !g.is_async) {
        call = format!("{call}({})", driver_args(ctx, p, g, false));
        if g.is_generator {
            call = format!("list({call})");
        }
        inner = g.returns_function.as_deref();
    }
    if f.is_async { format!("asyncio.run({call})") } else { call }
}

/// `import asyncio` first in the driver, once.
fn import_asyncio(p: &mut Prefix) {
    if !p.driver.iter().any(|d| d == "import asyncio") {
        p.driver.insert(0, "import asyncio".into());
    }
}

/// `@contextmanager` makes a generator function a context-manager factory:
/// its body runs on entering and leaving a `with`, not by iterating it.
fn is_context_manager(f: &FunctionDef) -> bool {
    const DECORATORS: &[&str] = &["contextmanager", "contextlib.contextmanager", "asynccontextmanager", "contextlib.asynccontextmanager"];
    f.is_generator && f.decorators.iter().any(|d| DECORATORS.contains(&d.target.as_str()))
}

/// The driver statement that enters and leaves the context manager `call`.
fn entered(f: &FunctionDef, call: &str) -> String {
    if f.is_async {
        format!("async def _enter_{name}():\n    async with {call}:\n        pass\n\n\nasyncio.run(_enter_{name}())", name = f.name)
    } else {
        format!("with {call}:\n    pass")
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn an_unused_function_and_generator_are_called() {
        initial_after(&super::Driver, "def total(xs):\n    return sum(xs)\n\ndef pairs(n):\n    yield n\n", expect![[r#"
            ## 1
            n = 3
            xs = [1, 2, 3]
            -- driver --
            total(xs)
            list(pairs(n))
        "#]]);
    }

    #[test]
    fn keyword_only_parameters_are_passed_by_keyword() {
        initial_after(&super::Driver, "def scale(xs, *, factor):\n    return [x * factor for x in xs]\n", expect![[r#"
            ## 1
            xs = [3, 4, 5]
            factor = 3
            -- driver --
            scale(xs, factor=factor)
        "#]]);
    }

    #[test]
    fn generated_classes_are_built_as_their_library_builds_them() {
        // attrs' `attr.ib(1)` has a default, `attr.ib(converter=int)` none;
        // pydantic takes keywords only; an enumeration is reached through a
        // member, never called without a value.
        let src = "import attr, enum\nfrom pydantic import BaseModel\n\n@attr.s(frozen=True)\nclass Bar:\n    y = attr.ib(converter=int)\n    x = attr.ib(1)\n\nclass Item(BaseModel):\n    name: str\n    qty: int = 1\n\nclass Mode(str, enum.Enum):\n    FAST = 'fast'\n    def label(self):\n        return self.value.title()\n";
        initial_after(&super::Driver, src, expect![[r#"
            ## 1
            name = 'Ada'
            -- driver --
            bar_instance = Bar(3)
            item_instance = Item(name=name)
            mode_instance = Mode.FAST
            mode_instance.label()
        "#]]);
    }

    #[test]
    fn a_decorator_is_applied_and_its_wrapper_called() {
        let src = "def timer(func):\n    def wrapper(*args, **kwargs):\n        return func(*args, **kwargs)\n    return wrapper\n";
        initial_after(&super::Driver, src, expect![[r#"
            ## 1
            def func(*args, **kwargs):
                return None
            -- driver --
            timer(func)()
        "#]]);
        let factory = "def cached(path):\n    def decorator(func):\n        def wrapper():\n            return func()\n        return wrapper\n    return decorator\n";
        initial_after(&super::Driver, factory, expect![[r#"
            ## 1
            path = 'data.txt'


            def func(*args, **kwargs):
                return None
            -- driver --
            cached(path)(func)()
        "#]]);
    }

    #[test]
    fn special_methods_run_through_their_operations() {
        initial(&super::Driver, "class Bag:\n    def __init__(self):\n        self.items = {}\n    def __setitem__(self, key, value):\n        self.items[key] = value\n    def __getitem__(self, key):\n        return self.items[key]\n    def __contains__(self, key):\n        return key in self.items\n    def __len__(self):\n        return len(self.items)\n    def __enter__(self):\n        return self\n    def __exit__(self, *exc):\n        return False\n    def __del__(self):\n        pass\n", expect![[r#"
            ## 1
            key = 'apple'
            value = 3
            -- driver --
            bag_instance = Bag()
            bag_instance[key] = value
            bag_instance['apple']
            'apple' in bag_instance
            len(bag_instance)
            with bag_instance:
                pass
        "#]]);
    }

    #[test]
    fn a_context_manager_is_entered_not_iterated() {
        let src = "from contextlib import contextmanager\n\n@contextmanager\ndef opened(path):\n    f = open(path)\n    try:\n        yield f\n    finally:\n        f.close()\n";
        initial_after(&super::Driver, src, expect![[r#"
            ## 1
            path = 'data.txt'
            -- driver --
            with opened(path):
                pass
        "#]]);
        let src = "import contextlib\n\n@contextlib.asynccontextmanager\nasync def session(url):\n    yield url\n";
        initial_after(&super::Driver, src, expect![[r#"
            ## 1
            url = 'https://example.com/api/items'
            -- driver --
            import asyncio
            async def _enter_session():
                async with session(url):
                    pass


            asyncio.run(_enter_session())
        "#]]);
    }
}
