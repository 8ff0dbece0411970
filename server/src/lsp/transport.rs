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

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tower_lsp_server::jsonrpc::{self, Error, ErrorCode};

/// The method the substitutes call.
pub const INVALID_MESSAGE: &str = "runnable/invalidMessage";
/// Larger bodies are read, dropped and answered as invalid.
const MAX_BODY: usize = 256 << 20;

/// A reader for the server that yields only messages it can decode.
pub fn guard<R: AsyncRead + Unpin + Send + 'static>(input: R) -> DuplexStream {
    let (mut to_server, for_server) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut reader = BufReader::new(input);
        while let Some(body) = next_message(&mut reader).await {
            let frame = format!("Content-Length: {}\r\n\r\n", body.len());
            if to_server.write_all(frame.as_bytes()).await.is_err() || to_server.write_all(&body).await.is_err() {
                break;
            }
        }
        // Dropping the writer ends the server's input: it stops as on EOF.
    });
    for_server
}

/// The next message body to pass on (a substitute for a bad one); None at
/// end of input.
async fn next_message<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> Option<Vec<u8>> {
    let mut length: Option<Option<usize>> = None;
    loop {
        let mut line = Vec::new();
        if reader.read_until(b'\n', &mut line).await.ok()? == 0 {
            return None;
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            if length.is_some() {
                break;
            }
            continue; // stray blank line between messages
        }
        let (name, value) = text.split_once(':').unwrap_or((text, ""));
        if name.trim().eq_ignore_ascii_case("content-length") {
            length = Some(value.trim().parse::<usize>().ok());
        } else if !is_header_name(name) {
            // Not a header at all: garbage between messages.
            return Some(substitute(None, ErrorCode::ParseError, "expected a Content-Length header"));
        }
        // Other headers (Content-Type) are allowed and ignored.
    }
    let Some(Some(len)) = length else {
        return Some(substitute(None, ErrorCode::InvalidRequest, "invalid Content-Length header"));
    };
    if len > MAX_BODY {
        let mut rest = reader.take(len as u64);
        tokio::io::copy(&mut rest, &mut tokio::io::sink()).await.ok()?;
        return Some(substitute(None, ErrorCode::InvalidRequest, "message too large"));
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body).await.ok()?;
    Some(check(body))
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

    async fn pump(input: Vec<u8>) -> Vec<Value> {
        let mut reader = BufReader::new(&input[..]);
        let mut out = Vec::new();
        while let Some(body) = next_message(&mut reader).await {
            out.push(serde_json::from_slice(&body).unwrap());
        }
        out
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
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
}
