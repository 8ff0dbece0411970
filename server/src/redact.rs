//! Secrets out of text: before it goes to a model (`llm`) and before it is
//! written to the memory store (`memory`), one redaction for both. Values
//! that look like keys, tokens, passwords, credentials in URLs or private
//! URLs become numbered placeholders (`REDACTED_SECRET_1`,
//! `REDACTED_PRIVATE_URL_1`): identifiers, so redacted code still parses, and
//! one [`Redactor`] gives the same secret the same placeholder, so a key the
//! fragment uses twice stays one name. Pure.

use regex::{Captures, Regex};
use std::sync::OnceLock;

/// The kinds of secret, as the placeholder names them.
const KEY: &str = "SECRET";
const URL: &str = "PRIVATE_URL";
/// Every placeholder starts so (a value already redacted is left alone).
const PLACEHOLDER_PREFIX: &str = "REDACTED_";

/// Words that name a secret when a value is assigned to them:
/// `password = "x"`, `"api_key": "x"`, `DB_PASSWORD=x`, `token: x`.
const SECRET_NAME: &str = r"(?:pass(?:word|wd)?|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|auth(?:orization)?|credentials?)";

struct Patterns {
    /// PEM private keys, whole.
    pem: Regex,
    /// Whole tokens whose shape gives them away (`sk-...`, `ghp_...`, JWTs, AWS ids).
    tokens: Vec<Regex>,
    /// `scheme://user:password@host`: the user info (group `v`).
    userinfo: Regex,
    /// Any URL, to test its host.
    url: Regex,
    /// `Authorization: <v>`, `X-Api-Key: <v>` (a header line, or inside a string).
    header: Regex,
    /// `Bearer <v>`, `Basic <v>`, `token <v>`.
    scheme: Regex,
    /// A quoted value assigned to a secret's name (group `v`).
    assigned_quoted: Regex,
    /// An unquoted value assigned to a secret's name: `.env` style (group `v`).
    assigned_bare: Regex,
    /// Quoted, long, letters and digits mixed, no spaces: a key by its looks.
    opaque: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = |s: &str| Regex::new(s).expect("redaction pattern");
        Patterns {
            pem: re(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"),
            tokens: [
                r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}",                           // OpenAI / Anthropic
                r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",                                     // AWS access key ids
                r"\bgh[pousr]_[A-Za-z0-9]{20,}",                                      // GitHub
                r"\bgithub_pat_[A-Za-z0-9_]{20,}",
                r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",                                   // Slack
                r"\bAIza[0-9A-Za-z_\-]{30,}",                                         // Google
                r"\bglpat-[A-Za-z0-9_\-]{20,}",                                       // GitLab
                r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",                     // Stripe
                r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", // JWT
                r"\b[A-Fa-f0-9]{40,}\b",                                              // long hex secrets
            ]
            .iter()
            .map(|s| re(s))
            .collect(),
            userinfo: re(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<v>[^/\s:@'\x22]+:[^/\s@'\x22]+)@"),
            url: re(r#"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'"<>()]+"#),
            header: re(r"(?i)\b(?:authorization|proxy-authorization|x-api-key|api-key|x-auth-token)\s*:\s*(?:(?:bearer|basic|token|digest)\s+)?(?P<v>[A-Za-z0-9._~+/\-]{8,}=*)"),
            scheme: re(r"(?i)\b(?:bearer|basic)\s+(?P<v>[A-Za-z0-9._~+/\-]{8,}=*)|\btoken\s+(?P<t>[A-Za-z0-9._~+/\-]{16,}=*)"),
            assigned_quoted: re(&format!(r#"(?i)(?P<n>{SECRET_NAME}[A-Za-z0-9_\-]*)["']?\s*[:=]\s*[rbuf]?(?P<q>["'])(?P<v>[^"'\n]+)["']"#)),
            assigned_bare: re(&format!(r#"(?i)(?P<n>{SECRET_NAME}[A-Za-z0-9_\-]*)\s*[:=]\s*(?P<v>[^"'\s,;(){{}}\[\]][^"'\s,;)}}\]]*)"#)),
            opaque: re(r#"["'](?P<v>[A-Za-z0-9+/_\-]{32,}={0,2})["']"#),
        }
    })
}

/// Replaces secrets by numbered placeholders, the same secret by the same one.
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
        let n = self.seen.iter().filter(|(_, p)| p.starts_with(&format!("{PLACEHOLDER_PREFIX}{kind}_"))).count() + 1;
        let p = format!("{PLACEHOLDER_PREFIX}{kind}_{n}");
        self.seen.push((secret.to_string(), p.clone()));
        p
    }

    /// A secret, unless it is (or holds) a placeholder already.
    fn key(&mut self, s: &str) -> String {
        if s.contains(PLACEHOLDER_PREFIX) { s.to_string() } else { self.placeholder(KEY, s) }
    }

    /// `text` with every secret replaced. Text with nothing secret comes back
    /// unchanged.
    pub fn redact(&mut self, text: &str) -> String {
        let p = patterns();
        let mut out = p.pem.replace_all(text, |c: &Captures| self.placeholder(KEY, &c[0])).into_owned();
        for t in &p.tokens {
            out = t.replace_all(&out, |c: &Captures| self.placeholder(KEY, &c[0])).into_owned();
        }
        out = replace_group(&p.userinfo, &out, "v", |s| self.key(s));
        out = p.url.replace_all(&out, |c: &Captures| if is_private_url(&c[0]) { self.placeholder(URL, &c[0]) } else { c[0].to_string() }).into_owned();
        out = replace_group(&p.header, &out, "v", |s| self.key(s));
        out = replace_group(&p.scheme, &out, "v", |s| self.key(s));
        out = replace_group(&p.scheme, &out, "t", |s| self.key(s));
        out = replace_named(&p.assigned_quoted, &out, "v", |n, s| if not_a_secret_name(n) || quoted_non_secret(s) { s.to_string() } else { self.key(s) });
        out = replace_named(&p.assigned_bare, &out, "v", |n, s| if not_a_secret_name(n) || bare_non_secret(s) { s.to_string() } else { self.key(s) });
        replace_group(&p.opaque, &out, "v", |s| if looks_like_a_key(s) { self.key(s) } else { s.to_string() })
    }
}

/// `text` with every secret replaced (a fresh numbering).
pub fn redact(text: &str) -> String {
    Redactor::new().redact(text)
}

/// Whether `text` holds something [`redact`] would replace.
pub fn has_secret(text: &str) -> bool {
    redact(text) != text
}

/// Replace only the capture group `group` of each match of `re`.
fn replace_group(re: &Regex, text: &str, group: &str, mut f: impl FnMut(&str) -> String) -> String {
    replace_named(re, text, group, |_, v| f(v))
}

/// [`replace_group`], the closure also given the match's group `n` (the name).
fn replace_named(re: &Regex, text: &str, group: &str, mut f: impl FnMut(&str, &str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for c in re.captures_iter(text) {
        let Some(v) = c.name(group) else { continue };
        let name = c.name("n").map(|n| n.as_str()).unwrap_or("");
        out.push_str(&text[last..v.start()]);
        out.push_str(&f(name, v.as_str()));
        last = v.end();
    }
    out.push_str(&text[last..]);
    out
}

/// Names that only start like a secret's: `author`, `authority`.
fn not_a_secret_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.starts_with("author") && !n.starts_with("authoriz")
}

/// A quoted value under a secret's name that is no secret: a header's
/// scheme word, a template placeholder (`"<pad>"`, `"{token}"`).
fn quoted_non_secret(v: &str) -> bool {
    let scheme = ["bearer", "basic", "token"].contains(&v.trim().to_ascii_lowercase().as_str());
    scheme || v.starts_with('<') || (v.starts_with('{') && v.ends_with('}'))
}

/// An unquoted value under a secret's name that is no secret: a call
/// (`token = get_token()`), a constant (`None`), a variable or attribute
/// (`password=args.password`, `auth=auth`), a number.
fn bare_non_secret(v: &str) -> bool {
    let variable = v.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.') && !v.chars().any(|ch| ch.is_ascii_digit());
    v.contains('(') || matches!(v, "None" | "True" | "False") || variable || v.parse::<f64>().is_ok()
}

/// Mixed letters and digits with few repeats: a key, not a word or a path.
fn looks_like_a_key(s: &str) -> bool {
    let digits = s.chars().filter(char::is_ascii_digit).count();
    let letters = s.chars().filter(char::is_ascii_alphabetic).count();
    let distinct = s.chars().collect::<std::collections::BTreeSet<_>>().len();
    digits >= 4 && letters >= 8 && distinct >= 12 && !s.contains('/')
}

/// A URL whose host is loopback, on a private network or an internal name:
/// it says where the user's systems are.
pub fn is_private_url(url: &str) -> bool {
    let after = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = after.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("");
    let host = host_port.split(':').next().unwrap_or("").to_ascii_lowercase();
    if let Ok(ip) = host.parse::<std::net::Ipv4Addr>() {
        return ip.is_private() || ip.is_link_local() || ip.is_loopback();
    }
    const INTERNAL: &[&str] = &[".internal", ".local", ".corp", ".lan", ".intranet", ".intra", ".home.arpa", ".private"];
    host == "localhost" || INTERNAL.iter().any(|s| host.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gone(out: &str, secret: &str) {
        assert!(!out.contains(secret), "{secret} left in:\n{out}");
    }

    #[test]
    fn token_formats_become_placeholders() {
        for secret in [
            "AKIAIOSFODNN7EXAMPLE",
            "ASIAIOSFODNN7EXAMPLE",
            "sk-proj-abcdefghijklmnop1234",
            "sk-ant-abcdefghijklmnop1234",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "github_pat_11ABCDEFG0123456789_abcdefghij",
            "xoxb-1234567890-abcdefghij",
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "glpat-abcdefghij0123456789",
            "sk_live_abcdefghij0123456789",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        ] {
            let out = redact(&format!("client = Client('{secret}')"));
            gone(&out, secret);
            assert_eq!(out, "client = Client('REDACTED_SECRET_1')");
        }
    }

    #[test]
    fn named_secrets_keep_the_name_and_lose_the_value() {
        assert_eq!(redact("password = 'hunter2'"), "password = 'REDACTED_SECRET_1'");
        assert_eq!(redact(r#"{"api_key": "abc123xyz"}"#), r#"{"api_key": "REDACTED_SECRET_1"}"#);
        assert_eq!(redact(r#"cfg = {"client_secret": "s3cr3t-value"}"#), r#"cfg = {"client_secret": "REDACTED_SECRET_1"}"#);
        assert_eq!(redact("conn = connect(password=\"hunter2!x\", user='bob')"), "conn = connect(password=\"REDACTED_SECRET_1\", user='bob')");
        // `.env` style, unquoted.
        assert_eq!(redact("DB_PASSWORD=s3cr3t\nAPI_KEY=abc123\nDEBUG=1\n"), "DB_PASSWORD=REDACTED_SECRET_1\nAPI_KEY=REDACTED_SECRET_2\nDEBUG=1\n");
        assert_eq!(redact("SECRET_KEY=django-insecure-x9"), "SECRET_KEY=REDACTED_SECRET_1");
        // Variables, calls, constants and structures are not secrets.
        for code in [
            "login(password=args.password)",
            "token = get_token()",
            "password = None",
            "auth = auth",
            "max_tokens = 256",
            r#"{"llm_tokens":{"prompt":0},"tokens":[1]}"#,
            r#"tok = {"pad_token": "<pad>"}"#,
            "book = {'author': 'Jane Austen', 'authority': 'x9'}",
        ] {
            assert_eq!(redact(code), code);
        }
    }

    #[test]
    fn authorization_headers_lose_their_credentials() {
        assert_eq!(redact("headers = {'Authorization': 'Bearer abcdef123456'}"), "headers = {'Authorization': 'Bearer REDACTED_SECRET_1'}");
        assert_eq!(redact("curl -H 'Authorization: token 0123456789abcdefXYZ'"), "curl -H 'Authorization: token REDACTED_SECRET_1'");
        assert_eq!(redact("Authorization: Basic dXNlcjpwYXNzd29yZA==\n"), "Authorization: Basic REDACTED_SECRET_1\n");
        assert_eq!(redact("X-Api-Key: q1w2e3r4t5y6\n"), "X-Api-Key: REDACTED_SECRET_1\n");
        let out = redact(r#"requests.get(u, headers={"Authorization": "abcdef0123456789"})"#);
        gone(&out, "abcdef0123456789");
    }

    #[test]
    fn urls_lose_credentials_and_private_urls_go_public_urls_stay() {
        assert_eq!(redact("postgres://admin:pw1@db.example.com/app"), "postgres://REDACTED_SECRET_1@db.example.com/app");
        for private in ["http://10.1.2.3:8080/x", "https://build.corp/api/v1", "http://localhost:5000/", "http://127.0.0.1/x", "http://192.168.1.7/", "http://db.internal/q"] {
            let out = redact(&format!("requests.get('{private}')"));
            assert_eq!(out, "requests.get('REDACTED_PRIVATE_URL_1')", "{private}");
        }
        let public = "d = 'https://api.github.com/repos'";
        assert_eq!(redact(public), public);
    }

    #[test]
    fn the_same_secret_keeps_its_placeholder() {
        let mut r = Redactor::new();
        let a = r.redact("k = 'sk-abcdefghijklmnopqrstuvwxyz'");
        let b = r.redact("use('sk-abcdefghijklmnopqrstuvwxyz')");
        assert!(a.contains("REDACTED_SECRET_1") && b.contains("REDACTED_SECRET_1"), "{a} {b}");
        assert_eq!(r.count(), 1);
    }

    #[test]
    fn a_private_key_goes_whole() {
        let out = redact("KEY = '''-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----'''");
        gone(&out, "MIIEow");
    }

    #[test]
    fn ordinary_code_and_data_are_unchanged() {
        for code in [
            "df = pd.DataFrame({'a': [1, 2]})",
            "url = 'https://example.com/data.json'",
            "x = [1, 2, 3]",
            "s = 'hello world'",
            "name = 'a_rather_long_identifier_without_digits_here'\npath = '/usr/share/dict/words'\n",
            "for token in tokens:\n    print(token)\n",
        ] {
            assert_eq!(redact(code), code);
            assert!(!has_secret(code));
        }
    }
}
