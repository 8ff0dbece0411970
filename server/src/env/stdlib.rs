//! The standard-library module names of an interpreter, asked once and
//! cached on disk.

use super::error::EnvError;
use super::toolchain::{run_script, Toolchain};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// `sys.stdlib_module_names` (3.10+; older interpreters list their stdlib
/// directory instead) plus `sys.builtin_module_names`, as a JSON list.
const STDLIB_SCRIPT: &str = r#"
import sys, json
names = set(getattr(sys, "stdlib_module_names", ()))
if not names:
    import os, pkgutil, sysconfig
    std = sysconfig.get_paths()["stdlib"]
    for info in pkgutil.iter_modules([std, os.path.join(std, "lib-dynload")]):
        names.add(info.name)
names.update(sys.builtin_module_names)
print(json.dumps(sorted(names)))
"#;

#[derive(Serialize, Deserialize)]
struct CacheFile {
    python: PathBuf,
    python_version: String,
    modules: BTreeSet<String>,
}

/// Top-level standard-library module names of `toolchain.python`.
///
/// Cached under `<cache_dir>/stdlib/`, keyed on the interpreter's path,
/// version, size and modification time, so replacing the interpreter in
/// place invalidates the entry. A missing or unreadable cache is rebuilt;
/// failing to write it is not an error.
pub fn stdlib_modules(
    toolchain: &Toolchain,
    cache_dir: &Path,
) -> Result<BTreeSet<String>, EnvError> {
    let cache_file = cache_dir
        .join("stdlib")
        .join(format!("{}.json", cache_key(toolchain)));
    if let Some(modules) = read_cache(&cache_file, toolchain) {
        return Ok(modules);
    }
    let modules = query(&toolchain.python)?;
    write_cache(&cache_file, toolchain, &modules);
    Ok(modules)
}

fn cache_key(toolchain: &Toolchain) -> String {
    let mut hasher = Sha256::new();
    hasher.update(toolchain.python.as_os_str().as_encoded_bytes());
    hasher.update([0]);
    hasher.update(toolchain.python_version.as_bytes());
    if let Ok(meta) = std::fs::metadata(&toolchain.python) {
        hasher.update([0]);
        hasher.update(meta.len().to_le_bytes());
        if let Some(mtime) = meta
            .modified()
            .ok()
            .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        {
            hasher.update(mtime.as_nanos().to_le_bytes());
        }
    }
    hex(&hasher.finalize()[..12])
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn read_cache(path: &Path, toolchain: &Toolchain) -> Option<BTreeSet<String>> {
    let text = std::fs::read_to_string(path).ok()?;
    let cached: CacheFile = serde_json::from_str(&text).ok()?;
    (cached.python == toolchain.python
        && cached.python_version == toolchain.python_version
        && !cached.modules.is_empty())
    .then_some(cached.modules)
}

fn write_cache(path: &Path, toolchain: &Toolchain, modules: &BTreeSet<String>) {
    let Some(dir) = path.parent() else { return };
    let contents = CacheFile {
        python: toolchain.python.clone(),
        python_version: toolchain.python_version.clone(),
        modules: modules.clone(),
    };
    let Ok(json) = serde_json::to_vec(&contents) else {
        return;
    };
    // Write beside and rename, so a concurrent reader never sees half a file.
    // Failing to cache only costs a query next time.
    let _ = std::fs::create_dir_all(dir).and_then(|()| {
        let mut file = tempfile::NamedTempFile::new_in(dir)?;
        std::io::Write::write_all(&mut file, &json)?;
        file.persist(path).map_err(|error| error.error)?;
        Ok(())
    });
}

fn query(python: &Path) -> Result<BTreeSet<String>, EnvError> {
    let broken = |reason: String| EnvError::PythonBroken {
        python: python.to_path_buf(),
        reason,
    };
    let done = run_script(python, STDLIB_SCRIPT, "listing its standard library took over")?;
    if !done.status.success() {
        return Err(broken(format!(
            "listing its standard library failed: {}",
            done.stderr.trim()
        )));
    }
    let modules: BTreeSet<String> = serde_json::from_str(done.stdout.trim())
        .map_err(|error| broken(format!("unreadable standard-library list ({error})")))?;
    if modules.is_empty() {
        return Err(broken("it reports an empty standard library".to_string()));
    }
    Ok(modules)
}
