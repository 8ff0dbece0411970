//! Columns a library reads from a DataFrame by names written inside a
//! string or a list of strings it is given: the variables of a
//! statsmodels/patsy formula (`ols('sales ~ C(city)', data=df)` reads
//! `df['sales']` and `df['city']`, the latter as categories), and the
//! columns a pandas reader parses as dates or selects
//! (`pd.read_csv('f.csv', parse_dates=['date'])`). Which callables and
//! parameters do this is the generated table
//! `knowledge::column_parameters`; callees are resolved through the
//! fragment's imports (or a conventional alias) to the library's own name.

use super::bindings::Bindings;
use super::facts::{ColumnKind, FrameColumns, FrameSource, Import, NamedColumn};
use std::collections::HashMap;
use super::literal::{line, named, str_value, text, unparen};
use super::tokens::{string_literals, tokens, TokenKind};
use super::tree::Node;
use crate::knowledge::{column_parameters, conventional_module, ColumnRole};

pub(crate) fn frame_columns(root: Node, src: &str, binds: &Bindings) -> Vec<FrameColumns> {
    let texts = string_names(root, src, binds);
    let mut out: Vec<FrameColumns> = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "call" {
            if let Some(found) = at_call(node, src, &binds.imports, &texts) {
                match out.iter_mut().find(|f| f.source == found.source) {
                    Some(f) => found.columns.into_iter().for_each(|c| add(&mut f.columns, c)),
                    None => out.push(found),
                }
            }
        }
        stack.extend(named(node).rev());
    }
    out.sort_by_key(|f| f.line);
    out
}

/// Names the fragment binds once, to a plain string (`formula = 'y ~ x'`):
/// a formula is often passed by such a name.
fn string_names(root: Node, src: &str, binds: &Bindings) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "assignment" {
            let left = node.child_by_field_name("left").filter(|l| l.kind() == "identifier");
            let right = node.child_by_field_name("right").and_then(|r| str_value(r, src));
            if let (Some(l), Some(r)) = (left, right) {
                let name = text(l, src);
                if binds.count(name) == 1 {
                    out.insert(name.to_string(), r);
                }
            }
        }
        stack.extend(named(node));
    }
    out
}

fn at_call(node: Node, src: &str, imports: &[Import], texts: &HashMap<String, String>) -> Option<FrameColumns> {
    let func = node.child_by_field_name("function")?;
    let dotted: String = text(func, src).chars().filter(|c| !c.is_whitespace()).collect();
    let params = column_parameters(&qualified(&dotted, imports)?)?;
    let args = node.child_by_field_name("arguments")?;
    let positional: Vec<Node> = named(args).filter(|a| !matches!(a.kind(), "keyword_argument" | "list_splat" | "dictionary_splat")).collect();
    let keyword = |name: &str| {
        named(args)
            .filter(|a| a.kind() == "keyword_argument")
            .find(|a| a.child_by_field_name("name").is_some_and(|n| text(n, src) == name))
            .and_then(|a| a.child_by_field_name("value"))
    };
    let argument = |p: &crate::knowledge::ColumnParameter| keyword(p.name).or_else(|| p.position.and_then(|i| positional.get(i).copied()));
    let mut columns = Vec::new();
    let mut source = None;
    for p in params {
        let Some(value) = argument(p) else { continue };
        match p.role {
            ColumnRole::Formula => {
                let value = unparen(value);
                let formula = str_value(value, src).or_else(|| (value.kind() == "identifier").then(|| texts.get(text(value, src)).cloned()).flatten());
                formula_columns(&formula.unwrap_or_default()).into_iter().for_each(|c| add(&mut columns, c));
            }
            ColumnRole::Data => source = data_source(value, src, imports),
            ColumnRole::Date | ColumnRole::Column => {
                let kind = if p.role == ColumnRole::Date { ColumnKind::Date } else { ColumnKind::Any };
                for name in string_items(value, src) {
                    add(&mut columns, NamedColumn { name, kind });
                }
            }
        }
    }
    // A reader's columns are the file's: the path is its first argument.
    let reads_file = params.iter().all(|p| matches!(p.role, ColumnRole::Date | ColumnRole::Column));
    if reads_file {
        source = positional.first().and_then(|p| str_value(*p, src)).map(FrameSource::File);
    }
    (!columns.is_empty()).then_some(FrameColumns { line: line(node), source: source?, columns })
}

/// The data argument: a plain name, or a file a pandas reader loads in place.
fn data_source(value: Node, src: &str, imports: &[Import]) -> Option<FrameSource> {
    let value = unparen(value);
    match value.kind() {
        "identifier" => Some(FrameSource::Name(text(value, src).to_string())),
        "call" => {
            let func = value.child_by_field_name("function")?;
            let dotted: String = text(func, src).chars().filter(|c| !c.is_whitespace()).collect();
            let full = qualified(&dotted, imports)?;
            let first = named(value.child_by_field_name("arguments")?).next()?;
            (full.starts_with("pandas.read_")).then(|| str_value(first, src)).flatten().map(FrameSource::File)
        }
        _ => None,
    }
}

/// A string, or a list or tuple of strings (other items skipped: `index_col=0`).
fn string_items(value: Node, src: &str) -> Vec<String> {
    let value = unparen(value);
    match value.kind() {
        "list" | "tuple" => named(value).filter_map(|i| str_value(i, src)).collect(),
        _ => str_value(value, src).into_iter().collect(),
    }
}

/// A column once; a use as a number outranks one as categories (numbers
/// serve both), the outcome (bare left-hand side) outranks both.
fn add(columns: &mut Vec<NamedColumn>, c: NamedColumn) {
    match columns.iter_mut().find(|x| x.name == c.name) {
        Some(x) => {
            if c.kind.rank() > x.kind.rank() {
                x.kind = c.kind;
            }
        }
        None => columns.push(c),
    }
}

/// `sm.ols` -> `statsmodels.formula.api.ols` through the fragment's own
/// imports, else the alias's conventional import (`pd` -> `pandas`).
pub(crate) fn qualified(dotted: &str, imports: &[Import]) -> Option<String> {
    let (head, rest) = match dotted.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (dotted, None),
    };
    let join = |base: String| match rest {
        Some(r) => format!("{base}.{r}"),
        None => base,
    };
    for i in imports.iter().rev().filter(|i| i.level == 0) {
        if i.is_from {
            if let Some((n, _)) = i.names.iter().find(|(n, a)| a.as_deref().unwrap_or(n) == head) {
                return Some(join(format!("{}.{n}", i.module)));
            }
        } else {
            match &i.alias {
                Some(a) if a == head => return Some(join(i.module.clone())),
                None if i.module.split('.').next() == Some(head) => return Some(dotted.to_string()),
                _ => {}
            }
        }
    }
    conventional_module(head).map(join)
}

/// The variables of a patsy formula: names that are not called (`C`,
/// `np.log`, `I`), not a module's (`np`), not a keyword argument's name or
/// value; `Q("a b")` names a column by a string. Inside `C(...)` (its first
/// argument) a variable is read as categories; bare on the left of `~` it
/// is the outcome.
pub fn formula_columns(formula: &str) -> Vec<NamedColumn> {
    struct Frame {
        call: Option<String>,
        arg: usize,
        keyword: bool,
    }
    let toks = tokens(formula);
    let strings = string_literals(formula);
    let word = |i: usize| &formula[toks[i].start..toks[i].end];
    let mut frames: Vec<Frame> = Vec::new();
    let mut lhs = formula.contains('~');
    let mut out = Vec::new();
    for i in 0..toks.len() {
        let next = toks.get(i + 1).map(|_| word(i + 1)).unwrap_or("");
        let kind = |frames: &[Frame]| {
            let categorical = frames.iter().any(|f| f.call.as_deref() == Some("C") && f.arg == 0);
            if categorical {
                ColumnKind::Category
            } else if lhs && frames.is_empty() {
                ColumnKind::Outcome
            } else {
                ColumnKind::Number
            }
        };
        let in_keyword = frames.last().is_some_and(|f| f.keyword);
        match toks[i].kind {
            TokenKind::Other => match word(i) {
                "(" => {
                    let call = (i > 0 && toks[i - 1].kind == TokenKind::Name).then(|| word(i - 1).to_string());
                    frames.push(Frame { call, arg: 0, keyword: false });
                }
                ")" => {
                    frames.pop();
                }
                "," => {
                    if let Some(f) = frames.last_mut() {
                        f.arg += 1;
                        f.keyword = false;
                    }
                }
                "~" if frames.is_empty() => lhs = false,
                _ => {}
            },
            TokenKind::Name if !toks[i].after_dot && !in_keyword => {
                if next == "=" {
                    if let Some(f) = frames.last_mut() {
                        f.keyword = true;
                    }
                } else if next != "(" && next != "." && is_column_name(word(i)) {
                    add(&mut out, NamedColumn { name: word(i).to_string(), kind: kind(&frames) });
                }
            }
            TokenKind::Str if !in_keyword && frames.last().is_some_and(|f| f.call.as_deref() == Some("Q") && f.arg == 0) => {
                if let Some(s) = strings.iter().find(|s| s.start == toks[i].start) {
                    let outer = &frames[..frames.len() - 1];
                    add(&mut out, NamedColumn { name: s.value.clone(), kind: kind(outer) });
                }
            }
            _ => {}
        }
    }
    out
}

/// Python's constants lex as names here; they are never columns.
fn is_column_name(w: &str) -> bool {
    !["True", "False", "None", "and", "or", "not", "in", "is", "if", "else", "lambda"].contains(&w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;

    fn cols(f: &str) -> Vec<(String, ColumnKind)> {
        formula_columns(f).into_iter().map(|c| (c.name, c.kind)).collect()
    }

    #[test]
    fn a_formula_names_its_variables_not_its_functions() {
        use ColumnKind::*;
        assert_eq!(cols("y ~ x"), [("y".into(), Outcome), ("x".into(), Number)]);
        assert_eq!(
            cols("np.log(price) ~ C(region) + C(kind, Treatment('b')) + I(age ** 2) + C(region):age - 1"),
            [("price".into(), Number), ("region".into(), Category), ("kind".into(), Category), ("age".into(), Number)]
        );
        assert_eq!(cols("Q('total sales') ~ bs(x, df=3) + center(z)"), [("total sales".into(), Outcome), ("x".into(), Number), ("z".into(), Number)]);
        // Without `~` (a `dmatrix` of the right-hand side) nothing is an outcome.
        assert_eq!(cols("a + b:c"), [("a".into(), Number), ("b".into(), Number), ("c".into(), Number)]);
    }

    #[test]
    fn formula_calls_and_readers_name_columns_of_their_data_or_file() {
        let src = "import statsmodels.formula.api as smf\nfrom statsmodels.formula.api import logit\nimport pandas as pd\nm = smf.ols(formula='y ~ C(g)', data=train).fit()\nlogit('won ~ score', frame)\nts = pd.read_csv('ts.csv', parse_dates=['day'], usecols=['day', 'v'], index_col=0)\nsmf.ols('y ~ x', data=pd.read_csv('in.csv'))\nother.ols('a ~ b', data=z)\nimport patsy\npatsy.incr_dbuilder('u ~ v', chunks)\nspec = 'hits ~ np.log(dose)'\nsmf.poisson(spec, lab)\n";
        let got: Vec<(FrameSource, Vec<(String, ColumnKind)>)> = analyze(src).frame_columns.into_iter().map(|f| (f.source, f.columns.into_iter().map(|c| (c.name, c.kind)).collect())).collect();
        use ColumnKind::*;
        assert_eq!(
            got,
            [
                (FrameSource::Name("train".into()), vec![("y".into(), Outcome), ("g".into(), Category)]),
                (FrameSource::Name("frame".into()), vec![("won".into(), Outcome), ("score".into(), Number)]),
                (FrameSource::File("ts.csv".into()), vec![("day".into(), Date), ("v".into(), Any)]),
                (FrameSource::File("in.csv".into()), vec![("y".into(), Outcome), ("x".into(), Number)]),
                (FrameSource::Name("lab".into()), vec![("hits".into(), Outcome), ("dose".into(), Number)]),
            ]
        );
    }

    #[test]
    fn callees_resolve_through_imports_and_conventional_aliases() {
        let imports = crate::analysis::analyze("import statsmodels.api as sm\nfrom statsmodels.formula import api as fa\n").imports;
        assert_eq!(qualified("sm.OLS.from_formula", &imports).as_deref(), Some("statsmodels.api.OLS.from_formula"));
        assert_eq!(qualified("fa.ols", &imports).as_deref(), Some("statsmodels.formula.api.ols"));
        assert_eq!(qualified("pd.read_csv", &imports).as_deref(), Some("pandas.read_csv"));
        assert_eq!(qualified("nobody.f", &imports), None);
    }
}
