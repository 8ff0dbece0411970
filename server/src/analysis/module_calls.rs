//! Names the module itself calls as statements: `main()` at the top level,
//! `cli(obj={})` under `if __name__ == '__main__':`. A command-line entry
//! point the fragment starts itself runs with the program's `sys.argv`.

use super::facts::ModuleCall;
use super::literal::{line, named, text};
use super::tree::Node;

/// Nesting of top-level compound statements looked into (`if`, `else`,
/// `try`), far more than real code has.
const MAX_DEPTH: usize = 8;

pub(crate) fn module_calls(root: Node, src: &str) -> Vec<ModuleCall> {
    let mut out = Vec::new();
    block(root, src, 0, &mut out);
    out
}

fn block(node: Node, src: &str, depth: usize, out: &mut Vec<ModuleCall>) {
    if depth > MAX_DEPTH {
        return;
    }
    for stmt in named(node) {
        match stmt.kind() {
            "expression_statement" => {
                for expr in named(stmt) {
                    let call = if expr.kind() == "call" { Some(expr) } else { None };
                    let func = call.and_then(|c| c.child_by_field_name("function")).filter(|f| f.kind() == "identifier");
                    if let Some(f) = func {
                        out.push(ModuleCall { name: text(f, src).to_string(), line: line(stmt) });
                    }
                }
            }
            // Blocks that run at import time; definitions' bodies do not.
            "if_statement" | "else_clause" | "elif_clause" | "try_statement" | "except_clause" | "finally_clause" | "block" | "with_statement" => {
                block(stmt, src, depth + 1, out);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::analyze;

    #[test]
    fn calls_at_the_top_and_under_the_main_guard_are_found_not_those_in_definitions() {
        let a = analyze("def main():\n    helper()\n\nsetup()\nif __name__ == '__main__':\n    main()\nelse:\n    x = other()\n");
        let calls: Vec<(&str, u32)> = a.module_calls.iter().map(|c| (c.name.as_str(), c.line)).collect();
        assert_eq!(calls, [("setup", 4), ("main", 6)]);
    }
}
