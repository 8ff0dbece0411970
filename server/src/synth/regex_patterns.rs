//! A compiled regular expression for a free name used as one: an object
//! whose `match`, `search` or `fullmatch` gives something read as an
//! `re.Match` (`m.group(1)`, `m.start(1)`, `m.groupdict()["when"]`), or
//! whose `finditer` yields such things. It is built with `re.compile`,
//! never mimicked by a class whose `match` returns a hand-written match
//! (issue 14), and its groups are the ones the fragment reads: the named
//! groups it asks for by name, as many numbered groups as the highest
//! index it reads. Pure.

use crate::analysis::{Key, Usage};

use super::value::Value;

/// Methods of `re.Pattern` that give one match, and those that give many.
pub(super) const ONE_MATCH: &[&str] = &["match", "search", "fullmatch"];
const MANY_MATCHES: &[&str] = &["finditer"];

/// Members of an `re.Match`: read from what `match`, `search` or
/// `fullmatch` gives, they say regular expression (a search index's
/// `search` gives hits, not something with a `start` and a `group`).
const MATCH_MEMBERS: &[&str] = &["group", "groups", "groupdict", "start", "end", "span", "lastindex", "lastgroup", "expand"];
/// Members of a match that take a group (its number or its name) first.
const GROUP_ARGUMENT: &[&str] = &["group", "start", "end", "span"];

/// Two compiled patterns for a name used as `usage`, when its use says it
/// is one: the first matches plain text (words), the second has the same
/// groups but matches only digits, so a condition on the match can go
/// either way (`if m:` ... `else:`) while the inputs stay plain text.
pub fn compiled(usage: &Usage) -> Option<[Value; 2]> {
    let matches = match_usages(usage);
    if matches.is_empty() || !matches.iter().any(|m| read_as_match(m)) {
        return None;
    }
    let groups = Groups::read(&matches);
    let whole = usage.attrs.contains_key("fullmatch");
    Some([pattern(&groups, r"\w+", whole), pattern(&groups, r"\d+", whole)])
}

/// How each match the name's methods give is used.
fn match_usages(usage: &Usage) -> Vec<&Usage> {
    let mut out = Vec::new();
    for (name, u) in &usage.attrs {
        if ONE_MATCH.contains(&name.as_str()) {
            out.extend(u.returns.as_deref());
        } else if MANY_MATCHES.contains(&name.as_str()) {
            out.extend(u.returns.as_deref().and_then(|r| r.element.as_deref()));
        }
    }
    out
}

fn read_as_match(m: &Usage) -> bool {
    m.attrs.keys().any(|a| MATCH_MEMBERS.contains(&a.as_str()))
}

/// The groups the fragment reads from its matches.
#[derive(Default)]
struct Groups {
    named: Vec<String>,
    numbered: usize,
}

impl Groups {
    fn read(matches: &[&Usage]) -> Groups {
        let mut g = Groups::default();
        for m in matches {
            for member in GROUP_ARGUMENT {
                if let Some(u) = m.attrs.get(*member) {
                    u.first_str_args.iter().for_each(|n| g.name(n));
                    u.first_int_args.iter().for_each(|&i| g.number(i));
                }
            }
            // `m["when"]`, `m[1]`: a match is subscripted by group too.
            g.keys(&m.subscripts);
            if let Some(d) = m.attrs.get("groupdict").and_then(|u| u.returns.as_deref()) {
                g.keys(&d.subscripts);
                if let Some(get) = d.attrs.get("get") {
                    get.first_str_args.iter().for_each(|n| g.name(n));
                }
            }
            if let Some(t) = m.attrs.get("groups").and_then(|u| u.returns.as_deref()) {
                g.numbered = g.numbered.max(t.unpack.unwrap_or(0));
                for (k, _) in &t.subscripts {
                    if let Key::Int(i) = k {
                        g.number(i + 1);
                    }
                }
            }
        }
        g
    }

    fn name(&mut self, n: &str) {
        let ident = n.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if ident && !self.named.iter().any(|x| x == n) {
            self.named.push(n.to_string());
        }
    }

    fn number(&mut self, i: i64) {
        // Group 0 is the whole match; more groups than a short line has
        // words would never match it.
        if (1..=8).contains(&i) {
            self.numbered = self.numbered.max(i as usize);
        }
    }

    fn keys(&mut self, subscripts: &[(Key, Usage)]) {
        for (k, _) in subscripts {
            match k {
                Key::Str(n) => self.name(n),
                Key::Int(i) => self.number(*i),
                _ => {}
            }
        }
    }
}

/// `re.compile(r'...')` with the groups, each matching `unit`, apart by
/// non-word characters; leading blanks are skipped as a match would need.
fn pattern(groups: &Groups, unit: &str, whole: bool) -> Value {
    let count = groups.numbered.max(groups.named.len());
    let parts: Vec<String> = (0..count)
        .map(|i| match groups.named.get(i) {
            Some(n) => format!("(?P<{n}>{unit})"),
            None => format!("({unit})"),
        })
        .collect();
    let body = if parts.is_empty() { unit.to_string() } else { parts.join(r"\W+") };
    let tail = if whole { ".*" } else { "" };
    Value::Expr {
        code: format!(r"re.compile(r'\s*{body}{tail}')"),
        imports: vec!["import re".into()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;

    fn compiled_for(src: &str, name: &str) -> Option<[String; 2]> {
        let a = analyze(src);
        let f = a.free_names.iter().find(|f| f.name == name).unwrap();
        compiled(&f.usage).map(|vs| {
            vs.map(|v| match v {
                Value::Expr { code, .. } => code,
                other => panic!("{other:?}"),
            })
        })
    }

    #[test]
    fn a_match_read_by_group_number_needs_that_many_groups() {
        let src = "m = LEADING_RE.match(line)\nif m:\n    i = m.start(2)\n";
        assert_eq!(
            compiled_for(src, "LEADING_RE"),
            Some([r"re.compile(r'\s*(\w+)\W+(\w+)')".to_string(), r"re.compile(r'\s*(\d+)\W+(\d+)')".to_string()])
        );
    }

    #[test]
    fn names_read_from_the_match_become_named_groups() {
        let src = "m = pat.search(text)\nd = m.groupdict()\nwhen = d['when']\nwho = m.group('who')\n";
        let [plain, _] = compiled_for(src, "pat").unwrap();
        assert_eq!(plain, r"re.compile(r'\s*(?P<who>\w+)\W+(?P<when>\w+)')");
    }

    #[test]
    fn matches_yielded_by_finditer_count_and_fullmatch_spans_the_text() {
        let src = "for m in rx.finditer(s):\n    print(m.group(0))\nok = rx.fullmatch(s)\n";
        let [plain, _] = compiled_for(src, "rx").unwrap();
        assert_eq!(plain, r"re.compile(r'\s*\w+.*')");
    }

    #[test]
    fn a_match_taken_only_when_there_is_a_pattern_is_still_read_as_one() {
        let src = "m = pat.search(path) if pat else None\nok = bool(m and m.group(0))\n";
        assert!(compiled_for(src, "pat").is_some());
    }

    #[test]
    fn a_search_whose_result_is_not_read_as_a_match_is_not_a_pattern() {
        // `index.search(q)` of the user's own search index: nothing says regex.
        assert_eq!(compiled_for("hits = index.search(q)\nfor h in hits:\n    print(h.title)\n", "index"), None);
    }
}
