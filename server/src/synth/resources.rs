//! Content for the files a fragment reads, chosen by how it reads them. Pure.
//!
//! Text formats are written here; binary ones in the modules beside:
//! archives and compressed files (`archive`), pickles of a value
//! (`pickle`), NumPy arrays (`npy`), MATLAB files (`mat`), Excel workbooks (`xlsx`). Which one a
//! file gets is decided by the callee that opens or loads it (`zipfile.ZipFile`, `gzip.open`,
//! `tarfile.open`, `pickle.load`, `np.load`, `pd.read_pickle`,
//! `joblib.load`, `shutil.unpack_archive`, `scipy.io.loadmat`), its extension as the fallback.

mod archive;
pub mod html;
mod ini;
mod mat;
mod npy;
mod numeric;
mod pickle;
mod table;
mod toml;
mod xlsx;
mod xml;
mod yaml;

use crate::analysis::{Analysis, FileUse};
use crate::exec::Resource;
use crate::synth::value::{call, Value};

/// Files for a directory the fragment lists or walks: one per extension its
/// glob patterns name (`*.c`), also one level down for recursive walks.
pub fn directory_for(path: &str, patterns: &[String]) -> Vec<Resource> {
    let clean = path.trim_start_matches("./").trim_end_matches('/');
    let up_ok = clean.is_empty() || clean == "." || crate::exec::run_path_problem(&format!("{clean}/x")).is_none();
    if !up_ok || clean.contains('~') || clean.contains('*') {
        return Vec::new();
    }
    let dir = if clean.is_empty() || clean == "." { String::new() } else { format!("{clean}/") };
    let mut exts: Vec<String> = patterns
        .iter()
        .filter_map(|p| p.strip_prefix("*.").map(str::to_string))
        .filter(|e| !e.is_empty() && e.chars().all(|c| c.is_ascii_alphanumeric()))
        .collect();
    if exts.is_empty() {
        exts.push("txt".into());
    }
    let mut out = Vec::new();
    for ext in exts {
        for sub in ["", "nested/"] {
            let name = format!("{dir}{sub}example.{ext}");
            let content = shaped(&name, "open", &Shape::default()).map(|r| r.content).unwrap_or_default();
            out.push(Resource { path: name, content });
        }
    }
    out
}

/// What to create for a relative path a fragment names: a directory (with
/// files matching `patterns`) when its last part has no extension, else a
/// file to be opened.
pub fn files_at(path: &str, patterns: &[String]) -> Vec<Resource> {
    if path.rsplit('/').next().unwrap_or("").contains('.') {
        let clean = path.trim_start_matches("./");
        if refused(clean) {
            return Vec::new();
        }
        shaped(clean, "open", &Shape::default()).into_iter().collect()
    } else {
        directory_for(path, patterns)
    }
}

/// A file at `path` suited to being read with `how` (`open`, `read_csv`, `imread`, ...).
/// Only paths below the folder the fragment runs in (a sample written into
/// the user's workspace goes nowhere else); see [`file_for`] for a run's.
pub fn resource_for(path: &str, how: &str) -> Option<Resource> {
    let clean = path.trim_start_matches("./");
    if clean.is_empty() || clean.starts_with('/') || clean.split('/').any(|p| p == "..") || clean.contains('~') {
        return None;
    }
    shaped(clean, how, &Shape::default())
}

/// What the fragment shows of a file's contents beyond its name and reader.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shape {
    /// The dotted callee that opens it (`gzip.open`, `zipfile.ZipFile`).
    pub callee: String,
    /// The callee the opened file goes to (`pickle.load`).
    pub loader: Option<String>,
    /// The value a loaded object should be, from how the name it is
    /// assigned to is used (a pickle's).
    pub value: Option<Value>,
    /// Keys the loaded object is subscripted with (an `.npz`'s arrays).
    pub keys: Vec<String>,
    /// Other files the fragment reads: what an archive holds, read after
    /// extracting it or by member name (`z.open('a.txt')`).
    pub members: Vec<String>,
    /// Sections and options a `configparser` parser reading it is asked for.
    pub config: Option<Vec<crate::analysis::ConfigSection>>,
    /// The reading call's keyword arguments (`skiprows=1`, `delimiter=','`).
    pub keywords: Vec<crate::analysis::KeywordArg>,
    /// The columns (and rows) a table a pandas reader loads must have: those
    /// the fragment reads of the frame and those named inside strings
    /// (`parse_dates=['date']`, a formula the frame is the data of).
    pub table: Option<Vec<(String, Vec<Value>)>>,
    /// What the fragment reads of any XML it parses (`analysis::XmlReads`),
    /// when it reads something.
    pub xml: Option<crate::analysis::XmlReads>,
    /// The elements the fragment looks for in parsed HTML, when it looks
    /// for some (`analysis::html_queries`).
    pub html: Vec<crate::analysis::HtmlQuery>,
    /// What each line holds when the fragment parses the file's lines one
    /// by one as JSON (`for line in f: json.loads(line)`): JSON lines.
    pub json_lines: Option<Value>,
    /// A line the fragment's own compiled pattern matches, when the file's
    /// lines go one by one to its `match`/`search`/`fullmatch`.
    pub matched_line: Option<String>,
}

/// What `analysis` shows of the file at `path`.
pub fn shape_of(analysis: &Analysis, path: &str) -> Shape {
    match analysis.files.iter().find(|f| f.path == path) {
        Some(f) => shape_of_use(analysis, f),
        // One fact for the whole fragment: a path a free name holds is shaped too.
        None => Shape { xml: Some(analysis.xml_reads.clone()).filter(|x| !x.is_empty()), html: analysis.html_queries.clone(), ..Shape::default() },
    }
}

/// The file at `path` that name `name` holds for the fragment, which reads
/// it through that name (`with gzip.open(file_path, 'rt') as f`): shaped by
/// that use as a literal path would be.
pub fn file_through_name(analysis: &Analysis, name: &str, path: &str) -> Option<Resource> {
    let clean = path.trim_start_matches("./");
    if refused(clean) {
        return None;
    }
    let (_, f) = analysis.files_through_names.iter().find(|(n, f)| n == name && !f.writes)?;
    let f = FileUse { path: path.to_string(), ..f.clone() };
    shaped(clean, &f.how, &shape_of_use(analysis, &f))
}

/// How the fragment's use `f` of a file says it must be shaped.
fn shape_of_use(analysis: &Analysis, f: &FileUse) -> Shape {
    let xml = Some(analysis.xml_reads.clone()).filter(|x| !x.is_empty());
    let key = f.loaded_key();
    let usage = analysis.loaded_usage.get(&key).map(|u| (&key, u));
    let keys = usage
        .map(|(_, u)| u.subscripts.iter().filter_map(|(k, _)| match k {
            crate::analysis::Key::Str(s) if is_plain_name(s) => Some(s.clone()),
            _ => None,
        }).collect::<Vec<_>>())
        .unwrap_or_default();
    // A value loaded without a name is named for what it is. (What a
    // pandas reader loads is `table`, below.)
    let name = |t: &str| if f.target.is_some() { t.to_string() } else { "rows".to_string() };
    // What a text format's parser returns is made of what the format holds
    // (mappings, lists, strings, numbers): the first such candidate, never
    // a DataFrame for `cfg['services'].items()`.
    let text_format = f.loader.as_deref().and_then(loaded_format).is_some();
    let value = usage.map(|(t, u)| match text_format {
        true => super::infer::candidates(&name(t), u).into_iter().find(|v| v.to_json().is_some()).unwrap_or_else(|| super::infer::best(&name(t), u, 0)),
        false => super::infer::best(&name(t), u, 0),
    });
    let members = analysis
        .files
        .iter()
        .filter(|o| !o.writes && o.path != f.path && binary_kind(&o.path.to_ascii_lowercase(), o).is_none())
        .filter(|o| crate::exec::resource_path_problem(&o.path).is_none() && o.path.rsplit('/').next().is_some_and(|n| n.contains('.')))
        .map(|o| o.path.trim_start_matches("./").to_string())
        .collect();
    let config = analysis.config_reads.iter().find(|c| c.paths.contains(&f.path)).map(|c| c.sections.clone());
    let json_lines = usage.and_then(|(_, u)| json_lines(analysis, u));
    let matched_line = usage.and_then(|(_, u)| matched_line(analysis, u).or_else(|| dated_line(u)));
    Shape { callee: f.callee.clone(), loader: f.loader.clone(), value, keys, members, config, keywords: f.keywords.clone(), table: table_of(analysis, f), xml, html: analysis.html_queries.clone(), json_lines, matched_line }
}

/// A line the pattern matches, when the lines of the loaded file (`u`,
/// iterated) go to a pattern the fragment compiles (`logpat.match(line)`).
fn matched_line(analysis: &Analysis, u: &crate::analysis::Usage) -> Option<String> {
    super::regex_sample::subject(analysis, u.element.as_deref()?)
}

/// A line that starts with a date, when the lines of the loaded file
/// (`u`, iterated) or their start (`line[:19]`) are parsed with
/// `strptime` in a format the fragment spells out.
fn dated_line(u: &crate::analysis::Usage) -> Option<String> {
    let line = u.element.as_deref()?;
    let sliced = line.subscripts.iter().filter(|(k, _)| matches!(k, crate::analysis::Key::Slice)).map(|(_, s)| s);
    let formats = line.date_formats.iter().chain(sliced.flat_map(|s| s.date_formats.iter()));
    let date = formats.filter_map(|f| super::date_formats::sample(f)).next()?;
    // A whole line parsed is the date alone; a cut one has text after it.
    Some(if line.date_formats.is_empty() { format!("{date} first line") } else { date })
}

/// The JSON parsers of one document in a string.
const JSON_LOADS: [&str; 4] = ["json.loads", "orjson.loads", "ujson.loads", "simplejson.loads"];

/// What one line is, when the lines of the loaded file (`u`, iterated)
/// go to a JSON parser: shaped by what the fragment reads of the parsed
/// values, the sample's object otherwise.
fn json_lines(analysis: &Analysis, u: &crate::analysis::Usage) -> Option<Value> {
    let line = u.element.as_deref()?;
    let parser = line.passed_to.iter().find(|a| a.position == Some(0) && JSON_LOADS.contains(&a.callee.as_str()))?;
    let (module, _) = parser.callee.split_once('.')?;
    let parsed = analysis
        .imported_usage
        .get(module)
        .or_else(|| analysis.free_names.iter().find(|f| f.name == module).map(|f| &f.usage))
        .and_then(|m| m.attrs.get("loads")?.returns.as_deref())
        .map(|r| super::infer::best("record", r, 0))
        .filter(|v| matches!(v, Value::Dict(kv) if !kv.is_empty()));
    Some(parsed.unwrap_or_else(|| default_pickled(false)))
}

/// The table a pandas reader loads from `f`, when the fragment reads
/// columns of it or a library names some.
fn table_of(analysis: &Analysis, f: &FileUse) -> Option<Vec<(String, Vec<Value>)>> {
    if !f.callee.rsplit('.').next().is_some_and(|c| c.starts_with("read_")) {
        return None;
    }
    use crate::analysis::FrameSource;
    let mut named: Vec<crate::analysis::NamedColumn> = Vec::new();
    for fc in &analysis.frame_columns {
        let ours = match &fc.source {
            FrameSource::File(p) => *p == f.path,
            FrameSource::Name(n) => f.target.as_deref() == Some(n.as_str()),
        };
        if ours {
            for c in &fc.columns {
                match named.iter_mut().find(|x| x.name == c.name) {
                    Some(x) if c.kind.rank() > x.kind.rank() => x.kind = c.kind,
                    Some(_) => {}
                    None => named.push(c.clone()),
                }
            }
        }
    }
    let usage = f.target.as_ref().and_then(|t| analysis.loaded_usage.get(t)).cloned().unwrap_or_default();
    let table = super::dataframe::frame_table(&usage, &named);
    // Only the placeholder columns: the fragment reads none, the sample serves.
    let placeholder = named.is_empty() && table.iter().map(|(c, _)| c.as_str()).eq(["A", "B"]);
    (!placeholder && !table.is_empty()).then_some(table)
}

/// A CSV (or TSV) of `table` beside the sample's columns: with three rows
/// the sample's own values for the columns it has (what a fragment reading
/// `name` got before), with more rows the table's, the sample's others
/// repeated.
fn delimited(table: &[(String, Vec<Value>)], sep: char) -> Vec<u8> {
    table::columns(&with_sample(table), sep).unwrap_or_default().into_bytes()
}

/// `table` beside the sample's columns (`id`, `name`, `value`): see [`delimited`].
fn with_sample(table: &[(String, Vec<Value>)]) -> Vec<(String, Vec<Value>)> {
    let n = table.first().map_or(3, |(_, v)| v.len());
    let s = |x: &str| Value::Str(x.into());
    let names = [s("apple"), s("banana"), s("cherry")];
    let values = [Value::Float(3.5), Value::Float(1.25), Value::Float(7.0)];
    let sample: Vec<(String, Vec<Value>)> = vec![
        ("id".into(), (1..=n as i64).map(Value::Int).collect()),
        ("name".into(), (0..n).map(|i| names[i % 3].clone()).collect()),
        ("value".into(), (0..n).map(|i| values[i % 3].clone()).collect()),
    ];
    let (mut cols, second) = if n == 3 { (sample, table.to_vec()) } else { (table.to_vec(), sample) };
    for (c, v) in second {
        if !cols.iter().any(|(x, _)| *x == c) {
            cols.push((c, v));
        }
    }
    cols
}

fn is_plain_name(s: &str) -> bool {
    !s.is_empty() && s.len() < 64 && s.chars().all(|c| c.is_alphanumeric() || "_-".contains(c))
}

/// Paths never created: empty, absolute, from a home folder, or going up
/// further than the run directory allows. Other strange names (too long,
/// too deep, a control character) are left to the session, which drops the
/// file and says why in the report's notes.
fn refused(clean: &str) -> bool {
    clean.is_empty()
        || clean.starts_with('/')
        || clean.contains('~')
        || clean.split('/').any(|p| p == "..") && crate::exec::run_path_problem(clean).is_some()
}

/// The file the fragment reads at `path` for a run, shaped by what
/// `analysis` shows of it. The path may go up from the fragment's folder
/// (`../data/x.csv`) as far as the run directory allows
/// (`exec::run_path_problem`).
pub fn file_for(analysis: &Analysis, path: &str, how: &str) -> Option<Resource> {
    let clean = path.trim_start_matches("./");
    if refused(clean) {
        return None;
    }
    shaped(clean, how, &shape_of(analysis, path))
}

/// A file the glob `pattern` the fragment reads matches (`*_start.txt` ->
/// `example_start.txt`, `logs/**/*.log` -> `logs/example.log`), shaped like
/// any file read at that pattern.
pub fn file_matching(analysis: &Analysis, pattern: &str) -> Option<Resource> {
    let name = glob_instance(pattern.trim_start_matches("./"))?;
    if refused(&name) || !name.rsplit('/').next().is_some_and(|n| n.contains('.')) {
        return None;
    }
    let how = analysis.files.iter().find(|f| f.path == pattern).map(|f| f.how.clone()).unwrap_or_else(|| "open".into());
    shaped(&name, &how, &shape_of(analysis, pattern))
}

/// A name the glob pattern matches: `*` as `example`, `?` as `a`, a class
/// `[abc]` as its first member, a `**` folder as none.
fn glob_instance(pattern: &str) -> Option<String> {
    let parts: Vec<String> = pattern
        .split('/')
        .filter(|seg| *seg != "**")
        .map(|seg| {
            let mut out = String::new();
            let mut chars = seg.chars();
            while let Some(c) = chars.next() {
                match c {
                    '*' if !out.ends_with("example") => out.push_str("example"),
                    '*' => {}
                    '?' => out.push('a'),
                    '[' => {
                        let class: String = chars.by_ref().take_while(|&c| c != ']').collect();
                        out.push(class.trim_start_matches(['!', '^']).chars().find(|c| c.is_alphanumeric()).unwrap_or('a'));
                    }
                    c => out.push(c),
                }
            }
            out
        })
        .collect();
    (!parts.is_empty() && parts.iter().all(|p| !p.is_empty())).then(|| parts.join("/"))
}

/// What an in-memory stream the fragment reads holds, in `format` (`csv`,
/// `json`, `yaml`, `pickle`; `None`: lines of text): the same sample a file
/// of that format gets (`synth/streams.rs` wraps it in `io.BytesIO` or
/// `io.StringIO`).
pub fn stream_content(format: Option<&str>) -> Vec<u8> {
    if format == Some("pickle") {
        if let Some(bytes) = pickle::pickle(&default_pickled(false)) {
            return bytes;
        }
    }
    sample_of(format.unwrap_or("txt")).unwrap_or_default()
}

/// The sample text a file in `format` (its extension: `json`, `csv`) holds
/// when nothing else is known of it.
fn sample_of(format: &str) -> Option<Vec<u8>> {
    text_for(&format!("sample.{format}"), "open").map(|r| r.content)
}

/// A binary format a file read so is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binary {
    Zip,
    Tar { gz: bool },
    Gzip,
    Pickle,
    Npy,
    Npz,
    Mat,
}

/// The callee decides; the extension says where the callee does not.
fn binary_kind(lower: &str, f: &FileUse) -> Option<Binary> {
    kind_for(lower, &f.how, &f.callee, f.loader.as_deref())
}

fn kind_for(lower: &str, how: &str, callee: &str, loader: Option<&str>) -> Option<Binary> {
    let last = |c: &str| c.rsplit('.').next().unwrap_or("").to_string();
    let module = |c: &str| c.rsplit_once('.').map(|(m, _)| m.rsplit('.').next().unwrap_or("").to_string()).unwrap_or_default();
    let tar_name = lower.ends_with(".tar.gz") || lower.ends_with(".tgz");
    let by_callee = match (module(callee).as_str(), last(callee).as_str()) {
        ("zipfile", _) | (_, "ZipFile" | "is_zipfile") => Some(Binary::Zip),
        ("tarfile", _) | (_, "TarFile" | "is_tarfile") => Some(Binary::Tar { gz: tar_name || lower.ends_with(".gz") }),
        ("gzip", _) | (_, "GzipFile") => Some(Binary::Gzip),
        (_, "read_pickle") => Some(Binary::Pickle),
        (_, "loadmat" | "whosmat") => Some(Binary::Mat),
        ("joblib" | "pickle" | "dill" | "cloudpickle", "load") => Some(Binary::Pickle),
        _ => None,
    };
    let by_loader = loader.and_then(|l| match (module(l).as_str(), last(l).as_str()) {
        ("pickle" | "_pickle" | "cPickle" | "dill" | "cloudpickle" | "joblib", "load") | (_, "read_pickle") => Some(Binary::Pickle),
        ("np" | "numpy", "load") => None,
        ("zipfile", _) | (_, "ZipFile") => Some(Binary::Zip),
        ("tarfile", _) => Some(Binary::Tar { gz: tar_name }),
        ("gzip", _) | (_, "GzipFile") => Some(Binary::Gzip),
        _ => None,
    });
    let ext = lower.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    let by_ext = match ext {
        _ if tar_name => Some(Binary::Tar { gz: true }),
        "tar" => Some(Binary::Tar { gz: false }),
        "zip" => Some(Binary::Zip),
        "gz" => Some(Binary::Gzip),
        "pkl" | "pickle" | "joblib" => Some(Binary::Pickle),
        "npy" => Some(Binary::Npy),
        "npz" => Some(Binary::Npz),
        "mat" => Some(Binary::Mat),
        _ => None,
    };
    // `np.load` reads what its extension says (an `.npy`, an `.npz`, or a
    // pickle with `allow_pickle`); an archive's name outranks a generic `open`.
    by_callee.or(by_loader).or(by_ext).or_else(|| (how == "unpack_archive").then_some(Binary::Zip))
}

/// The separator of the file at `path` when the fragment reads it as a
/// table with named columns (`pd.read_csv`, `csv.DictReader`).
pub fn table_separator(analysis: &Analysis, path: &str) -> Option<char> {
    let f = analysis.files.iter().find(|f| f.path == path && !f.writes)?;
    let shape = shape_of(analysis, path);
    let lower = path.to_ascii_lowercase();
    reads_table(&lower, &f.how, &shape).then(|| separator(&lower, &f.how, &shape))
}

/// `content` of a table file with one more column, cells repeated down it.
pub fn table_with_column(content: &[u8], sep: char, column: &str, cells: &[&str]) -> Option<Vec<u8>> {
    table::with_column(content, sep, column, cells)
}

/// pandas' readers of delimited text.
const PANDAS_TEXT_READERS: [&str; 2] = ["read_csv", "read_table"];

/// The last part of the callee the opened file goes to (`DictReader`).
fn loader_name(shape: &Shape) -> &str {
    shape.loader.as_deref().map(|l| l.rsplit('.').next().unwrap_or("")).unwrap_or("")
}

/// Whether a pandas reader of delimited text loads the file.
fn pandas_reads(how: &str, shape: &Shape) -> bool {
    PANDAS_TEXT_READERS.contains(&how) || PANDAS_TEXT_READERS.contains(&loader_name(shape))
}

/// Whether the file is delimited text read as rows with named columns.
fn reads_table(lower: &str, how: &str, shape: &Shape) -> bool {
    let loader = loader_name(shape);
    pandas_reads(how, shape) || loader == "DictReader" || ((lower.ends_with(".csv") || lower.ends_with(".tsv")) && loader != "reader")
}

/// The separator the reader is told (`sep=';'`, `delimiter='\t'`), else
/// what the name or the reader implies.
fn separator(lower: &str, how: &str, shape: &Shape) -> char {
    let told = shape.keywords.iter().find(|k| k.name == "sep" || k.name == "delimiter").and_then(|k| k.string.as_deref()).and_then(|s| {
        let mut c = s.chars();
        c.next().filter(|_| c.next().is_none())
    });
    told.unwrap_or(if lower.ends_with(".tsv") || how == "read_table" { '\t' } else { ',' })
}

/// The content of `clean` (already checked) for being read with `how`.
fn shaped(clean: &str, how: &str, shape: &Shape) -> Option<Resource> {
    let lower = clean.to_ascii_lowercase();
    if let Some(kind) = kind_for(&lower, how, &shape.callee, shape.loader.as_deref()) {
        let content = binary(clean, how, kind, shape)?;
        return Some(Resource { path: clean.to_string(), content });
    }
    if numeric::reads_numbers(how) || numeric::reads_numbers(shape.callee.rsplit('.').next().unwrap_or("")) {
        return Some(Resource { path: clean.to_string(), content: numeric::table(&shape.keywords) });
    }
    if let Some(table) = shape.table.as_ref().filter(|_| pandas_reads(how, shape)) {
        return Some(Resource { path: clean.to_string(), content: delimited(table, separator(&lower, how, shape)) });
    }
    // Rows read by name otherwise (`csv.DictReader`): the loaded value's.
    let rows = shape.value.as_ref().filter(|_| !pandas_reads(how, shape) && reads_table(&lower, how, shape));
    if let Some(text) = rows.and_then(|v| table::csv(v, separator(&lower, how, shape))) {
        return Some(Resource { path: clean.to_string(), content: text.into_bytes() });
    }
    if let Some(sections) = &shape.config {
        return Some(Resource { path: clean.to_string(), content: ini::ini(sections) });
    }
    // A JSON file holds what the fragment reads from the value it loads
    // (`data = json.load(f)`, then `data['features']`).
    let json_loaded = lower.ends_with(".json") || shape.loader.as_deref().is_some_and(|l| l.ends_with("json.load"));
    if let Some(text) = shape.value.as_ref().filter(|_| json_loaded).and_then(json_document) {
        return Some(Resource { path: clean.to_string(), content: format!("{text}\n").into_bytes() });
    }
    // Lines parsed one by one as JSON: a JSON document per line.
    if let Some(line) = shape.json_lines.as_ref().and_then(json_document) {
        return Some(Resource { path: clean.to_string(), content: format!("{line}\n{line}\n").into_bytes() });
    }
    // Lines matched one by one with the fragment's own pattern: lines it matches.
    if let Some(line) = &shape.matched_line {
        return Some(Resource { path: clean.to_string(), content: format!("{line}\n{line}\n").into_bytes() });
    }
    // So does a TOML file (`tomllib.load(f)['project']['version']`).
    // A file in a text format, by its name or by the loader that parses it.
    let loaded_as = |format: &str, exts: &[&str]| exts.iter().any(|e| lower.ends_with(e)) || shape.loader.as_deref().and_then(loaded_format) == Some(format);
    if let Some(text) = shape.value.as_ref().filter(|_| loaded_as("toml", &[".toml"])).and_then(Value::to_json).and_then(|j| toml::document(&j)) {
        return Some(Resource { path: clean.to_string(), content: text.into_bytes() });
    }
    // And a YAML file (`yaml.safe_load(f)['database']['port']`).
    if let Some(text) = shape.value.as_ref().filter(|_| loaded_as("yaml", &[".yaml", ".yml"])).and_then(Value::to_json).and_then(|j| yaml::document(&j)) {
        return Some(Resource { path: clean.to_string(), content: text.into_bytes() });
    }
    // An opened file a CSV reader parses (`csv.reader(f)` of a file named
    // by a parameter, `data.txt`) holds CSV, whatever its name says.
    let csv_parsed = shape.loader.as_deref().is_some_and(|l| takes_first(l, "csv-stream"));
    if csv_parsed && !lower.ends_with(".gz") && !lower.ends_with(".tsv") {
        return sample_of("csv").map(|content| Resource { path: clean.to_string(), content });
    }
    // Nothing known of what it holds, but its loader parses one format
    // (`json.load(fp)` of a file named by a parameter): a sample of that.
    if let Some(format) = shape.loader.as_deref().and_then(loaded_format).filter(|_| !lower.ends_with(".gz")) {
        return sample_of(format).map(|content| Resource { path: clean.to_string(), content });
    }
    let ext = lower.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    // An XML file holds the elements the fragment looks for in it.
    let opened_or_loaded_as = |kind: &str| takes_first(&shape.callee, kind) || shape.loader.as_deref().is_some_and(|l| takes_first(l, kind));
    let xml_read = ext == "xml" || opened_or_loaded_as("xml-path");
    if let Some(doc) = shape.xml.as_ref().filter(|_| xml_read).and_then(xml::document) {
        return Some(Resource { path: clean.to_string(), content: doc });
    }
    // An HTML file holds the elements the fragment looks for in it.
    let html_read = matches!(ext, "html" | "htm") || opened_or_loaded_as("html");
    if html_read && !shape.html.is_empty() {
        return Some(Resource { path: clean.to_string(), content: html::document(&shape.html).into_bytes() });
    }
    if matches!(ext, "xlsx" | "xlsm") {
        let table = with_sample(shape.table.as_deref().unwrap_or(&[]));
        return Some(Resource { path: clean.to_string(), content: xlsx::xlsx(&table)? });
    }
    text_for(clean, how)
}

/// The text format a loader of an opened file parses (`json.load`: JSON).
fn loaded_format(loader: &str) -> Option<&'static str> {
    match loader.rsplit_once('.').unwrap_or(("", loader)) {
        ("json" | "simplejson" | "orjson" | "ujson", "load") => Some("json"),
        ("yaml", "safe_load" | "load" | "full_load" | "unsafe_load" | "safe_load_all" | "load_all") => Some("yaml"),
        ("tomllib" | "tomli" | "toml", "load") => Some("toml"),
        _ => None,
    }
}

/// Whether `callee` takes a first argument of `kind` (`data/callee_kinds.txt`):
/// an XML parser an `xml-path` (ElementTree's, lxml's or minidom's
/// `parse`/`iterparse`, `iterparse` imported bare), an HTML parser `html`
/// (`BeautifulSoup(f)`), a CSV reader a `csv-stream`.
fn takes_first(callee: &str, kind: &str) -> bool {
    !callee.is_empty() && super::knowledge::argument_kind(callee, Some(0), None) == Some(kind)
}

/// XML text for a document the fragment parses from a string
/// (`ET.fromstring(text)`): the same document a file it reads would hold,
/// without the declaration (lxml refuses a `str` that declares an encoding).
pub fn xml_text(analysis: &Analysis) -> Option<String> {
    let doc = String::from_utf8(xml::document(&analysis.xml_reads)?).ok()?;
    Some(match doc.split_once("?>\n") {
        Some((_, rest)) => rest.to_string(),
        None => doc,
    })
}

/// Members of an archive: the files the fragment reads otherwise, else one
/// named after the archive with the extension its reader wants
/// (`pd.read_csv('x.zip')` reads the one CSV inside).
fn members(clean: &str, how: &str, shape: &Shape) -> Vec<(String, Vec<u8>)> {
    let mut names = shape.members.clone();
    if names.is_empty() {
        let file = clean.rsplit('/').next().unwrap_or(clean);
        let stem = file.split('.').next().filter(|s| !s.is_empty()).unwrap_or("example");
        let ext = match how {
            "read_csv" => "csv",
            "read_json" => "json",
            "read_table" => "tsv",
            _ => "txt",
        };
        names.push(format!("{stem}.{ext}"));
    }
    names
        .into_iter()
        .filter_map(|n| {
            let inner = text_for(&n, "open")?;
            Some((n, inner.content))
        })
        .collect()
}

fn binary(clean: &str, how: &str, kind: Binary, shape: &Shape) -> Option<Vec<u8>> {
    match kind {
        Binary::Zip => archive::zip(&members(clean, how, shape)),
        Binary::Tar { gz } => archive::tar(&members(clean, how, shape), gz),
        Binary::Gzip => {
            // What is inside is what the name says without `.gz`
            // (`data.csv.gz` a CSV, `m.pkl.gz` a pickle), read the same way.
            let inner = clean.strip_suffix(".gz").or_else(|| clean.strip_suffix(".GZ")).unwrap_or("data.txt");
            let inner = if inner.rsplit('/').next().unwrap_or("").contains('.') { inner.to_string() } else { format!("{inner}.txt") };
            let plain = Shape { callee: String::new(), ..shape.clone() };
            let content = shaped(&inner, how, &plain)?.content;
            archive::gzip(&content)
        }
        Binary::Npy => Some(npy::npy()),
        Binary::Npz => npy::npz(&shape.keys),
        Binary::Mat => Some(mat::mat(&shape.keys)),
        Binary::Pickle => {
            let read_as_frame = how == "read_pickle" || shape.loader.as_deref().is_some_and(|l| l.ends_with("read_pickle"));
            let wanted = shape.value.as_ref().filter(|v| !v.is_stub()).and_then(pickle::pickle);
            wanted.or_else(|| pickle::pickle(&default_pickled(read_as_frame)))
        }
    }
}

/// `v` as a JSON document when it is plain data with some shape (a
/// non-empty object or array); the offline transport answers with one too.
pub(super) fn json_document(v: &Value) -> Option<String> {
    match v {
        Value::Dict(kv) if !kv.is_empty() => serde_json::to_string(&v.to_json()?).ok(),
        Value::List(items) if !items.is_empty() => serde_json::to_string(&v.to_json()?).ok(),
        _ => None,
    }
}

/// What a pickle holds when the fragment does not show more: a DataFrame
/// for `pd.read_pickle` (built by pandas' own constructor when loaded),
/// else a dict like the JSON sample's.
fn default_pickled(frame: bool) -> Value {
    let s = |x: &str| Value::Str(x.into());
    let columns = vec![
        (s("id"), Value::List(vec![Value::Int(1), Value::Int(2), Value::Int(3)])),
        (s("name"), Value::List(vec![s("apple"), s("banana"), s("cherry")])),
        (s("value"), Value::List(vec![Value::Float(3.5), Value::Float(1.25), Value::Float(7.0)])),
    ];
    if frame {
        return call("pd.DataFrame", vec![Value::Dict(columns)], "import pandas as pd");
    }
    Value::Dict(vec![
        (s("name"), s("Ada")),
        (s("id"), Value::Int(1)),
        (s("items"), Value::List(vec![Value::Int(1), Value::Int(2), Value::Int(3)])),
        (s("data"), Value::Dict(vec![(s("key"), s("value"))])),
    ])
}

/// A text (or image) file at `clean` for `how`, by its extension.
fn text_for(clean: &str, how: &str) -> Option<Resource> {
    let ext = clean.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let content: Vec<u8> = match (how, ext.as_str()) {
        ("listdir" | "walk" | "scandir" | "glob", _) if ext.is_empty() => {
            return Some(Resource { path: format!("{clean}/example.txt"), content: b"first line\nsecond line\n".to_vec() })
        }
        (_, "csv") => b"id,name,value\n1,apple,3.5\n2,banana,1.25\n3,cherry,7.0\n".to_vec(),
        (_, "tsv") => b"id\tname\tvalue\n1\tapple\t3.5\n2\tbanana\t1.25\n3\tcherry\t7.0\n".to_vec(),
        (_, "json") => b"{\"name\": \"Ada\", \"id\": 1, \"items\": [1, 2, 3], \"data\": {\"key\": \"value\"}}\n".to_vec(),
        (_, "yaml" | "yml") => b"name: Ada\nid: 1\nitems:\n  - 1\n  - 2\n".to_vec(),
        (_, "xml") => b"<?xml version=\"1.0\"?>\n<root>\n  <item id=\"1\">apple</item>\n  <item id=\"2\">banana</item>\n</root>\n".to_vec(),
        (_, "html" | "htm") => b"<html><head><title>Example</title></head><body><p class=\"intro\">Hello</p><a href=\"/a\">A</a></body></html>\n".to_vec(),
        (_, "png" | "jpg" | "jpeg" | "gif" | "bmp" | "tif" | "tiff") => image_file(&ext)?,
        (_, "py") => b"# Module created so that the import works.\n".to_vec(),
        (_, "toml") => b"name = \"Ada\"\nid = 1\nitems = [1, 2, 3]\n\n[data]\nkey = \"value\"\n".to_vec(),
        (_, "ini" | "cfg" | "conf") => b"[DEFAULT]\nname = Ada\n\n[section]\nkey = value\n".to_vec(),
        (_, "parquet" | "xls" | "h5" | "db" | "sqlite" | "sqlite3" | "bz2" | "xz" | "7z" | "rar") => return None,
        _ => b"first line\nsecond line\nthird line\n".to_vec(),
    };
    Some(Resource { path: clean.to_string(), content })
}

/// A small RGB image in the format its extension names (a `.jpg` that is
/// a PNG inside fails in any reader that checks, and misleads one that does
/// not), written by the `image` crate's encoders.
pub fn image_file(ext: &str) -> Option<Vec<u8>> {
    let format = image::ImageFormat::from_extension(ext)?;
    let img = image::RgbImage::from_fn(4, 4, |x, y| image::Rgb([(x * 60) as u8, (y * 60) as u8, 128]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, format).ok()?;
    Some(out.into_inner())
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_file_holds_the_structure_its_loaded_value_is_read_with() {
        // JSON through a name: a mapping of mappings, never a table.
        let src = "with open(config_path) as fh:\n    cfg = json.load(fh)\nfor name, opts in cfg['services'].items():\n    print(name, opts['port'])\n";
        let analysis = crate::analysis::analyze(src);
        let r = file_through_name(&analysis, "config_path", "config.txt").unwrap();
        let j: serde_json::Value = serde_json::from_slice(&r.content).unwrap();
        assert!(j["services"].as_object().unwrap().values().all(|s| s["port"].is_number()), "{j}");
        // YAML, in block style.
        let src = "with open('config.yaml') as f:\n    conf = yaml.safe_load(f)\nprint(conf['database']['port'])\n";
        let analysis = crate::analysis::analyze(src);
        let r = file_for(&analysis, "config.yaml", "open").unwrap();
        assert_eq!(String::from_utf8_lossy(&r.content), "database:\n  port: 8080\n");
    }

    #[test]
    fn lines_cut_and_parsed_as_dates_start_with_one() {
        let src = "for line in open(log):\n    ts = datetime.strptime(line[:10], '%Y-%m-%d')\n";
        let analysis = crate::analysis::analyze(src);
        let r = file_through_name(&analysis, "log", "log.txt").unwrap();
        assert!(String::from_utf8_lossy(&r.content).lines().all(|l| l.starts_with("2024-01-15 ")), "{:?}", String::from_utf8_lossy(&r.content));
    }

    #[test]
    fn a_file_read_through_a_name_is_shaped_by_how_it_is_read() {
        // A parameter holds the path: the reader there decides the content.
        let src = "def load(self, settings_file):\n    with open(settings_file) as fp:\n        self.config = json.load(fp)\n";
        let analysis = crate::analysis::analyze(src);
        let r = file_through_name(&analysis, "settings_file", "settings_file.txt").unwrap();
        assert!(serde_json::from_slice::<serde_json::Value>(&r.content).is_ok(), "{:?}", String::from_utf8_lossy(&r.content));
        let src = "def read(file_path):\n    with gzip.open(file_path, 'rt') as f:\n        return f.read()\n";
        let analysis = crate::analysis::analyze(src);
        let r = file_through_name(&analysis, "file_path", "data.txt").unwrap();
        assert_eq!(&r.content[..2], &[0x1f, 0x8b], "a gzip stream");
        // Only the name the fragment reads through; never a file it writes.
        assert!(file_through_name(&analysis, "other", "data.txt").is_none());
        let analysis = crate::analysis::analyze("def save(out_path, text):\n    with open(out_path, 'w') as f:\n        f.write(text)\n");
        assert!(file_through_name(&analysis, "out_path", "out.txt").is_none());
    }

    #[test]
    fn a_json_file_holds_what_the_fragment_reads_from_it() {
        let src = "import json\nwith open('quakes.json') as f:\n    data = json.load(f)\nfor q in data['features']:\n    print(q['mag'] + 1, q['place'].upper())\n";
        let analysis = crate::analysis::analyze(src);
        let r = file_for(&analysis, "quakes.json", "open").unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&r.content).unwrap();
        let first = &doc["features"][0];
        assert!(first["mag"].is_number() && first["place"].is_string(), "{doc}");
        // Nothing read from it: the sample.
        let analysis = crate::analysis::analyze("import json\nprint(json.load(open('x.json')))\n");
        assert!(file_for(&analysis, "x.json", "open").unwrap().content.starts_with(b"{\"name\": \"Ada\""));
    }

    #[test]
    fn lines_matched_by_the_fragments_pattern_match_it() {
        let src = "import re\nlines = open('access-log')\npat = re.compile(r'(\\S+) \\[(.*?)\\] (\\d+)')\nhits = (pat.match(l) for l in lines)\nrows = [h.groups() for h in hits if h]\n";
        let analysis = crate::analysis::analyze(src);
        let r = file_for(&analysis, "access-log", "open").unwrap();
        assert_eq!(String::from_utf8(r.content).unwrap(), "example [example] 2024\nexample [example] 2024\n");
    }

    #[test]
    fn lines_parsed_as_json_are_json_lines() {
        for (src, path) in [
            ("import json\nwith open('events.log') as f:\n    for line in f:\n        e = json.loads(line)\n        print(e['id'] + 1)\n", "events.log"),
            ("def load(p):\n    rows = []\n    with gzip.open(p, 'rt') as f:\n        for l in f:\n            rows.append(json.loads(l))\n    return rows\n", "rows.gz"),
        ] {
            let analysis = crate::analysis::analyze(src);
            // A literal path, or one a parameter holds (`gzip.open(p, 'rt')`).
            let r = file_through_name(&analysis, "p", path).or_else(|| file_for(&analysis, path, "open")).unwrap();
            let text = if path.ends_with(".gz") {
                let mut out = String::new();
                std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&r.content[..]), &mut out).unwrap();
                out
            } else {
                String::from_utf8(r.content).unwrap()
            };
            for line in text.lines() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}: {e}: {line:?}"));
                assert!(v.is_object(), "{line}");
            }
        }
    }

    #[test]
    fn a_toml_file_holds_the_tables_the_fragment_reads() {
        let src = "import tomllib\nwith open('pyproject.toml', 'rb') as f:\n    meta = tomllib.load(f)\nprint(meta['project']['version'], meta['tool']['black']['line-length'] + 1)\n";
        let analysis = crate::analysis::analyze(src);
        let r = file_for(&analysis, "pyproject.toml", "open").unwrap();
        let text = String::from_utf8(r.content).unwrap();
        assert!(text.starts_with("[project]\nversion = \"1.0.0\"\n"), "{text}");
        assert!(text.contains("[tool.black]\nline-length = "), "{text}");
    }

    #[test]
    fn a_glob_pattern_gets_a_file_it_matches() {
        assert_eq!(glob_instance("*_start.txt").as_deref(), Some("example_start.txt"));
        assert_eq!(glob_instance("logs/**/*.log").as_deref(), Some("logs/example.log"));
        assert_eq!(glob_instance("img_??[0-9].png").as_deref(), Some("img_aa0.png"));
        let analysis = crate::analysis::analyze("import glob\nimport pandas as pd\nfor f in glob.glob('data/*_sales.csv'):\n    print(pd.read_csv(f))\n");
        assert_eq!(file_matching(&analysis, "data/*_sales.csv").unwrap().path, "data/example_sales.csv");
        assert!(file_matching(&analysis, "/etc/*.conf").is_none());
    }

    #[test]
    fn content_follows_the_extension_and_paths_stay_inside() {
        assert!(resource_for("data.csv", "read_csv").unwrap().content.starts_with(b"id,name,value\n"));
        assert!(resource_for("/etc/passwd", "open").is_none());
        assert!(resource_for("../x.txt", "open").is_none());
        assert_eq!(resource_for("images", "listdir").unwrap().path, "images/example.txt");
        let d = directory_for("src", &["*.c".to_string()]);
        assert_eq!(d.iter().map(|r| r.path.as_str()).collect::<Vec<_>>(), vec!["src/example.c", "src/nested/example.c"]);
        assert!(directory_for("/etc", &[]).is_empty());
        assert!(directory_for("../../../../etc", &[]).is_empty());
        assert_eq!(directory_for("../shared", &[]).first().map(|r| r.path.as_str()), Some("../shared/example.txt"));
        assert_eq!(files_at("../q.json", &[]).first().map(|r| r.path.as_str()), Some("../q.json"));
        assert_eq!(&resource_for("a.png", "imread").unwrap().content[..4], b"\x89PNG");
        let png = image::load_from_memory(&resource_for("a.png", "imread").unwrap().content).unwrap().to_rgb8();
        assert_eq!(&png.as_raw()[..6], &[0, 0, 128, 60, 0, 128], "a gradient: readers see more than one colour");
        // Each image in the format its name says, as the decoders read it.
        for (name, format) in [("a.jpg", image::ImageFormat::Jpeg), ("b.JPEG", image::ImageFormat::Jpeg), ("c.gif", image::ImageFormat::Gif), ("d.bmp", image::ImageFormat::Bmp), ("e.tif", image::ImageFormat::Tiff)] {
            let bytes = resource_for(name, "imread").unwrap().content;
            assert_eq!(image::guess_format(&bytes).unwrap(), format, "{name}");
            assert_eq!(image::load_from_memory(&bytes).unwrap().width(), 4, "{name}");
        }
    }

    fn file(src: &str, path: &str) -> Resource {
        let a = crate::analysis::analyze(src);
        let how = a.files.iter().find(|f| f.path == path).map(|f| f.how.clone()).unwrap_or_else(|| "open".into());
        file_for(&a, path, &how).unwrap_or_else(|| panic!("no file for {path}"))
    }

    fn unzip(bytes: &[u8]) -> Vec<(String, String)> {
        use std::io::Read;
        let mut z = ::zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
        (0..z.len())
            .map(|i| {
                let mut f = z.by_index(i).unwrap();
                let mut s = String::new();
                f.read_to_string(&mut s).unwrap();
                (f.name().unwrap().to_string(), s)
            })
            .collect()
    }

    #[test]
    fn the_callee_decides_the_format_and_the_extension_backs_it() {
        // gzip of what the name says without `.gz`, by callee or by name.
        for (src, path, inner) in [
            ("import gzip\nwith gzip.open('rows.csv.gz', 'rt') as f:\n    print(f.read())\n", "rows.csv.gz", "id,name,value\n"),
            ("import pandas as pd\ndf = pd.read_csv('rows.csv.gz')\n", "rows.csv.gz", "id,name,value\n"),
            ("import gzip\nprint(gzip.open('blob').read())\n", "blob", "first line\n"),
        ] {
            let gz = file(src, path).content;
            let mut s = String::new();
            std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(gz.as_slice()), &mut s).unwrap();
            assert!(s.starts_with(inner), "{path}: {s:?}");
        }
        // `pickle.load(open('model.dat', 'rb'))`: the loader says pickle.
        assert_eq!(&file("import pickle\nm = pickle.load(open('model.dat', 'rb'))\n", "model.dat").content[..2], &[0x80, 4]);
        assert_eq!(&file("import numpy as np\na = np.load('a.npy')\n", "a.npy").content[..6], b"\x93NUMPY");
        assert_eq!(&file("import tarfile\ntarfile.open('t.tgz').extractall()\n", "t.tgz").content[..2], &[0x1f, 0x8b]);
        // A plain `open` of a text name stays text.
        assert_eq!(file("print(open('notes.txt').read())\n", "notes.txt").content, b"first line\nsecond line\nthird line\n");
    }

    #[test]
    fn an_archive_holds_the_files_the_fragment_reads_from_it() {
        let src = "import zipfile\nwith zipfile.ZipFile('bundle.zip') as z:\n    z.extractall('.')\nprint(open('config.json').read())\nwith z.open('notes/a.txt') as m:\n    pass\n";
        let names: Vec<String> = unzip(&file(src, "bundle.zip").content).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, vec!["config.json", "notes/a.txt"]);
        // Nothing else read: one member named after the archive, in the
        // format its reader wants (`pd.read_csv` of a zip reads the CSV inside).
        let only = unzip(&file("import pandas as pd\ndf = pd.read_csv('sales.zip')\n", "sales.zip").content);
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].0, "sales.csv");
        assert!(only[0].1.starts_with("id,name,value"));
    }

    #[test]
    fn a_pickle_holds_the_kind_of_value_the_fragment_uses() {
        // Keys read: a dict with them; iterated: a list; `read_pickle`: a DataFrame.
        let d = file("import pickle\nwith open('cfg.pkl', 'rb') as f:\n    cfg = pickle.load(f)\nprint(cfg['threshold'], cfg['labels'])\n", "cfg.pkl").content;
        assert_eq!(d[2], b'}', "a dict");
        assert!(d.windows(9).any(|w| w == b"threshold") && d.windows(6).any(|w| w == b"labels"));
        let l = file("import pickle\nrows = pickle.load(open('rows.pkl', 'rb'))\nfor r in rows:\n    print(r)\n", "rows.pkl").content;
        assert_eq!(l[2], b']', "a list");
        let df = file("import pandas as pd\ndf = pd.read_pickle('frame.pkl')\n", "frame.pkl").content;
        assert!(df.windows(18).any(|w| w == b"cpandas\nDataFrame\n"));
        let npz = file("import numpy as np\ndata = np.load('arrays.npz')\nprint(data['X'].shape, data['y'])\n", "arrays.npz").content;
        let names: Vec<String> = unzip_names(&npz);
        assert_eq!(names, vec!["X.npy", "y.npy"]);
    }

    fn unzip_names(bytes: &[u8]) -> Vec<String> {
        let z = ::zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
        let mut n: Vec<String> = z.file_names().map(|n| n.unwrap().to_string()).collect();
        n.sort();
        n
    }

    #[test]
    fn a_table_a_pandas_reader_loads_has_the_columns_named_and_read() {
        // `parse_dates` names a column of dates; `df.level` reads another.
        let csv = String::from_utf8(file("import pandas as pd\ndf = pd.read_csv('obs.csv', parse_dates=['when'])\nprint(df.level.mean())\n", "obs.csv").content).unwrap();
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("when,level,id,name,value"));
        assert!(lines.next().unwrap().starts_with("2024-01-01,"));
        // The data of a formula read from the file: its variables, enough rows.
        let src = "import pandas as pd\nimport statsmodels.formula.api as smf\nd = pd.read_csv('trial.csv')\nsmf.ols('score ~ C(arm)', data=d).fit()\n";
        let csv = String::from_utf8(file(src, "trial.csv").content).unwrap();
        assert!(csv.starts_with("score,arm,"), "{csv}");
        assert_eq!(csv.lines().count(), 9);
        // Nothing read of it: the sample as it was.
        assert_eq!(file("import pandas as pd\nprint(pd.read_csv('s.csv').head())\n", "s.csv").content, b"id,name,value\n1,apple,3.5\n2,banana,1.25\n3,cherry,7.0\n");
    }

    #[test]
    fn a_workbook_read_as_a_formulas_data_has_its_variables() {
        use std::io::Read;
        let src = "import pandas as pd\nfrom statsmodels.formula.api import ols\nd = pd.read_excel('yield.xlsx')\nols('crop ~ C(soil)', data=d).fit()\n";
        let bytes = file(src, "yield.xlsx").content;
        let mut z = ::zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let mut sheet = String::new();
        z.by_name("xl/worksheets/sheet1.xml").unwrap().read_to_string(&mut sheet).unwrap();
        assert!(sheet.contains("<t>crop</t>") && sheet.contains("<t>soil</t>"), "{sheet}");
        assert_eq!(sheet.matches("<row ").count(), 9, "a header and eight rows");
    }

    #[test]
    fn a_run_file_may_go_up_as_far_as_the_run_directory_allows() {
        let a = crate::analysis::analyze("print(open('../data/x.csv').read())\n");
        assert_eq!(file_for(&a, "../data/x.csv", "open").unwrap().path, "../data/x.csv");
        assert!(file_for(&a, "../../../../etc/passwd", "open").is_none());
        assert!(file_for(&a, "/etc/passwd", "open").is_none());
        assert!(resource_for("../data/x.csv", "open").is_none(), "a workspace sample never goes up");
    }

}
