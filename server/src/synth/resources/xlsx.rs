//! An Excel workbook (`.xlsx`: Office Open XML, a zip of XML parts) with
//! one sheet holding a table, header row first, written with the `zip`
//! crate through `archive::zip`. Text cells are inline strings, so no
//! shared-strings part is needed; openpyxl (what `pd.read_excel` uses)
//! reads it as Excel writes it. Pure.

use crate::synth::value::Value;

const CONTENT_TYPES: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#;
const ROOT_RELS: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#;
const WORKBOOK: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
const WORKBOOK_RELS: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#;

/// A workbook whose first sheet is `table` (columns with their values).
pub fn xlsx(table: &[(String, Vec<Value>)]) -> Option<Vec<u8>> {
    let rows = table.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
    let mut sheet = String::from(r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#);
    for r in 0..=rows {
        sheet.push_str(&format!(r#"<row r="{}">"#, r + 1));
        for (c, (name, values)) in table.iter().enumerate() {
            let at = format!("{}{}", column_letters(c), r + 1);
            let cell = if r == 0 { Some(Value::Str(name.clone())) } else { values.get(r - 1).cloned() };
            match cell {
                Some(Value::Int(i)) => sheet.push_str(&format!(r#"<c r="{at}"><v>{i}</v></c>"#)),
                Some(Value::Float(f)) => sheet.push_str(&format!(r#"<c r="{at}"><v>{f:?}</v></c>"#)),
                Some(Value::Bool(b)) => sheet.push_str(&format!(r#"<c r="{at}" t="b"><v>{}</v></c>"#, u8::from(b))),
                Some(Value::Str(s)) => sheet.push_str(&format!(r#"<c r="{at}" t="inlineStr"><is><t>{}</t></is></c>"#, escape(&s))),
                _ => {}
            }
        }
        sheet.push_str("</row>");
    }
    sheet.push_str("</sheetData></worksheet>");
    let part = |n: &str, s: &str| (n.to_string(), s.as_bytes().to_vec());
    super::archive::zip(&[
        part("[Content_Types].xml", CONTENT_TYPES),
        part("_rels/.rels", ROOT_RELS),
        part("xl/workbook.xml", WORKBOOK),
        part("xl/_rels/workbook.xml.rels", WORKBOOK_RELS),
        part("xl/worksheets/sheet1.xml", &sheet),
    ])
}

/// `0` -> `A`, `25` -> `Z`, `26` -> `AA`.
fn column_letters(mut i: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'A' + (i % 26) as u8);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sheet_holds_the_header_and_the_rows() {
        assert_eq!([0, 25, 26, 27, 701].map(column_letters), ["A", "Z", "AA", "AB", "ZZ"]);
        let table = vec![("n".to_string(), vec![Value::Int(1), Value::Int(2)]), ("who".to_string(), vec![Value::Str("a<b".into()), Value::Str("c".into())])];
        let bytes = xlsx(&table).unwrap();
        let mut z = ::zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let mut sheet = String::new();
        std::io::Read::read_to_string(&mut z.by_name("xl/worksheets/sheet1.xml").unwrap(), &mut sheet).unwrap();
        assert!(sheet.contains(r#"<c r="B1" t="inlineStr"><is><t>who</t></is></c>"#));
        assert!(sheet.contains(r#"<c r="A3"><v>2</v></c>"#));
        assert!(sheet.contains("a&lt;b"));
        assert!(z.by_name("[Content_Types].xml").is_ok() && z.by_name("xl/workbook.xml").is_ok());
    }
}
