//! An HTML document holding the elements the fragment looks for
//! (`analysis::html_queries`: `find('table', {'class': 'data'})`,
//! `select('div.item')`): for an HTML file it reads, HTML text a name holds
//! (rule `html-documents`) and the offline transport's page. Pure.

use crate::analysis::HtmlQuery;

/// The document: a small page, then one element per query with content
/// of the kind its tag holds. A table has a header row and rows whose
/// first cell is text and whose other cells are numbers, the way scraped
/// tables are read (`cells[0]`, `float(cells[2])`).
pub fn document(queries: &[HtmlQuery]) -> String {
    let clean = |s: &str| s.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '_')).collect::<String>();
    let mut body = String::from("<html><head><title>Example</title></head><body><h1>Title</h1><p class=\"intro\">Hello</p><a href=\"/a\">A</a>");
    for q in queries {
        let tag = q.tag.as_deref().map(clean).filter(|t| !t.is_empty()).unwrap_or_else(|| "div".into());
        let mut attrs = String::new();
        if let Some(c) = &q.class {
            attrs.push_str(&format!(" class=\"{}\"", clean(c)));
        }
        if let Some(i) = &q.id {
            attrs.push_str(&format!(" id=\"{}\"", clean(i)));
        }
        let inner = match tag.as_str() {
            "table" | "tbody" => TABLE_ROWS,
            "tr" => "<td>Ada</td><td>1</td><td>2.5</td><td>10</td>",
            "ul" | "ol" => "<li>First</li><li>Second</li>",
            "select" => "<option value=\"1\">One</option>",
            "a" => "Link",
            "img" | "br" | "hr" | "input" | "meta" => "",
            _ => "Example text",
        };
        let href = if tag == "a" { " href=\"/page\"" } else { "" };
        body.push_str(&format!("<{tag}{attrs}{href}>{inner}</{tag}>"));
    }
    body.push_str("</body></html>");
    body
}

const TABLE_ROWS: &str = "<tr><th>Name</th><th>Count</th><th>Value</th><th>Total</th></tr>\
<tr><td>Ada</td><td>1</td><td>2.5</td><td>10</td></tr>\
<tr><td>Bob</td><td>2</td><td>3.5</td><td>20</td></tr>";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_looked_for_by_class_has_a_header_and_numeric_cells() {
        let q = HtmlQuery { tag: Some("table".into()), class: Some("data".into()), id: None };
        let doc = document(&[q]);
        assert!(doc.contains("<table class=\"data\"><tr><th>Name</th>"), "{doc}");
        assert!(doc.contains("<td>Ada</td><td>1</td><td>2.5</td>"), "{doc}");
    }
}
