//! Facts about this machine that both sandboxes (fragment runs in
//! `exec::sandbox`, the installer in `env::contain`) decide from: whether
//! bubblewrap works here, which folders other uids cannot traverse, which
//! ids accounts use. Found with a few system calls and one probe process.

use std::collections::BTreeSet;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// We run as root (effective uid 0).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// bubblewrap on PATH, if it can create a sandbox here (read-only root,
/// own PID namespace and, with `unshare_net`, network namespace); else why
/// not, in words for a report.
pub fn working_bwrap(unshare_net: bool) -> Result<PathBuf, String> {
    let path = which::which("bwrap").map_err(|_| "bubblewrap (bwrap) is not installed".to_string())?;
    bwrap_works(&path, unshare_net).map_err(|e| format!("bubblewrap is installed but cannot create a sandbox here ({e})"))?;
    Ok(path)
}

fn bwrap_works(bwrap: &Path, unshare_net: bool) -> Result<(), String> {
    let mut args = vec!["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
    if unshare_net {
        args.push("--unshare-net");
    }
    args.extend(["--unshare-pid", "--new-session", "--die-with-parent", "--", "true"]);
    let mut child = Command::new(bwrap)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("it did not finish within 20 s".into());
            }
            Err(e) => return Err(e.to_string()),
        }
    };
    let mut err = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut err);
    }
    if status.success() {
        Ok(())
    } else {
        let err = err.trim();
        let start = err.len().saturating_sub(300);
        let start = (start..=err.len()).find(|&i| err.is_char_boundary(i)).unwrap_or(err.len());
        Err(format!("{status}: {}", &err[start..]))
    }
}

/// The outermost proper ancestor of `path` that "others" cannot traverse
/// (mode without o+x), if any: an unprivileged uid cannot reach `path`.
pub fn blocking_ancestor(path: &Path) -> Option<PathBuf> {
    let mut ancestors: Vec<&Path> = path.ancestors().skip(1).filter(|a| a.parent().is_some()).collect();
    ancestors.reverse();
    ancestors
        .into_iter()
        .find(|a| std::fs::metadata(a).is_ok_and(|m| m.mode() & 0o001 == 0))
        .map(Path::to_path_buf)
}

/// User and group ids that accounts of `/etc/passwd` and `/etc/group` use:
/// never handed to a sandboxed process.
pub fn account_ids() -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for file in ["/etc/passwd", "/etc/group"] {
        if let Ok(text) = std::fs::read_to_string(file) {
            out.extend(text.lines().filter_map(|line| line.split(':').nth(2)?.parse::<u32>().ok()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_has_no_blocking_ancestor_and_accounts_include_root() {
        assert_eq!(blocking_ancestor(Path::new("/")), None);
        if Path::new("/etc/passwd").exists() {
            assert!(account_ids().contains(&0));
        }
    }
}
