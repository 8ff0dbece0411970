//! Assembling the program that runs: prefix, fragment (wrapped when it must
//! be), suffix, and the map from fragment lines to program lines. Pure.
//!
//! The fragment's text is never changed, only indented once as a whole when
//! it has to become a function body, so that the user can recognise it and
//! an independent checker can find each line verbatim.

use crate::analysis::{Analysis, Wrap};

/// Name of the function a fragment body is wrapped in.
pub const WRAPPER: &str = "__runnable_fragment";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub text: String,
    pub prefix: String,
    pub suffix: String,
    /// For each fragment line (index 0 = line 1), its 1-based program line.
    pub fragment_lines: Vec<u32>,
    /// True when the fragment was wrapped in a function.
    pub wrapped: bool,
}

impl Program {
    /// Program line of fragment line `line` (1-based).
    pub fn program_line(&self, line: u32) -> Option<u32> {
        self.fragment_lines.get(line.checked_sub(1)? as usize).copied()
    }

    /// Fragment line (1-based) of a program line, if it belongs to the fragment.
    pub fn fragment_line(&self, program_line: u32) -> Option<u32> {
        let first = *self.fragment_lines.first()?;
        let idx = program_line.checked_sub(first)? as usize;
        (self.fragment_lines.get(idx) == Some(&program_line)).then(|| idx as u32 + 1)
    }
}

/// How the wrapper of a function-body fragment is declared and driven.
/// `params` become parameters of the wrapper, passed from same-named
/// globals of the prefix: names the body assigns after reading them would
/// otherwise be unbound locals.
///
/// With a `host` class, the body becomes a method of a subclass of it, so
/// that `super()` in a method body works; `self` is made an instance of
/// that subclass before the call.
fn wrapper_head(wrap: Wrap, params: &[String], host: Option<&str>) -> Option<(String, String)> {
    match wrap {
        Wrap::None => None,
        Wrap::Function { is_async, is_generator } => {
            let def = if is_async { "async def" } else { "def" };
            let params: Vec<&String> = params.iter().filter(|p| host.is_none() || *p != "self").collect();
            let actuals = params.iter().map(|p| format!("{p}={p}")).collect::<Vec<_>>().join(", ");
            let (head, target, before) = match host {
                Some(base) => {
                    let mut formals = vec!["self".to_string()];
                    formals.extend(params.iter().map(|p| p.to_string()));
                    (
                        format!("class {HOST}({base}):\n    {def} {METHOD}({}):", formals.join(", ")),
                        format!("self.{METHOD}"),
                        format!("self.__class__ = {HOST}\n"),
                    )
                }
                None => {
                    let formals = params.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ");
                    (format!("{def} {WRAPPER}({formals}):"), WRAPPER.to_string(), String::new())
                }
            };
            let call = match (is_async, is_generator) {
                (false, false) => format!("{before}{target}({actuals})"),
                (false, true) => format!("{before}for _ in {target}({actuals}):\n    pass"),
                (true, false) => format!("import asyncio\n{before}asyncio.run({target}({actuals}))"),
                (true, true) => format!(
                    "import asyncio\n{before}\nasync def __runnable_drain():\n    async for _ in {target}({actuals}):\n        pass\n\nasyncio.run(__runnable_drain())"
                ),
            };
            Some((head, call))
        }
    }
}

/// The subclass a method body is wrapped in when it calls `super()`.
pub const HOST: &str = "_RunnableHost";
/// The method name of a body wrapped in [`HOST`] (no leading `__`: no mangling).
pub const METHOD: &str = "runnable_fragment";

/// A second pass of the driver after the first: names rebound to other
/// values (`rebind`, Python source), then the wrapper's call again and
/// `driver`. One program so covers the branches that need other inputs,
/// as a test calling a function twice does; the fragment's own lines run
/// once more only where they sit inside a function.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replay {
    pub rebind: String,
    pub driver: String,
    /// The wrapper's call again without the context the first pass has.
    pub outside_context: bool,
}

/// Build the program. `prefix` and `suffix` are complete Python source
/// (possibly empty); the wrapper's driver call, when needed, is placed
/// before `suffix`; each of `replays` follows, with the call again.
#[allow(clippy::too_many_arguments)]
pub fn assemble(
    fragment: &str,
    analysis: &Analysis,
    prefix: &str,
    suffix: &str,
    wrapper_params: &[String],
    host: Option<&str>,
    context: Option<&str>,
    replays: &[Replay],
) -> Program {
    let mut out: Vec<String> = Vec::new();
    let push_block = |out: &mut Vec<String>, text: &str| {
        out.extend(text.trim_end_matches('\n').lines().map(str::to_string));
    };
    // A fragment run as it stands enters its context in the prefix: the
    // only context is Flask's, whose `push()` is its documented way in
    // without a `with` block (the fragment's text stays unindented).
    let pushed = match (context, analysis.wrap) {
        (Some(cm), crate::analysis::Wrap::None) => format!("{}
{cm}.push()", prefix.trim_end_matches('\n')),
        _ => prefix.to_string(),
    };
    let prefix_text = pushed.trim_start_matches('\n').trim_end_matches('\n');
    if !prefix_text.is_empty() {
        push_block(&mut out, prefix_text);
        out.push(String::new());
    }
    // A host class needs the body at two levels of indentation.
    let host = host.filter(|_| analysis.common_indent == 0 || analysis.common_indent >= 8);
    let head = wrapper_head(analysis.wrap, wrapper_params, host);
    let indent = match (&head, host) {
        (Some(_), Some(_)) if analysis.common_indent == 0 => "        ",
        (Some(_), None) if analysis.common_indent == 0 => "    ",
        _ => "",
    };
    match &head {
        Some((def, _)) => out.extend(def.lines().map(str::to_string)),
        // An indented fragment that is not a function body still has to sit in a block.
        None if analysis.common_indent > 0 => out.push("if True:".to_string()),
        None => {}
    }
    let mut fragment_lines = Vec::new();
    let lines: Vec<&str> = fragment.lines().collect();
    for l in &lines {
        out.push(if l.trim().is_empty() { String::new() } else { format!("{indent}{l}") });
        fragment_lines.push(out.len() as u32);
    }
    if lines.is_empty() || (head.is_some() && lines.iter().all(|l| l.trim().is_empty())) {
        if head.is_some() || analysis.common_indent > 0 {
            out.push("    pass".into());
        }
    }
    let call_in = |context: Option<&str>| -> String {
        let Some((_, call)) = &head else { return String::new() };
        match context {
            // The wrapper's call inside the context the body needs.
            Some(cm) => format!("with {cm}:\n{}", call.lines().map(|l| if l.is_empty() { String::new() } else { format!("    {l}") }).collect::<Vec<_>>().join("\n")),
            None => call.clone(),
        }
    };
    let drive = |driver: &str, context: Option<&str>| -> String {
        let call_text = call_in(context);
        [call_text.as_str(), driver.trim_end_matches('\n')].into_iter().filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n")
    };
    let mut suffix_text = drive(suffix, context);
    for r in replays {
        let again = drive(&r.driver, context.filter(|_| !r.outside_context));
        if again.is_empty() {
            continue;
        }
        if !suffix_text.is_empty() {
            suffix_text.push_str("\n\n");
        }
        let rebind = r.rebind.trim_end_matches('\n');
        suffix_text.push_str(rebind);
        suffix_text.push('\n');
        // A definition ends the rebinding: a blank line before the call.
        if rebind.lines().last().is_some_and(|l| l.starts_with(' ')) {
            suffix_text.push('\n');
        }
        suffix_text.push_str(&again);
    }
    if !suffix_text.is_empty() {
        out.push(String::new());
        push_block(&mut out, &suffix_text);
    }
    let mut text = out.join("\n");
    text.push('\n');
    Program {
        text,
        prefix: if prefix_text.is_empty() { String::new() } else { format!("{prefix_text}\n") },
        suffix: if suffix_text.is_empty() { String::new() } else { format!("{suffix_text}\n") },
        fragment_lines,
        wrapped: head.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analysis(wrap: Wrap, common_indent: usize) -> Analysis {
        Analysis { wrap, common_indent, ..Default::default() }
    }

    #[test]
    fn plain_fragment_follows_prefix() {
        let p = assemble("x = a + 1\nprint(x)\n", &analysis(Wrap::None, 0), "a = 1\n", "", &[], None, None, &[]);
        assert_eq!(p.text, "a = 1\n\nx = a + 1\nprint(x)\n");
        assert_eq!(p.fragment_lines, vec![3, 4]);
        assert_eq!(p.fragment_line(4), Some(2));
        assert_eq!(p.fragment_line(1), None);
        assert!(!p.wrapped);
    }

    #[test]
    fn function_body_is_wrapped_and_driven() {
        let a = analysis(Wrap::Function { is_async: false, is_generator: false }, 0);
        let p = assemble("y = self.x\n\nreturn y\n", &a, "self = 1", "", &[], None, None, &[]);
        assert_eq!(
            p.text,
            "self = 1\n\ndef __runnable_fragment():\n    y = self.x\n\n    return y\n\n__runnable_fragment()\n"
        );
        assert_eq!(p.fragment_lines, vec![4, 5, 6]);
        assert_eq!(p.suffix, "__runnable_fragment()\n");
    }

    #[test]
    fn async_generator_body_gets_a_drain_driver() {
        let a = analysis(Wrap::Function { is_async: true, is_generator: true }, 0);
        let p = assemble("yield await x\n", &a, "", "", &["x".to_string()], None, None, &[]);
        assert!(p.text.starts_with("async def __runnable_fragment(x):\n    yield await x\n"));
        assert!(p.text.contains("async def __runnable_fragment(x):"));
        assert!(p.text.contains("async for _ in __runnable_fragment(x=x):"));
        assert!(p.text.contains("asyncio.run(__runnable_drain())"));
    }

    #[test]
    fn a_fragment_run_as_it_stands_pushes_its_context_first() {
        let p = assemble("print(current_app.name)\n", &analysis(Wrap::None, 0), "from flask import current_app", "", &[], None, Some("Flask(__name__).test_request_context()"), &[]);
        assert!(p.prefix.ends_with("from flask import current_app\nFlask(__name__).test_request_context().push()\n"), "{}", p.prefix);
        assert!(p.text.contains("push()\n\nprint(current_app.name)\n"), "{}", p.text);
    }

    #[test]
    fn a_wrapped_body_is_called_inside_its_context() {
        let a = analysis(Wrap::Function { is_async: false, is_generator: false }, 0);
        let p = assemble("return self.name\n", &a, "self = App()", "", &[], None, Some("self.test_request_context()"), &[]);
        assert!(p.suffix.starts_with(&format!("with self.test_request_context():\n    {WRAPPER}(")), "{}", p.suffix);
    }

    #[test]
    fn bodies_calling_super_become_methods_of_a_host_subclass() {
        let a = analysis(Wrap::Function { is_async: false, is_generator: false }, 0);
        let p = assemble("super().setup()\nreturn 1\n", &a, "self = Base()", "", &[], Some("Base"), None, &[]);
        assert_eq!(
            p.text,
            "self = Base()\n\nclass _RunnableHost(Base):\n    def runnable_fragment(self):\n        super().setup()\n        return 1\n\nself.__class__ = _RunnableHost\nself.runnable_fragment()\n"
        );
        assert_eq!(p.fragment_lines, vec![5, 6]);
    }

    #[test]
    fn a_replay_rebinds_then_calls_the_wrapper_again() {
        let a = analysis(Wrap::Function { is_async: false, is_generator: false }, 0);
        let replays = [
            Replay { rebind: "flag = False".into(), driver: String::new(), outside_context: false },
            Replay { rebind: "def f():\n    return 2".into(), driver: "g()".into(), outside_context: false },
        ];
        let p = assemble("if flag:\n    return f()\nreturn 0\n", &a, "flag = True", "g()", &[], None, None, &replays);
        assert_eq!(
            p.suffix,
            format!("{WRAPPER}()\ng()\n\nflag = False\n{WRAPPER}()\n\ndef f():\n    return 2\n\n{WRAPPER}()\ng()\n")
        );
        assert_eq!(p.fragment_lines, vec![4, 5, 6]);
    }

    #[test]
    fn indented_fragment_sits_in_a_block_unchanged() {
        let p = assemble("    a = 1\n    b = a\n", &analysis(Wrap::None, 4), "", "", &[], None, None, &[]);
        assert_eq!(p.text, "if True:\n    a = 1\n    b = a\n");
        assert_eq!(p.fragment_lines, vec![2, 3]);
    }
}
