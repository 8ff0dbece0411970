//! SQLAlchemy models the fragment queries but does not define (`select(User)`,
//! `session.query(User).filter_by(name='Jenny')`): the user's own mapped
//! classes, written with SQLAlchemy's declarative API, with the columns the
//! fragment reads, filters on and constructs them with; the tables are
//! created in the database the fragment's engine connects to, and the
//! objects it adds to a session are instances of the model. Pure.
//!
//! A hand-written class with an `id` attribute is not mapped, so
//! SQLAlchemy rejects it (`ArgumentError: Column expression ... expected`);
//! only a real declarative class makes the queries run.

use super::render::py_str;
use crate::analysis::{Literal, Usage};
use regex::Regex;
use std::sync::OnceLock;

/// A column's SQLAlchemy type, from the literal the fragment compares it
/// with or filters it by, else from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Integer,
    Float,
    Boolean,
    String,
}

impl ColumnType {
    pub fn sqlalchemy(self) -> &'static str {
        match self {
            ColumnType::Integer => "Integer",
            ColumnType::Float => "Float",
            ColumnType::Boolean => "Boolean",
            ColumnType::String => "String",
        }
    }

    fn of_literal(l: &Literal) -> Option<ColumnType> {
        match l {
            Literal::Int(_) => Some(ColumnType::Integer),
            Literal::Float(_) => Some(ColumnType::Float),
            Literal::Bool(_) => Some(ColumnType::Boolean),
            Literal::Str(_) => Some(ColumnType::String),
            _ => None,
        }
    }

    fn of_name(name: &str) -> ColumnType {
        let n = name.to_ascii_lowercase();
        let numeric = ["id", "age", "count", "quantity", "qty", "year", "stock", "number", "num"];
        let real = ["price", "amount", "total", "score", "salary", "rating", "value"];
        let word = |ws: &[&str]| ws.iter().any(|w| n == *w || n.ends_with(&format!("_{w}")));
        if word(&numeric) {
            ColumnType::Integer
        } else if word(&real) {
            ColumnType::Float
        } else if n.starts_with("is_") || n.starts_with("has_") {
            ColumnType::Boolean
        } else {
            ColumnType::String
        }
    }
}

/// One mapped class: its name, table and columns (the primary key `id`
/// first).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub name: String,
    pub table: String,
    pub columns: Vec<(String, ColumnType)>,
}

/// Query functions and methods whose argument is a mapped class.
const TAKES_A_MODEL: &[&str] = &["select", "query", "get", "insert", "update", "delete", "get_one"];

/// Whether a free name is used as a mapped class: a capitalised class name, passed to
/// a query (`select(User)`, `session.query(User)`, `session.get(User, 1)`).
pub fn is_model(name: &str, u: &Usage) -> bool {
    // `User`, not the constant `URL`.
    name.starts_with(char::is_uppercase)
        && name.contains(char::is_lowercase)
        && u.passed_to.iter().any(|a| {
            let last = a.callee.rsplit('.').next().unwrap_or(&a.callee);
            TAKES_A_MODEL.contains(&last) && a.position == Some(0)
        })
}

/// `filter_by(name='Jenny', age=3)` keywords anywhere in the fragment,
/// with the literal each is given.
pub fn filter_by_keywords(fragment: &str) -> Vec<(String, Option<Literal>)> {
    static CALL: OnceLock<Regex> = OnceLock::new();
    static ARG: OnceLock<Regex> = OnceLock::new();
    let call = CALL.get_or_init(|| Regex::new(r"\bfilter_by\(([^()]*)\)").unwrap());
    let arg = ARG.get_or_init(|| Regex::new(r#"^\s*([A-Za-z_]\w*)\s*=\s*(.+?)\s*$"#).unwrap());
    let mut out: Vec<(String, Option<Literal>)> = Vec::new();
    for c in call.captures_iter(fragment) {
        for part in c[1].split(',') {
            let Some(a) = arg.captures(part) else { continue };
            let name = a[1].to_string();
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, literal(&a[2])));
            }
        }
    }
    out
}

/// A Python literal's value, for the few kinds a filter compares with.
fn literal(text: &str) -> Option<Literal> {
    let t = text.trim();
    let quoted = t.len() >= 2 && (t.starts_with('\'') && t.ends_with('\'') || t.starts_with('"') && t.ends_with('"'));
    if quoted {
        let inner = &t[1..t.len() - 1];
        return (!inner.contains(['\\', '\'', '"'])).then(|| Literal::Str(inner.to_string()));
    }
    match t {
        "True" => return Some(Literal::Bool(true)),
        "False" => return Some(Literal::Bool(false)),
        _ => {}
    }
    if let Ok(i) = t.parse::<i64>() {
        return Some(Literal::Int(i));
    }
    t.parse::<f64>().ok().map(Literal::Float)
}

/// The model `name` stands for: the columns are the attributes the
/// fragment reads of the class (`User.id == 1`), the keywords it
/// constructs it with, and those `filters` name.
pub fn model(name: &str, u: &Usage, filters: &[(String, Option<Literal>)]) -> Model {
    let mut columns: Vec<(String, ColumnType)> = vec![("id".into(), ColumnType::Integer)];
    let mut add = |c: &str, ty: ColumnType| {
        if !columns.iter().any(|(n, _)| n == c) {
            columns.push((c.to_string(), ty));
        }
    };
    let mapped_api = ["query", "metadata", "registry"];
    for (attr, au) in &u.attrs {
        if attr.starts_with('_') || !au.calls.is_empty() || mapped_api.contains(&attr.as_str()) {
            continue;
        }
        let ty = au.compared.iter().find_map(|(_, l)| ColumnType::of_literal(l)).unwrap_or_else(|| ColumnType::of_name(attr));
        add(attr, ty);
    }
    for call in &u.calls {
        for k in &call.keywords {
            add(k, ColumnType::of_name(k));
        }
    }
    for (k, l) in filters {
        add(k, l.as_ref().and_then(ColumnType::of_literal).unwrap_or_else(|| ColumnType::of_name(k)));
    }
    Model { name: name.to_string(), table: table_name(name), columns }
}

/// `User` -> `users`, `OrderItem` -> `order_items`.
fn table_name(class: &str) -> String {
    let mut out = String::new();
    for (i, c) in class.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out.push('s');
    out
}

impl Model {
    /// The declarative class, on the prefix's `base`.
    pub fn source(&self, base: &str) -> String {
        let mut s = format!("class {}({base}):\n    __tablename__ = {}\n", self.name, py_str(&self.table));
        for (c, ty) in &self.columns {
            let key = if c == "id" { ", primary_key=True" } else { "" };
            s.push_str(&format!("    {c} = Column({}{key})\n", ty.sqlalchemy()));
        }
        s.trim_end().to_string()
    }

    /// The imports the class needs besides its base.
    pub fn imports(&self) -> Vec<String> {
        let mut out = vec!["from sqlalchemy import Column".to_string()];
        for (_, ty) in &self.columns {
            let stmt = format!("from sqlalchemy import {}", ty.sqlalchemy());
            if !out.contains(&stmt) {
                out.push(stmt);
            }
        }
        out
    }

    /// An instance as the fragment's filters find it (`User(name='Jenny')`).
    pub fn instance(&self, filters: &[(String, Option<Literal>)]) -> String {
        let args: Vec<String> = filters
            .iter()
            .filter(|(k, _)| k != "id" && self.columns.iter().any(|(c, _)| c == k))
            .filter_map(|(k, l)| {
                let v = match l.as_ref()? {
                    Literal::Str(s) => py_str(s),
                    Literal::Int(i) => i.to_string(),
                    Literal::Float(f) => format!("{f:?}"),
                    Literal::Bool(b) => if *b { "True".into() } else { "False".into() },
                    _ => return None,
                };
                Some(format!("{k}={v}"))
            })
            .collect();
        format!("{}({})", self.name, args.join(", "))
    }
}

/// `create_engine('sqlite:///app.db')`: the SQLite URL literal the
/// fragment makes its engine with, if any.
pub fn literal_sqlite_url(fragment: &str) -> Option<String> {
    static URL: OnceLock<Regex> = OnceLock::new();
    let re = URL.get_or_init(|| Regex::new(r#"create_engine\(\s*(?:'(sqlite[^'\\]*)'|"(sqlite[^"\\]*)")"#).unwrap());
    let c = re.captures(fragment)?;
    c.get(1).or(c.get(2)).map(|m| m.as_str().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;

    fn free_usage(src: &str, name: &str) -> Usage {
        analyze(src).free_names.into_iter().find(|f| f.name == name).map(|f| f.usage).unwrap_or_default()
    }

    #[test]
    fn a_queried_class_is_a_model_with_the_columns_the_fragment_reads() {
        let src = "stmt = select(User).where(User.id == 1)\nrows = session.query(User).filter_by(name='Jenny', age=3).all()\n";
        let u = free_usage(src, "User");
        assert!(is_model("User", &u));
        let filters = filter_by_keywords(src);
        let m = model("User", &u, &filters);
        assert_eq!(
            m.source("Base"),
            "class User(Base):\n    __tablename__ = 'users'\n    id = Column(Integer, primary_key=True)\n    name = Column(String)\n    age = Column(Integer)"
        );
        assert_eq!(m.instance(&filters), "User(name='Jenny', age=3)");
        assert_eq!(m.imports(), vec!["from sqlalchemy import Column", "from sqlalchemy import Integer", "from sqlalchemy import String"]);
    }

    #[test]
    fn only_capitalised_names_passed_to_queries_are_models() {
        assert!(!is_model("user", &free_usage("q = select(user)\n", "user")));
        assert!(!is_model("Config", &free_usage("x = Config.name\n", "Config")));
        assert!(!is_model("URL", &free_usage("r = requests.get(URL)\n", "URL")));
        assert!(is_model("Item", &free_usage("x = db.session.get(Item, 3)\n", "Item")));
    }

    #[test]
    fn table_names_are_plural_snake_case() {
        assert_eq!(table_name("OrderItem"), "order_items");
    }

    #[test]
    fn a_literal_sqlite_url_is_read() {
        assert_eq!(literal_sqlite_url("engine = create_engine('sqlite:///shop.db', echo=True)\n").as_deref(), Some("sqlite:///shop.db"));
        assert_eq!(literal_sqlite_url("engine = create_engine(URL)\n"), None);
    }
}
