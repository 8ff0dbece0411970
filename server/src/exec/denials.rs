//! Whether a run stopped because a sandbox layer said no (pure).
//!
//! A fragment that fetches a URL fails in the sandbox with an ordinary
//! exception (`socket.gaierror`, `URLError`, requests' `ConnectionError`):
//! nothing tells the user it was the sandbox, not the code. This module
//! reads the exception a run ended with and names the layer that denied
//! what, so the report can say so and the editor can offer to allow that
//! one thing for one re-run. It only reports a layer that was active for the
//! run: a DNS failure with the network allowed is the code's own problem.

use super::types::{Containment, ExceptionInfo};
use serde::Serialize;

/// A denial by a sandbox layer, as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Denial {
    /// The layer that denied it, in words (`network namespace (bubblewrap --unshare-net)`).
    pub layer: String,
    /// What was denied: [`NETWORK`], [`FILESYSTEM`] or [`PATH`].
    pub what: String,
    /// The evidence: the exception as the program saw it.
    pub detail: String,
}

/// The network (name resolution, connections).
pub const NETWORK: &str = "network";
/// A write to the read-only file system of the sandbox.
pub const FILESYSTEM: &str = "filesystem";
/// A file outside what the sandboxed uid may read or write.
pub const PATH: &str = "path";

const LAYER_NETWORK: &str = "network namespace (bubblewrap --unshare-net)";
const LAYER_READ_ONLY: &str = "read-only file system (bubblewrap: only the working directory is writable)";
const LAYER_UID: &str = "unprivileged uid (the program does not run as you)";

/// The layers that were active for a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layers {
    pub bubblewrap: bool,
    /// bubblewrap with its own network namespace (network not allowed).
    pub network_isolated: bool,
    /// The program ran as another (unprivileged) uid than the user's.
    pub other_uid: bool,
}

impl Layers {
    /// From a pool's containment. `own_uid`: the uid this process runs as.
    pub fn of(c: &Containment, own_uid: u32) -> Layers {
        Layers { bubblewrap: c.bubblewrap, network_isolated: c.bubblewrap && !c.network, other_uid: c.unprivileged_uid.is_some_and(|u| u != own_uid) }
    }
}

/// One sign of a denial: the exception's type must be one of `types` (the
/// type or a base in its MRO, by qualified name or its last segment; empty:
/// any type) and its message must contain one of `needles`.
struct Sign {
    what: &'static str,
    types: &'static [&'static str],
    needles: &'static [&'static str],
    why: &'static str,
}

/// Network signs. Libraries wrap the socket error in their own (urllib's
/// `URLError`, requests' `ConnectionError`, urllib3's `MaxRetryError`,
/// httpx's `ConnectError`) and keep its text, so the message decides.
const NETWORK_SIGNS: &[Sign] = &[
    Sign {
        what: NETWORK,
        types: &[],
        needles: &[
            "Temporary failure in name resolution",
            "Name or service not known",
            "No address associated with hostname",
            "nodename nor servname provided",
            "[Errno -2]",
            "[Errno -3]",
            "[Errno -5]",
            "NameResolutionError",
            "Failed to resolve",
            "getaddrinfo failed",
        ],
        why: "no name server is reachable from the sandbox",
    },
    Sign {
        what: NETWORK,
        types: &[],
        needles: &["Network is unreachable", "[Errno 101]", "No route to host", "[Errno 113]"],
        why: "the sandbox has no network interface but loopback",
    },
    Sign {
        what: NETWORK,
        types: &[],
        needles: &["Max retries exceeded", "Failed to establish a new connection"],
        why: "no connection can leave the sandbox",
    },
    // The sandbox's loopback is its own: nothing the host runs listens there.
    Sign {
        what: NETWORK,
        types: &["OSError", "ConnectError", "ConnectionError"],
        needles: &["Connection refused", "[Errno 111]", "All connection attempts failed"],
        why: "the sandbox's loopback is its own: the host's services are not there",
    },
];

/// Read-only file system: bubblewrap binds `/` read-only.
const READ_ONLY_SIGN: Sign = Sign {
    what: FILESYSTEM,
    types: &["OSError"],
    needles: &["[Errno 30]", "Read-only file system"],
    why: "only the working directory is writable",
};

/// Permission denied: the unprivileged uid may not touch the user's files.
const PERMISSION_SIGN: Sign = Sign { what: PATH, types: &["PermissionError"], needles: &["[Errno 13]", "Permission denied"], why: "" };

/// The sandbox's own working directories (`<tmp>/runnable-exec-*/...`):
/// a path there is the program's, never the user's.
const SCRATCH_MARK: &str = "/runnable-exec-";

/// The denials an exception shows, given the layers active for the run
/// (at most one per kind of thing denied).
pub fn read(e: &ExceptionInfo, layers: &Layers) -> Vec<Denial> {
    let mut out = Vec::new();
    if layers.network_isolated {
        if let Some(sign) = NETWORK_SIGNS.iter().find(|s| matches(s, e)) {
            out.push(Denial { layer: LAYER_NETWORK.into(), what: sign.what.into(), detail: detail(e, sign.why) });
        }
    }
    if layers.bubblewrap && matches(&READ_ONLY_SIGN, e) {
        out.push(Denial { layer: LAYER_READ_ONLY.into(), what: READ_ONLY_SIGN.what.into(), detail: detail(e, READ_ONLY_SIGN.why) });
    }
    if layers.other_uid && matches(&PERMISSION_SIGN, e) {
        if let Some(path) = e.path.as_deref().filter(|p| p.starts_with('/') && !p.contains(SCRATCH_MARK)) {
            let why = format!("{path} is outside the sandbox's working directory");
            out.push(Denial { layer: LAYER_UID.into(), what: PERMISSION_SIGN.what.into(), detail: detail(e, &why) });
        }
    }
    out
}

fn matches(sign: &Sign, e: &ExceptionInfo) -> bool {
    let typed = sign.types.is_empty()
        || std::iter::once(&e.type_name).chain(&e.bases).any(|t| sign.types.iter().any(|want| t == want || t.rsplit('.').next() == Some(*want)));
    typed && sign.needles.iter().any(|n| e.message.contains(n))
}

/// `socket.gaierror: [Errno -3] ... (no name server is reachable ...)`, kept short.
fn detail(e: &ExceptionInfo, why: &str) -> String {
    let message: String = e.message.chars().take(200).collect();
    if why.is_empty() {
        format!("{}: {message}", e.type_name)
    } else {
        format!("{}: {message} ({why})", e.type_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Layers = Layers { bubblewrap: true, network_isolated: true, other_uid: true };

    fn exc(type_name: &str, bases: &[&str], message: &str) -> ExceptionInfo {
        let mut b = vec![type_name.to_string()];
        b.extend(bases.iter().map(|s| s.to_string()));
        ExceptionInfo { type_name: type_name.into(), message: message.into(), bases: b, ..Default::default() }
    }

    fn what(e: &ExceptionInfo, layers: &Layers) -> Vec<String> {
        read(e, layers).into_iter().map(|d| d.what).collect()
    }

    #[test]
    fn network_failures_seen_in_the_sandbox_are_denials() {
        let cases = [
            exc("socket.gaierror", &["OSError"], "[Errno -3] Temporary failure in name resolution"),
            exc("socket.gaierror", &["OSError"], "[Errno -2] Name or service not known"),
            exc("OSError", &[], "[Errno 101] Network is unreachable"),
            exc("urllib.error.URLError", &["OSError"], "<urlopen error [Errno -3] Temporary failure in name resolution>"),
            exc("urllib.error.URLError", &["OSError"], "<urlopen error [Errno 111] Connection refused>"),
            exc("ConnectionRefusedError", &["ConnectionError", "OSError"], "[Errno 111] Connection refused"),
            exc(
                "requests.exceptions.ConnectionError",
                &["requests.exceptions.RequestException", "OSError"],
                "HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded with url: / \
                 (Caused by NameResolutionError(\"<urllib3.connection.HTTPSConnection object>: Failed to resolve 'api.example.com'\"))",
            ),
            exc("urllib3.exceptions.MaxRetryError", &["urllib3.exceptions.HTTPError"], "HTTPConnectionPool(host='x', port=80): Max retries exceeded"),
            exc("httpx.ConnectError", &["httpx.NetworkError"], "[Errno -3] Temporary failure in name resolution"),
            exc("httpx.ConnectError", &["httpx.NetworkError"], "All connection attempts failed"),
        ];
        for e in &cases {
            let d = read(e, &ALL);
            assert_eq!(d.len(), 1, "{e:?}");
            assert_eq!(d[0].what, NETWORK);
            assert_eq!(d[0].layer, "network namespace (bubblewrap --unshare-net)");
            assert!(d[0].detail.starts_with(&format!("{}: ", e.type_name)), "{}", d[0].detail);
        }
    }

    #[test]
    fn a_network_failure_with_the_network_allowed_is_the_codes_own() {
        let e = exc("socket.gaierror", &["OSError"], "[Errno -3] Temporary failure in name resolution");
        let allowed = Layers { network_isolated: false, ..ALL };
        assert!(read(&e, &allowed).is_empty());
        let no_bwrap = Layers { bubblewrap: false, network_isolated: false, other_uid: true };
        assert!(read(&e, &no_bwrap).is_empty());
    }

    #[test]
    fn ordinary_errors_are_not_denials() {
        let cases = [
            exc("KeyError", &["LookupError"], "'host'"),
            exc("ValueError", &[], "Connection refused is not a number"),
            exc("FileNotFoundError", &["OSError"], "[Errno 2] No such file or directory: 'data.csv'"),
            exc("NameError", &[], "name 'requests' is not defined"),
        ];
        for e in &cases {
            assert!(read(e, &ALL).is_empty(), "{e:?}");
        }
    }

    #[test]
    fn writing_the_read_only_root_is_a_denial_by_bubblewrap() {
        let mut e = exc("OSError", &[], "[Errno 30] Read-only file system: '/etc/motd'");
        e.path = Some("/etc/motd".into());
        assert_eq!(what(&e, &ALL), vec![FILESYSTEM]);
        let d = &read(&e, &ALL)[0];
        assert!(d.layer.contains("read-only"), "{}", d.layer);
        assert!(d.detail.contains("/etc/motd"), "{}", d.detail);
        // Without bubblewrap a read-only mount is the host's, not ours.
        assert!(read(&e, &Layers { bubblewrap: false, network_isolated: false, other_uid: true }).is_empty());
    }

    #[test]
    fn permission_denied_outside_the_working_directory_is_a_denial_by_the_uid() {
        let mut e = exc("PermissionError", &["OSError"], "[Errno 13] Permission denied: '/root/.ssh/id_rsa'");
        e.path = Some("/root/.ssh/id_rsa".into());
        assert_eq!(what(&e, &ALL), vec![PATH]);
        assert!(read(&e, &ALL)[0].detail.contains("/root/.ssh/id_rsa is outside"));
        // A relative path, or one in the sandbox's own scratch, is the program's.
        e.path = Some("out/data.csv".into());
        assert!(read(&e, &ALL).is_empty());
        e.path = Some("/tmp/runnable-exec-ab12/w0-1/data.csv".into());
        assert!(read(&e, &ALL).is_empty());
        // Running as the user's own uid: no layer of ours said no.
        e.path = Some("/root/.ssh/id_rsa".into());
        assert!(read(&e, &Layers { other_uid: false, ..ALL }).is_empty());
    }

    #[test]
    fn layers_follow_the_containment() {
        let c = Containment { bubblewrap: true, unprivileged_uid: Some(60001), network: false, note: None, seccomp: true, layers: Vec::new() };
        assert_eq!(Layers::of(&c, 0), ALL);
        let open = Containment { network: true, ..c.clone() };
        assert!(!Layers::of(&open, 0).network_isolated);
        let own = Containment { unprivileged_uid: Some(1000), ..c };
        assert!(!Layers::of(&own, 1000).other_uid);
    }
}
