//! A guard in front of tower-lsp-server's reader.
//!
//! tower-lsp-server (0.22 and 0.24-rc alike) reads stdin through tokio-util's
//! `FramedRead`, which ends the stream after the first decode error: one
//! malformed message (bad JSON, a non-string `method`, a missing
//! `Content-Length`) and the server stops reading and exits. So stdin goes
//! through this pump first: it re-frames each message and passes it on when
//! the library can decode it; anything else is replaced by a well-formed
//! request for `runnable/invalidMessage` (keeping the message's id when it
//! has one, else `null`), which the server answers with the JSON-RPC error
//! the original deserved (-32700 parse error, -32600 invalid request).
//!
//! A framing error (a line that is no header, a header block without a
//! usable `Content-Length`) leaves the length of what follows unknown, so
//! after answering it the pump scans forward for the next `Content-Length:`
//! (anywhere, since a garbage body need not end with a newline) and reads
//! the next message from there: the stream resynchronises at once instead
//! of swallowing the next request. The scan keeps no more than one header
//! line in memory.

use serde_json::{json, Value};
use std::collections::VecDeque;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tower_lsp_server::jsonrpc::{self, Error, ErrorCode};

/// The method the substitutes call.
pub const INVALID_MESSAGE: &str = "runnable/invalidMessage";
/// Larger bodies are read, dropped and answered as invalid.
const MAX_BODY: usize = 256 << 20;
/// A longer header line is garbage (real header lines are a few dozen bytes).
const MAX_HEADER_LINE: usize = 8 << 10;
/// What the resynchronising scan looks for, lower-cased. No proper prefix of
/// it is also a suffix (`c` occurs once), so on a mismatch the scan restarts
/// at this byte without backtracking.
const CONTENT_LENGTH: &[u8] = b"content-length:";

/// A reader for the server that yields only messages it can decode.
pub fn guard<R: AsyncRead + Unpin + Send + 'static>(input: R) -> DuplexStream {
    let (mut to_server, for_server) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut framer = Framer::new(input);
        while let Some(body) = framer.next_message().await {
            let frame = format!("Content-Length: {}\r\n\r\n", body.len());
            if to_server.write_all(frame.as_bytes()).await.is_err() || to_server.write_all(&body).await.is_err() {
                break;
            }
        }
        // Dropping the writer ends the server's input: it stops as on EOF.
    });
    for_server
}

/// Splits the client's byte stream into message bodies.
struct Framer<R> {
    reader: BufReader<R>,
    /// Bytes read already that must be read again (the tail of a garbage
    /// line, where the next header may start).
    pushback: VecDeque<u8>,
    /// Out of step: skip to the next `Content-Length:` first.
    resync: bool,
}

impl<R: AsyncRead + Unpin> Framer<R> {
    fn new(input: R) -> Self {
        Framer { reader: BufReader::new(input), pushback: VecDeque::new(), resync: false }
    }

    async fn byte(&mut self) -> Option<u8> {
        match self.pushback.pop_front() {
            Some(b) => Some(b),
            None => self.reader.read_u8().await.ok(),
        }
    }

    /// The next line (after `start`), without its line ending: None at the
    /// end of input, Err with what was read when it is too long.
    async fn line(&mut self, mut line: Vec<u8>) -> Option<Result<Vec<u8>, Vec<u8>>> {
        loop {
            let Some(b) = self.byte().await else {
                return (!line.is_empty()).then_some(Ok(line));
            };
            if b == b'\n' {
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Some(Ok(line));
            }
            line.push(b);
            if line.len() > MAX_HEADER_LINE {
                return Some(Err(line));
            }
        }
    }

    /// Consume input up to and including the next `Content-Length:` (any
    /// case); false at the end of input.
    async fn skip_to_content_length(&mut self) -> bool {
        let mut matched = 0;
        while matched < CONTENT_LENGTH.len() {
            let Some(b) = self.byte().await else { return false };
            let b = b.to_ascii_lowercase();
            matched = if b == CONTENT_LENGTH[matched] {
                matched + 1
            } else {
                usize::from(b == CONTENT_LENGTH[0])
            };
        }
        true
    }

    /// Out of step after reading `read`: its tail (where a header may begin
    /// without a line break before it) is scanned again, and the answer is a
    /// parse error.
    fn lost(&mut self, read: Vec<u8>, why: &str) -> Vec<u8> {
        for b in read.into_iter().skip(1).rev() {
            self.pushback.push_front(b);
        }
        self.resync = true;
        substitute(None, ErrorCode::ParseError, why)
    }

    /// The next message body to pass on (a substitute for a bad one); None
    /// at end of input.
    async fn next_message(&mut self) -> Option<Vec<u8>> {
        let mut start = Vec::new();
        if std::mem::take(&mut self.resync) {
            if !self.skip_to_content_length().await {
                return None;
            }
            start = b"Content-Length:".to_vec();
        }
        let mut length: Option<Option<usize>> = None;
        let mut seen = false;
        loop {
            let line = match self.line(std::mem::take(&mut start)).await? {
                Ok(line) => line,
                Err(long) => return Some(self.lost(long, "header line too long")),
            };
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if text.is_empty() {
                if seen {
                    break;
                }
                continue; // stray blank line between messages
            }
            seen = true;
            match text.split_once(':') {
                Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                    length = Some(value.trim().parse::<usize>().ok());
                }
                // Other headers (Content-Type) are allowed and ignored.
                Some((name, _)) if is_header_name(name) => {}
                // Not a header at all: garbage between messages.
                _ => return Some(self.lost(line, "expected a Content-Length header")),
            }
        }
        let len = match length {
            Some(Some(len)) => len,
            // How long the body is nobody knows: find the next header.
            missing => {
                self.resync = true;
                let why = if missing.is_none() { "missing Content-Length header" } else { "invalid Content-Length header" };
                return Some(substitute(None, ErrorCode::InvalidRequest, why));
            }
        };
        if len > MAX_BODY {
            let queued = self.pushback.len().min(len);
            self.pushback.drain(..queued);
            let mut rest = (&mut self.reader).take((len - queued) as u64);
            tokio::io::copy(&mut rest, &mut tokio::io::sink()).await.ok()?;
            return Some(substitute(None, ErrorCode::InvalidRequest, "message too large"));
        }
        let queued = self.pushback.len().min(len);
        let mut body: Vec<u8> = self.pushback.drain(..queued).collect();
        body.resize(len, 0);
        self.reader.read_exact(&mut body[queued..]).await.ok()?;
        Some(check(body))
    }
}

fn is_header_name(name: &str) -> bool {
    let name = name.trim();
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// The body if the library can decode it, else its substitute.
pub fn check(body: Vec<u8>) -> Vec<u8> {
    if serde_json::from_slice::<jsonrpc::Request>(&body).is_ok() || serde_json::from_slice::<jsonrpc::Response>(&body).is_ok() {
        return body;
    }
    match serde_json::from_slice::<Value>(&body) {
        Err(e) => substitute(None, ErrorCode::ParseError, &format!("not JSON: {e}")),
        Ok(v) => {
            let id = v.get("id").filter(|id| id.is_number() || id.is_string()).cloned();
            substitute(id, ErrorCode::InvalidRequest, "not a JSON-RPC 2.0 request, notification or response")
        }
    }
}

fn substitute(id: Option<Value>, code: ErrorCode, message: &str) -> Vec<u8> {
    json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "method": INVALID_MESSAGE,
        "params": {"code": code.code(), "message": message},
    })
    .to_string()
    .into_bytes()
}

/// The error response a substitute gets.
pub fn answer(params: Value) -> jsonrpc::Result<()> {
    let code = match params.get("code").and_then(Value::as_i64) {
        Some(-32700) => ErrorCode::ParseError,
        _ => ErrorCode::InvalidRequest,
    };
    let message = params.get("message").and_then(Value::as_str).unwrap_or("invalid message").to_string();
    Err(Error { code, message: message.into(), data: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::io::AsyncBufReadExt;

    async fn pump(input: Vec<u8>) -> Vec<Value> {
        let mut framer = Framer::new(&input[..]);
        let mut out = Vec::new();
        while let Some(body) = framer.next_message().await {
            out.push(serde_json::from_slice(&body).unwrap());
        }
        out
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    fn codes(got: &[Value]) -> Vec<Value> {
        got.iter().map(|g| if g["method"] == INVALID_MESSAGE { g["params"]["code"].clone() } else { g["method"].clone() }).collect()
    }

    #[tokio::test]
    async fn good_messages_pass_and_bad_ones_are_substituted() {
        let input = [
            frame(r#"{"jsonrpc":"2.0","id":1,"method":"a/b"}"#),
            frame("{not json"),
            frame(r#"{"jsonrpc":"2.0","id":7,"method":5}"#),
            format!("\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n{}", frame(r#"{"jsonrpc":"2.0","method":"x"}"#)),
            "Content-Length: zz\r\n\r\n".to_string(),
        ]
        .concat()
        .into_bytes();
        let got = pump(input).await;
        assert_eq!(got.len(), 5, "{got:#?}");
        assert_eq!(got[0]["method"], "a/b");
        assert_eq!((got[1]["method"].as_str(), got[1]["id"].clone(), got[1]["params"]["code"].as_i64()), (Some(INVALID_MESSAGE), Value::Null, Some(-32700)));
        assert_eq!((got[2]["id"].as_i64(), got[2]["params"]["code"].as_i64()), (Some(7), Some(-32600)));
        assert_eq!(got[3]["method"], "x");
        assert_eq!(got[4]["params"]["code"], -32600);
        for g in &got {
            assert!(serde_json::from_value::<jsonrpc::Request>(g.clone()).is_ok());
        }
    }

    #[tokio::test]
    async fn a_block_without_content_length_resynchronises_at_the_next_header() {
        let valid = frame(r#"{"jsonrpc":"2.0","id":2,"method":"a/b"}"#);
        // The bad block's body has no line break before the next header.
        let input = format!("Content-Type: application/json\r\n\r\n{{\"garbage\": \"x: y\"}}{valid}{valid}");
        let got = pump(input.into_bytes()).await;
        assert_eq!(codes(&got), vec![json!(-32600), json!("a/b"), json!("a/b")], "{got:#?}");
        // A body of header-like lines and blank lines is skipped as a whole:
        // one error, then the next message.
        let input = format!("Content-Type: x\r\n\r\nHost: evil\r\n\r\n\r\nnot a header\r\n{valid}");
        assert_eq!(codes(&pump(input.into_bytes()).await), vec![json!(-32600), json!("a/b")]);
        // An invalid length, any case.
        let input = format!("Content-Length: -3\r\n\r\nabc{}", valid.to_ascii_lowercase().replace("a/b", "c/d"));
        assert_eq!(codes(&pump(input.into_bytes()).await), vec![json!(-32600), json!("c/d")]);
    }

    #[tokio::test]
    async fn garbage_and_overlong_lines_resynchronise_within_the_line() {
        let valid = frame(r#"{"jsonrpc":"2.0","id":3,"method":"a/b"}"#);
        // One error for the garbage, not one per line, and the header that
        // follows it on the same line is found.
        let input = format!("garbage\r\nmore garbage {valid}");
        assert_eq!(codes(&pump(input.into_bytes()).await), vec![json!(-32700), json!("a/b")]);
        // A header line longer than the limit, with a header near its end.
        let long = "x".repeat(MAX_HEADER_LINE + 100);
        let input = format!("X-Long: {long}{valid}");
        assert_eq!(codes(&pump(input.into_bytes()).await), vec![json!(-32700), json!("a/b")]);
        // A header that straddles the limit is found too.
        let cut = "y".repeat(MAX_HEADER_LINE - 6);
        let input = format!("X: {cut}{valid}");
        assert_eq!(codes(&pump(input.into_bytes()).await), vec![json!(-32700), json!("a/b")]);
    }

    /// One framed message from the pump's output.
    async fn read_frame(out: &mut BufReader<DuplexStream>) -> Value {
        let mut len = 0;
        loop {
            let mut line = String::new();
            out.read_line(&mut line).await.unwrap();
            if line.trim().is_empty() {
                break;
            }
            len = line.trim().strip_prefix("Content-Length: ").unwrap().parse().unwrap();
        }
        let mut body = vec![0; len];
        out.read_exact(&mut body).await.unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    #[tokio::test]
    async fn the_pump_answers_a_valid_message_at_once_after_a_bad_block() {
        let (mut client, input) = tokio::io::duplex(1 << 16);
        let mut out = BufReader::new(guard(input));
        let valid = frame(r#"{"jsonrpc":"2.0","id":4,"method":"a/b"}"#);
        // The client keeps its end open: nothing may wait for more input.
        client.write_all(format!("Content-Type: application/json\r\n\r\n{{\"no\": \"length\"}}{valid}").as_bytes()).await.unwrap();
        let first = tokio::time::timeout(Duration::from_secs(2), read_frame(&mut out)).await.expect("the error comes at once");
        assert_eq!((first["method"].as_str(), first["params"]["code"].as_i64()), (Some(INVALID_MESSAGE), Some(-32600)));
        let second = tokio::time::timeout(Duration::from_secs(2), read_frame(&mut out)).await.expect("the valid request comes at once");
        assert_eq!((second["id"].as_i64(), second["method"].as_str()), (Some(4), Some("a/b")));
        // End of input ends the server's input.
        drop(client);
        let mut rest = Vec::new();
        tokio::time::timeout(Duration::from_secs(2), out.read_to_end(&mut rest)).await.unwrap().unwrap();
        assert!(rest.is_empty());
    }
}
