//! A plain-text table of numbers for NumPy's text readers (`np.loadtxt`,
//! `np.genfromtxt`), laid out the way the call's keywords say: the lines it
//! skips (`skiprows`, `skip_header`, `skip_footer`), its separator
//! (`delimiter`), the columns it picks (`usecols`) and the type it parses
//! (`dtype`). A header line is only written where the call skips one, so a
//! reader that skips nothing gets numbers from the first line.

use crate::analysis::KeywordArg;

/// Columns when the call picks none: enough for `data[:, 2] / data[:, 1]`.
const COLUMNS: usize = 4;
const ROWS: usize = 6;
const NAMES: [&str; 8] = ["x", "y", "z", "w", "u", "v", "s", "t"];

/// Whether a callee's last part is a NumPy text reader of numbers.
pub fn reads_numbers(how: &str) -> bool {
    matches!(how, "loadtxt" | "genfromtxt")
}

/// The table's text.
pub fn table(keywords: &[KeywordArg]) -> Vec<u8> {
    let get = |n: &str| keywords.iter().find(|k| k.name == n);
    let count = |names: &[&str]| names.iter().find_map(|n| get(n)).and_then(|k| k.text.trim().parse::<usize>().ok()).unwrap_or(0).min(20);
    let header = count(&["skiprows", "skip_header"]);
    let footer = count(&["skip_footer", "skipfooter"]);
    let sep = get("delimiter").and_then(|k| k.string.clone()).filter(|s| !s.is_empty() && !s.contains('\n')).unwrap_or_else(|| " ".into());
    let columns = get("usecols").map(|k| widest_column(&k.text)).unwrap_or(0).max(COLUMNS).min(NAMES.len().max(COLUMNS) + 16);
    let ints = get("dtype").is_some_and(|k| {
        let t = k.string.as_deref().unwrap_or(&k.text).to_ascii_lowercase();
        t.contains("int") || t.starts_with('i') || t.starts_with('u')
    });
    let names_line = (0..columns).map(|c| NAMES.get(c).map(|s| s.to_string()).unwrap_or_else(|| format!("c{c}"))).collect::<Vec<_>>().join(&sep);
    let mut out = String::new();
    for i in 0..header {
        // The last skipped line names the columns, as a data file's header does.
        out.push_str(if i + 1 == header { &names_line } else { "# written so that the reader has lines to skip" });
        out.push('\n');
    }
    // `genfromtxt(..., names=True)` reads the names from the first line it keeps.
    if get("names").is_some_and(|k| k.text == "True") {
        out.push_str(&names_line);
        out.push('\n');
    }
    for r in 0..ROWS {
        let row = (0..columns)
            .map(|c| if ints { ((r + 1) * (c + 2)).to_string() } else { format!("{:.2}", (r as f64 + 1.0) * (c as f64 + 1.5) - c as f64 * 0.75) })
            .collect::<Vec<_>>()
            .join(&sep);
        out.push_str(&row);
        out.push('\n');
    }
    for _ in 0..footer {
        out.push_str("# end of table\n");
    }
    out.into_bytes()
}

/// One more than the largest column index `usecols` names (`(0, 2)`, `[1,3]`, `2`).
fn widest_column(text: &str) -> usize {
    text.split(|c: char| !c.is_ascii_digit()).filter_map(|d| d.parse::<usize>().ok()).map(|i| i + 1).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kw(name: &str, text: &str) -> KeywordArg {
        let string = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')).map(|t| t.replace("\\t", "\t"));
        KeywordArg { name: name.into(), text: text.into(), string }
    }

    fn lines(keywords: &[KeywordArg]) -> Vec<String> {
        String::from_utf8(table(keywords)).unwrap().lines().map(str::to_string).collect()
    }

    #[test]
    fn numbers_from_the_first_line_unless_lines_are_skipped() {
        let plain = lines(&[]);
        assert_eq!(plain.len(), ROWS);
        assert!(plain.iter().all(|l| l.split(' ').all(|v| v.parse::<f64>().is_ok())), "{plain:?}");
        assert!(plain[0].split(' ').count() >= 3);
        let skipped = lines(&[kw("skiprows", "1")]);
        assert_eq!(skipped[0], "x y z w");
        assert!(skipped[1..].iter().all(|l| l.split(' ').all(|v| v.parse::<f64>().is_ok())));
        assert_eq!(lines(&[kw("skip_header", "2"), kw("skip_footer", "1")]).len(), ROWS + 3);
        assert_eq!(lines(&[kw("names", "True")])[0], "x y z w");
    }

    #[test]
    fn separator_type_and_columns_follow_the_call() {
        let t = lines(&[kw("delimiter", "','"), kw("dtype", "np.int32"), kw("usecols", "(0, 5)")]);
        let cells: Vec<&str> = t[0].split(',').collect();
        assert_eq!(cells.len(), 6);
        assert!(cells.iter().all(|c| c.parse::<i64>().is_ok()), "{t:?}");
        assert!(lines(&[kw("delimiter", "'\\t'")])[0].contains('\t'));
        // A column divided by another is never zero.
        assert!(lines(&[]).iter().all(|l| l.split(' ').all(|v| v.parse::<f64>().unwrap() != 0.0)));
    }
}
