//! Secrets out of text before it is stored: API keys, tokens, passwords,
//! credentials in URLs and hosts of private networks become placeholders.
//! Pure. (The model stage has its own `llm::redact`; the two are meant to
//! become one.)

use regex::{Captures, Regex};
use std::sync::LazyLock;

/// What a secret is replaced with.
pub const PLACEHOLDER: &str = "<redacted>";
/// What a private host is replaced with.
pub const PRIVATE_HOST: &str = "<private-host>";

/// Well-known token formats, matched anywhere.
static TOKENS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
        r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",                     // AWS access key ids
        r"|\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}",           // OpenAI / Anthropic style
        r"|\bgh[pousr]_[A-Za-z0-9]{20,}\b|\bgithub_pat_[A-Za-z0-9_]{20,}\b",
        r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}",                   // Slack
        r"|\bAIza[0-9A-Za-z_\-]{35}\b",                        // Google API keys
        r"|\bglpat-[A-Za-z0-9_\-]{20,}\b",                     // GitLab
        r"|\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b",          // Stripe
        r"|\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", // JWT
        r"|\b[A-Fa-f0-9]{40,}\b",                              // long hex secrets
    ))
    .expect("token pattern")
});

/// `Bearer <token>` / `Basic <token>` in headers.
static AUTH_HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/\-]{8,}=*").expect("auth pattern"));

/// A value assigned to a name that says it is secret: `password = "x"`,
/// `"api_key": "x"`, `token=x`. The name is kept, the value replaced.
static NAMED_SECRET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?i)(?P<name>["']?[A-Za-z0-9_\-]*(?:passw(?:or)?d|passwd|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|auth|credential)[A-Za-z0-9_\-]*["']?)"#,
        r#"(?P<sep>\s*[:=]\s*)"#,
        // A value, not a structure: `"llm_tokens": {...}` names no secret.
        r#"(?P<quote>["']?)(?P<value>[^"'\s,;(){}\[\]][^"'\s,;)}\]]*)"#,
    ))
    .expect("named secret pattern")
});

/// `scheme://user:password@host`: the credentials go.
static URL_CREDENTIALS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?P<scheme>[a-z][a-z0-9+.\-]*://)[^/\s:@'\x22]+:[^/\s@'\x22]+@").expect("url credentials pattern"));

/// A URL whose host is private (loopback, RFC 1918, link-local, an
/// internal-only name): the host goes, the rest stays.
static PRIVATE_URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\b(?P<scheme>[a-z][a-z0-9+.\-]*://)(?P<host>",
        r"localhost|127(?:\.\d{1,3}){3}|10(?:\.\d{1,3}){3}|192\.168(?:\.\d{1,3}){2}|172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2}|169\.254(?:\.\d{1,3}){2}",
        r"|[a-z0-9\-.]+\.(?:internal|local|lan|corp|intranet|home\.arpa)",
        r")\b"
    ))
    .expect("private url pattern")
});

/// `text` with every secret it holds replaced by a placeholder. Text with
/// nothing secret comes back unchanged, so `redact(t) == t` says `t` is safe
/// to keep as it is.
pub fn redact(text: &str) -> String {
    let text = TOKENS.replace_all(text, PLACEHOLDER);
    let text = AUTH_HEADER.replace_all(&text, |c: &Captures| format!("{} {PLACEHOLDER}", &c[1]));
    let text = URL_CREDENTIALS.replace_all(&text, |c: &Captures| format!("{}{PLACEHOLDER}@", &c["scheme"]));
    let text = PRIVATE_URL.replace_all(&text, |c: &Captures| format!("{}{PRIVATE_HOST}", &c["scheme"]));
    let text = NAMED_SECRET.replace_all(&text, |c: &Captures| {
        let value = &c["value"];
        // Already a placeholder, or an obvious non-secret (a name read from
        // elsewhere: `token = get_token()`, `password = None`).
        // A header's scheme word (`'Authorization': 'Bearer <redacted>'`) stays.
        let scheme = ["bearer", "basic", "token"].contains(&value.to_ascii_lowercase().as_str());
        if value.starts_with('<') || scheme || (c["quote"].is_empty() && (value.contains('(') || matches!(value, "None" | "True" | "False"))) {
            return c[0].to_string();
        }
        if c["quote"].is_empty() && value.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.') && !value.chars().any(|ch| ch.is_ascii_digit()) {
            // `password=args.password`, `auth=auth`: a variable, not a secret.
            return c[0].to_string();
        }
        format!("{}{}{}{PLACEHOLDER}", &c["name"], &c["sep"], &c["quote"])
    });
    text.into_owned()
}

/// Whether `text` holds something [`redact`] would replace.
pub fn has_secret(text: &str) -> bool {
    redact(text) != text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_formats_become_placeholders() {
        for secret in [
            "AKIAIOSFODNN7EXAMPLE",
            "sk-proj-abcdefghijklmnop1234",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "xoxb-1234567890-abcdefghij",
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ] {
            let out = redact(&format!("client = Client('{secret}')"));
            assert!(!out.contains(secret), "{secret} kept: {out}");
            assert!(out.contains(PLACEHOLDER), "{out}");
        }
    }

    #[test]
    fn named_secrets_keep_the_name_and_lose_the_value() {
        assert_eq!(redact("password = 'hunter2'"), "password = '<redacted>'");
        assert_eq!(redact(r#"{"api_key": "abc123xyz"}"#), r#"{"api_key": "<redacted>"}"#);
        assert_eq!(redact("DB_PASSWORD=s3cr3t"), "DB_PASSWORD=<redacted>");
        // Variables and calls are not secrets.
        assert_eq!(redact("login(password=args.password)"), "login(password=args.password)");
        assert_eq!(redact("token = get_token()"), "token = get_token()");
        // Structures whose key names a secret are not one (a report's `"llm_tokens": {...}`).
        assert_eq!(redact(r#"{"llm_tokens":{"prompt":0},"tokens":[1]}"#), r#"{"llm_tokens":{"prompt":0},"tokens":[1]}"#);
    }

    #[test]
    fn urls_lose_credentials_and_private_hosts() {
        assert_eq!(redact("postgres://admin:pw1@db.example.com/app"), "postgres://<redacted>@db.example.com/app");
        assert_eq!(redact("requests.get('http://10.1.2.3:8080/x')"), "requests.get('http://<private-host>:8080/x')");
        assert_eq!(redact("http://build.corp/api"), "http://<private-host>/api");
        assert_eq!(redact("headers = {'Authorization': 'Bearer abcdef123456'}"), "headers = {'Authorization': 'Bearer <redacted>'}");
    }

    #[test]
    fn ordinary_code_is_unchanged() {
        for code in ["df = pd.DataFrame({'a': [1, 2]})", "url = 'https://example.com/data.json'", "x = [1, 2, 3]", "s = 'hello world'"] {
            assert_eq!(redact(code), code);
            assert!(!has_secret(code));
        }
    }
}
