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
}

pub(crate) fn resolve(reads: &HashMap<String, Reads>, binds: &Bindings, store: &mut Store) -> Resolved {
    let mut free: Vec<(usize, String, u32)> = Vec::new();
    let mut early: Vec<(usize, String, u32)> = Vec::new();
    for (name, r) in reads {
        if is_builtin(name) {
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
                FreeName { name, first_line, usage }
            })
            .collect()
    };
    Resolved { free: finish(free), used_before_bound: finish(early) }
}
