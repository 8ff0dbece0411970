//! The plain data that [`super::analyze`] returns.

use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

pub use super::condition::{BoolOpKind, CompareOp, Condition, Constant};

#[derive(Debug, Clone, Default, Serialize)]
pub struct Analysis {
    /// Parse errors (ERROR / MISSING nodes), in source order. When the
    /// fragment only parses as a function body (top-level `return`, `yield`,
    /// `await`, `nonlocal`), that is not a syntax error: see `wrap`.
    pub syntax_errors: Vec<SyntaxIssue>,
    /// Whether the fragment has to be wrapped in a function to run.
    pub wrap: Wrap,
    /// Width in bytes of the indentation shared by all non-blank lines
    /// (`textwrap.dedent` semantics). The analysis runs on the dedented text;
    /// lines are unchanged and columns point into the original text.
    pub common_indent: usize,
    /// The statements counted by the Treefix/LExecutor coverage metric,
    /// sorted by line (one entry per line that starts a counted statement).
    pub statements: Vec<Statement>,
    /// Imports in source order (including ones nested in blocks).
    pub imports: Vec<Import>,
    /// Names read but never bound anywhere in the fragment and not builtins,
    /// in order of first use. `self`/`cls` in a body are free names too.
    /// Parameters, lambda parameters and comprehension variables bind only
    /// inside their construct; every other binding counts fragment-wide.
    /// `del x` reads `x`. Names a star import may provide stay free (see
    /// `imports` for `("*", None)`).
    pub free_names: Vec<FreeName>,
    /// Names bound somewhere in the fragment (so not free) whose first read
    /// in straight-line top-level code (not inside a def or lambda; class
    /// bodies and comprehensions count) comes before their first top-level
    /// binding (`print(x)` on line 1, `x = 1` on line 5; `total += 1` with no
    /// earlier `total = ...`), so they are often undefined at runtime.
    /// Builtins are excluded. `first_line` is that first top-level read; the
    /// usage covers the whole fragment.
    pub used_before_bound: Vec<FreeName>,
    /// Builtin names read and never bound, with their usage: a fragment
    /// cut from code that used `dict` or `file` as a variable uses them so.
    pub builtins_read: Vec<FreeName>,
    /// Every name bound anywhere in the fragment (assignment, def, class,
    /// import, for/with/except targets, walrus, `match` captures;
    /// parameters and comprehension variables excluded).
    pub bound_names: BTreeSet<String>,
    /// Line -> plain names (not attributes/subscripts) assigned on that line
    /// by `=`, augmented `+=`, annotated assignment, `for` targets, `with ... as`,
    /// walrus `:=` (anywhere, including inside defs).
    pub assigned: BTreeMap<u32, Vec<String>>,
    /// Literal file paths the fragment reads or writes.
    pub files: Vec<FileUse>,
    /// Files read or written through a name that holds no literal path (a
    /// parameter, a free name: `open(settings_file)`), with that name; their
    /// `path` is empty. The path the prefix gives the name is shaped by the
    /// use (`synth::resources::file_through_name`).
    pub files_through_names: Vec<(String, FileUse)>,
    /// How each `FileUse::target` name is used: the value a pickle holds,
    /// the keys an `.npz` has.
    pub loaded_usage: BTreeMap<String, Usage>,
    /// Environment variables read by a literal name, each once, by first line.
    pub env_reads: Vec<EnvRead>,
    /// INI files `configparser` parsers read, with the sections and options
    /// the fragment asks of them.
    pub config_reads: Vec<ConfigRead>,
    /// How the fragment uses the HTTP responses it fetches with `requests`
    /// or `httpx` (`.json()`, `.status_code`; empty when it reads none).
    pub http_response: Usage,
    /// Names of functions defined at top level (`def f`) with their parameters,
    /// so a driver can call them.
    pub functions: Vec<FunctionDef>,
    /// Classes defined at top level with their methods.
    pub classes: Vec<ClassDef>,
    /// Names the fragment assigns at top level from an expression that needs
    /// nothing the fragment defines (literals, displays, calls of dotted names
    /// from outside: `pd.DataFrame({...})`), first assignment each: the value
    /// for a name read before that assignment. Source text of the expression.
    pub literal_assignments: BTreeMap<String, String>,
    /// Names assigned `re.compile(<pattern>)`, the pattern a string literal
    /// or a name assigned one: name -> pattern text (`compiled_patterns`).
    pub compiled_patterns: BTreeMap<String, String>,
    /// How names the fragment's imports bind (by their alias) are used:
    /// for modules a prefix creates when they are not installed, and the
    /// submodules of a package it imports that it reads.
    pub imported_usage: BTreeMap<String, Usage>,
    /// Elements the fragment looks for in parsed HTML (`soup.find('table',
    /// class_='x')`, `soup.select('div.item')`), each once, in source order.
    pub html_queries: Vec<HtmlQuery>,
    /// The elements, attributes and text the fragment reads of parsed XML
    /// (ElementTree, lxml, minidom): what an XML file or text it parses holds.
    pub xml_reads: XmlReads,
    /// Lines of `if`/`elif`/`while` conditions and the free names they read
    /// (for evolution: which names feed which branches), in source order.
    pub branches: Vec<Branch>,
    /// `for` statements (any depth, `async for` too), in source order: a
    /// body that never ran had an empty iterable.
    pub for_loops: Vec<ForLoop>,
    /// `try` statements with their handlers, in source order.
    pub try_blocks: Vec<super::TryBlock>,
    /// Names the module calls as statements (`cli()` under the main guard).
    pub module_calls: Vec<ModuleCall>,
    /// DataFrames a library reads columns of by names inside strings (a
    /// formula's variables, a reader's `parse_dates`), by where the frame
    /// comes from, in source order.
    pub frame_columns: Vec<FrameColumns>,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct SyntaxIssue {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Wrap {
    /// Runs as a module.
    #[default]
    None,
    /// Top-level `return`/`yield`/`nonlocal`: wrap in `def __fragment(...)`.
    Function { is_async: bool, is_generator: bool },
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Statement {
    pub line: u32,
    /// `None` for a simple statement (counts when it completed); for a compound
    /// statement (`if`, `for`, `while`, `with`, `try`, `def`, `class`, `match`,
    /// async variants), the first lines of its body blocks (counts when any was
    /// hit). Mirrors `statement_lines` in `shared/bench/measure.py`.
    pub body_first_lines: Option<Vec<u32>>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Import {
    pub line: u32,
    /// Absolute module path (`os.path`), empty for `from . import x`.
    pub module: String,
    /// Leading dots of a relative import.
    pub level: u32,
    /// `import a.b as c` -> Some("c"); `import a.b` -> None.
    pub alias: Option<String>,
    /// For `from m import a as b, c`: [("a", Some("b")), ("c", None)]; `*` -> [("*", None)].
    pub names: Vec<(String, Option<String>)>,
    pub is_from: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FreeName {
    pub name: String,
    pub first_line: u32,
    pub usage: Usage,
}

/// What the fragment does with a value. Recursive: the usage of `x.a` is
/// `usage.attrs["a"]`, of `x()` is `usage.returns`, of `x[k]` is in
/// `usage.subscripts`, of an element when iterating is `usage.element`.
/// Usage flows through simple aliases in the fragment: after `for row in
/// rows:`, what is done with `row` is recorded in `rows.element`; after
/// `a, b = pair`, in `pair.unpacked_items`; after `y = x.f()`, in
/// `x.attrs["f"].returns`.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Usage {
    /// Attributes read (`x.a`, including methods: a method is an attribute
    /// whose usage has `calls`).
    pub attrs: BTreeMap<String, Usage>,
    /// Every call of the value itself: arity and keyword names.
    pub calls: Vec<CallShape>,
    /// Literal strings its calls pass first (`sep` in `s.split(sep)`): what
    /// a str method is asked to find in the text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub first_str_args: Vec<String>,
    /// Literal ints its calls pass first (`1` in `m.group(1)`): which
    /// group of a regular expression's match is read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub first_int_args: Vec<i64>,
    /// Literal formats it is parsed with as a date (`'%Y-%m-%d'` in
    /// `datetime.strptime(s, '%Y-%m-%d')`): the text must be a date so.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub date_formats: Vec<String>,
    /// Literal patterns the `re` module searches it with (`re.findall(r'\d+',
    /// text)`): the text must hold a match.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub searched_with: Vec<String>,
    /// How the result of calling it is used (merged over calls).
    pub returns: Option<Box<Usage>>,
    /// Subscripts with the key and how the item is used.
    pub subscripts: Vec<(Key, Usage)>,
    /// Subscript assignment targets `x[k] = v` (keys written).
    pub subscript_writes: Vec<Key>,
    /// Attributes assigned (`x.a = v`, `x.a += 1`).
    pub attr_writes: BTreeSet<String>,
    /// Iterated (`for`, comprehension, `list(x)`, `sorted(x)`, `enumerate(x)`,
    /// `zip(x, ..)`, `*x`, `yield from x`, `'sep'.join(x)`); usage of an element.
    pub element: Option<Box<Usage>>,
    pub iterated: bool,
    /// Unpacked into this many targets (`a, b = x`, `for a, b in ...` goes to element).
    pub unpack: Option<usize>,
    /// Usage of each unpacked item, index-aligned with the targets.
    pub unpacked_items: Vec<Usage>,
    /// Comparisons and arithmetic with literals: (operator text, literal).
    /// Comparisons read from this value's side (`0 < x` records `>`);
    /// `x in [1, 2]` records `in` with the display as `Literal::Other`.
    /// Augmented assignment records the bare operator (`x += 1` -> `+`).
    pub compared: Vec<(String, Literal)>,
    pub arithmetic: Vec<(String, Literal)>,
    /// Arithmetic/comparison with non-literal operands (operator text, from
    /// this value's side: `y < x` records `>` on `x`), `unary -` etc. for
    /// unary operators, `in`/`not in` on the element side and `contains` on
    /// the container side of membership tests with a non-literal other side.
    pub operators: BTreeSet<String>,
    /// Dotted names it is compared equal or unequal to (`tok.type ==
    /// token.LPAR`): constants of a module or class the value should be.
    pub equals: Vec<String>,
    /// Used as a condition (`if x`, `while x`, `not x`, `and`/`or` operand).
    pub truth_tested: bool,
    /// `len(x)`, `x in y` (as container: `contains`), `with x`, `await x`.
    pub len: bool,
    pub contains: Vec<Literal>,
    pub with_ctx: bool,
    pub awaited: bool,
    /// Passed as an argument: callee as dotted text (`np.array`, `open`,
    /// `print`) and the position (`Some(i)`) or keyword (`None`, `Some(kw)`).
    pub passed_to: Vec<ArgUse>,
    /// Formatted in f-string / `%` / `str.format` / `print`.
    pub formatted: bool,
    /// Named as a type in an evaluated annotation (`x: T`, `-> List[T]`,
    /// `Optional[T]`): it must be a class.
    pub annotates: bool,
    /// Named as a base of a class statement (`class Message(BaseModel):`):
    /// it must be a class.
    pub subclassed: bool,
    /// Raised (`raise X`, `raise X(...)`) or caught (`except X`, `except (X, Y)`):
    /// it must be an exception class.
    pub raised: bool,
    /// Subscripted by its own items (`for k in d: d[k]`): a mapping.
    pub keyed_by_items: bool,
    /// Passed as keyword arguments (`f(x, **options)`): a mapping whose
    /// keys the callee must accept.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub keyword_splat: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct CallShape {
    pub positional: usize,
    pub keywords: Vec<String>,
    pub star_args: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "kind", content = "value", rename_all = "kebab-case")]
pub enum Key {
    Str(String),
    Int(i64),
    Slice,
    /// A non-literal key: the source text of the index expression (`i`,
    /// `i + 1`; several indices joined by `, `), cut at 200 bytes.
    Expr(String),
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "kind", content = "value", rename_all = "kebab-case")]
pub enum Literal {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    None,
    /// Other constants, as source text cut at 200 bytes: bytes, complex
    /// numbers, `...`, integers beyond i64, displays of constants
    /// (`(1, 'a')`, `[1, 2]`), f-strings without interpolations.
    Other(String),
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ArgUse {
    pub callee: String,
    pub position: Option<usize>,
    pub keyword: Option<String>,
}

/// A `configparser` parser the fragment makes and what it reads with it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ConfigRead {
    /// The name the parser is bound to.
    pub parser: String,
    /// The files its `read`/`read_file` takes, literal.
    pub paths: Vec<String>,
    /// Sections asked for, in first-use order, each with its options.
    pub sections: Vec<ConfigSection>,
    /// The line of the (last) read.
    pub line: u32,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ConfigSection {
    pub name: String,
    pub options: Vec<(String, OptionKind)>,
}

/// What an option's getter converts its text to.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum OptionKind {
    Str,
    Int,
    Float,
    Bool,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct EnvRead {
    pub name: String,
    pub line: u32,
    /// Read as `os.environ["X"]` somewhere: a KeyError without it.
    pub required: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FileUse {
    pub line: u32,
    pub path: String,
    /// The last segment of the callee: `open` (also `io.open`, `Image.open`,
    /// `Path(..).open`), `read_csv`, `read_json`, `loadtxt`, `imread`,
    /// `connect` (`sqlite3.connect`), `listdir`, `walk`, `glob`, `to_csv`,
    /// `savefig`, or the pathlib method (`read_text`, `write_bytes`, ...).
    pub how: String,
    /// The mode string for `open` (`"r"`, `"wb"`), when literal.
    pub mode: Option<String>,
    /// True when the fragment only writes it (mode w/a/x, `to_csv`, `savefig`).
    pub writes: bool,
    /// The whole dotted callee (`gzip.open`, `tarfile.open`, `joblib.load`):
    /// what format the file is in when the extension does not say.
    pub callee: String,
    /// The callee the opened file goes to: the call it is an argument of
    /// (`pickle.load(open(p, 'rb'))`) or the first call its `with ... as f`
    /// name is passed to in the block (`pickle.load(f)`).
    pub loader: Option<String>,
    /// The plain name the loaded value is assigned to (`data = pickle.load(f)`),
    /// whose usage says what the file must hold (`Analysis::loaded_usage`).
    pub target: Option<String>,
    /// The call's keyword arguments with a simple value (`skiprows=1`,
    /// `delimiter=','`, `dtype=np.int32`): what a reader expects of the
    /// layout (header lines, separator, number type).
    pub keywords: Vec<KeywordArg>,
}

/// One keyword argument of a call, as written.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct KeywordArg {
    pub name: String,
    /// The value's source text (`1`, `np.int32`, `(0, 2)`, `','`).
    pub text: String,
    /// The value when it is a plain string literal, escapes resolved.
    pub string: Option<String>,
}

impl FileUse {
    /// The key of `Analysis::loaded_usage` for what this read loads: the
    /// name it is assigned to, else the loading call itself
    /// (`for row in csv.DictReader(f)` -> `csv.DictReader()`).
    pub fn loaded_key(&self) -> String {
        self.target.clone().unwrap_or_else(|| format!("{}()", self.loader.as_deref().unwrap_or(&self.callee)))
    }

    /// The keyword argument `name`, when the call passes one.
    pub fn keyword(&self, name: &str) -> Option<&KeywordArg> {
        self.keywords.iter().find(|k| k.name == name)
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FunctionDef {
    pub name: String,
    pub line: u32,
    pub params: Vec<Param>,
    pub is_async: bool,
    pub is_method: bool,
    /// Its decorators, outermost first.
    pub decorators: Vec<Decorator>,
    /// The last line of the `def` (its body included).
    pub end_line: u32,
    /// Its body yields (not counting nested defs, classes and lambdas).
    pub is_generator: bool,
    /// The function its body defines and returns by name (a decorator's
    /// wrapper, a factory's closure).
    pub returns_function: Option<Box<FunctionDef>>,
}

/// An element looked for in HTML: its tag, class and id where given.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, Default)]
pub struct HtmlQuery {
    pub tag: Option<String>,
    pub class: Option<String>,
    pub id: Option<String>,
}

/// What the fragment reads of parsed XML, as the tree a document must
/// have: `root.findall('./item/name')` and `e.get('id')` on each item make
/// `<item id=".."><name>..</name></item>` under the root.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, Default)]
pub struct XmlReads {
    /// The root's tag, when an absolute XPath names it (`/rss/channel`).
    pub root: Option<String>,
    /// Elements below the root, nested as the paths read say.
    pub elements: Vec<XmlElement>,
    /// Attributes read of elements the analysis cannot place (`elem.get('x')`
    /// on what `iterparse` yields): every element has them.
    pub attributes: Vec<String>,
}

impl XmlReads {
    pub fn is_empty(&self) -> bool {
        self.root.is_none() && self.elements.is_empty() && self.attributes.is_empty()
    }
}

/// One element a path reads: its tag (`None` for `*`), the attributes read
/// of it or tested (`[@id='home']` gives the value), its text where a
/// predicate says it (`[name='Ada']`), and its children.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, Default)]
pub struct XmlElement {
    pub tag: Option<String>,
    pub attrs: Vec<(String, Option<String>)>,
    pub text: Option<String>,
    pub children: Vec<XmlElement>,
}

/// A call of a name as a statement of the module itself (top level, or
/// in a top-level `if`/`try`/`with` block): `cli()` under the main guard.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, Default)]
pub struct ModuleCall {
    pub name: String,
    pub line: u32,
}

/// One decorator: `@app.route("/items/<int:id>", methods=["POST"])`.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Decorator {
    /// The decorator, or the callee when it is a call, dotted (`app.route`,
    /// `staticmethod`); empty when it is neither a name nor an attribute.
    pub target: String,
    /// Whether it is a call (`@app.get("/")` rather than `@property`).
    pub is_call: bool,
    /// Its positional arguments' values, where they are plain strings.
    pub strings: Vec<Option<String>>,
    /// Its keyword arguments, each with the plain strings in its value
    /// (`methods=["GET", "POST"]`: `("methods", ["GET", "POST"])`).
    pub keywords: Vec<(String, Vec<String>)>,
    /// The whole decorator as an expression tree (a `Call` with every
    /// argument: `@click.option('--n', type=int, multiple=True)`), for rules
    /// that read more than strings.
    pub expr: Option<Condition>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Param {
    pub name: String,
    /// `*args` -> "*", `**kw` -> "**", else "".
    pub star: String,
    /// Passed by keyword only (after a bare `*` or a `*args`, or a field
    /// of a pydantic model).
    pub keyword_only: bool,
    pub has_default: bool,
    /// Annotation source text, if any.
    pub annotation: Option<String>,
    /// Default value source text, if any.
    pub default: Option<String>,
    /// The default as an expression tree (`typer.Argument(..., callback=check)`
    /// as a `Call`), for rules that read its arguments.
    pub default_expr: Option<Condition>,
    /// How the body uses the parameter.
    pub usage: Usage,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ClassDef {
    pub name: String,
    pub line: u32,
    /// The last line of the `class` (its body included).
    pub end_line: u32,
    pub methods: Vec<FunctionDef>,
    /// The `__init__` a class-generating decorator or base writes for a
    /// class that has none of its own (`@dataclass`, attrs, `NamedTuple`,
    /// pydantic, see `generated_init`): one parameter per field it takes
    /// (not `ClassVar`s, not `field(init=False)`), in order. Not among
    /// `methods`: it has no lines of its own.
    pub generated_init: Option<FunctionDef>,
    /// The base classes it names (`str`, `enum.Enum`).
    pub bases: Vec<String>,
    /// The names its body assigns, in order (an enumeration's members).
    pub attributes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Branch {
    pub line: u32,
    /// Free names (and `used_before_bound` names) read by the condition,
    /// directly or through an alias (`for row in rows: if row > 0` -> `rows`).
    pub names: Vec<String>,
    /// The condition as a tree: what rules read.
    pub condition: Condition,
    /// The condition's source text, to show to users (no rule parses it).
    pub text: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ForLoop {
    pub line: u32,
    /// The first line of the loop's body.
    pub body_line: u32,
    /// What it iterates, as a tree, and its source text (for users).
    pub iterable: Condition,
    pub text: String,
}

/// Columns a library reads from a DataFrame by names written inside a
/// string or a list of strings (a formula, `parse_dates`), see
/// `frame_columns`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FrameColumns {
    pub line: u32,
    pub source: FrameSource,
    /// In first-use order, each once.
    pub columns: Vec<NamedColumn>,
}

/// Where such a DataFrame comes from.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(tag = "kind", content = "value", rename_all = "kebab-case")]
pub enum FrameSource {
    /// A plain name passed as the data (`data=train`).
    Name(String),
    /// A file a pandas reader loads, by its literal path.
    File(String),
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct NamedColumn {
    pub name: String,
    pub kind: ColumnKind,
}

/// What the library does with a column's values.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ColumnKind {
    /// Selected only (`usecols`, `index_col`): any values.
    Any,
    /// Categories (`C(x)` in a formula): a few repeated levels.
    Category,
    /// Numbers (a formula's regressors, `np.log(x)`).
    Number,
    /// A model's outcome (bare left of `~`): 0/1, which every model takes
    /// (a logit's must be in [0, 1], a count model's non-negative).
    Outcome,
    /// Parsed as dates (`parse_dates`).
    Date,
}

impl ColumnKind {
    /// Which of two uses of one column decides its values.
    pub fn rank(self) -> u8 {
        match self {
            ColumnKind::Any => 0,
            ColumnKind::Category => 1,
            ColumnKind::Number => 2,
            ColumnKind::Outcome => 3,
            ColumnKind::Date => 4,
        }
    }
}
