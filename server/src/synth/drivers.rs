//! Driver calls: the statements after the fragment that call what it
//! defines, and the arguments they pass (bindings named like the
//! parameters, so refinements on the body's lines find them).

use super::bindings::binding_for;
use super::infer;
use super::prefix::Prefix;
use super::session::Context;
use crate::analysis::FreeName;

/// The prefix binding that holds the argument of `param` in a driver call
/// of `callee`, where the parameter's own name is taken.
pub(super) fn argument_name(param: &str, callee: &str) -> String {
    format!("{param}_{}", callee.to_lowercase())
}

/// Arguments for a call of `f`: one prefix binding per required parameter,
/// named like the parameter (so refinements on the body's lines find it)
/// unless that name is taken, then an inline value.
pub(super) fn driver_args(ctx: &Context, p: &mut Prefix, f: &crate::analysis::FunctionDef, skip_self: bool) -> String {
    driver_arg_list(ctx, p, f, skip_self).join(", ")
}

/// The arguments of [`driver_args`], one expression each.
pub(super) fn driver_arg_list(ctx: &Context, p: &mut Prefix, f: &crate::analysis::FunctionDef, skip_self: bool) -> Vec<String> {
    let mut args = Vec::new();
    for (i, param) in f.params.iter().enumerate() {
        if (skip_self && i == 0) || !param.star.is_empty() || param.has_default {
            continue;
        }
        let taken = ctx.analysis.bound_names.contains(&param.name)
            || ctx.analysis.free_names.iter().any(|n| n.name == param.name)
            || p.binding(&param.name).is_some();
        let value = if taken { Some(infer::best(&param.name, &param.usage, 1)) } else { None };
        if let Some(v) = value.filter(|v| !v.needs_definition()) {
            args.push(keyword(param, v.expr()));
        } else if taken {
            // The name is the fragment's own: an argument of this call under
            // a name of its own (an object needs its class defined first).
            let name = argument_name(&param.name, &f.name);
            if p.binding(&name).is_none() {
                let fname = FreeName { name: name.clone(), first_line: f.line, usage: param.usage.clone() };
                p.bindings.push(binding_for(ctx, &fname, false));
            }
            args.push(keyword(param, name));
        } else {
            let fname = FreeName { name: param.name.clone(), first_line: f.line, usage: param.usage.clone() };
            p.bindings.push(binding_for(ctx, &fname, false));
            args.push(keyword(param, param.name.clone()));
        }
    }
    args
}

/// An argument as a call passes it: by keyword for a keyword-only parameter.
pub(super) fn keyword(param: &crate::analysis::Param, value: String) -> String {
    if param.keyword_only { format!("{}={value}", param.name) } else { value }
}

/// How a driver reaches an instance of class `c`: a member of an
/// enumeration (which cannot be called without a value), a call of any
/// other class with `init_args`; `None` for an enumeration without members.
pub(super) fn instance_of(c: &crate::analysis::ClassDef, init_args: &str) -> Option<String> {
    const ENUMS: [&str; 6] = ["Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"];
    if !c.bases.iter().any(|b| ENUMS.contains(&b.rsplit('.').next().unwrap_or(""))) {
        return Some(format!("{}({init_args})", c.name));
    }
    c.attributes.iter().find(|a| !a.starts_with('_')).map(|m| format!("{}.{m}", c.name))
}

/// A copy of `prefix` whose driver also calls `callee(args)`. A call of the
/// same callee already there is replaced unless `keep_earlier`: one that
/// raised would stop the program before the new one runs.
pub(super) fn with_driver_call(prefix: &Prefix, callee: &str, args: &[String], keep_earlier: bool) -> Prefix {
    let mut p = prefix.clone();
    let head = format!("{callee}(");
    if !keep_earlier {
        p.driver.retain(|d| !d.starts_with(&head));
    }
    let call = format!("{callee}({})", args.join(", "));
    if !p.driver.contains(&call) {
        p.driver.push(call);
    }
    p
}
