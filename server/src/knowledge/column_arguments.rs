//! Arguments that name DataFrame columns inside a string or a list of
//! strings the library parses: a statsmodels/patsy formula and the data it
//! is evaluated in, the columns a pandas reader parses as dates or selects.
//! The table (`column_arguments.txt`) is generated from the libraries'
//! signatures by `scripts/gen-column-arguments`. Pure.

use std::collections::BTreeMap;
use std::sync::OnceLock;

const TABLE_TXT: &str = include_str!("column_arguments.txt");

/// What an argument of such a callable is to the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnRole {
    /// A patsy formula: its variables are columns of the data.
    Formula,
    /// The DataFrame (or mapping) the formula's variables are read from.
    Data,
    /// Columns parsed as dates (`parse_dates`).
    Date,
    /// Columns the reader selects (`usecols`, `index_col`, `columns`).
    Column,
}

/// One parameter of a callable: its name, the position a caller may pass
/// it at (`None` when keyword-only) and its role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnParameter {
    pub name: &'static str,
    pub position: Option<usize>,
    pub role: ColumnRole,
}

/// The parameters of the callable spelled `dotted` (the module's own full
/// name: `statsmodels.formula.api.ols`, `pandas.read_csv`) that name columns.
pub fn column_parameters(dotted: &str) -> Option<&'static [ColumnParameter]> {
    static TABLE: OnceLock<BTreeMap<&'static str, Vec<ColumnParameter>>> = OnceLock::new();
    TABLE.get_or_init(|| parse(TABLE_TXT)).get(dotted).map(Vec::as_slice)
}

fn parse(text: &'static str) -> BTreeMap<&'static str, Vec<ColumnParameter>> {
    let mut out = BTreeMap::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let mut words = line.split_whitespace();
        let Some(callee) = words.next() else { continue };
        let params = words
            .filter_map(|w| {
                let mut parts = w.split(':');
                let name = parts.next()?;
                let position = parts.next()?.parse().ok();
                let role = match parts.next()? {
                    "formula" => ColumnRole::Formula,
                    "data" => ColumnRole::Data,
                    "date" => ColumnRole::Date,
                    "column" => ColumnRole::Column,
                    _ => return None,
                };
                Some(ColumnParameter { name, position, role })
            })
            .collect();
        out.insert(callee, params);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_functions_and_readers_are_in_the_generated_table() {
        let ols = column_parameters("statsmodels.formula.api.ols").unwrap();
        assert!(ols.contains(&ColumnParameter { name: "formula", position: Some(0), role: ColumnRole::Formula }));
        assert!(ols.contains(&ColumnParameter { name: "data", position: Some(1), role: ColumnRole::Data }));
        let csv = column_parameters("pandas.read_csv").unwrap();
        assert!(csv.iter().any(|p| p.name == "parse_dates" && p.role == ColumnRole::Date && p.position.is_none()));
        assert!(column_parameters("pandas.DataFrame").is_none());
    }
}
