//! Secrets never leave the machine: values that look like keys, tokens,
//! passwords or private URLs are replaced by placeholders before any text
//! goes to a model (or, for the memory store, to disk). Pure; one
//! [`Redactor`] keeps the same placeholder for the same secret, so a key the
//! fragment uses twice stays one name in the prompt.

use regex::Regex;
use std::sync::OnceLock;

/// The kinds of secret, as the placeholder names them.
const KEY: &str = "SECRET";
const URL: &str = "PRIVATE_URL";

struct Patterns {
    /// Whole tokens whose shape gives them away (`sk-...`, `ghp_...`, JWTs).
    tokens: Vec<Regex>,
    /// `password = "..."`, `"api_key": "..."`: the quoted value (group `v`).
    assigned: Regex,
    /// `Authorization: Bearer <v>` and friends.
    bearer: Regex,
    /// PEM private keys, whole.
    pem: Regex,
    /// `scheme://user:password@host`: the user info (group `v`).
    userinfo: Regex,
    /// Any URL, to test its host.
    url: Regex,
    /// Quoted, long, letters and digits mixed, no spaces: a key by its looks.
    opaque: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = |s: &str| Regex::new(s).expect("redaction pattern");
        Patterns {
            tokens: [
                r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}",
                r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
                r"\bgh[pousr]_[A-Za-z0-9]{20,}",
                r"\bgithub_pat_[A-Za-z0-9_]{20,}",
                r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",
                r"\bAIza[0-9A-Za-z_\-]{30,}",
                r"\bglpat-[A-Za-z0-9_\-]{20,}",
                r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
                r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
            ]
            .iter()
            .map(|s| re(s))
            .collect(),
            assigned: re(concat!(
                r#"(?i)(?:pass(?:word|wd)?|pwd|secret|token|api[_\-]?key|access[_\-]?key|auth(?:orization)?|credentials?|private[_\-]?key|client[_\-]?secret)"#,
                r#"[A-Za-z0-9_\-]*["']?\s*[:=]\s*[rbuf]?(?P<q>["'])(?P<v>[^"'\n]{4,})["']"#
            )),
            bearer: re(r"(?i)\b(?:bearer|token|basic)\s+(?P<v>[A-Za-z0-9_\-\.=+/]{16,})"),
            pem: re(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"),
            userinfo: re(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<v>[^/\s:@'\x22]+:[^/\s@'\x22]+)@"),
            url: re(r#"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'"<>()]+"#),
            opaque: re(r#"["'](?P<v>[A-Za-z0-9+/_\-]{32,}={0,2})["']"#),
        }
    })
}

/// Replaces secrets by numbered placeholders (`REDACTED_SECRET_1`,
/// `REDACTED_PRIVATE_URL_1`), the same secret by the same placeholder.
#[derive(Debug, Default, Clone)]
pub struct Redactor {
    seen: Vec<(String, String)>,
}

impl Redactor {
    pub fn new() -> Self {
        Self::default()
    }

    /// How many distinct secrets were replaced so far.
    pub fn count(&self) -> usize {
        self.seen.len()
    }

    fn placeholder(&mut self, kind: &str, secret: &str) -> String {
        if let Some((_, p)) = self.seen.iter().find(|(s, _)| s == secret) {
            return p.clone();
        }
        let n = self.seen.iter().filter(|(_, p)| p.starts_with(&format!("REDACTED_{kind}_"))).count() + 1;
        let p = format!("REDACTED_{kind}_{n}");
        self.seen.push((secret.to_string(), p.clone()));
        p
    }

    /// `text` with every secret replaced.
    pub fn redact(&mut self, text: &str) -> String {
        let p = patterns();
        let mut out = p.pem.replace_all(text, |c: &regex::Captures| self.placeholder(KEY, &c[0])).into_owned();
        for t in &p.tokens {
            out = t.replace_all(&out, |c: &regex::Captures| self.placeholder(KEY, &c[0])).into_owned();
        }
        out = replace_group(&p.userinfo, &out, |s| self.placeholder(KEY, s));
        out = p
            .url
            .replace_all(&out, |c: &regex::Captures| if is_private_url(&c[0]) { self.placeholder(URL, &c[0]) } else { c[0].to_string() })
            .into_owned();
        out = replace_group(&p.assigned, &out, |s| if s.starts_with("REDACTED_") { s.to_string() } else { self.placeholder(KEY, s) });
        out = replace_group(&p.bearer, &out, |s| if s.starts_with("REDACTED_") { s.to_string() } else { self.placeholder(KEY, s) });
        replace_group(&p.opaque, &out, |s| if looks_like_a_key(s) { self.placeholder(KEY, s) } else { s.to_string() })
    }
}

/// `text` with every secret replaced (a fresh numbering).
pub fn redact(text: &str) -> String {
    Redactor::new().redact(text)
}

/// Replace only the capture group `v` of each match of `re`.
fn replace_group(re: &Regex, text: &str, mut f: impl FnMut(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for c in re.captures_iter(text) {
        let Some(v) = c.name("v") else { continue };
        out.push_str(&text[last..v.start()]);
        out.push_str(&f(v.as_str()));
        last = v.end();
    }
    out.push_str(&text[last..]);
    out
}

/// Mixed letters and digits with few repeats: a key, not a word or a path.
fn looks_like_a_key(s: &str) -> bool {
    let digits = s.chars().filter(char::is_ascii_digit).count();
    let letters = s.chars().filter(char::is_ascii_alphabetic).count();
    let distinct = s.chars().collect::<std::collections::BTreeSet<_>>().len();
    digits >= 4 && letters >= 8 && distinct >= 12 && !s.contains('/')
}

/// A URL whose host is on a private network or an internal name: it says
/// where the user's systems are.
pub fn is_private_url(url: &str) -> bool {
    let after = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = after.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("");
    let host = host_port.split(':').next().unwrap_or("").to_ascii_lowercase();
    if let Ok(ip) = host.parse::<std::net::Ipv4Addr>() {
        return ip.is_private() || ip.is_link_local();
    }
    const INTERNAL: &[&str] = &[".internal", ".local", ".corp", ".lan", ".intranet", ".intra", ".home.arpa", ".private"];
    INTERNAL.iter().any(|s| host.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tokens_and_passwords_become_placeholders() {
        let src = concat!(
            "openai.api_key = \"sk-proj-abcdefghijklmnopqrstuvwx1234\"\n",
            "AWS = 'AKIAIOSFODNN7EXAMPLE'\n",
            "gh = \"ghp_0123456789abcdefghijABCDEFGHIJ\"\n",
            "conn = psycopg2.connect(password=\"hunter2!x\", user='bob')\n",
            "headers = {'Authorization': 'Bearer abcdef0123456789abcdef'}\n",
            "cfg = {\"client_secret\": \"s3cr3t-value\"}\n",
        );
        let out = redact(src);
        for secret in ["sk-proj-abcdefghijklmnopqrstuvwx1234", "AKIAIOSFODNN7EXAMPLE", "ghp_0123456789", "hunter2!x", "abcdef0123456789abcdef", "s3cr3t-value"] {
            assert!(!out.contains(secret), "{secret} left in:\n{out}");
        }
        assert!(out.contains("user='bob'"), "what is no secret stays: {out}");
        assert!(out.contains("conn = psycopg2.connect(password=\"REDACTED_SECRET_"), "the code still parses: {out}");
    }

    #[test]
    fn private_urls_and_credentials_in_urls_go_public_urls_stay() {
        let src = "a = 'https://build.corp/api/v1'\nb = 'http://10.0.3.4:8080/x'\nc = 'postgres://admin:pw123@db.example.com/app'\nd = 'https://api.github.com/repos'\n";
        let out = redact(src);
        assert!(!out.contains("build.corp") && !out.contains("10.0.3.4") && !out.contains("pw123"), "{out}");
        assert!(out.contains("https://api.github.com/repos"), "{out}");
        assert!(out.contains("@db.example.com/app"), "only the credentials go: {out}");
    }

    #[test]
    fn the_same_secret_keeps_its_placeholder_and_data_is_left_alone() {
        let mut r = Redactor::new();
        let a = r.redact("k = 'sk-abcdefghijklmnopqrstuvwxyz'");
        let b = r.redact("use('sk-abcdefghijklmnopqrstuvwxyz')");
        assert!(a.contains("REDACTED_SECRET_1") && b.contains("REDACTED_SECRET_1"), "{a} {b}");
        assert_eq!(r.count(), 1);
        let data = "name = 'a_rather_long_identifier_without_digits_here'\npath = '/usr/share/dict/words'\n";
        assert_eq!(redact(data), data);
        assert!(!redact("x = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'").contains("9f86d08"));
    }

    #[test]
    fn a_private_key_goes_whole() {
        let src = "KEY = '''-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----'''";
        let out = redact(src);
        assert!(!out.contains("MIIEow"), "{out}");
    }
}
