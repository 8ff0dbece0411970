//! The editor's end of an LSP connection, framed by the library: the
//! editor side runs tower-lsp-server's own `Server` (its codec parses and
//! writes every message, both ways) with a loopback socket that carries the
//! test's messages out and hands the server's responses to the test, and a
//! service that sees the server's notifications and requests (the test's
//! `Editor` answers them). The far end is `runnable::lsp::serve` in process
//! over `tokio::io::duplex`, or the real `runnable lsp` binary over stdio.

use futures::channel::mpsc as fmpsc;
use futures::{Sink, Stream, StreamExt};
use serde_json::Value;
use std::convert::Infallible;
use std::io::{Read, Write};
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use tower_lsp_server::jsonrpc::{Request, Response};
use tower_lsp_server::{Loopback, Server};

/// What the editor does with what the server sends: `message` records a
/// notification or response; `request` answers a server request and
/// returns the notifications to send before the answer (an editor reports
/// an applied edit with `didChange` before it answers `applyEdit`).
pub trait Editor: Send + Sync + 'static {
    fn message(&self, msg: Value);
    fn request(&self, msg: Value) -> (Value, Vec<Value>);
    fn closed(&self);
    /// How long to take before answering this server request (an editor
    /// busy elsewhere); the connection goes on meanwhile.
    fn delay(&self, _msg: &Value) -> Duration {
        Duration::ZERO
    }
}

/// The far end of the connection.
enum Far {
    InProcess { server: tokio::task::JoinHandle<()>, pump: tokio::task::JoinHandle<()> },
    Binary { child: Child },
}

pub struct Connection {
    rt: Option<tokio::runtime::Runtime>,
    outbox: Outbox,
    raw: mpsc::UnboundedSender<Vec<u8>>,
    far: Far,
}

/// The test's outgoing messages, numbered in the order they are queued.
#[derive(Clone)]
struct Outbox {
    queue: Arc<Mutex<(u64, fmpsc::UnboundedSender<Request>)>>,
    /// How many queued messages the editor's `Server` has taken to encode.
    taken: Arc<watch::Sender<u64>>,
    /// `taken` as it was at the writer's last flush: those are in `raw`'s queue.
    flushed: Arc<watch::Sender<u64>>,
}

impl Outbox {
    fn push(&self, req: Request) -> u64 {
        let mut q = self.queue.lock().unwrap();
        q.0 += 1;
        let _ = q.1.unbounded_send(req);
        q.0
    }
}

/// The loopback socket: the test's messages out, the server's responses in.
struct Socket<E> {
    outgoing: Outgoing,
    editor: Arc<E>,
}

struct Outgoing {
    rx: fmpsc::UnboundedReceiver<Request>,
    taken: Arc<watch::Sender<u64>>,
}

impl Stream for Outgoing {
    type Item = Request;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Request>> {
        let next = self.rx.poll_next_unpin(cx);
        if let Poll::Ready(Some(_)) = next {
            self.taken.send_modify(|n| *n += 1);
        }
        next
    }
}

struct Responses<E>(Arc<E>);

impl<E: Editor> Sink<Response> for Responses<E> {
    type Error = Infallible;
    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }
    fn start_send(self: Pin<&mut Self>, item: Response) -> Result<(), Infallible> {
        self.0.message(serde_json::to_value(item).expect("a response is JSON"));
        Ok(())
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }
    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }
}

impl<E: Editor> Loopback for Socket<E> {
    type RequestStream = Outgoing;
    type ResponseSink = Responses<E>;
    fn split(self) -> (Outgoing, Responses<E>) {
        (self.outgoing, Responses(self.editor))
    }
}

/// The bytes the editor's `Server` writes go into the same queue as the
/// raw bytes a hostile test writes, one whole write at a time: the codec
/// writes whole frames, so raw bytes never land inside a frame.
struct QueueWriter {
    raw: mpsc::UnboundedSender<Vec<u8>>,
    taken: Arc<watch::Sender<u64>>,
    flushed: Arc<watch::Sender<u64>>,
}

impl AsyncWrite for QueueWriter {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        match self.raw.send(buf.to_vec()) {
            Ok(()) => Poll::Ready(Ok(buf.len())),
            Err(_) => Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into())),
        }
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        // The sink is flushed when the outgoing stream has nothing more:
        // everything taken so far has been written.
        let taken = *self.taken.borrow();
        self.flushed.send_replace(taken);
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// `msg` as the library's request type; it must encode to exactly the same
/// JSON (anything else is hostile input: write its bytes with `send_raw`).
fn as_request(msg: Value) -> Request {
    let req: Request = serde_json::from_value(msg.clone()).unwrap_or_else(|e| panic!("not a JSON-RPC message ({e}): send its bytes with send_raw: {msg}"));
    assert_eq!(serde_json::to_value(&req).unwrap(), msg, "the codec would not send this as written: send its bytes with send_raw");
    req
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a tokio runtime")
}

/// Every message's bytes pass through here; 1 MiB is far above one write.
const PIPE: usize = 1 << 20;

impl Connection {
    fn wire<E: Editor>(rt: &tokio::runtime::Runtime, editor: Arc<E>, from_server: tokio::io::DuplexStream) -> (Outbox, mpsc::UnboundedSender<Vec<u8>>, mpsc::UnboundedReceiver<Vec<u8>>) {
        let (tx, rx) = fmpsc::unbounded();
        let taken = Arc::new(watch::channel(0).0);
        let flushed = Arc::new(watch::channel(0).0);
        let outbox = Outbox { queue: Arc::new(Mutex::new((0, tx))), taken: taken.clone(), flushed: flushed.clone() };
        let (raw, raw_rx) = mpsc::unbounded_channel();
        let socket = Socket { outgoing: Outgoing { rx, taken: taken.clone() }, editor: editor.clone() };
        let writer = QueueWriter { raw: raw.clone(), taken, flushed };
        // The editor's `Server` calls this for every server request and notification.
        let service = {
            let (editor, outbox) = (editor.clone(), outbox.clone());
            tower::service_fn(move |req: Request| {
                let msg = serde_json::to_value(&req).expect("a request is JSON");
                let answer = match req.id() {
                    None => {
                        editor.message(msg);
                        None
                    }
                    Some(id) => {
                        // Answered (an edit applied) before it is recorded, so
                        // a test that sees the request sees its effect.
                        let delay = editor.delay(&msg);
                        let (result, notes) = editor.request(msg.clone());
                        editor.message(msg);
                        let last = notes.into_iter().map(|n| outbox.push(as_request(n))).last();
                        Some((id.clone(), result, last, delay))
                    }
                };
                let taken = outbox.taken.clone();
                async move {
                    let Some((id, result, last, delay)) = answer else { return Ok::<_, Infallible>(None) };
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                    if let Some(seq) = last {
                        // The notes are encoded before the answer.
                        let _ = taken.subscribe().wait_for(|n| *n >= seq).await;
                    }
                    Ok(Some(Response::from_ok(id, result)))
                }
            })
        };
        rt.spawn(async move {
            Server::new(from_server, writer, socket).serve(service).await;
            editor.closed();
        });
        (outbox, raw, raw_rx)
    }

    /// `runnable::lsp::serve` on this process's own runtime, over duplex pipes.
    pub fn in_process<E: Editor>(editor: Arc<E>) -> Connection {
        let rt = runtime();
        let (server_out, from_server) = tokio::io::duplex(PIPE);
        let (mut to_server, server_in) = tokio::io::duplex(PIPE);
        let (outbox, raw, mut raw_rx) = Self::wire(&rt, editor, from_server);
        let pump = rt.spawn(async move {
            while let Some(bytes) = raw_rx.recv().await {
                if to_server.write_all(&bytes).await.is_err() {
                    break;
                }
            }
        });
        let server = rt.spawn(runnable::lsp::serve(server_in, server_out));
        Connection { rt: Some(rt), outbox, raw, far: Far::InProcess { server, pump } }
    }

    /// The real binary (`runnable lsp`) over its stdin and stdout.
    pub fn binary<E: Editor>(editor: Arc<E>, mut command: Command) -> Connection {
        let rt = runtime();
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().expect("runnable lsp starts");
        let (mut stdin, mut stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
        let (mut into_editor, from_server) = tokio::io::duplex(PIPE);
        let (outbox, raw, mut raw_rx) = Self::wire(&rt, editor, from_server);
        std::thread::spawn(move || {
            while let Some(bytes) = raw_rx.blocking_recv() {
                if stdin.write_all(&bytes).and_then(|()| stdin.flush()).is_err() {
                    break;
                }
            }
        });
        let handle = rt.handle().clone();
        std::thread::spawn(move || {
            let mut buf = vec![0; 1 << 16];
            while let Ok(n @ 1..) = stdout.read(&mut buf) {
                if handle.block_on(into_editor.write_all(&buf[..n])).is_err() {
                    break;
                }
            }
        });
        Connection { rt: Some(rt), outbox, raw, far: Far::Binary { child } }
    }

    /// Queue a JSON-RPC message (the library's codec frames it).
    pub fn send(&self, msg: Value) {
        self.outbox.push(as_request(msg));
    }

    /// Write bytes as they are, after every message queued before them.
    pub fn send_raw(&self, bytes: &[u8]) {
        let seq = self.outbox.queue.lock().unwrap().0;
        let mut flushed = self.outbox.flushed.subscribe();
        let rt = self.rt.as_ref().unwrap();
        let _ = rt.block_on(async { tokio::time::timeout(Duration::from_secs(10), flushed.wait_for(|n| *n >= seq)).await });
        let _ = self.raw.send(bytes.to_vec());
    }

    /// The server's process id (this process when it is served in process).
    pub fn pid(&self) -> u32 {
        match &self.far {
            Far::InProcess { .. } => std::process::id(),
            Far::Binary { child } => child.id(),
        }
    }

    /// Wait for the binary to exit after `exit`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let Far::Binary { child } = &mut self.far else { panic!("only the binary has an exit status") };
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Some(status);
            }
            if std::time::Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Connection {
    /// Leave as an editor does: `shutdown` (which stops every run and drops
    /// the engine with its workers) and `exit`; the binary is killed if it
    /// is still there.
    fn drop(&mut self) {
        let rt = self.rt.take().unwrap();
        match &mut self.far {
            Far::InProcess { server, pump } => {
                if !server.is_finished() {
                    self.outbox.push(Request::build("shutdown").id(i64::MAX).finish());
                    self.outbox.push(Request::build("exit").finish());
                    let _ = rt.block_on(async { tokio::time::timeout(Duration::from_secs(60), server).await });
                }
                pump.abort();
            }
            Far::Binary { child } => {
                if let Ok(None) = child.try_wait() {
                    let _ = child.kill();
                    let _ = child.wait();
                }
            }
        }
        rt.shutdown_timeout(Duration::from_secs(5));
    }
}
