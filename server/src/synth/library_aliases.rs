//! Module aliases a library's own code writes (`import typing as t` in
//! Flask, Werkzeug, Click and Jinja), read from the libraries' source by
//! `scripts/gen-library-aliases` (`data/library_aliases.txt`), and whether
//! a fragment's bare use of one means that module. Pure.
//!
//! A function body cut from such a library, or code written in its style,
//! reads the alias with its import line left behind (`t.Dict[str, t.Any]`).
//! A short name like `t` is as often a variable (`t.start()` on a thread),
//! so the alias counts only in a fragment about that library, used the way
//! one uses a module, and only when the module has every member read.

use super::knowledge::lines;
use super::library_types::fragment_modules;
use super::module_use::used_like_a_module;
use super::session::Context;
use crate::analysis::Usage;
use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

struct Aliases {
    /// (library, alias) -> module.
    aliases: HashMap<(&'static str, &'static str), &'static str>,
    /// module -> its public attributes.
    members: HashMap<&'static str, BTreeSet<&'static str>>,
}

fn table() -> &'static Aliases {
    static T: OnceLock<Aliases> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Aliases { aliases: HashMap::new(), members: HashMap::new() };
        for l in lines(include_str!("data/library_aliases.txt")) {
            let mut w = l.split_whitespace();
            match w.next() {
                Some("alias") => {
                    if let (Some(lib), Some(alias), Some(module)) = (w.next(), w.next(), w.next()) {
                        t.aliases.insert((lib, alias), module);
                    }
                }
                Some("members") => {
                    if let Some(module) = w.next() {
                        t.members.insert(module, w.collect());
                    }
                }
                _ => {}
            }
        }
        t
    })
}

/// `import typing as t` for bare `t` used as `t.Optional[...]` in a
/// fragment about a library whose own code imports typing as `t`.
pub fn import_for(ctx: &Context, name: &str, usage: &Usage) -> Option<String> {
    if !used_like_a_module(usage) || ctx.analysis.bound_names.contains(name) {
        return None;
    }
    let t = table();
    let libraries: BTreeSet<String> = fragment_modules(ctx).iter().map(|m| m.split('.').next().unwrap_or("").to_string()).collect();
    libraries.iter().find_map(|lib| {
        let module = *t.aliases.get(&(lib.as_str(), name))?;
        let has = t.members.get(module)?;
        usage.attrs.keys().all(|a| has.contains(a.as_str())).then(|| format!("import {module} as {name}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::rules::check::with_ctx;

    fn import(src: &str, name: &str) -> Option<String> {
        with_ctx(src, |ctx| import_for(ctx, name, &ctx.usage_of(name)))
    }

    #[test]
    fn a_library_s_own_alias_binds_in_a_fragment_about_that_library() {
        let src = "from flask import Flask\nself.routes: t.Dict[str, t.Any] = {}\n";
        assert_eq!(import(src, "t").as_deref(), Some("import typing as t"));
    }

    #[test]
    fn the_alias_needs_the_library_and_the_module_s_members() {
        // No library whose code writes the alias: `t` is the fragment's.
        assert_eq!(import("x: t.Dict[str, t.Any] = {}\n", "t"), None);
        // A member typing lacks: a variable of the fragment's own (a thread).
        assert_eq!(import("from flask import Flask\nt.start()\n", "t"), None);
        // Used as data, not as a module.
        assert_eq!(import("from flask import Flask\nprint(t + 1)\n", "t"), None);
    }
}
