//! Pure static analysis of a Python fragment (tree-sitter-python). No I/O.
//!
//! Everything the synthesiser and the coverage metric need to know about a
//! fragment before it runs: syntax errors, whether it must be wrapped in a
//! function to run, the statement table of the published coverage metric,
//! imports, free names with their usage facts, literal file paths, and which
//! names each line assigns (for value hints).
//!
//! All line numbers are 1-based and relative to the fragment text given to
//! [`analyze`]; columns are 0-based UTF-8 byte offsets within the line.
//!
//! Passes, each linear in the tree: `parse` (dedent, tree-sitter, wrap),
//! `tree` (a flat copy of the tree the other passes walk), `syntax` (syntax
//! errors), `statements` (coverage table), `bindings` (where names are
//! bound, imports), `walker` (reads and usage facts, through `usage` paths),
//! `scope` (free names), `files` (literal paths), `defs` (functions, classes).

mod bindings;
mod builtins;
mod defs;
mod facts;
mod files;
mod imports;
mod literal;
mod parse;
mod scope;
mod statements;
mod syntax;
mod tree;
mod usage;
mod walker;

pub use facts::*;
pub(crate) use builtins::is_builtin;

use std::collections::HashSet;

/// Analyse a fragment. Never fails: syntax errors are reported in
/// [`Analysis::syntax_errors`] and the rest is computed on a best-effort basis.
pub fn analyze(source: &str) -> Analysis {
    let (text, common_indent) = parse::dedent(source);
    let tree = parse::parse(&text);
    let root = tree.root();
    let wrap = parse::wrap(root);
    let binds = bindings::collect(root, &text);

    let mut walk = walker::Walker::new(&text, &binds, wrap != Wrap::None);
    walk.block(root);
    let resolved = scope::resolve(&walk.reads, &binds, &mut walk.store);

    let (functions, classes) = defs::definitions(root, &text, &mut |def_id| {
        let roots = walk.params.get(&def_id).cloned().unwrap_or_default();
        roots.iter().map(|r| walk.store.take(r)).collect()
    });

    let needed: HashSet<&str> = resolved
        .free
        .iter()
        .chain(&resolved.used_before_bound)
        .map(|f| f.name.as_str())
        .collect();
    let branches = walk
        .branches
        .iter()
        .map(|b| Branch {
            line: b.line,
            names: b
                .names
                .iter()
                .filter(|n| needed.contains(n.as_str()))
                .cloned()
                .collect(),
            condition: b.condition.clone(),
        })
        .collect();

    Analysis {
        syntax_errors: syntax::syntax_errors(root, &text, common_indent),
        wrap,
        common_indent,
        statements: statements::statement_table(root, &text),
        imports: binds.imports.clone(),
        free_names: resolved.free,
        used_before_bound: resolved.used_before_bound,
        builtins_read: resolved.builtins_read,
        bound_names: binds.names.keys().cloned().collect(),
        assigned: binds.assigned.clone(),
        files: files::file_uses(root, &text, &binds),
        functions,
        classes,
        branches,
    }
}
