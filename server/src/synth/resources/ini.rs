//! An INI file with the sections and options a `configparser` parser is
//! asked for (`analysis::ConfigRead`), each option a text its getter
//! converts: `getint` an integer, `getboolean` one of configparser's own
//! true words. Pure.

use crate::analysis::{ConfigSection, OptionKind};

pub fn ini(sections: &[ConfigSection]) -> Vec<u8> {
    let mut out = String::new();
    for s in sections {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("[{}]\n", s.name));
        for (option, kind) in &s.options {
            let value = match kind {
                OptionKind::Int => "42".to_string(),
                OptionKind::Float => "1.5".to_string(),
                OptionKind::Bool => "true".to_string(),
                OptionKind::Str => format!("example_{}", option.to_ascii_lowercase().replace(|c: char| !c.is_ascii_alphanumeric(), "_")),
            };
            out.push_str(&format!("{option} = {value}\n"));
        }
    }
    if out.is_empty() {
        out.push_str("[DEFAULT]\nname = Ada\n");
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_option_is_a_text_its_getter_reads() {
        let s = |name: &str, options: &[(&str, OptionKind)]| ConfigSection { name: name.into(), options: options.iter().map(|(o, k)| (o.to_string(), *k)).collect() };
        let text = String::from_utf8(ini(&[s("db", &[("port", OptionKind::Int), ("host", OptionKind::Str)]), s("flags", &[("debug", OptionKind::Bool), ("ratio", OptionKind::Float)])])).unwrap();
        assert_eq!(text, "[db]\nport = 42\nhost = example_host\n\n[flags]\ndebug = true\nratio = 1.5\n");
    }
}
