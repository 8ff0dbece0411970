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
    "ConnectError",
    "MaxRetryError",
    "NewConnectionError",
    "HTTPError",
    // aiohttp's: a host that does not resolve, a connection refused.
    "ClientConnectorDNSError",
    "ClientConnectorError",
];

/// The library attributes the transport assigns: the only assignments to
/// a library's attributes a prefix may make.
pub const PATCHES: &[&str] = &[
    "requests.adapters.HTTPAdapter.send",
    "httpx.HTTPTransport.handle_request",
    "httpx.AsyncHTTPTransport.handle_async_request",
    "aiohttp.TCPConnector._create_connection",
];

/// Names of the transport's bindings.
const REQUESTS_BINDING: &str = "_offline_send";
const URLLIB_BINDING: &str = "_offline_opener";
const HTTPX_BINDING: &str = "_offline_httpx";
const AIOHTTP_BINDING: &str = "_offline_aiohttp";
const BINDINGS: [&str; 4] = [REQUESTS_BINDING, URLLIB_BINDING, HTTPX_BINDING, AIOHTTP_BINDING];

/// Whether `name` is a binding of the declared transport.
pub fn is_transport(name: &str) -> bool {
    BINDINGS.contains(&name)
}

/// Answer HTTP locally for `requests`, `httpx` and `urllib`, as the
/// fragment uses them; `false` when the prefix has the transport already.
pub fn add_offline_network(ctx: &Context, p: &mut Prefix) -> bool {
    if BINDINGS.iter().any(|b| p.binding(b).is_some()) {
        return false;
    }
    let modules: Vec<&str> = ctx
        .analysis
        .imports
        .iter()
        .map(|i| i.module.as_str())
        .collect();
    let mut added = false;
    let status = status_code(ctx);
    let mut page = Page::for_fragment(ctx);
    if matches!(status, 204 | 304) {
        // No Content, Not Modified: HTTP gives these no body.
        page.body = "b''".into();
    }
    if modules.iter().any(|m| m.starts_with("requests")) || p.binding("requests").is_some() {
        // The code's reason phrase, written out: importing `http` for it
        // would rebind a name the fragment may use.
        let imports: Vec<String> = vec!["import requests".into(), "import requests.adapters".into()];
        let phrase = http::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("OK");
        let reason = super::render::py_str(phrase);
        p.bindings.push(Binding::new(
            REQUESTS_BINDING,
            vec![Candidate::Value(Value::Code {
                source: OFFLINE_REQUESTS.replace("{STATUS}", &status.to_string()).replace("{REASON}", &reason).replace("{TYPE}", page.content_type()).replace("{BODY}", &page.body),
                imports,
            })],
        ));
        added = true;
    }
    if modules.iter().any(|m| m.split('.').next() == Some("httpx")) || p.binding("httpx").is_some() {
        p.bindings.push(Binding::new(
            HTTPX_BINDING,
            vec![Candidate::Value(Value::Code {
                source: OFFLINE_HTTPX.replace("{STATUS}", &status.to_string()).replace("{TYPE}", page.content_type()).replace("{BODY}", &page.body),
                imports: vec!["import httpx".into()],
            })],
        ));
        added = true;
    }
    if modules.iter().any(|m| m.split('.').next() == Some("aiohttp")) || p.binding("aiohttp").is_some() {
        let phrase = http::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("OK");
        p.bindings.push(Binding::new(
            AIOHTTP_BINDING,
            vec![Candidate::Value(Value::Code {
                source: OFFLINE_AIOHTTP.replace("{STATUS}", &status.to_string()).replace("{REASON}", phrase).replace("{TYPE}", page.content_type()).replace("{BODY}", &page.body),
                imports: vec!["import asyncio".into(), "import aiohttp".into(), "import aiohttp.client_proto".into()],
            })],
        ));
        added = true;
    }
    if modules.iter().any(|m| m.starts_with("urllib")) || !added {
        p.bindings.push(Binding::new(
            URLLIB_BINDING,
            vec![Candidate::Value(Value::Code {
                source: OFFLINE_URLLIB.replace("{BODY}", &Page::xml(ctx).unwrap_or_else(|| Page::html(ctx)).body),
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

/// The status code the fragment expects of its responses
/// (`assert r.status_code == 204`), else 200.
fn status_code(ctx: &Context) -> u16 {
    let tested = ctx.analysis.http_response.attrs.get("status_code").into_iter().flat_map(|u| &u.compared);
    tested
        .filter(|(op, _)| op == "==")
        .find_map(|(_, lit)| match lit {
            crate::analysis::Literal::Int(n) if (100..600).contains(n) => Some(*n as u16),
            _ => None,
        })
        .unwrap_or(200)
}

/// What the local server answers: JSON, or, when the fragment parses HTML
/// (BeautifulSoup, lxml, or it looks for elements), a page holding the
/// elements it looks for (`soup.find('table', class_='wikitable')`), or,
/// when it reads parsed XML and no HTML, the document it reads
/// (`resources::xml_text`: `root.findall('item')`).
struct Page {
    kind: Kind,
    /// A Python expression of bytes.
    body: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Xml,
    Json,
}

const HTML_PARSERS: &[&str] = &["bs4", "lxml", "html5lib", "parsel", "pyquery"];
/// Libraries that parse HTML only (lxml parses both).
const HTML_ONLY: &[&str] = &["bs4", "html5lib", "parsel", "pyquery"];

impl Page {
    fn for_fragment(ctx: &Context) -> Page {
        let parses = super::library_types::fragment_modules(ctx).iter().any(|m| HTML_PARSERS.contains(&m.split('.').next().unwrap_or("")));
        if let Some(page) = Page::xml(ctx) {
            page
        } else if parses || !ctx.analysis.html_queries.is_empty() {
            Page::html(ctx)
        } else if let Some(doc) = ctx.analysis.http_response.attrs.get("json").and_then(|j| j.returns.as_deref())
            .filter(|u| **u != crate::analysis::Usage::default())
            .and_then(|u| super::resources::json_document(&super::infer::best("data", u, 1)))
        {
            // The JSON the fragment reads from the response (`r.json()['data']`).
            Page { kind: Kind::Json, body: format!("{}.encode()", super::render::py_str(&doc)) }
        } else {
            Page { kind: Kind::Json, body: "b'{\"name\": \"Ada\", \"id\": 1, \"items\": [1, 2, 3]}'".into() }
        }
    }

    /// The XML document the fragment reads, unless it parses HTML: looks
    /// for HTML elements, uses lxml's `HTMLParser` or an HTML-only library.
    fn xml(ctx: &Context) -> Option<Page> {
        let a = ctx.analysis;
        let html_only = super::library_types::fragment_modules(ctx).iter().any(|m| m == "lxml.html" || HTML_ONLY.contains(&m.split('.').next().unwrap_or("")));
        let html_parser = a.imported_usage.values().any(|u| u.attrs.contains_key("HTMLParser"));
        if html_only || html_parser || !a.html_queries.is_empty() {
            return None;
        }
        let text = super::resources::xml_text(a)?;
        Some(Page { kind: Kind::Xml, body: format!("{}.encode()", super::render::py_str(&text)) })
    }

    fn html(ctx: &Context) -> Page {
        let body = super::resources::html::document(&ctx.analysis.html_queries);
        Page { kind: Kind::Html, body: format!("b'{body}'") }
    }

    fn content_type(&self) -> &'static str {
        match self.kind {
            Kind::Html => "text/html; charset=utf-8",
            Kind::Xml => "application/xml; charset=utf-8",
            Kind::Json => "application/json",
        }
    }
}

/// `requests`: the transport adapter's `send` (what `Session.send` calls to
/// put a prepared request on the wire) answers with a local response.
const OFFLINE_REQUESTS: &str =
    "# Offline network: the transport adapter answers every request with this local response.
def _offline_send(self, request, *args, **kwargs):
    response = requests.Response()
    response.status_code = {STATUS}
    response.reason = {REASON}
    response.url = request.url
    response.request = request
    response.connection = self
    response.encoding = 'utf-8'
    response.headers['Content-Type'] = '{TYPE}'
    response._content = {BODY}
    return response


requests.adapters.HTTPAdapter.send = _offline_send";

/// `httpx`: the default transports' request handlers (what `Client.send`
/// and `AsyncClient.send` call to put a request on the wire) answer with a
/// local `httpx.Response`; the client's redirects, hooks, auth and
/// streaming still run.
const OFFLINE_HTTPX: &str = "# Offline network: httpx's transports answer every request with this local response.
def _offline_httpx(self, request):
    return httpx.Response({STATUS}, headers={'Content-Type': '{TYPE}'}, content={BODY}, request=request)


async def _offline_httpx_async(self, request):
    return _offline_httpx(self, request)


httpx.HTTPTransport.handle_request = _offline_httpx
httpx.AsyncHTTPTransport.handle_async_request = _offline_httpx_async";

/// `aiohttp`: the connector's one way to a connection answers with a
/// transport that feeds aiohttp's own response parser the local bytes once
/// the request's head is written; everything above it (the session, the
/// request writer, `ClientResponse.json()`) is aiohttp's.
const OFFLINE_AIOHTTP: &str = "# Offline network: aiohttp's connector answers every request with this local response.
class _OfflineAioTransport(asyncio.Transport):
    def __init__(self, protocol, answer):
        super().__init__()
        self._protocol = protocol
        self._answer = answer
        self._sent = b''
        self._answered = False
        self._closing = False

    def write(self, data):
        self._sent += bytes(data)
        if b'\\r\\n\\r\\n' in self._sent and not self._answered:
            self._answered = True
            asyncio.get_running_loop().call_soon(self._protocol.data_received, self._answer)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def is_closing(self):
        return self._closing

    def close(self):
        if not self._closing:
            self._closing = True
            asyncio.get_running_loop().call_soon(self._protocol.connection_lost, None)

    def abort(self):
        self.close()

    def get_extra_info(self, name, default=None):
        return default

    def can_write_eof(self):
        return False

    def get_write_buffer_size(self):
        return 0

    def set_write_buffer_limits(self, high=None, low=None):
        pass

    def pause_reading(self):
        pass

    def resume_reading(self):
        pass

    def is_reading(self):
        return True


async def _offline_aiohttp(self, req, traces, timeout):
    body = {BODY}
    head = b'HTTP/1.1 {STATUS} {REASON}\\r\\nContent-Type: {TYPE}\\r\\nContent-Length: %d\\r\\nConnection: close\\r\\n\\r\\n' % len(body)
    protocol = aiohttp.client_proto.ResponseHandler(asyncio.get_running_loop())
    protocol.connection_made(_OfflineAioTransport(protocol, head + body))
    return protocol


aiohttp.TCPConnector._create_connection = _offline_aiohttp";

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
        body = {BODY}
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
        for source in [OFFLINE_REQUESTS, OFFLINE_URLLIB, OFFLINE_HTTPX, OFFLINE_AIOHTTP] {
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

    #[test]
    fn a_fragment_that_parses_html_gets_a_page_with_the_elements_it_looks_for() {
        crate::synth::rules::check::with_ctx("import requests\nfrom bs4 import BeautifulSoup\nsoup = BeautifulSoup(requests.get(u).content, 'html.parser')\nprint(soup.find('table', class_=\"wiki'table\").text)\n", |ctx| {
            let page = Page::for_fragment(ctx);
            assert_eq!(page.kind, Kind::Html);
            assert!(page.body.contains("<table class=\"wikitable\"><tr><th>"), "quotes dropped, rows inside: {}", page.body);
        });
        crate::synth::rules::check::with_ctx("import requests\nprint(requests.get(u).json()['name'])\n", |ctx| {
            assert_eq!(Page::for_fragment(ctx).kind, Kind::Json, "JSON otherwise");
        });
        // XML read and no HTML: the document it reads.
        crate::synth::rules::check::with_ctx("import requests
import xml.etree.ElementTree as ET
root = ET.fromstring(requests.get(u).content)
for e in root.iter('entry'):
    print(e.get('id'))
", |ctx| {
            let page = Page::for_fragment(ctx);
            assert_eq!((page.kind, page.content_type()), (Kind::Xml, "application/xml; charset=utf-8"));
            assert!(page.body.contains("<entry id=\"1\">1</entry>"), "{}", page.body);
        });
        // lxml with its HTML parser reads HTML.
        crate::synth::rules::check::with_ctx("import requests
from lxml import etree
t = etree.fromstring(requests.get(u).content, etree.HTMLParser())
print(t.findall('.//a'))
", |ctx| {
            assert_eq!(Page::for_fragment(ctx).kind, Kind::Html);
        });
    }

    #[test]
    fn a_json_response_holds_what_the_fragment_reads_from_it() {
        // Through the response's name, and with the client's import cut off.
        for src in ["import requests\nr = requests.get(u)\nfor row in r.json()['items']:\n    print(row['id'] + 1)\n", "data = requests.post(u, json={}).json()\nprint(data['token'].upper())\n"] {
            crate::synth::rules::check::with_ctx(src, |ctx| {
                let page = Page::for_fragment(ctx);
                assert!(page.kind == Kind::Json && page.body.starts_with("'{") && page.body.ends_with("}'.encode()"), "{}", page.body);
                assert!(page.body.contains(r#""items":[{"id":"#) || page.body.contains(r#""token":""#), "{}", page.body);
            });
        }
    }

    #[test]
    fn an_aiohttp_fragment_gets_the_connector_transport() {
        let src = "import aiohttp\nasync def main(u):\n    async with aiohttp.ClientSession() as s:\n        async with s.get(u) as r:\n            print((await r.json())['id'])\n";
        crate::synth::rules::check::with_ctx(src, |ctx| {
            let mut p = Prefix::default();
            assert!(add_offline_network(ctx, &mut p));
            let b = p.binding(AIOHTTP_BINDING).expect("the aiohttp transport");
            let Some(Value::Code { source, .. }) = b.value() else { panic!() };
            assert!(source.contains("aiohttp.TCPConnector._create_connection = _offline_aiohttp") && source.contains("HTTP/1.1 200 OK"), "{source}");
            assert!(p.binding(URLLIB_BINDING).is_none());
        });
    }

    #[test]
    fn the_status_the_fragment_expects_is_answered_and_no_content_has_no_body() {
        let src = "import httpx\nclient = httpx.Client(timeout=1)\nr = client.get(u)\nassert r.status_code == 204\nassert not r.content\n";
        crate::synth::rules::check::with_ctx(src, |ctx| {
            assert_eq!(status_code(ctx), 204);
            let mut p = Prefix::default();
            assert!(add_offline_network(ctx, &mut p));
            let Some(Candidate::Value(Value::Code { source, .. })) = p.binding(HTTPX_BINDING).map(|b| b.current()) else { panic!("no httpx transport") };
            assert!(source.contains("httpx.Response(204, headers={'Content-Type': 'application/json'}, content=b'', request=request)"), "{source}");
        });
        // Through a requests session, with the code's reason phrase written
        // out (no `import http` to rebind a name of the fragment).
        crate::synth::rules::check::with_ctx("import requests\ns = requests.Session()\nif s.post(u).status_code == 201:\n    print('made')\n", |ctx| {
            let mut p = Prefix::default();
            assert!(add_offline_network(ctx, &mut p));
            let Some(Candidate::Value(Value::Code { source, imports })) = p.binding(REQUESTS_BINDING).map(|b| b.current()) else { panic!("no requests transport") };
            assert!(source.contains("response.status_code = 201\n    response.reason = 'Created'"), "{source}");
            assert!(!imports.contains(&"import http".to_string()));
        });
    }
}
