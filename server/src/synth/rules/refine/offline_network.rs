//! A network error (the sandbox has no network): the one declared offline
//! transport below `requests`' and `urllib`'s public API (`offline.rs`).

use crate::synth::offline;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct OfflineNetwork;

impl Rule for OfflineNetwork {
    fn name(&self) -> &'static str {
        "offline-network"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| offline::NETWORK_ERRORS.iter().any(|t| fail.is(t) || fail.error.type_name.ends_with(t)))
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let base = fail.base;
        let mut out = Vec::new();
        let mut p = base.clone();
        if offline::add_offline_network(ctx, &mut p) {
            out.push(p);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_network_error_gets_the_offline_transport() {
        refine(&super::OfflineNetwork, "import requests\nprint(requests.get('https://example.com').status_code)\n", raised("requests.exceptions.ConnectionError", r#"Failed to establish a new connection"#, 2), expect![[r###"
            ## 1
            import requests
            import requests.adapters


            # Offline network: the transport adapter answers every request with this local response.
            def _offline_send(self, request, *args, **kwargs):
                response = requests.Response()
                response.status_code = 200
                response.reason = 'OK'
                response.url = request.url
                response.request = request
                response.connection = self
                response.encoding = 'utf-8'
                response.headers['Content-Type'] = 'application/json'
                response._content = b'{"name": "Ada", "id": 1, "items": [1, 2, 3]}'
                return response


            requests.adapters.HTTPAdapter.send = _offline_send
        "###]]);
    }

    #[test]
    fn httpx_gets_its_transports_answered_locally() {
        refine(&super::OfflineNetwork, "import httpx\nprint(httpx.get('https://example.com').json()['name'])\n", raised("httpx.ConnectError", "[Errno -3] Temporary failure in name resolution", 2), expect![[r###"
            ## 1
            import httpx


            # Offline network: httpx's transports answer every request with this local response.
            def _offline_httpx(self, request):
                return httpx.Response(200, headers={'Content-Type': 'application/json'}, content='{"name":"Ada"}'.encode(), request=request)


            async def _offline_httpx_async(self, request):
                return _offline_httpx(self, request)


            httpx.HTTPTransport.handle_request = _offline_httpx
            httpx.AsyncHTTPTransport.handle_async_request = _offline_httpx_async
        "###]]);
    }
}
