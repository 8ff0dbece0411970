//! Canaries for the sandbox's network layer: a loopback listener that
//! records who reached it, and the check that bubblewrap can sandbox here.
//! Nothing but 127.0.0.1 is ever contacted.

use std::io::Read;
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A listener on 127.0.0.1 (host network namespace). A program in the
/// sandbox's own namespace cannot reach it; one allowed the network can.
pub struct Canary {
    pub port: u16,
    received: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Canary {
    pub fn start() -> Canary {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (received.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((mut conn, _)) => {
                        let _ = conn.set_nonblocking(false);
                        let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
                        let mut data = Vec::new();
                        let _ = conn.read_to_end(&mut data);
                        r.lock().unwrap().push(String::from_utf8_lossy(&data).into_owned());
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Canary { port, received, stop }
    }

    /// What each connection sent, in order.
    pub fn received(&self) -> Vec<String> {
        self.received.lock().unwrap().clone()
    }

    /// A fragment that connects to the canary and says `canary`.
    pub fn fragment(&self) -> String {
        format!(
            "import socket\nconn = socket.create_connection((\"127.0.0.1\", {}), timeout=5)\nconn.sendall(b\"canary\")\nconn.close()\n",
            self.port
        )
    }
}

impl Drop for Canary {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Whether bubblewrap can create a sandbox with its own network namespace
/// here. When it cannot, a test that needs it is skipped with a note, but
/// under `CI=true` (or `RUNNABLE_REQUIRE_PRECONDITIONS=1`) it fails: a green CI
/// has to mean the sandbox was tested.
pub fn sandbox_or_skip(test: &str) -> bool {
    let works = Command::new("bwrap")
        .args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid", "--die-with-parent", "--", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if works {
        return true;
    }
    let required = super::precondition::required();
    assert!(!required, "{test}: bubblewrap cannot create a sandbox here, and CI=true requires it");
    eprintln!("note: {test} skipped: bubblewrap cannot create a sandbox here");
    false
}
