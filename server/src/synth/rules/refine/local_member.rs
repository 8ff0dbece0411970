//! AttributeError on a module this prefix created, or on an instance of a
//! class of one: the member is added there (a method returning an instance
//! of a new class, so a chain of calls is found one link at a time).

use crate::synth::additions::{add_to_local_class, add_to_local_module};
use crate::synth::prefix::Prefix;
use crate::synth::rules::refine::Refine;
use crate::synth::rules::Failure;
use crate::synth::session::Context;

pub struct LocalMember;

impl Refine for LocalMember {
    fn name(&self) -> &'static str {
        "local-member"
    }
    fn exception(&self) -> &'static str {
        "AttributeError"
    }
    fn reads(&self, _ctx: &Context, fail: &Failure) -> bool {
        fail.error.name.is_some()
    }
    fn refine(&self, ctx: &Context, fail: &Failure) -> Vec<Prefix> {
        let Some((attr, called)) = fail.missing_member(ctx) else { return Vec::new() };
        let (e, base) = (fail.error, fail.base);
        let mut out = Vec::new();
        // An instance of a class of a created module lacks it: add it there.
        if let Some(class) = e.obj_type.as_deref() {
            if let Some(p) = add_to_local_class(base, class, &attr, called) {
                out.push(p);
            }
        }
        // A module this prefix created lacks the member: add it.
        if let Some(module) = fail.module_lacking_member() {
            out.extend(add_to_local_module(ctx, base, &module, &attr, called));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::exec::ExceptionInfo;
    use crate::synth::value::Value;
    use crate::synth::prefix::LocalModule;
    use expect_test::expect;

    #[test]
    fn a_class_of_a_created_module_gets_the_member() {
        refine_with(&super::LocalMember, "from shapes import Circle\nprint(Circle(2).area())\n", |p| { p.modules.push(LocalModule { name: "shapes".into(), members: vec![("Circle".into(), Value::Class { attrs: vec![], methods: vec![] })] }); }, ExceptionInfo { name: Some("area".into()), obj_type: Some("Circle".into()), ..raised("AttributeError", r#"'Circle' object has no attribute 'area'"#, 2) }, expect![[r#"
            ## 1
            -- file shapes.py --
            -- module shapes --
            # Created so that the fragment's import works.


            class Circle:
                def __init__(self, *args, **kwargs):
                    self.__dict__.update(kwargs)

                def area(self, *args, **kwargs):
                    return Area()


            class Area:
                def __init__(self, *args, **kwargs):
                    self.__dict__.update(kwargs)
        "#]]);
    }

    #[test]
    fn a_created_module_read_as_holding_a_module_imports_it() {
        let fragment = "from unittest.mock import patch\nfrom helpers import exists\nwith patch('helpers.os.path.exists') as m:\n    exists('a')\n";
        refine_with(&super::LocalMember, fragment, |p| { p.modules.push(LocalModule { name: "helpers".into(), members: vec![("exists".into(), Value::Function { returns: Box::new(Value::None), is_async: false })] }); }, ExceptionInfo { name: Some("os".into()), obj_type: Some("module".into()), ..raised("AttributeError", r#"module 'helpers' has no attribute 'os'"#, 3) }, expect![[r#"
            ## 1
            -- file helpers.py --
            -- module helpers --
            import os
            # Created so that the fragment's import works.


            def exists(*args, **kwargs):
                return None
        "#]]);
    }

    #[test]
    fn a_member_read_through_the_module_is_what_its_use_says() {
        let fragment = "import helpers\nfor row in helpers.rows:\n    print(row['name'].upper())\n";
        refine_with(&super::LocalMember, fragment, |p| { p.modules.push(LocalModule { name: "helpers".into(), members: vec![] }); }, ExceptionInfo { name: Some("rows".into()), obj_type: Some("module".into()), ..raised("AttributeError", r#"module 'helpers' has no attribute 'rows'"#, 2) }, expect![[r#"
            ## 1
            -- file helpers.py --
            -- module helpers --
            # Created so that the fragment's import works.


            rows = [{'name': 'Ada'}, {'name': 'Ada 2'}, {'name': 'Ada 3'}]
        "#]]);
    }
}
