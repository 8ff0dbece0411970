//! Elements the fragment looks for in parsed HTML: the literal arguments of
//! BeautifulSoup's `find`/`find_all`/`findAll` (a tag name, `class_=`,
//! `id=`) and simple CSS selectors of `select`/`select_one` (`tag.class`,
//! `#id`, descendants), so that a page the program is given holds them.

use super::facts::HtmlQuery;
use super::literal::{named, str_value, text};
use super::tree::Node;

const FINDERS: &[&str] = &["find", "find_all", "findAll", "findChild", "findChildren"];
const SELECTORS: &[&str] = &["select", "select_one"];

pub(crate) fn html_queries(root: Node, src: &str) -> Vec<HtmlQuery> {
    let mut out: Vec<HtmlQuery> = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "call" {
            for q in queries_of(node, src) {
                if !out.contains(&q) {
                    out.push(q);
                }
            }
        }
        stack.extend(named(node).rev());
    }
    out
}

fn queries_of(call: Node, src: &str) -> Vec<HtmlQuery> {
    let Some(func) = call.child_by_field_name("function").filter(|f| f.kind() == "attribute") else { return Vec::new() };
    let method = func.child_by_field_name("attribute").map_or("", |a| text(a, src));
    let args: Vec<Node> = call.child_by_field_name("arguments").map(|a| named(a).collect()).unwrap_or_default();
    let first = args.iter().find(|a| a.kind() != "keyword_argument").and_then(|a| str_value(*a, src));
    if FINDERS.contains(&method) {
        let keyword = |k: &str| {
            args.iter()
                .filter(|a| a.kind() == "keyword_argument")
                .find(|a| a.child_by_field_name("name").is_some_and(|n| text(n, src) == k))
                .and_then(|a| a.child_by_field_name("value"))
                .and_then(|v| str_value(v, src))
        };
        // The attributes as a dict, second by position or `attrs=`:
        // `find('table', {'class': 'data'})`.
        let attrs_dict = args
            .iter()
            .filter(|a| a.kind() != "keyword_argument")
            .nth(1)
            .copied()
            .or_else(|| {
                args.iter()
                    .filter(|a| a.kind() == "keyword_argument")
                    .find(|a| a.child_by_field_name("name").is_some_and(|n| text(n, src) == "attrs"))
                    .and_then(|a| a.child_by_field_name("value"))
            })
            .filter(|d| d.kind() == "dictionary");
        let in_dict = |k: &str| {
            attrs_dict.and_then(|d| {
                named(d)
                    .filter(|p| p.kind() == "pair")
                    .find(|p| p.child_by_field_name("key").and_then(|k| str_value(k, src)).as_deref() == Some(k))
                    .and_then(|p| p.child_by_field_name("value"))
                    .and_then(|v| str_value(v, src))
            })
        };
        let q = HtmlQuery {
            tag: first.filter(|t| is_tag(t)),
            class: keyword("class_").or_else(|| in_dict("class")),
            id: keyword("id").or_else(|| in_dict("id")),
        };
        return if q == HtmlQuery::default() { Vec::new() } else { vec![q] };
    }
    if SELECTORS.contains(&method) {
        // Each part of a descendant selector is an element of its own.
        return first.iter().flat_map(|s| s.split_whitespace().filter(|p| *p != ">").filter_map(css_part).collect::<Vec<_>>()).collect();
    }
    Vec::new()
}

fn is_tag(t: &str) -> bool {
    !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric()) && t.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// `div.item#main` as a query; anything fancier (attributes, pseudo-classes) is skipped.
fn css_part(part: &str) -> Option<HtmlQuery> {
    if part.contains(['[', ':', '*', '+', '~', ',']) {
        return None;
    }
    let mut q = HtmlQuery::default();
    let mut rest = part;
    let tag_end = rest.find(['.', '#']).unwrap_or(rest.len());
    if tag_end > 0 {
        q.tag = Some(rest[..tag_end].to_string()).filter(|t| is_tag(t));
    }
    rest = &rest[tag_end..];
    while let Some(c) = rest.chars().next() {
        let end = rest[1..].find(['.', '#']).map_or(rest.len(), |i| i + 1);
        let value = rest[1..end].to_string();
        match c {
            '.' if q.class.is_none() => q.class = Some(value),
            '#' => q.id = Some(value),
            _ => {}
        }
        rest = &rest[end..];
    }
    (q != HtmlQuery::default()).then_some(q)
}

#[cfg(test)]
mod tests {
    use crate::analysis::{analyze, HtmlQuery};

    fn q(tag: Option<&str>, class: Option<&str>, id: Option<&str>) -> HtmlQuery {
        HtmlQuery { tag: tag.map(Into::into), class: class.map(Into::into), id: id.map(Into::into) }
    }

    #[test]
    fn finders_and_simple_selectors_name_the_elements() {
        let a = analyze("t = soup.find('table', class_='wikitable sortable')\nrows = t.find_all('tr')\nx = soup.find(id='main')\nfor p in soup.select('div.item > span#price'):\n    print(p.text)\nsoup.select_one('a[href]')\nd.find(key)\n");
        assert_eq!(
            a.html_queries,
            [q(Some("table"), Some("wikitable sortable"), None), q(Some("tr"), None, None), q(None, None, Some("main")), q(Some("div"), Some("item"), None), q(Some("span"), None, Some("price"))]
        );
        // Attributes given as a dict, by position or `attrs=`.
        let a = analyze("t = soup.find('table', {'class': 'data'})\nd = soup.find_all('div', attrs={'id': 'main'})\n");
        assert_eq!(a.html_queries, [q(Some("table"), Some("data"), None), q(Some("div"), None, Some("main"))]);
    }
}
