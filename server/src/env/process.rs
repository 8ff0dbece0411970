//! Running a helper command (python, uv) with a deadline.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// A command that ran to completion (with any exit status).
#[derive(Debug)]
pub(crate) struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

#[derive(Debug)]
pub(crate) enum RunError {
    /// The command could not be started.
    Spawn(std::io::Error),
    /// It was still running at the deadline and has been killed.
    Timeout,
    /// Waiting for it failed.
    Wait(std::io::Error),
}

/// Run `command` with no stdin, capturing stdout and stderr, and kill it
/// (with every process it started) if it is still running after `timeout`.
pub(crate) fn run(command: &mut Command, timeout: Duration) -> Result<Finished, RunError> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        // Its own process group, so a timeout also ends the build backends
        // and compilers that uv starts.
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command.spawn().map_err(RunError::Spawn)?;
    let stdout = Drain::start(child.stdout.take());
    let stderr = Drain::start(child.stderr.take());

    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(5);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                kill(&mut child);
                return Err(RunError::Timeout);
            }
            Ok(None) => {
                thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            Err(error) => {
                kill(&mut child);
                return Err(RunError::Wait(error));
            }
        }
    };
    let grace = Instant::now() + Duration::from_secs(2);
    Ok(Finished {
        status,
        stdout: stdout.finish(grace),
        stderr: stderr.finish(grace),
    })
}

/// Reads a pipe to its end on a thread of its own.
struct Drain {
    bytes: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Receiver<()>,
}

impl Drain {
    fn start<R: Read + Send + 'static>(pipe: Option<R>) -> Drain {
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let (sender, done) = mpsc::channel();
        let sink = Arc::clone(&bytes);
        thread::spawn(move || {
            if let Some(mut pipe) = pipe {
                let mut chunk = [0u8; 8192];
                loop {
                    match pipe.read(&mut chunk) {
                        Ok(0) => break,
                        Ok(n) => match sink.lock() {
                            Ok(mut bytes) => bytes.extend_from_slice(&chunk[..n]),
                            Err(_) => break,
                        },
                        Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
            }
            let _ = sender.send(());
        });
        Drain { bytes, done }
    }

    /// What was read, once the pipe is closed, or at `grace` if a process
    /// that outlived the command still holds it open.
    fn finish(self, grace: Instant) -> String {
        let _ = self
            .done
            .recv_timeout(grace.saturating_duration_since(Instant::now()));
        let bytes = match self.bytes.lock() {
            Ok(bytes) => bytes.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

fn kill(child: &mut Child) {
    #[cfg(unix)]
    {
        if let Ok(pid) = i32::try_from(child.id()) {
            // SAFETY: kill(2) has no memory-safety preconditions; a negative
            // pid addresses the process group the child leads.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A command line for messages: program and arguments, space-separated.
pub(crate) fn describe(command: &Command) -> String {
    let mut text = command.get_program().to_string_lossy().into_owned();
    for arg in command.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    text
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn captures_output_and_status() {
        let done = run(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(done.stdout, "out\n");
        assert_eq!(done.stderr, "err\n");
        assert_eq!(done.status.code(), Some(3));
    }

    #[test]
    fn kills_the_whole_group_at_the_deadline() {
        let start = Instant::now();
        // The grandchild keeps the pipes open: only a group kill ends it.
        let result = run(
            Command::new("sh").args(["-c", "sleep 30 & sleep 30"]),
            Duration::from_millis(300),
        );
        assert!(matches!(result, Err(RunError::Timeout)), "{result:?}");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn output_held_open_by_a_daemon_does_not_block() {
        let start = Instant::now();
        // The background sleep keeps stdout open after sh exits.
        let done = run(
            Command::new("sh").args(["-c", "echo ready; (sleep 5 &) ; exit 0"]),
            Duration::from_secs(20),
        )
        .unwrap();
        assert_eq!(done.stdout, "ready\n");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        let result = run(
            &mut Command::new("/nonexistent/runnable-test-program"),
            Duration::from_secs(1),
        );
        assert!(matches!(result, Err(RunError::Spawn(_))), "{result:?}");
    }
}
