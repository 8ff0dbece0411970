//! Literal file paths the fragment reads or writes, so the synthesiser can
//! create them: calls of well-known I/O functions whose path argument is a
//! string literal (or a name bound once to one, or `os.path.join`/`Path`
//! of literals).

use super::bindings::Bindings;
use super::facts::{FileUse, KeywordArg};
use super::literal::{line, named, str_value, text, unparen};
use super::tree::Node;
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq)]
enum Rule {
    /// `open`-like: path, then mode.
    Open,
    Read,
    Write,
}

const READERS: &[&str] = &[
    "read_csv",
    "read_excel",
    "read_json",
    "read_table",
    "read_parquet",
    "read_pickle",
    "read_feather",
    "read_hdf",
    "read_fwf",
    "read_stata",
    "read_sas",
    "read_spss",
    "read_orc",
    "read_xml",
    "loadtxt",
    "genfromtxt",
    "fromfile",
    "load_workbook",
    "open_workbook",
    "loadmat",
    "read_file",
    "open_dataset",
    "VideoCapture",
    "imread",
    "listdir",
    "scandir",
];
const WRITERS: &[&str] = &[
    "to_csv",
    "to_excel",
    "to_json",
    "to_parquet",
    "to_pickle",
    "to_hdf",
    "to_feather",
    "to_stata",
    "savefig",
    "imwrite",
    "imsave",
    "save",
    "savetxt",
    "savez",
    "savez_compressed",
    "savemat",
    "to_netcdf",
    "ExcelWriter",
];
const PATH_METHODS: &[&str] = &[
    "read_text",
    "read_bytes",
    "write_text",
    "write_bytes",
    "open",
    "iterdir",
];
const PATH_KWARGS: &[&str] = &[
    "file",
    "filename",
    "fname",
    "filepath_or_buffer",
    "path",
    "path_or_buf",
    "path_or_buffer",
    "io",
    "excel_writer",
    "fp",
    "database",
    "name",
];

/// The rule for a dotted callee split into receiver and last segment.
fn rule(receiver: &str, last: &str) -> Option<Rule> {
    let recv_last = receiver.rsplit('.').next().unwrap_or("");
    match last {
        "open" if receiver != "webbrowser" => Some(Rule::Open),
        "File" if receiver == "h5py" => Some(Rule::Open),
        "ZipFile" if recv_last == "zipfile" || receiver.is_empty() => Some(Rule::Open),
        "load" if matches!(receiver, "np" | "numpy" | "torch" | "joblib" | "librosa") => {
            Some(Rule::Read)
        }
        "connect" if receiver == "sqlite3" => Some(Rule::Read),
        "walk" if receiver == "os" => Some(Rule::Read),
        "unpack_archive" if receiver == "shutil" || receiver.is_empty() => Some(Rule::Read),
        "TarFile" | "is_tarfile" | "is_zipfile" | "GzipFile" => Some(Rule::Read),
        "listdir" | "scandir" if receiver == "os" || receiver.is_empty() => Some(Rule::Read),
        "glob" | "iglob" if receiver == "glob" || receiver.is_empty() => Some(Rule::Read),
        "parse" if matches!(recv_last, "ET" | "ElementTree" | "etree" | "minidom") => {
            Some(Rule::Read)
        }
        _ if READERS.contains(&last) => Some(Rule::Read),
        _ if WRITERS.contains(&last) => Some(Rule::Write),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) fn file_uses(root: Node, src: &str, binds: &Bindings) -> Vec<FileUse> {
    all_file_uses(root, src, binds).0
}

/// The files read at literal paths, and those read through a name that
/// holds no literal path (`open(settings_file)` with `settings_file` a
/// parameter or free name), each with that name and an empty `path`.
pub(crate) fn all_file_uses(root: Node, src: &str, binds: &Bindings) -> (Vec<FileUse>, Vec<(String, FileUse)>) {
    let paths = Paths { root, src, binds };
    let around = Around::of(root, src);
    let mut out: Vec<FileUse> = Vec::new();
    let mut through_names: Vec<(String, FileUse)> = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "call" {
            if let Some((mut f, via)) = paths.file_use(node) {
                (f.loader, f.target) = around.consumer(node, src);
                match via {
                    Some(name) if !through_names.iter().any(|(n, o)| *n == name && *o == f) => through_names.push((name, f)),
                    Some(_) => {}
                    None if !out.contains(&f) => out.push(f),
                    None => {}
                }
            }
        }
        let children = named(node);
        stack.extend(children.into_iter().rev());
    }
    (out, through_names)
}

/// What surrounds each call (the tree has no parent links): the call it
/// is a positional argument of, the plain name it is assigned to, the
/// `with ... as name` it opens and that statement's body.
struct Around<'t> {
    outer: HashMap<usize, Node<'t>>,
    assigned: HashMap<usize, String>,
    aliased: HashMap<usize, (String, Node<'t>)>,
}

impl<'t> Around<'t> {
    fn of(root: Node<'t>, src: &str) -> Around<'t> {
        let mut a = Around { outer: HashMap::new(), assigned: HashMap::new(), aliased: HashMap::new() };
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "call" => {
                    for arg in node.child_by_field_name("arguments").into_iter().flat_map(named) {
                        if unparen(arg).kind() == "call" {
                            a.outer.insert(unparen(arg).id(), node);
                        }
                    }
                }
                "assignment" => {
                    if let (Some(l), Some(r)) = (node.child_by_field_name("left"), node.child_by_field_name("right")) {
                        if l.kind() == "identifier" && unparen(r).kind() == "call" {
                            a.assigned.insert(unparen(r).id(), text(l, src).to_string());
                        }
                    }
                }
                "with_statement" => {
                    let body = node.child_by_field_name("body");
                    for item in named(node).filter(|c| c.kind() == "with_clause").flat_map(named) {
                        let Some(pattern) = item.child_by_field_name("value").filter(|v| v.kind() == "as_pattern") else { continue };
                        let value = named(pattern).next().map(unparen);
                        let alias = pattern.child_by_field_name("alias").and_then(|t| named(t).next().or(Some(t))).filter(|t| t.kind() == "identifier");
                        if let (Some(v), Some(al), Some(b)) = (value, alias, body) {
                            if v.kind() == "call" {
                                a.aliased.insert(v.id(), (text(al, src).to_string(), b));
                            }
                        }
                    }
                }
                _ => {}
            }
            stack.extend(named(node).rev());
        }
        a
    }

    /// The callee the value of `call` goes to and the name the result of
    /// that (or of `call` itself) is assigned to.
    fn consumer(&self, call: Node<'t>, src: &str) -> (Option<String>, Option<String>) {
        if let Some(outer) = self.outer.get(&call.id()) {
            let loader = outer.child_by_field_name("function").and_then(|f| dotted(f, src));
            return (loader, self.assigned.get(&outer.id()).cloned());
        }
        if let Some((alias, body)) = self.aliased.get(&call.id()) {
            // The first call in the block that takes the alias itself.
            let mut stack = vec![*body];
            while let Some(node) = stack.pop() {
                if node.kind() == "call" {
                    let takes = node.child_by_field_name("arguments").into_iter().flat_map(named).any(|a| a.kind() == "identifier" && text(a, src) == alias);
                    if takes {
                        let loader = node.child_by_field_name("function").and_then(|f| dotted(f, src));
                        return (loader, self.assigned.get(&node.id()).cloned());
                    }
                }
                stack.extend(named(node).rev());
            }
            return (None, None);
        }
        (None, self.assigned.get(&call.id()).cloned())
    }
}

/// Following names bound once to their value needs the tree root.
struct Paths<'t, 's> {
    root: Node<'t>,
    src: &'s str,
    binds: &'s Bindings,
}

/// Names bound to names bound to ... give up after this many hops.
const MAX_HOPS: usize = 8;

impl<'t> Paths<'t, '_> {
    /// The file `call` reads or writes, and the name holding its path when
    /// no literal path is known (`None` for a literal one).
    fn file_use(&self, call: Node<'t>) -> Option<(FileUse, Option<String>)> {
        let src = self.src;
        let func = call.child_by_field_name("function")?;
        let args = call
            .child_by_field_name("arguments")
            .filter(|a| a.kind() == "argument_list")
            .map(|a| named(a).collect::<Vec<_>>())?;
        let positional: Vec<Node> = args
            .iter()
            .copied()
            .filter(|a| {
                !matches!(
                    a.kind(),
                    "keyword_argument" | "list_splat" | "dictionary_splat"
                )
            })
            .collect();
        let keyword = |names: &[&str]| -> Option<Node> {
            args.iter()
                .filter(|a| a.kind() == "keyword_argument")
                .find_map(|a| {
                    let name = text(a.child_by_field_name("name")?, src);
                    names
                        .contains(&name)
                        .then(|| a.child_by_field_name("value"))
                        .flatten()
                })
        };
        let literal_mode = |n: Option<Node>| n.and_then(|n| str_value(n, src));

        // `Path('x').read_text()`: the path is the receiver's.
        if func.kind() == "attribute" {
            let obj = func.child_by_field_name("object")?;
            let method = text(func.child_by_field_name("attribute")?, src);
            // `Path(d).glob('*_start.txt')`: the files the pattern matches in d.
            if matches!(method, "glob" | "rglob") {
                if let (Some(dir), Some(pattern)) = (self.path_object(obj, 0), positional.first().and_then(|p| str_value(*p, src))) {
                    let path = if dir == "." { pattern } else { join(&[dir, pattern]) };
                    return accept(FileUse {
                        line: line(call),
                        path,
                        how: "glob".to_string(),
                        mode: None,
                        writes: false,
                        callee: method.to_string(),
                        loader: None,
                        target: None,
                        keywords: keyword_args(&args, src),
                    }).map(|f| (f, None));
                }
            }
            if PATH_METHODS.contains(&method) {
                if let Some(path) = self.path_object(obj, 0) {
                    let mode = if method == "open" {
                        literal_mode(positional.first().copied().or(keyword(&["mode"])))
                    } else {
                        None
                    };
                    let writes =
                        method.starts_with("write") || mode.as_deref().is_some_and(mode_writes);
                    return accept(FileUse {
                        line: line(call),
                        path,
                        how: method.to_string(),
                        mode,
                        writes,
                        callee: method.to_string(),
                        loader: None,
                        target: None,
                        keywords: keyword_args(&args, src),
                    }).map(|f| (f, None));
                }
            }
        }

        let callee = dotted(func, src)?;
        let (receiver, last) = callee.rsplit_once('.').unwrap_or(("", callee.as_str()));
        let rule = rule(receiver, last)?;
        let path_arg = positional
            .first()
            .copied()
            .or_else(|| keyword(PATH_KWARGS))?;
        let (path, via) = match self.path_value(path_arg, 0) {
            Some(p) => (p, None),
            None => (String::new(), Some(self.free_name(path_arg)?)),
        };
        let (mode, writes) = match rule {
            Rule::Open => {
                let mode = literal_mode(positional.get(1).copied().or_else(|| keyword(&["mode"])));
                let writes = mode.as_deref().is_some_and(mode_writes);
                (mode, writes)
            }
            Rule::Read => (None, false),
            Rule::Write => (None, true),
        };
        let f = FileUse {
            line: line(call),
            path,
            how: last.to_string(),
            mode,
            writes,
            callee: callee.clone(),
            loader: None,
            target: None,
            keywords: keyword_args(&args, src),
        };
        match via {
            Some(name) => Some((f, Some(name))),
            None => accept(f).map(|f| (f, None)),
        }
    }

    /// A plain name the fragment never binds to a value of its own (a
    /// parameter, a free name): what it holds is for the prefix to choose.
    fn free_name(&self, node: Node<'t>) -> Option<String> {
        let node = unparen(node);
        let name = text(node, self.src);
        (node.kind() == "identifier" && !self.binds.values.contains_key(name)).then(|| name.to_string())
    }

    /// The expression a name bound once was bound to.
    fn value_of(&self, name: Node<'t>) -> Option<Node<'t>> {
        let range = self.binds.values.get(text(name, self.src))?;
        self.root.descendant_for_byte_range(range.start, range.end)
    }

    /// A path built only from literals: `'a.csv'`, a name bound once to
    /// one, `os.path.join('d', 'a.csv')`, or a pathlib object.
    fn path_value(&self, node: Node<'t>, hops: usize) -> Option<String> {
        let node = unparen(node);
        match node.kind() {
            "string" | "concatenated_string" => str_value(node, self.src),
            "identifier" if hops < MAX_HOPS => self.path_value(self.value_of(node)?, hops + 1),
            "call" => {
                let callee = dotted(node.child_by_field_name("function")?, self.src);
                if matches!(
                    callee.as_deref(),
                    Some("os.path.join" | "path.join" | "join")
                ) {
                    return Some(join(&self.parts(node, hops)?));
                }
                // The folder the program runs in, and the same path as text.
                if matches!(callee.as_deref(), Some("os.getcwd" | "Path.cwd" | "pathlib.Path.cwd")) {
                    return Some(".".into());
                }
                if matches!(callee.as_deref(), Some("str" | "os.fspath")) {
                    let args: Vec<Node> = named(node.child_by_field_name("arguments")?).collect();
                    if let [only] = args.as_slice() {
                        return self.path_value(*only, hops + 1);
                    }
                }
                self.path_object(node, hops)
            }
            _ => self.path_object(node, hops),
        }
    }

    /// A pathlib object built from literals: `Path('d')`, `p / 'x.csv'`,
    /// `p.joinpath('x')`, or a name bound once to one.
    fn path_object(&self, node: Node<'t>, hops: usize) -> Option<String> {
        let node = unparen(node);
        match node.kind() {
            "call" => {
                let func = node.child_by_field_name("function")?;
                if dotted(func, self.src).is_some_and(|c| PATH_CTORS.contains(&c.as_str())) {
                    return Some(join(&self.parts(node, hops)?));
                }
                let obj = func.child_by_field_name("object")?;
                let method = text(func.child_by_field_name("attribute")?, self.src);
                if method != "joinpath" {
                    return None;
                }
                let mut parts = vec![self.path_object(obj, hops)?];
                parts.extend(self.parts(node, hops)?);
                Some(join(&parts))
            }
            "binary_operator"
                if node
                    .child_by_field_name("operator")
                    .is_some_and(|o| o.kind() == "/") =>
            {
                let base = self.path_object(node.child_by_field_name("left")?, hops)?;
                Some(join(&[
                    base,
                    self.path_value(node.child_by_field_name("right")?, hops)?,
                ]))
            }
            "identifier" if hops < MAX_HOPS => self.path_object(self.value_of(node)?, hops + 1),
            _ => None,
        }
    }

    /// All arguments of a call as literal path parts (at least one).
    fn parts(&self, call: Node<'t>, hops: usize) -> Option<Vec<String>> {
        let args = named(call.child_by_field_name("arguments")?);
        let parts: Vec<String> = args
            .into_iter()
            .map(|a| self.path_value(a, hops))
            .collect::<Option<_>>()?;
        (!parts.is_empty()).then_some(parts)
    }
}

const PATH_CTORS: &[&str] = &[
    "Path",
    "pathlib.Path",
    "PurePath",
    "pathlib.PurePath",
    "PosixPath",
    "WindowsPath",
];

/// URLs and in-memory databases are not files to create.
/// Keyword arguments whose value is short enough to be a setting (a long
/// one is data, which no reader's layout depends on).
fn keyword_args(args: &[Node], src: &str) -> Vec<KeywordArg> {
    args.iter()
        .filter(|a| a.kind() == "keyword_argument")
        .filter_map(|a| {
            let name = text(a.child_by_field_name("name")?, src).to_string();
            let value = a.child_by_field_name("value")?;
            let raw = text(value, src);
            (raw.len() <= 80).then(|| KeywordArg { name, text: raw.to_string(), string: str_value(value, src) })
        })
        .collect()
}

fn accept(f: FileUse) -> Option<FileUse> {
    let bad = f.path.is_empty() || f.path.contains("://") || f.path == ":memory:";
    (!bad).then_some(f)
}

fn mode_writes(mode: &str) -> bool {
    mode.contains(['w', 'a', 'x'])
}

/// `a.b.c` text of an identifier/attribute chain.
fn dotted(node: Node, src: &str) -> Option<String> {
    match node.kind() {
        "identifier" => Some(text(node, src).to_string()),
        "attribute" => {
            let obj = dotted(node.child_by_field_name("object")?, src)?;
            Some(format!(
                "{obj}.{}",
                text(node.child_by_field_name("attribute")?, src)
            ))
        }
        _ => None,
    }
}

fn join(parts: &[String]) -> String {
    let mut out = String::new();
    for p in parts {
        if p.starts_with('/') || out.is_empty() {
            out = p.clone();
        } else {
            if !out.ends_with('/') {
                out.push('/');
            }
            out.push_str(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::bindings::collect;
    use crate::analysis::parse::parse;

    fn files(src: &str) -> Vec<(u32, String, String, Option<String>, bool)> {
        let tree = parse(src);
        let binds = collect(tree.root(), src);
        file_uses(tree.root(), src, &binds)
            .into_iter()
            .map(|f| (f.line, f.path, f.how, f.mode, f.writes))
            .collect()
    }

    fn f(
        line: u32,
        path: &str,
        how: &str,
        mode: Option<&str>,
        writes: bool,
    ) -> (u32, String, String, Option<String>, bool) {
        (line, path.into(), how.into(), mode.map(Into::into), writes)
    }

    #[test]
    fn open_and_modes() {
        let src = "with open('in.txt') as fh: pass\nout = open('out.txt', 'w')\nlog = io.open('log', mode='a')\nb = codecs.open('b.txt', 'rb', 'utf-8')\nopen(path)\n";
        assert_eq!(
            files(src),
            vec![
                f(1, "in.txt", "open", None, false),
                f(2, "out.txt", "open", Some("w"), true),
                f(3, "log", "open", Some("a"), true),
                f(4, "b.txt", "open", Some("rb"), false),
            ]
        );
    }

    #[test]
    fn libraries() {
        let src = "df = pd.read_csv('data.csv', sep=';')\nx = pd.read_excel(io='a.xlsx')\nd = json.load(open('c.json'))\n\
                   a = np.loadtxt('m.txt')\nimg = cv2.imread('i.png')\nim = Image.open('p.jpg')\ncon = sqlite3.connect('db.sqlite')\n\
                   mem = sqlite3.connect(':memory:')\nfs = os.listdir('dir')\ng = glob.glob('*.csv')\nr = csv.reader(open('r.csv'))\n\
                   y = yaml.load('a: 1')\nu = pd.read_csv('https://x/y.csv')\nt = ET.parse('t.xml')\nn = np.load('n.npy')\n";
        let got: Vec<(u32, String, String)> = files(src)
            .into_iter()
            .map(|(l, p, h, _, _)| (l, p, h))
            .collect();
        let want: Vec<(u32, String, String)> = [
            (1, "data.csv", "read_csv"),
            (2, "a.xlsx", "read_excel"),
            (3, "c.json", "open"),
            (4, "m.txt", "loadtxt"),
            (5, "i.png", "imread"),
            (6, "p.jpg", "open"),
            (7, "db.sqlite", "connect"),
            (9, "dir", "listdir"),
            (10, "*.csv", "glob"),
            (11, "r.csv", "open"),
            (14, "t.xml", "parse"),
            (15, "n.npy", "load"),
        ]
        .into_iter()
        .map(|(l, p, h)| (l, p.to_string(), h.to_string()))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn what_takes_the_opened_file_and_where_its_value_goes() {
        let src = "data = pickle.load(open('m.pkl', 'rb'))\nwith open('n.pkl', 'rb') as f:\n    print('x')\n    model = joblib.load(f)\n\
                   arr = np.load('a.npz')\nwith gzip.open('g.gz', 'rt') as g:\n    pass\nshutil.unpack_archive('z.zip', 'out')\n";
        let tree = parse(src);
        let binds = collect(tree.root(), src);
        let got: Vec<(String, String, Option<String>, Option<String>)> =
            file_uses(tree.root(), src, &binds).into_iter().map(|f| (f.path, f.callee, f.loader, f.target)).collect();
        let s = |x: &str| Some(x.to_string());
        assert_eq!(
            got,
            vec![
                ("m.pkl".into(), "open".into(), s("pickle.load"), s("data")),
                ("n.pkl".into(), "open".into(), s("joblib.load"), s("model")),
                ("a.npz".into(), "np.load".into(), None, s("arr")),
                ("g.gz".into(), "gzip.open".into(), None, None),
                ("z.zip".into(), "shutil.unpack_archive".into(), None, None),
            ]
        );
        let a = crate::analysis::analyze("data = pickle.load(open('m.pkl', 'rb'))\nprint(data['name'])\n");
        assert!(a.loaded_usage["data"].subscripts.iter().any(|(k, _)| matches!(k, crate::analysis::Key::Str(s) if s == "name")));
    }

    #[test]
    fn writes() {
        let src = "df.to_csv('o.csv', index=False)\nplt.savefig('fig.png')\nnp.save('a.npy', arr)\ns = df.to_json()\n";
        assert_eq!(
            files(src),
            vec![
                f(1, "o.csv", "to_csv", None, true),
                f(2, "fig.png", "savefig", None, true),
                f(3, "a.npy", "save", None, true),
            ]
        );
    }

    #[test]
    fn paths_through_names_and_builders() {
        let src = "fname = 'a.csv'\ndf = pd.read_csv(fname)\np = os.path.join('data', 'b.txt')\nopen(p)\n\
                   t = Path('c.txt').read_text()\nPath('d') .joinpath('x')\nwith Path('e.txt').open('w') as f: pass\n\
                   q = (Path('dir') / 'f.txt').read_bytes()\nopen(os.path.join('g', 'h.txt'))\n\
                   base = Path('root')\ndata = base / 'sub' / 'i.csv'\npd.read_csv(data)\na = b\nb = a\nopen(a)\n";
        assert_eq!(
            files(src),
            vec![
                f(2, "a.csv", "read_csv", None, false),
                f(4, "data/b.txt", "open", None, false),
                f(5, "c.txt", "read_text", None, false),
                f(7, "e.txt", "open", Some("w"), true),
                f(8, "dir/f.txt", "read_bytes", None, false),
                f(9, "g/h.txt", "open", None, false),
                f(12, "root/sub/i.csv", "read_csv", None, false),
            ]
        );
    }
}
