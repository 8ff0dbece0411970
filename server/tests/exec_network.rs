//! `ExecConfig::network`: the one escalation of the sandbox. A loopback
//! listener on the host is the canary: a pool in its own network namespace
//! cannot reach it, a pool with `network: true` can, and the containment
//! says which it was. Nothing but 127.0.0.1 is contacted.

mod exec_support;

use exec_support::*;
use runnable::exec::*;
use std::io::Read;
use std::net::TcpListener;
use std::time::Duration;

fn connect_program(port: u16) -> String {
    format!(
        "import socket\ntry:\n    c = socket.create_connection(('127.0.0.1', {port}), timeout=5)\n    c.sendall(b'canary')\n    c.close()\n    print('reached')\nexcept OSError as e:\n    print('blocked', type(e).__name__)\n"
    )
}

/// Whether the canary got a connection within a second.
fn reached(listener: &TcpListener) -> bool {
    listener.set_nonblocking(true).unwrap();
    eventually(1, || match listener.accept() {
        Ok((mut conn, _)) => {
            conn.set_nonblocking(false).unwrap();
            conn.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
            let mut data = String::new();
            let _ = conn.read_to_string(&mut data);
            data == "canary"
        }
        Err(_) => false,
    })
}

#[test]
fn only_a_network_pool_reaches_the_hosts_loopback() {
    if !have_bwrap() {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "CI=true needs bubblewrap for this test");
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();

    let offline = pool();
    assert!(offline.containment().bubblewrap, "bubblewrap is installed but not used: {:?}", offline.containment());
    assert!(!offline.containment().network);
    let out = run(&offline, &connect_program(port));
    assert!(out.stdout.contains("blocked ConnectionRefusedError"), "{out:?}");
    assert!(!reached(&listener), "the sandbox reached the host's loopback");

    let online = pool_with(|c| c.network = true);
    let c = online.containment();
    assert!(c.network && c.bubblewrap, "{c:?}");
    let out = run(&online, &connect_program(port));
    assert!(out.stdout.contains("reached"), "{out:?}");
    assert!(reached(&listener), "the canary got nothing");

    // The offline pool is still offline after the network pool ran.
    let out = run(&offline, &connect_program(port));
    assert!(out.stdout.contains("blocked"), "{out:?}");
}
