//! The one declared offline network transport. A fragment that fetches a
//! URL fails in the sandbox (no network); rather than faking `requests` or
//! `urllib`, the prefix answers HTTP below their public API, so the
//! library's own code runs (sessions, adapters, hooks, `Response.json()`,
//! `urlopen`'s opener and handlers) and only the bytes on the wire are
//! local. This is the only place a prefix may touch a library's internals
//! (`PATCHES`); everything else binds library names by import alone (issue
//! 14). Pure.

use super::prefix::{Binding, Candidate, Prefix};
use super::session::Context;
use super::value::Value;

/// Exceptions that mean the fragment tried to reach the network.
pub const NETWORK_ERRORS: &[&str] = &[
    "ConnectionError",
    "URLError",
    "gaierror",
    "ConnectTimeout",
    "MaxRetryError",
    "NewConnectionError",
    "HTTPError",
];

/// The library attributes the transport assigns: the only assignments to
/// a library's attributes a prefix may make.
pub const PATCHES: &[&str] = &["requests.adapters.HTTPAdapter.send"];

/// Names of the transport's bindings.
const REQUESTS_BINDING: &str = "_offline_send";
const URLLIB_BINDING: &str = "_offline_opener";

/// Whether `name` is a binding of the declared transport.
pub fn is_transport(name: &str) -> bool {
    name == REQUESTS_BINDING || name == URLLIB_BINDING
}

/// Answer HTTP locally for `requests` and `urllib`, as the fragment uses
/// them; `false` when the prefix has the transport already.
pub fn add_offline_network(ctx: &Context, p: &mut Prefix) -> bool {
    if p.binding(REQUESTS_BINDING).is_some() || p.binding(URLLIB_BINDING).is_some() {
        return false;
    }
    let modules: Vec<&str> = ctx
        .analysis
        .imports
        .iter()
        .map(|i| i.module.as_str())
        .collect();
    let mut added = false;
    if modules.iter().any(|m| m.starts_with("requests")) || p.binding("requests").is_some() {
        p.bindings.push(Binding::new(
            REQUESTS_BINDING,
            vec![Candidate::Value(Value::Code {
                source: OFFLINE_REQUESTS.into(),
                imports: vec!["import requests".into(), "import requests.adapters".into()],
            })],
        ));
        added = true;
    }
    if modules.iter().any(|m| m.starts_with("urllib")) || !added {
        p.bindings.push(Binding::new(
            URLLIB_BINDING,
            vec![Candidate::Value(Value::Code {
                source: OFFLINE_URLLIB.into(),
                imports: vec![
                    "import http.client".into(),
                    "import io".into(),
                    "import urllib.request".into(),
                ],
            })],
        ));
        added = true;
    }
    added
}

/// `requests`: the transport adapter's `send` (what `Session.send` calls to
/// put a prepared request on the wire) answers with a local response.
const OFFLINE_REQUESTS: &str =
    "# Offline network: the transport adapter answers every request with this local response.
def _offline_send(self, request, *args, **kwargs):
    response = requests.Response()
    response.status_code = 200
    response.reason = 'OK'
    response.url = request.url
    response.request = request
    response.connection = self
    response.encoding = 'utf-8'
    response.headers['Content-Type'] = 'application/json'
    response._content = b'{\"name\": \"Ada\", \"id\": 1, \"items\": [1, 2, 3]}'
    return response


requests.adapters.HTTPAdapter.send = _offline_send";

/// `urllib`: an opener whose first handler answers `http` and `https` with
/// a real `http.client.HTTPResponse` read from local bytes, installed with
/// `urllib.request.install_opener` (its documented hook).
const OFFLINE_URLLIB: &str = "# Offline network: urlopen's opener answers http and https with this local page.
class _OfflineSocket:
    def __init__(self, data):
        self._data = data

    def makefile(self, *args, **kwargs):
        return io.BytesIO(self._data)


class _OfflineHandler(urllib.request.BaseHandler):
    handler_order = 100  # before the default handlers, which would reach the network

    def _answer(self, request):
        body = b'<html><body><p>Hello</p><a href=\"/a\">A</a></body></html>'
        head = b'HTTP/1.1 200 OK\\r\\nContent-Type: text/html; charset=utf-8\\r\\nContent-Length: %d\\r\\n\\r\\n' % len(body)
        response = http.client.HTTPResponse(_OfflineSocket(head + body), method=request.get_method())
        response.begin()
        response.url = request.full_url
        response.msg = response.reason
        return response

    http_open = https_open = _answer


_offline_opener = urllib.request.build_opener(_OfflineHandler)
urllib.request.install_opener(_offline_opener)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transport_assigns_only_what_it_declares() {
        for source in [OFFLINE_REQUESTS, OFFLINE_URLLIB] {
            for line in source
                .lines()
                .filter(|l| !l.starts_with(' ') && !l.starts_with('#'))
            {
                if let Some((target, _)) = line.split_once(" = ") {
                    assert!(PATCHES.contains(&target) || !target.contains('.'), "{line}");
                }
            }
        }
        assert!(is_transport("_offline_send") && !is_transport("requests"));
    }
}
