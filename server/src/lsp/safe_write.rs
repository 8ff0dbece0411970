//! The only place the language server writes files (resources, the
//! runnable copy, the report), and how: below a folder it trusts (the
//! document's folder), every folder on the way is opened with `O_NOFOLLOW`
//! relative to the one before (`openat`), created when missing, and every
//! path is made of plain names, so nothing is written outside `resourceDir`
//! and no symlink is ever followed, whatever the workspace holds (a cloned
//! repository may ship `.runnable/img.png -> ~/.bashrc`). New files are
//! created with `O_CREAT | O_EXCL | O_NOFOLLOW`; a file is replaced only
//! when asked to, by renaming a fresh file over it (which replaces the
//! directory entry and never writes through it).

use rustix::fs::{mkdirat, openat, renameat, statat, unlinkat, AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What the server puts in a resource folder it creates: the folder holds
/// generated files (data made up for a run, copies, reports) that do not
/// belong in the user's repository.
const GITIGNORE: (&str, &[u8]) = (".gitignore", b"*\n");

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{0:?} is not a plain relative path")]
    BadPath(PathBuf),
    #[error("{0} is a symbolic link: Runnable never writes through one")]
    Symlink(PathBuf),
    #[error("{0} is not a folder")]
    NotAFolder(PathBuf),
    #[error("{0} exists and is not a regular file")]
    NotAFile(PathBuf),
    #[error("{0} already exists")]
    Exists(PathBuf),
    #[error("{0} is not a private folder of this user")]
    NotPrivate(PathBuf),
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// What is at a path already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    Absent,
    /// A regular file with exactly the bytes wanted.
    Same,
    /// A regular file with other bytes.
    Differs,
    /// A symbolic link, at the path or on the way to it.
    Symlink,
    /// A folder, a device, ...
    NotAFile,
}

fn io(path: &Path, e: impl Into<std::io::Error>) -> WriteError {
    WriteError::Io { path: path.to_path_buf(), source: e.into() }
}

/// The names of a relative path made only of plain names (`.` is skipped).
fn names(rel: &Path) -> Result<Vec<&OsStr>, WriteError> {
    let mut out = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) if !n.as_encoded_bytes().contains(&0) => out.push(n),
            Component::CurDir => {}
            _ => return Err(WriteError::BadPath(rel.to_path_buf())),
        }
    }
    Ok(out)
}

/// Why opening `name` in `dir` failed, in words: a symlink or a non-folder
/// is named as such.
fn explain(dir: BorrowedFd, name: &OsStr, path: &Path, e: Errno, want_dir: bool) -> WriteError {
    match statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).map(|st| FileType::from_raw_mode(st.st_mode)) {
        Ok(FileType::Symlink) => WriteError::Symlink(path.to_path_buf()),
        Ok(FileType::Directory) if !want_dir => WriteError::NotAFile(path.to_path_buf()),
        Ok(t) if want_dir && t != FileType::Directory => WriteError::NotAFolder(path.to_path_buf()),
        _ => io(path, e),
    }
}

/// Reading never follows a symlink, and never blocks on a FIFO swapped in
/// after the check that it is a regular file.
const READ_FLAGS: OFlags = OFlags::RDONLY.union(OFlags::NOFOLLOW).union(OFlags::NONBLOCK).union(OFlags::CLOEXEC);
const DIR_FLAGS: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

/// `name` in `dir` as a folder, never through a symlink; created (with
/// `mode`) when missing and `create`. None when missing and not `create`.
/// The flag says whether this call created it.
fn open_dir(dir: BorrowedFd, name: &OsStr, path: &Path, create: bool, mode: u32) -> Result<Option<(OwnedFd, bool)>, WriteError> {
    match openat(dir, name, DIR_FLAGS, Mode::empty()) {
        Ok(fd) => Ok(Some((fd, false))),
        Err(Errno::NOENT) if !create => Ok(None),
        Err(Errno::NOENT) => {
            let created = match mkdirat(dir, name, Mode::from_raw_mode(mode)) {
                Ok(()) => true,
                Err(Errno::EXIST) => false,
                Err(e) => return Err(io(path, e)),
            };
            openat(dir, name, DIR_FLAGS, Mode::empty()).map(|fd| Some((fd, created))).map_err(|e| explain(dir, name, path, e, true))
        }
        Err(e) => Err(explain(dir, name, path, e, true)),
    }
}

/// An open folder that files are written into.
#[derive(Debug)]
pub struct Folder {
    fd: OwnedFd,
    path: PathBuf,
    /// Whether opening it created it (its last name).
    created: bool,
}

impl Folder {
    /// `base` (trusted: followed like any path), then each name of `rel`
    /// without following symlinks, created when missing and `create`.
    pub fn open(base: &Path, rel: &Path, create: bool) -> Result<Folder, WriteError> {
        Folder::open_with(base, rel, create, 0o755)
    }

    fn open_with(base: &Path, rel: &Path, create: bool, mode: u32) -> Result<Folder, WriteError> {
        let fd = rustix::fs::open(base, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).map_err(|e| io(base, e))?;
        let mut folder = Folder { fd, path: base.to_path_buf(), created: false };
        for name in names(rel)? {
            let path = folder.path.join(name);
            let (fd, created) = open_dir(folder.fd.as_fd(), name, &path, create, mode)?.ok_or_else(|| io(&path, Errno::NOENT))?;
            folder = Folder { fd, path, created };
        }
        Ok(folder)
    }

    /// The resource folder `rel` below `base`, created when missing; when
    /// this created it, with a `.gitignore` of `*` in it (what the server
    /// writes there is generated, not the user's). A folder the user made
    /// is left as it is.
    pub fn open_resources(base: &Path, rel: &Path) -> Result<Folder, WriteError> {
        let folder = Folder::open(base, rel, true)?;
        if folder.created {
            let (name, bytes) = GITIGNORE;
            // Not having it is no reason to fail the run's files.
            if let Err(e) = folder.create_new(Path::new(name), bytes) {
                tracing::warn!("{}: {e}", folder.path.join(name).display());
            }
        }
        Ok(folder)
    }

    /// Folder `<name>-<uid>` in `base` that only this user can use (created
    /// mode 0700): for a shared place such as the temp dir, where another
    /// user could have made a folder of that name first.
    pub fn open_private(base: &Path, name: &str) -> Result<Folder, WriteError> {
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        let folder = Folder::open_with(base, Path::new(&format!("{name}-{me}")), true, 0o700)?;
        let st = rustix::fs::fstat(&folder.fd).map_err(|e| io(&folder.path, e))?;
        if st.st_uid != me || st.st_mode & 0o077 != 0 {
            return Err(WriteError::NotPrivate(folder.path));
        }
        Ok(folder)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder holding `rel`'s last name, and that name. None when a
    /// folder on the way is missing and not `create`.
    fn parent_of<'a>(&'a self, rel: &'a Path, create: bool) -> Result<Option<Entry<'a>>, WriteError> {
        let mut parts = names(rel)?;
        let name = parts.pop().ok_or_else(|| WriteError::BadPath(rel.to_path_buf()))?;
        let mut path = self.path.clone();
        let mut sub: Option<OwnedFd> = None;
        for part in parts {
            path.push(part);
            let dir = sub.as_ref().map_or(self.fd.as_fd(), |f| f.as_fd());
            match open_dir(dir, part, &path, create, 0o755)? {
                Some((next, _)) => sub = Some(next),
                None => return Ok(None),
            }
        }
        Ok(Some(Entry { folder: self, sub, name, path: path.join(name) }))
    }

    /// What is at `rel` now, compared with `wanted`.
    pub fn probe(&self, rel: &Path, wanted: &[u8]) -> Result<Existing, WriteError> {
        let entry = match self.parent_of(rel, false) {
            Ok(Some(entry)) => entry,
            Ok(None) => return Ok(Existing::Absent),
            Err(WriteError::Symlink(_)) => return Ok(Existing::Symlink),
            Err(WriteError::NotAFolder(_)) => return Ok(Existing::NotAFile),
            Err(e) => return Err(e),
        };
        let (dir, name, path) = (entry.dir(), entry.name, &entry.path);
        let kind = match statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => FileType::from_raw_mode(st.st_mode),
            Err(Errno::NOENT) => return Ok(Existing::Absent),
            Err(e) => return Err(io(path, e)),
        };
        match kind {
            FileType::Symlink => return Ok(Existing::Symlink),
            FileType::RegularFile => {}
            _ => return Ok(Existing::NotAFile),
        }
        let file = openat(dir, name, READ_FLAGS, Mode::empty()).map_err(|e| io(path, e))?;
        // One byte more than wanted tells a longer file apart.
        let mut have = Vec::with_capacity(wanted.len() + 1);
        std::fs::File::from(file).take(wanted.len() as u64 + 1).read_to_end(&mut have).map_err(|e| io(path, e))?;
        Ok(if have == wanted { Existing::Same } else { Existing::Differs })
    }

    /// The first `n` bytes of the regular file at `rel` (never through a symlink).
    pub fn read_head(&self, rel: &Path, n: usize) -> Result<Vec<u8>, WriteError> {
        let entry = self.parent_of(rel, false)?.ok_or_else(|| io(&self.path.join(rel), Errno::NOENT))?;
        let (dir, name, path) = (entry.dir(), entry.name, &entry.path);
        let file = openat(dir, name, READ_FLAGS, Mode::empty())
            .map_err(|e| explain(dir, name, path, e, false))?;
        let mut head = Vec::new();
        std::fs::File::from(file).take(n as u64).read_to_end(&mut head).map_err(|e| io(path, e))?;
        Ok(head)
    }

    /// Create `rel` with `bytes`; fails if anything is there (a symlink
    /// included). Folders on the way are created. Returns the file's path.
    pub fn create_new(&self, rel: &Path, bytes: &[u8]) -> Result<PathBuf, WriteError> {
        let entry = self.parent_of(rel, true)?.ok_or_else(|| WriteError::BadPath(rel.to_path_buf()))?;
        let (dir, name, path) = (entry.dir(), entry.name, entry.path.clone());
        create_in(dir, name, &path, bytes).map_err(|e| match e {
            WriteError::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists => match explain(dir, name, &path, Errno::EXIST, false) {
                e @ (WriteError::Symlink(_) | WriteError::NotAFile(_)) => e,
                _ => WriteError::Exists(path.clone()),
            },
            e => e,
        })?;
        Ok(path)
    }

    /// Write `rel` with `bytes`, replacing a regular file that is there
    /// (never a symlink or anything else): a fresh file renamed over it.
    pub fn replace(&self, rel: &Path, bytes: &[u8]) -> Result<PathBuf, WriteError> {
        let entry = self.parent_of(rel, true)?.ok_or_else(|| WriteError::BadPath(rel.to_path_buf()))?;
        let (dir, name, path) = (entry.dir(), entry.name, entry.path.clone());
        match statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).map(|st| FileType::from_raw_mode(st.st_mode)) {
            Ok(FileType::RegularFile) | Err(Errno::NOENT) => {}
            Ok(FileType::Symlink) => return Err(WriteError::Symlink(path)),
            Ok(_) => return Err(WriteError::NotAFile(path)),
            Err(e) => return Err(io(&path, e)),
        }
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut tmp = std::ffi::OsString::from(".");
        tmp.push(name);
        tmp.push(format!(".{}.{}.runnable-tmp", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed)));
        create_in(dir, &tmp, &path, bytes)?;
        if let Err(e) = renameat(dir, &tmp, dir, name) {
            let _ = unlinkat(dir, &tmp, AtFlags::empty());
            return Err(io(&path, e));
        }
        Ok(path)
    }

    /// Delete the regular file at `rel` if it still holds exactly `bytes`
    /// (a file the server created and the user has not changed since);
    /// anything else there is left alone. Returns whether it was deleted.
    pub fn remove_if_unchanged(&self, rel: &Path, bytes: &[u8]) -> Result<bool, WriteError> {
        if self.probe(rel, bytes)? != Existing::Same {
            return Ok(false);
        }
        let entry = self.parent_of(rel, false)?.ok_or_else(|| io(&self.path.join(rel), Errno::NOENT))?;
        unlinkat(entry.dir(), entry.name, AtFlags::empty()).map_err(|e| io(&entry.path, e))?;
        Ok(true)
    }
}

/// A name in a folder (or in a subfolder of it, opened on the way).
struct Entry<'a> {
    folder: &'a Folder,
    sub: Option<OwnedFd>,
    name: &'a OsStr,
    path: PathBuf,
}

impl Entry<'_> {
    fn dir(&self) -> BorrowedFd<'_> {
        self.sub.as_ref().map_or(self.folder.fd.as_fd(), |f| f.as_fd())
    }
}

/// A new file `name` in `dir` with `bytes` (`O_EXCL | O_NOFOLLOW`).
fn create_in(dir: BorrowedFd, name: &OsStr, path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = openat(dir, name, flags, Mode::from_raw_mode(0o644)).map_err(|e| io(path, e))?;
    let mut file = std::fs::File::from(fd);
    if let Err(e) = file.write_all(bytes) {
        drop(file);
        let _ = unlinkat(dir, name, AtFlags::empty());
        return Err(io(path, e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A workspace `ws` and, beside it, a victim file the tests must not touch.
    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        let victim = tmp.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        (tmp, ws, victim)
    }

    #[test]
    fn new_files_and_folders_are_created_inside_the_folder() {
        let (_tmp, ws, _) = setup();
        let folder = Folder::open(&ws, Path::new(".runnable"), true).unwrap();
        let path = folder.create_new(Path::new("data/in.csv"), b"a,b\n").unwrap();
        assert_eq!(path, ws.join(".runnable/data/in.csv"));
        assert_eq!(std::fs::read(&path).unwrap(), b"a,b\n");
        assert_eq!(folder.probe(Path::new("data/in.csv"), b"a,b\n").unwrap(), Existing::Same);
        assert_eq!(folder.probe(Path::new("data/in.csv"), b"a,b").unwrap(), Existing::Differs);
        assert_eq!(folder.probe(Path::new("data/in.csv"), b"a,b\nc").unwrap(), Existing::Differs);
        assert_eq!(folder.probe(Path::new("nope/x"), b"").unwrap(), Existing::Absent);
        assert_eq!(folder.probe(Path::new("data"), b"").unwrap(), Existing::NotAFile);
        // Never over an existing file.
        assert!(matches!(folder.create_new(Path::new("data/in.csv"), b"other"), Err(WriteError::Exists(_))));
        assert_eq!(std::fs::read(&path).unwrap(), b"a,b\n");
        // `resourceDir: "."` is the document's folder itself.
        let same = Folder::open(&ws, Path::new("."), true).unwrap();
        assert_eq!(same.path(), ws.as_path());
    }

    #[test]
    fn a_resource_folder_the_server_creates_is_ignored_by_git_one_of_the_users_is_left_alone() {
        let (_tmp, ws, _) = setup();
        let folder = Folder::open_resources(&ws, Path::new(".runnable")).unwrap();
        assert_eq!(std::fs::read(ws.join(".runnable/.gitignore")).unwrap(), b"*\n");
        drop(folder);
        // Opened again (it exists now): the user's own edit of it stays.
        std::fs::write(ws.join(".runnable/.gitignore"), "!keep.csv\n").unwrap();
        Folder::open_resources(&ws, Path::new(".runnable")).unwrap();
        assert_eq!(std::fs::read(ws.join(".runnable/.gitignore")).unwrap(), b"!keep.csv\n");
        // A folder the user made first gets none.
        std::fs::create_dir(ws.join("mine")).unwrap();
        Folder::open_resources(&ws, Path::new("mine")).unwrap();
        assert!(!ws.join("mine/.gitignore").exists());
    }

    #[test]
    fn a_symlinked_file_is_never_written_through() {
        let (_tmp, ws, victim) = setup();
        let folder = Folder::open(&ws, Path::new(".runnable"), true).unwrap();
        symlink(&victim, ws.join(".runnable/img.png")).unwrap();
        symlink(ws.join("missing"), ws.join(".runnable/dangling.txt")).unwrap();
        assert_eq!(folder.probe(Path::new("img.png"), b"x").unwrap(), Existing::Symlink);
        assert_eq!(folder.probe(Path::new("dangling.txt"), b"x").unwrap(), Existing::Symlink);
        assert!(matches!(folder.create_new(Path::new("img.png"), b"PNG"), Err(WriteError::Symlink(_))));
        assert!(matches!(folder.create_new(Path::new("dangling.txt"), b"x"), Err(WriteError::Symlink(_))));
        assert!(matches!(folder.replace(Path::new("img.png"), b"PNG"), Err(WriteError::Symlink(_))));
        assert!(matches!(folder.read_head(Path::new("img.png"), 10), Err(WriteError::Symlink(_))));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!ws.join("missing").exists(), "a dangling link's target was created");
    }

    #[test]
    fn symlinked_folders_are_refused() {
        let (tmp, ws, _) = setup();
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        symlink(&outside, ws.join(".runnable")).unwrap();
        let err = Folder::open(&ws, Path::new(".runnable"), true).unwrap_err();
        assert!(matches!(err, WriteError::Symlink(_)), "{err}");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        // A symlinked subfolder of a real resource folder.
        std::fs::create_dir(ws.join("res")).unwrap();
        symlink(&outside, ws.join("res/data")).unwrap();
        let folder = Folder::open(&ws, Path::new("res"), true).unwrap();
        assert_eq!(folder.probe(Path::new("data/x.csv"), b"").unwrap(), Existing::Symlink);
        assert!(matches!(folder.create_new(Path::new("data/x.csv"), b"1"), Err(WriteError::Symlink(_))));
        assert!(matches!(folder.replace(Path::new("data/x.csv"), b"1"), Err(WriteError::Symlink(_))));
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "nothing was written outside");
        // A file where a folder should be.
        std::fs::write(ws.join("plain"), "").unwrap();
        assert!(matches!(Folder::open(&ws, Path::new("plain"), true), Err(WriteError::NotAFolder(_))));
    }

    #[test]
    fn paths_that_leave_the_folder_are_refused() {
        let (_tmp, ws, _) = setup();
        let folder = Folder::open(&ws, Path::new(".runnable"), true).unwrap();
        for bad in ["../victim.txt", "/etc/passwd", "a/../../x", "", "."] {
            assert!(matches!(folder.create_new(Path::new(bad), b"x"), Err(WriteError::BadPath(_))), "{bad:?}");
        }
        assert!(matches!(Folder::open(&ws, Path::new("../x"), true), Err(WriteError::BadPath(_))));
    }

    #[test]
    fn only_an_unchanged_file_is_removed_and_never_through_a_link() {
        let (_tmp, ws, victim) = setup();
        let folder = Folder::open(&ws, Path::new(".runnable"), true).unwrap();
        folder.create_new(Path::new("data.txt"), b"made up\n").unwrap();
        folder.create_new(Path::new("edited.txt"), b"made up\n").unwrap();
        std::fs::write(ws.join(".runnable/edited.txt"), "the user's now").unwrap();
        symlink(&victim, ws.join(".runnable/link.txt")).unwrap();
        assert!(folder.remove_if_unchanged(Path::new("data.txt"), b"made up\n").unwrap());
        assert!(!ws.join(".runnable/data.txt").exists());
        assert!(!folder.remove_if_unchanged(Path::new("edited.txt"), b"made up\n").unwrap(), "changed since: kept");
        assert!(ws.join(".runnable/edited.txt").exists());
        let before = std::fs::read(&victim).unwrap();
        assert!(!folder.remove_if_unchanged(Path::new("link.txt"), &before).unwrap(), "a link is never followed");
        assert!(ws.join(".runnable/link.txt").symlink_metadata().is_ok() && victim.exists());
    }

    #[test]
    fn replace_swaps_a_regular_file_and_leaves_no_temp() {
        let (_tmp, ws, _) = setup();
        let folder = Folder::open(&ws, Path::new("r"), true).unwrap();
        folder.create_new(Path::new("a.txt"), b"old").unwrap();
        let hard = ws.join("hardlink.txt");
        std::fs::hard_link(ws.join("r/a.txt"), &hard).unwrap();
        folder.replace(Path::new("a.txt"), b"new").unwrap();
        assert_eq!(std::fs::read(ws.join("r/a.txt")).unwrap(), b"new");
        // The old inode (another name of the same file) is untouched.
        assert_eq!(std::fs::read(&hard).unwrap(), b"old");
        folder.replace(Path::new("b.txt"), b"fresh").unwrap();
        assert_eq!(std::fs::read(ws.join("r/b.txt")).unwrap(), b"fresh");
        let names: Vec<String> = std::fs::read_dir(ws.join("r")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.iter().all(|n| !n.contains("runnable-tmp")), "{names:?}");
        std::fs::create_dir(ws.join("r/d")).unwrap();
        assert!(matches!(folder.replace(Path::new("d"), b"x"), Err(WriteError::NotAFile(_))));
        assert_eq!(folder.read_head(Path::new("a.txt"), 2).unwrap(), b"ne");
    }

    #[test]
    fn a_private_folder_must_be_ours_alone() {
        let (tmp, _, _) = setup();
        let f = Folder::open_private(tmp.path(), "reports").unwrap();
        let name = f.path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("reports-"), "{name}");
        let uid = name.strip_prefix("reports-").unwrap();
        let shared = tmp.path().join(format!("shared-{uid}"));
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
        assert!(matches!(Folder::open_private(tmp.path(), "shared"), Err(WriteError::NotPrivate(_))));
    }
}
