//! A CSV (or TSV) file holding the columns the fragment reads from what it
//! loads: a DataFrame `pd.read_csv` makes (`df['price'] * df['qty']`), the
//! rows of a `csv.DictReader` (`row['date']`), each column's cells of the
//! kind its use asks for (a date for `strptime`, a number for arithmetic).
//! The value comes from `infer` as for any other name; this only lays it
//! out as rows.

use crate::synth::value::Value;

/// The file's text for `value` (a DataFrame call or a list of mappings),
/// `None` when it has no columns by name.
pub fn csv(value: &Value, sep: char) -> Option<String> {
    let columns: Vec<(String, Vec<Value>)> = match value {
        // `pd.DataFrame({'a': [1, 2], 'b': [...]})`: columns of cells.
        Value::Call { func, args, .. } if func.ends_with("DataFrame") => {
            let Some(Value::Dict(columns)) = args.first() else { return None };
            columns
                .iter()
                .map(|(k, v)| match v {
                    Value::List(c) | Value::Tuple(c) => Some((name(k)?, c.clone())),
                    _ => None,
                })
                .collect::<Option<_>>()?
        }
        // Rows as mappings (a DictReader's): the header is every key seen.
        Value::List(items) if !items.is_empty() => {
            let mut columns: Vec<(String, Vec<Value>)> = Vec::new();
            for item in items {
                let Value::Dict(kv) = item else { return None };
                for (k, _) in kv {
                    let k = name(k)?;
                    if !columns.iter().any(|(c, _)| *c == k) {
                        columns.push((k, Vec::new()));
                    }
                }
            }
            for item in items {
                let Value::Dict(kv) = item else { return None };
                for (c, cells) in columns.iter_mut() {
                    cells.push(kv.iter().find(|(k, _)| name(k).as_deref() == Some(c.as_str())).map(|(_, v)| v.clone()).unwrap_or(Value::None));
                }
            }
            columns
        }
        _ => return None,
    };
    self::columns(&columns, sep)
}

/// Named columns of cells as delimited text, a header first; a shorter
/// column repeats its last cell. `None` without columns.
pub fn columns(columns: &[(String, Vec<Value>)], sep: char) -> Option<String> {
    if columns.is_empty() {
        return None;
    }
    let n = columns.iter().map(|(_, c)| c.len()).max().unwrap_or(0);
    let mut w = ::csv::WriterBuilder::new().delimiter(sep as u8).from_writer(Vec::new());
    w.write_record(columns.iter().map(|(c, _)| c.as_str())).ok()?;
    for i in 0..n {
        w.write_record(columns.iter().map(|(_, c)| c.get(i).or(c.last()).map(cell).unwrap_or_default())).ok()?;
    }
    String::from_utf8(w.into_inner().ok()?).ok()
}

/// `content` (a table this module wrote) with one more column `column`,
/// its cells `cells` repeated down the rows; `None` when it has the column
/// already or is not such a table.
pub fn with_column(content: &[u8], sep: char, column: &str, cells: &[&str]) -> Option<Vec<u8>> {
    let mut r = ::csv::ReaderBuilder::new().delimiter(sep as u8).has_headers(false).from_reader(content);
    let mut records: Vec<Vec<String>> = r.records().map(|x| x.map(|x| x.iter().map(str::to_string).collect())).collect::<Result<_, _>>().ok()?;
    let (header, rows) = records.split_first_mut()?;
    if header.iter().any(|h| h == column) || rows.is_empty() || cells.is_empty() {
        return None;
    }
    header.push(column.to_string());
    for (i, row) in rows.iter_mut().enumerate() {
        row.push(cells[i % cells.len()].to_string());
    }
    let mut w = ::csv::WriterBuilder::new().delimiter(sep as u8).from_writer(Vec::new());
    for rec in &records {
        w.write_record(rec).ok()?;
    }
    w.into_inner().ok()
}

fn name(k: &Value) -> Option<String> {
    match k {
        Value::Str(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// A cell as a reader parses it back: numbers as numbers, text as text.
fn cell(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Int(n) => n.to_string(),
        // `4.0`, not `4`: a float column stays one when read back.
        Value::Float(f) => format!("{f:?}"),
        Value::Bool(b) => if *b { "True".into() } else { "False".into() },
        Value::None => String::new(),
        // `datetime.date(2024, 1, 15)`: the ISO text a date parser reads.
        Value::Call { func, args, .. } if func.ends_with("date") || func.ends_with("datetime") || func.ends_with("Timestamp") => {
            let n: Vec<i64> = args.iter().filter_map(|a| if let Value::Int(n) = a { Some(*n) } else { None }).collect();
            match n.as_slice() {
                [y, m, d, ..] => format!("{y:04}-{m:02}-{d:02}"),
                _ => String::new(),
            }
        }
        other => other.to_json().map(|j| j.to_string()).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::value::call;

    #[test]
    fn a_frame_is_written_column_by_column() {
        let frame = call(
            "pd.DataFrame",
            vec![Value::Dict(vec![
                (Value::Str("price".into()), Value::List(vec![Value::Float(2.5), Value::Float(4.0)])),
                (Value::Str("region".into()), Value::List(vec![Value::Str("north, east".into()), Value::Str("south".into())])),
            ])],
            "import pandas as pd",
        );
        assert_eq!(csv(&frame, ',').unwrap(), "price,region\n2.5,\"north, east\"\n4.0,south\n");
    }

    #[test]
    fn rows_as_mappings_share_one_header() {
        let row = |d: &str, a: i64| Value::Dict(vec![(Value::Str("date".into()), Value::Str(d.into())), (Value::Str("amount".into()), Value::Int(a))]);
        assert_eq!(csv(&Value::List(vec![row("2024-01-15", 3), row("2024-07-01", 5)]), '\t').unwrap(), "date\tamount\n2024-01-15\t3\n2024-07-01\t5\n");
        assert!(csv(&Value::List(vec![Value::Int(1)]), ',').is_none(), "no columns by name");
    }

    #[test]
    fn a_column_is_added_down_every_row() {
        let t = with_column(b"a,b\n1,2\n3,4\n5,6\n", ',', "region", &["north", "south"]).unwrap();
        assert_eq!(String::from_utf8(t).unwrap(), "a,b,region\n1,2,north\n3,4,south\n5,6,north\n");
        assert!(with_column(b"a,b\n1,2\n", ',', "a", &["x"]).is_none(), "already there");
    }
}
