//! What a run put into a document and its folder, so the user can decide
//! what to keep (pure): the provenance lens above the prefix ("Runnable: 3
//! values made up · created data.txt · Keep · Remove"), and what Remove
//! takes out: the inserted text, found again as it was inserted, and the
//! files the server itself created for that run.

use std::ops::Range;
use std::path::PathBuf;

/// One applied run's additions to a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The texts inserted into the document (prefix, driver), in document order.
    pub inserted: Vec<String>,
    /// Names the prefix binds to values it made up.
    pub made_up: Vec<String>,
    /// Files the server created for this run (not those that were there
    /// already), with the bytes it wrote: only these are ever deleted, and
    /// only while they still hold those bytes.
    pub created: Vec<(PathBuf, Vec<u8>)>,
}

/// Where each inserted text is now (byte ranges, in order), if every one
/// is still there as it was inserted; None once the user changed them
/// (then Remove would take out something else: it is not offered).
pub fn locate(doc: &str, inserted: &[String]) -> Option<Vec<Range<usize>>> {
    let mut out = Vec::new();
    let mut from = 0;
    for text in inserted.iter().filter(|t| !t.is_empty()) {
        let at = from + doc.get(from..)?.find(text.as_str())?;
        out.push(at..at + text.len());
        from = at + text.len();
    }
    (!out.is_empty()).then_some(out)
}

/// The lens's title: what was made up and what was created.
pub fn title(p: &Provenance) -> String {
    let mut parts = vec!["Runnable".to_string()];
    let mut what = Vec::new();
    match p.made_up.len() {
        0 => {}
        1 => what.push(format!("1 value made up ({})", p.made_up[0])),
        n => what.push(format!("{n} values made up")),
    }
    if !p.created.is_empty() {
        let names: Vec<String> = p.created.iter().map(|(f, _)| f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()).collect();
        let shown = if names.len() > 3 { format!("{} and {} more", names[..3].join(", "), names.len() - 3) } else { names.join(", ") };
        what.push(format!("created {shown}"));
    }
    if what.is_empty() {
        what.push("added a prefix".into());
    }
    parts.push(what.join(" · "));
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserted_text_is_found_in_order_and_only_as_it_was() {
        let doc = "import os\nx = 1\n\nprint(x)\n\nmain()\n";
        let r = locate(doc, &["x = 1\n\n".into(), "\nmain()\n".into()]).unwrap();
        assert_eq!(&doc[r[0].clone()], "x = 1\n\n");
        assert_eq!(&doc[r[1].clone()], "\nmain()\n");
        assert!(r[0].end <= r[1].start);
        assert_eq!(locate(doc, &["x = 2\n".into()]), None, "edited: not offered");
        assert_eq!(locate(doc, &["\nmain()\n".into(), "x = 1\n".into()]), None, "out of order");
    }

    #[test]
    fn the_title_says_what_is_made_up_and_created() {
        let p = Provenance { inserted: vec![], made_up: vec!["a".into(), "b".into(), "c".into()], created: vec![(PathBuf::from("/w/.runnable/data.txt"), vec![])] };
        assert_eq!(title(&p), "Runnable: 3 values made up · created data.txt");
        let p = Provenance { inserted: vec![], made_up: vec!["rows".into()], created: vec![] };
        assert_eq!(title(&p), "Runnable: 1 value made up (rows)");
    }
}
