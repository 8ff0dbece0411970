//! Why a fragment cannot run as written, by class (issue 14: "some cannot
//! run at all: report them by class"): the error the best run stopped with
//! says the fragment needs something no prefix can honestly give it, so the
//! report names the class instead of leaving a bare traceback. Pure.
//!
//! - `absolute-path`: a file or folder the fragment names by an absolute
//!   path (`/Users/ann/Desktop/data.csv`) is missing; it is on the author's
//!   machine, and the engine writes only inside the run's own folder.
//! - `windows-path`: the same with a Windows path (`C:\Users\...`).
//! - `python2`: a name or method only Python 2 had (`dict.iteritems`,
//!   `itertools.izip`, `str.decode`).
//! - `windows-only`: an API or module only Windows has (`winreg`,
//!   `creationflags`, `os.startfile`).

use crate::report::ErrorInfo;
use crate::synth::error_text::{quoted, quoted_parts, trailing_str};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BlockerClass {
    AbsolutePath,
    WindowsPath,
    Python2,
    WindowsOnly,
}

impl BlockerClass {
    pub fn as_str(self) -> &'static str {
        match self {
            BlockerClass::AbsolutePath => "absolute-path",
            BlockerClass::WindowsPath => "windows-path",
            BlockerClass::Python2 => "python2",
            BlockerClass::WindowsOnly => "windows-only",
        }
    }
}

/// The class, and what in the fragment puts it there (a path, a name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocker {
    pub class: BlockerClass,
    pub detail: String,
}

/// Errors of the file system that name the path they failed on.
const PATH_ERRORS: &[&str] = &["FileNotFoundError", "NotADirectoryError", "IsADirectoryError", "PermissionError", "OSError"];

/// Members Python 3 removed from builtin types (`'dict' object has no attribute 'iteritems'`).
const PYTHON2_MEMBERS: &[(&str, &str)] = &[
    ("dict", "iteritems"),
    ("dict", "iterkeys"),
    ("dict", "itervalues"),
    ("dict", "has_key"),
    ("dict", "viewitems"),
    ("dict", "viewkeys"),
    ("dict", "viewvalues"),
    ("str", "decode"),
];

/// Names Python 3 removed from standard modules (`cannot import name 'izip' from 'itertools'`).
const PYTHON2_MODULE_NAMES: &[(&str, &str)] = &[
    ("itertools", "izip"),
    ("itertools", "izip_longest"),
    ("itertools", "imap"),
    ("itertools", "ifilter"),
    ("itertools", "ifilterfalse"),
    ("string", "maketrans"),
    ("string", "letters"),
    ("string", "lowercase"),
    ("string", "uppercase"),
    ("os", "getcwdu"),
    ("sys", "maxint"),
];

/// Python 2's own modules, renamed or removed in Python 3.
const PYTHON2_MODULES: &[&str] = &["urllib2", "urlparse", "ConfigParser", "Tkinter", "cPickle", "StringIO", "cStringIO", "HTMLParser", "httplib", "Queue", "commands"];

/// Modules only Windows has.
const WINDOWS_MODULES: &[&str] = &["winreg", "_winreg", "msvcrt", "winsound", "win32api", "win32con", "win32com", "win32gui", "pythoncom", "wmi"];

/// Why the fragment cannot run as written, when the error it stopped with says so.
pub fn classify(fragment: &str, error: &ErrorInfo) -> Option<Blocker> {
    let message = error.message.as_str();
    let found = |class: BlockerClass, detail: &str| Some(Blocker { class, detail: detail.to_string() });
    if PATH_ERRORS.contains(&error.type_name.as_str()) {
        // The message ends with the path's repr: `'C:\\Users'` is `C:\Users`.
        if let Some(path) = trailing_str(message) {
            if crate::exec::is_windows_absolute(&path) {
                return found(BlockerClass::WindowsPath, &path);
            }
            // Only a path the fragment itself names: one the program built
            // inside its own folder is its own business.
            if path.starts_with('/') && path.len() > 1 && fragment.contains(path.trim_end_matches('/')) {
                return found(BlockerClass::AbsolutePath, &path);
            }
        }
    }
    if error.type_name == "AttributeError" {
        for (owner, member) in PYTHON2_MEMBERS {
            if message == format!("'{owner}' object has no attribute '{member}'") {
                return found(BlockerClass::Python2, &format!("{owner}.{member}"));
            }
        }
        if message.starts_with("module 'os' has no attribute 'startfile'") || message.starts_with("module 'ctypes' has no attribute 'windll'") {
            return found(BlockerClass::WindowsOnly, quoted_parts(message).get(1).copied().unwrap_or_default());
        }
    }
    if error.type_name == "ImportError" {
        for (module, name) in PYTHON2_MODULE_NAMES {
            if message.starts_with(&format!("cannot import name '{name}' from '{module}'")) {
                return found(BlockerClass::Python2, &format!("{module}.{name}"));
            }
        }
    }
    if error.type_name == "ModuleNotFoundError" || error.type_name == "ImportError" {
        if let Some(module) = message.strip_prefix("No module named ").and_then(quoted) {
            let top = module.split('.').next().unwrap_or_default();
            if PYTHON2_MODULES.contains(&top) {
                return found(BlockerClass::Python2, top);
            }
            if WINDOWS_MODULES.contains(&top) {
                return found(BlockerClass::WindowsOnly, top);
            }
        }
    }
    if error.type_name == "ValueError" && message.contains("is only supported on Windows") {
        return found(BlockerClass::WindowsOnly, message.split_whitespace().next().unwrap_or_default());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(type_name: &str, message: &str) -> ErrorInfo {
        ErrorInfo { type_name: type_name.into(), message: message.into(), line: Some(1) }
    }

    fn class(fragment: &str, type_name: &str, message: &str) -> Option<(BlockerClass, String)> {
        classify(fragment, &error(type_name, message)).map(|b| (b.class, b.detail))
    }

    #[test]
    fn a_missing_file_at_an_absolute_path_the_fragment_names_is_on_the_authors_machine() {
        let fragment = "df = pd.read_csv('/Users/ann/Desktop/sales.csv')\n";
        assert_eq!(
            class(fragment, "FileNotFoundError", "[Errno 2] No such file or directory: '/Users/ann/Desktop/sales.csv'"),
            Some((BlockerClass::AbsolutePath, "/Users/ann/Desktop/sales.csv".into()))
        );
        // A folder the fragment names with a trailing slash.
        assert!(class("os.listdir('/data/in')\n", "FileNotFoundError", "[Errno 2] No such file or directory: '/data/in/'").is_some());
        // A path the program built inside its own folder is not the author's.
        assert_eq!(class("open(os.path.join(here, 'log'))\n", "FileNotFoundError", "[Errno 2] No such file or directory: '/tmp/run/log'"), None);
        // A relative path is the engine's to create.
        assert_eq!(class("open('data.txt')\n", "FileNotFoundError", "[Errno 2] No such file or directory: 'data.txt'"), None);
    }

    #[test]
    fn a_windows_path_is_its_own_class() {
        let fragment = "img = open(r'C:\\Users\\ann\\cat.jpg')\n";
        assert_eq!(
            class(fragment, "FileNotFoundError", "[Errno 2] No such file or directory: 'C:\\\\Users\\\\ann\\\\cat.jpg'"),
            Some((BlockerClass::WindowsPath, "C:\\Users\\ann\\cat.jpg".into()))
        );
    }

    #[test]
    fn names_only_python_2_had_are_python2() {
        assert_eq!(class("", "AttributeError", "'dict' object has no attribute 'iteritems'"), Some((BlockerClass::Python2, "dict.iteritems".into())));
        assert_eq!(class("", "AttributeError", "'str' object has no attribute 'decode'"), Some((BlockerClass::Python2, "str.decode".into())));
        assert_eq!(
            class("", "ImportError", "cannot import name 'ifilterfalse' from 'itertools' (unknown location)"),
            Some((BlockerClass::Python2, "itertools.ifilterfalse".into()))
        );
        assert_eq!(class("", "ModuleNotFoundError", "No module named 'urllib2'"), Some((BlockerClass::Python2, "urllib2".into())));
        // A member the fragment's own object lacks is not a class of its own.
        assert_eq!(class("", "AttributeError", "'Cart' object has no attribute 'iteritems'"), None);
    }

    #[test]
    fn windows_apis_are_windows_only() {
        assert_eq!(class("", "ValueError", "creationflags is only supported on Windows platforms"), Some((BlockerClass::WindowsOnly, "creationflags".into())));
        assert_eq!(class("", "ModuleNotFoundError", "No module named 'winreg'"), Some((BlockerClass::WindowsOnly, "winreg".into())));
        assert_eq!(class("", "AttributeError", "module 'os' has no attribute 'startfile'"), Some((BlockerClass::WindowsOnly, "startfile".into())));
    }
}
