//! Builds a [`Condition`] from a tree-sitter expression node.

use super::condition::{BoolOpKind, CompareOp, Condition, Constant};
use super::literal::{int_value, named, str_value, text, unparen};
use super::tree::Node;

/// Deeper nesting than this becomes `Other` (stack safety on generated code).
const MAX_DEPTH: usize = 100;

pub(crate) fn build(node: Node, src: &str) -> Condition {
    Builder { src }.expr(node, 0)
}

struct Builder<'s> {
    src: &'s str,
}

impl Builder<'_> {
    fn expr(&self, node: Node, depth: usize) -> Condition {
        let node = unparen(node);
        if depth > MAX_DEPTH {
            return self.other(node, Vec::new());
        }
        let d = depth + 1;
        let field = |f: &str| node.child_by_field_name(f);
        let sub = |n: Option<Node>| Box::new(n.map_or_else(|| self.other(node, Vec::new()), |n| self.expr(n, d)));
        match node.kind() {
            "identifier" => Condition::Name { id: text(node, self.src).to_string() },
            "attribute" => match field("attribute") {
                Some(attr) => Condition::Attribute { value: sub(field("object")), attr: text(attr, self.src).to_string() },
                None => self.other_with_parts(node, d),
            },
            "subscript" => {
                let indices: Vec<Node> = node.children_by_field_name("subscript").collect();
                match indices.as_slice() {
                    [one] if one.kind() != "slice" => Condition::Subscript { value: sub(field("value")), index: Box::new(self.expr(*one, d)) },
                    _ => self.other_with_parts(node, d),
                }
            }
            "boolean_operator" => self.bool_op(node, d),
            "not_operator" => Condition::Not { operand: sub(field("argument")) },
            "comparison_operator" => self.compare(node, d),
            "call" => self.call(node, d),
            "named_expression" => match field("name") {
                Some(name) => Condition::NamedExpr { target: text(name, self.src).to_string(), value: sub(field("value")) },
                None => self.other_with_parts(node, d),
            },
            _ => match self.constant(node) {
                Some(value) => Condition::Constant { value },
                None => self.other_with_parts(node, d),
            },
        }
    }

    fn other(&self, node: Node, parts: Vec<Condition>) -> Condition {
        Condition::Other { node: node.kind().to_string(), text: text(node, self.src).to_string(), parts }
    }

    /// Sub-expressions of an unmodelled node: its named children, seen
    /// through the wrappers that only punctuate (`{x}` in an f-string,
    /// `k: v` pairs, `*a`), without the names a construct binds (`lambda
    /// x:`, comprehension targets) or keyword names (`f(key=v)`), which are
    /// not reads.
    fn other_with_parts(&self, node: Node, d: usize) -> Condition {
        let mut parts = Vec::new();
        self.parts_of(node, d, &mut parts);
        self.other(node, parts)
    }

    fn parts_of(&self, node: Node, d: usize, out: &mut Vec<Condition>) {
        for c in named(node) {
            let binds = match (node.kind(), c.field_name()) {
                (_, Some("parameters")) => true,
                ("for_in_clause", Some("left")) | ("keyword_argument", Some("name")) => true,
                _ => false,
            };
            match c.kind() {
                _ if binds => {}
                "interpolation" | "format_specifier" | "format_expression" | "pair" | "keyword_argument" | "list_splat" | "dictionary_splat"
                | "for_in_clause" | "if_clause" | "expression_list" => self.parts_of(c, d, out),
                "string_start" | "string_content" | "string_end" | "escape_sequence" | "escape_interpolation" | "type_conversion" => {}
                _ => out.push(self.expr(c, d)),
            }
        }
    }

    fn bool_op(&self, node: Node, d: usize) -> Condition {
        let op = match node.child_by_field_name("operator").map(|o| o.kind()) {
            Some("and") => BoolOpKind::And,
            Some("or") => BoolOpKind::Or,
            _ => return self.other_with_parts(node, d),
        };
        let mut values = Vec::new();
        for side in ["left", "right"] {
            let Some(n) = node.child_by_field_name(side) else { continue };
            match self.expr(n, d) {
                // `a and b and c` parses as `(a and b) and c`: one node.
                Condition::BoolOp { op: inner, values: vs } if inner == op => values.extend(vs),
                c => values.push(c),
            }
        }
        Condition::BoolOp { op, values }
    }

    fn compare(&self, node: Node, d: usize) -> Condition {
        let mut operands = Vec::new();
        let mut ops = Vec::new();
        for c in node.children() {
            if c.field_name() == Some("operators") {
                ops.push(match c.kind() {
                    "==" => CompareOp::Eq,
                    "!=" | "<>" => CompareOp::NotEq,
                    "<" => CompareOp::Lt,
                    "<=" => CompareOp::LtE,
                    ">" => CompareOp::Gt,
                    ">=" => CompareOp::GtE,
                    "is" => CompareOp::Is,
                    "is not" => CompareOp::IsNot,
                    "in" => CompareOp::In,
                    "not in" => CompareOp::NotIn,
                    _ => return self.other_with_parts(node, d),
                });
            } else if c.is_named() && !matches!(c.kind(), "comment" | "line_continuation") {
                operands.push(self.expr(c, d));
            }
        }
        if operands.len() != ops.len() + 1 || ops.is_empty() {
            return self.other_with_parts(node, d);
        }
        let mut operands = operands.into_iter();
        let left = Box::new(operands.next().expect("one operand more than operators"));
        match ops.as_slice() {
            [op @ (CompareOp::In | CompareOp::NotIn)] => Condition::Membership {
                item: left,
                container: Box::new(operands.next().expect("a right operand")),
                negated: *op == CompareOp::NotIn,
            },
            _ => Condition::Compare { left, ops, comparators: operands.collect() },
        }
    }

    fn call(&self, node: Node, d: usize) -> Condition {
        let (Some(func), Some(arguments)) = (node.child_by_field_name("function"), node.child_by_field_name("arguments")) else {
            return self.other_with_parts(node, d);
        };
        if arguments.kind() != "argument_list" {
            // `any(x for x in xs)`: the generator is the one argument.
            return Condition::Call { func: Box::new(self.expr(func, d)), args: vec![self.expr(arguments, d)], keywords: Vec::new() };
        }
        let mut args = Vec::new();
        let mut keywords = Vec::new();
        for a in named(arguments) {
            match (a.kind(), a.child_by_field_name("name"), a.child_by_field_name("value")) {
                ("keyword_argument", Some(k), Some(v)) => keywords.push((text(k, self.src).to_string(), self.expr(v, d))),
                _ => args.push(self.expr(a, d)),
            }
        }
        let func = self.expr(func, d);
        if matches!(&func, Condition::Name { id } if id == "isinstance") && args.len() == 2 && keywords.is_empty() {
            let mut args = args.into_iter();
            let subject = Box::new(args.next().expect("two arguments"));
            let types = match args.next().expect("two arguments") {
                Condition::Other { node, parts, .. } if node == "tuple" => parts,
                one => vec![one],
            };
            return Condition::IsInstance { subject, types };
        }
        Condition::Call { func: Box::new(func), args, keywords }
    }

    /// A literal of one of Python's constant kinds (`-1` included, as `ast`
    /// folds it only at compile time but it is a constant to any reader).
    fn constant(&self, node: Node) -> Option<Constant> {
        let t = text(node, self.src);
        Some(match node.kind() {
            "integer" => int_value(t).map_or_else(|| Constant::BigInt(t.to_string()), Constant::Int),
            "float" if !t.ends_with(['j', 'J']) => Constant::Float(t.replace('_', "").parse().ok()?),
            "true" => Constant::Bool(true),
            "false" => Constant::Bool(false),
            "none" => Constant::None,
            "ellipsis" => Constant::Ellipsis,
            "string" | "concatenated_string" => match str_value(node, self.src) {
                Some(s) => Constant::Str(s),
                None if is_bytes(node, self.src) => Constant::Bytes(t.to_string()),
                None => return None,
            },
            "unary_operator" => {
                let op = node.child_by_field_name("operator")?.kind();
                match (op, self.constant(unparen(node.child_by_field_name("argument")?))?) {
                    ("-", Constant::Int(i)) => Constant::Int(i.checked_neg()?),
                    ("-", Constant::Float(f)) => Constant::Float(-f),
                    ("+", c @ (Constant::Int(_) | Constant::Float(_))) => c,
                    _ => return None,
                }
            }
            _ => return None,
        })
    }
}

/// A bytes literal without interpolations (`b'x'`, `rb"\d"`, concatenations of them).
fn is_bytes(node: Node, src: &str) -> bool {
    match node.kind() {
        "string" => node
            .child(0)
            .filter(|c| c.kind() == "string_start")
            .is_some_and(|s| text(s, src).trim_end_matches(['"', '\'']).contains(['b', 'B'])),
        "concatenated_string" => named(node).all(|s| is_bytes(s, src)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::parse::parse;
    use expect_test::{expect, Expect};

    /// The tree of the expression statement `src`, as `Debug` with its
    /// names and constants.
    fn tree_of(src: &str) -> Condition {
        let flat = parse(src);
        let stmt = named(flat.root()).next().expect("one statement");
        let expr = named(stmt).next().expect("an expression");
        build(expr, src)
    }

    fn check(src: &str, expect: Expect) {
        let c = tree_of(src);
        let names = c.names().join(", ");
        let constants: Vec<String> = c.constants().iter().map(|k| format!("{k:?}")).collect();
        expect.assert_eq(&format!("{c:#?}\nnames: {names}\nconstants: {}\n", constants.join(", ")));
    }

    #[test]
    fn chained_comparison_keeps_every_operator_in_order() {
        let c = tree_of("0 < x <= 10\n");
        let Condition::Compare { left, ops, comparators } = &c else { panic!("{c:?}") };
        assert_eq!(**left, Condition::Constant { value: Constant::Int(0) });
        assert_eq!(ops, &[CompareOp::Lt, CompareOp::LtE]);
        assert_eq!(comparators[0], Condition::Name { id: "x".into() });
        assert_eq!(comparators[1], Condition::Constant { value: Constant::Int(10) });
        assert_eq!(c.to_string(), "0 < x <= 10");
    }

    #[test]
    fn not_in_is_a_negated_membership() {
        check("key not in table.keys()\n", expect![[r#"
            Membership {
                item: Name {
                    id: "key",
                },
                container: Call {
                    func: Attribute {
                        value: Name {
                            id: "table",
                        },
                        attr: "keys",
                    },
                    args: [],
                    keywords: [],
                },
                negated: true,
            }
            names: key, table
            constants: 
        "#]]);
    }

    #[test]
    fn is_not_none_compares_with_the_none_constant() {
        let c = tree_of("node.parent is not None\n");
        let Condition::Compare { left, ops, comparators } = &c else { panic!("{c:?}") };
        assert_eq!(left.dotted().as_deref(), Some("node.parent"));
        assert_eq!(ops, &[CompareOp::IsNot]);
        assert_eq!(comparators, &[Condition::Constant { value: Constant::None }]);
        assert_eq!(c.names(), ["node"]);
    }

    #[test]
    fn parentheses_group_and_and_or_without_flattening_across_operators() {
        let c = tree_of("(a and b) and (c or not d) and e\n");
        let Condition::BoolOp { op: BoolOpKind::And, values } = &c else { panic!("{c:?}") };
        assert_eq!(values.len(), 4, "{c:#?}");
        assert!(matches!(&values[2], Condition::BoolOp { op: BoolOpKind::Or, values } if values.len() == 2));
        assert_eq!(c.conjuncts().len(), 4);
        let leaves: Vec<String> = c.leaves().iter().map(|l| l.to_string()).collect();
        assert_eq!(leaves, ["a", "b", "c", "d", "e"]);
        assert!(c.has_or());
        assert_eq!(c.to_string(), "a and b and (c or not d) and e");
        // `a or b and c` binds `and` tighter.
        let c = tree_of("a or b and c\n");
        let Condition::BoolOp { op: BoolOpKind::Or, values } = &c else { panic!("{c:?}") };
        assert!(matches!(&values[1], Condition::BoolOp { op: BoolOpKind::And, .. }));
    }

    #[test]
    fn isinstance_lists_each_type_of_a_tuple() {
        let c = tree_of("isinstance(value.x, (int, float))\n");
        let Condition::IsInstance { subject, types } = &c else { panic!("{c:?}") };
        assert_eq!(subject.dotted().as_deref(), Some("value.x"));
        assert_eq!(types, &[Condition::Name { id: "int".into() }, Condition::Name { id: "float".into() }]);
        let c = tree_of("isinstance(e, http.HTTPException)\n");
        let Condition::IsInstance { types, .. } = &c else { panic!("{c:?}") };
        assert_eq!(types[0].dotted().as_deref(), Some("http.HTTPException"));
        // Any other arity is an ordinary call.
        assert!(matches!(tree_of("isinstance(x)\n"), Condition::Call { .. }));
    }

    #[test]
    fn walrus_binds_its_target_and_reads_its_value() {
        check("(n := len(items)) > 10\n", expect![[r#"
            Compare {
                left: NamedExpr {
                    target: "n",
                    value: Call {
                        func: Name {
                            id: "len",
                        },
                        args: [
                            Name {
                                id: "items",
                            },
                        ],
                        keywords: [],
                    },
                },
                ops: [
                    Gt,
                ],
                comparators: [
                    Constant {
                        value: Int(
                            10,
                        ),
                    },
                ],
            }
            names: len, items
            constants: Int(10)
        "#]]);
    }

    #[test]
    fn calls_keep_positional_and_keyword_arguments() {
        let c = tree_of("self.trap(e, strict=True)\n");
        let Condition::Call { func, args, keywords } = &c else { panic!("{c:?}") };
        assert_eq!(func.dotted().as_deref(), Some("self.trap"));
        assert_eq!(args, &[Condition::Name { id: "e".into() }]);
        assert_eq!(keywords, &[("strict".to_string(), Condition::Constant { value: Constant::Bool(true) })]);
        assert_eq!(c.names(), ["self", "e"], "a keyword name is not a read");
    }

    #[test]
    fn attribute_and_subscript_subjects_render_as_value_paths() {
        let c = tree_of("node.children[i - 1].type == token.COLON\n");
        let Condition::Compare { left, comparators, .. } = &c else { panic!("{c:?}") };
        assert_eq!(left.path().as_deref(), Some("node.children[i - 1].type"));
        assert_eq!(left.dotted(), None, "a subscript is no dotted name");
        assert_eq!(comparators[0].dotted().as_deref(), Some("token.COLON"));
        assert_eq!(c.dotted_paths(), ["node.children", "token.COLON"]);
        assert_eq!(c.names(), ["node", "i", "token"]);
        let d = tree_of("rows[0]['id'] != -1\n");
        assert_eq!(d.constants(), [&Constant::Int(0), &Constant::Str("id".into()), &Constant::Int(-1)]);
    }

    #[test]
    fn constants_carry_their_python_kind() {
        let kinds: Vec<Constant> = ["1_000", "2.5", "'a\\'b'", "b'raw'", "True", "None", "...", "99999999999999999999"]
            .iter()
            .map(|s| match tree_of(&format!("{s}\n")) {
                Condition::Constant { value } => value,
                other => panic!("{s}: {other:?}"),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                Constant::Int(1000),
                Constant::Float(2.5),
                Constant::Str("a'b".into()),
                Constant::Bytes("b'raw'".into()),
                Constant::Bool(true),
                Constant::None,
                Constant::Ellipsis,
                Constant::BigInt("99999999999999999999".into()),
            ]
        );
    }

    #[test]
    fn f_strings_are_other_and_expose_what_they_interpolate() {
        let c = tree_of("f'{user.name}-{n:>{width}}' == expected\n");
        let Condition::Compare { left, .. } = &c else { panic!("{c:?}") };
        assert!(matches!(&**left, Condition::Other { node, .. } if node == "string"), "{left:?}");
        assert_eq!(left.to_string(), "f'{user.name}-{n:>{width}}'");
        assert_eq!(c.names(), ["user", "n", "width", "expected"]);
        assert_eq!(c.dotted_paths(), ["user.name"]);
    }

    #[test]
    fn displays_of_constants_are_recognised_and_bound_names_are_read_only_where_used() {
        assert!(tree_of("(1, 'a', -2)\n").is_constant_display());
        assert!(tree_of("{'a': 1, 'b': [None]}\n").is_constant_display());
        assert!(!tree_of("(1, x)\n").is_constant_display());
        // The generator's body reads its variable; its target binds it.
        let c = tree_of("any(v > limit for v in values)\n");
        assert_eq!(c.names(), ["any", "v", "limit", "values"]);
        let c = tree_of("(lambda k: k + base)(3) > 0\n");
        assert_eq!(c.names(), ["k", "base"], "the parameter list reads nothing; the body reads `k` and `base`");
    }

    #[test]
    fn branches_and_for_loops_reach_the_facts_as_trees() {
        let src = "if (ready and\n        mode == 'a and b'):\n    pass\nfor x in node.children: print(x)\nasync def f():\n    async for y in stream():\n        pass\n";
        let a = crate::analysis::analyze(src);
        let b = &a.branches[0];
        assert_eq!(b.text, "(ready and\n        mode == 'a and b')");
        let Condition::BoolOp { op: BoolOpKind::And, values } = &b.condition else { panic!("{:?}", b.condition) };
        assert_eq!(values.len(), 2, "a string holding ' and ' is one constant");
        assert_eq!(b.condition.constants(), [&Constant::Str("a and b".into())]);
        let loops: Vec<(u32, u32, Option<String>, &str)> = a.for_loops.iter().map(|l| (l.line, l.body_line, l.iterable.dotted(), l.text.as_str())).collect();
        assert_eq!(loops, vec![(4, 4, Some("node.children".into()), "node.children"), (6, 7, None, "stream()")]);
    }
}
