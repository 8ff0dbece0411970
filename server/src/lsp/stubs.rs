//! "Define `summarize`": a stub for a function the code calls but never
//! defines, returning a value of the kind its result is used as (pure).
//! The engine's own inference (`synth::infer`) picks the value, as it would
//! for a prefix; the stub says it is one.

use crate::analysis::Usage;
use crate::synth::infer;

/// `def summarize(*args, **kwargs): return {...}` for `name`, called the
/// way `usage` says. The parameters take any call; the value is what the
/// code does with the result (iterated: a list, subscripted by keys: a
/// dict, ...), `None` when nothing is known.
pub fn stub(name: &str, usage: &Usage) -> String {
    let value = usage
        .returns
        .as_deref()
        .filter(|r| **r != Usage::default())
        .map(|r| infer::best(&format!("{name}_result"), r, 0))
        .filter(|v| !v.is_stub() && !v.needs_definition());
    let mut body = String::new();
    let expr = match &value {
        Some(v) => {
            let mut imports = Vec::new();
            v.imports(&mut imports);
            imports.dedup();
            for i in imports {
                body.push_str(&format!("    {i}\n"));
            }
            v.expr()
        }
        None => "None".to_string(),
    };
    format!("def {name}(*args, **kwargs):\n    # A stub Runnable wrote from how the code uses it: replace with the real one.\n{body}    return {expr}\n\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free_usage(code: &str, name: &str) -> Usage {
        let a = crate::analysis::analyze(code);
        a.free_names.into_iter().find(|f| f.name == name).expect("free name").usage
    }

    #[test]
    fn the_stub_returns_what_the_result_is_used_as() {
        let s = stub("summarize", &free_usage("for row in summarize(data):\n    print(row)\n", "summarize"));
        assert!(s.starts_with("def summarize(*args, **kwargs):\n"), "{s}");
        assert!(s.contains("    return ["), "iterated: a list\n{s}");
        let s = stub("stats", &free_usage("s = stats(xs)\nprint(s['mean'] + 1)\n", "stats"));
        assert!(s.contains("return {") && s.contains("'mean'"), "keyed: a dict\n{s}");
        let s = stub("log", &free_usage("log('x')\n", "log"));
        assert!(s.contains("    return None\n"), "{s}");
        // What the stub is must parse.
        assert!(crate::analysis::analyze(&s).syntax_errors.is_empty(), "{s}");
    }
}
