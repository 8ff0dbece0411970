//! Routes of web frameworks. A function decorated with `@app.route(...)`
//! (Flask) or `@app.post(...)` (FastAPI) runs as the framework calls it:
//! inside a request, with the path parameters, query, form, JSON body and
//! uploaded files the request carries. Called directly, `request.method`
//! raises "working outside of request context" and `UploadFile = File(...)`
//! is a marker, not a file. So the driver sends the request through the
//! framework's own test client (`app.test_client()`, `TestClient(app)`),
//! shaped by what the function reads. Pure: the driver lines and the files
//! they upload.

use super::infer;
use super::library_types::{self, fragment_modules, mimicked_type};
use super::render::py_str;
use super::resources::resource_for;
use super::session::Context;
use super::value::Value;
use crate::analysis::{Decorator, FunctionDef, Key, Param, Usage};
use crate::exec::Resource;
use regex::Regex;
use std::sync::OnceLock;

/// The kind of application object a route decorator belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum App {
    Flask,
    Blueprint,
    FastApi,
    ApiRouter,
}

impl App {
    fn of_type(name: &str) -> Option<App> {
        match name.rsplit('.').next()? {
            "Flask" => Some(App::Flask),
            "Blueprint" => Some(App::Blueprint),
            "FastAPI" => Some(App::FastApi),
            "APIRouter" => Some(App::ApiRouter),
            _ => None,
        }
    }
    fn is_flask(self) -> bool {
        matches!(self, App::Flask | App::Blueprint)
    }
}

/// One request that runs a routed function.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// The routed function.
    pub function: String,
    /// The decorator's object (`app`, `bp`, `router`) and its kind.
    pub app: String,
    pub kind: App,
    /// HTTP methods to send, upper case, each once (every method a Flask
    /// route accepts, so that `if request.method == 'POST'` takes both ways).
    pub methods: Vec<String>,
    /// The path with its parameters filled in.
    pub path: String,
    /// Keyword arguments of the test client's call (`json=...`, `files=...`).
    pub arguments: Vec<String>,
    /// Files the request uploads, created beside the program.
    pub uploads: Vec<Resource>,
}

const FLASK_VERBS: &[&str] = &["route", "get", "post", "put", "delete", "patch"];
const FASTAPI_VERBS: &[&str] = &["get", "post", "put", "delete", "patch", "api_route"];

/// The request that runs `f`, when a route decorator of a known framework
/// names it with a literal path and every parameter it requires can be
/// sent; else `None` (the plain driver calls it).
pub fn route_of(ctx: &Context, f: &FunctionDef) -> Option<Route> {
    f.decorators.iter().find_map(|d| route_for(ctx, f, d))
}

fn route_for(ctx: &Context, f: &FunctionDef, d: &Decorator) -> Option<Route> {
    let (app, verb) = d.target.rsplit_once('.')?;
    if !d.is_call || app.contains('.') {
        return None;
    }
    let kind = app_kind(ctx, app, verb)?;
    let verbs = if kind.is_flask() { FLASK_VERBS } else { FASTAPI_VERBS };
    if !verbs.contains(&verb) {
        return None;
    }
    let template = d.strings.first()?.as_deref()?;
    let listed: Vec<String> = d.keywords.iter().filter(|(k, _)| k == "methods").flat_map(|(_, v)| v.iter().map(|m| m.to_ascii_uppercase())).collect();
    let methods = match verb {
        // GET goes last: a view written for its other methods (`if
        // request.method == 'POST':`) often ends with no response for a bare
        // GET, which the framework rejects; their branches run first and the
        // GET still shows the fragment's own failure.
        "route" | "api_route" if !listed.is_empty() => {
            let mut methods = dedup(listed);
            methods.sort_by_key(|m| m == "GET");
            methods
        }
        "route" | "api_route" => vec!["GET".to_string()],
        v => vec![v.to_ascii_uppercase()],
    };
    let mut route = Route { function: f.name.clone(), app: app.to_string(), kind, methods, path: String::new(), arguments: Vec::new(), uploads: Vec::new() };
    if kind.is_flask() {
        route.path = flask_path(template);
        flask_request(ctx, &mut route);
    } else {
        route.path = fastapi_path(template, &f.params);
        fastapi_request(ctx, f, template, &mut route)?;
    }
    Some(route)
}

fn dedup(v: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in v {
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out
}

/// What the object a decorator is read from is: the fragment's own
/// `app = Flask(__name__)`, else the library type its use matches (a free
/// `app` with `post` beside a FastAPI import).
fn app_kind(ctx: &Context, app: &str, verb: &str) -> Option<App> {
    if let Some(expr) = ctx.analysis.literal_assignments.get(app) {
        let callee = expr.split('(').next().unwrap_or("").trim();
        return App::of_type(callee);
    }
    let usage = ctx.usage_of(app);
    let members: Vec<&str> = if usage.attrs.is_empty() { vec![verb] } else { usage.attrs.keys().map(String::as_str).collect() };
    App::of_type(&mimicked_type(ctx, members)?.name)
}

fn flask_path(template: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r"<(?:(\w+)(?:\([^)>]*\))?:)?(\w+)>").unwrap());
    re.replace_all(template, |c: &regex::Captures| path_value(c.get(1).map_or("string", |m| m.as_str())).to_string()).into_owned()
}

fn fastapi_path(template: &str, params: &[Param]) -> String {
    let re = fastapi_param();
    re.replace_all(template, |c: &regex::Captures| {
        let name = &c[1];
        let converter = c.get(2).map(|m| m.as_str());
        let ann = params.iter().find(|p| p.name == name).and_then(|p| p.annotation.as_deref()).unwrap_or("str");
        path_value(converter.unwrap_or(ann)).to_string()
    })
    .into_owned()
}

fn fastapi_param() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\{(\w+)(?::(\w+))?\}").unwrap())
}

/// A path segment for a parameter of this converter or annotation.
fn path_value(kind: &str) -> &'static str {
    match kind.rsplit('.').next().unwrap_or(kind) {
        "int" => "1",
        "float" => "1.5",
        "bool" => "true",
        "path" => "docs/readme.txt",
        "uuid" | "UUID" => "12345678-1234-5678-1234-567812345678",
        _ => "example",
    }
}

/// Flask reads the request from the `request` proxy: its use says what
/// the request carries.
fn flask_request(ctx: &Context, route: &mut Route) {
    let usage = ctx.analysis.imported_usage.get("request").cloned().unwrap_or_else(|| ctx.usage_of("request"));
    if let Some(body) = usage.attrs.get("json").cloned().or_else(|| usage.attrs.get("get_json").map(|u| u.returns.as_deref().cloned().unwrap_or_default())) {
        route.arguments.push(format!("json={}", json_body(&body)));
    }
    // The form's fields and its files go in one `data=` (Flask's test
    // client sends a form with files as multipart).
    let mut form: Vec<String> = usage.attrs.get("form").map(keyed_strings).unwrap_or_default();
    if let Some(files) = usage.attrs.get("files") {
        let names = string_keys(files);
        let names = if names.is_empty() { vec!["file".to_string()] } else { names };
        let path = format!("upload.{}", upload_extension(ctx));
        push_upload(route, &path);
        form.extend(names.iter().map(|n| format!("{}: (open({}, 'rb'), {})", py_str(n), py_str(&path), py_str(&path))));
    }
    if usage.attrs.contains_key("form") || usage.attrs.contains_key("files") {
        route.arguments.push(format!("data={{{}}}", form.join(", ")));
    }
    if let Some(args) = usage.attrs.get("args") {
        route.arguments.push(format!("query_string={{{}}}", keyed_strings(args).join(", ")));
    }
}

/// FastAPI reads the request from the function's parameters: path
/// parameters, query parameters (plain annotations, no default), form
/// fields (`Form(...)`), files (`UploadFile`, `File(...)`). A parameter it
/// cannot send (a model body, a required header) leaves the route to the
/// plain driver.
fn fastapi_request(ctx: &Context, f: &FunctionDef, template: &str, route: &mut Route) -> Option<()> {
    let in_path: Vec<String> = fastapi_param().captures_iter(template).map(|c| c[1].to_string()).collect();
    let mut query = Vec::new();
    let mut form = Vec::new();
    let mut files = Vec::new();
    for p in &f.params {
        if !p.star.is_empty() || in_path.contains(&p.name) || p.name == "self" {
            continue;
        }
        let ann = p.annotation.as_deref().unwrap_or("");
        let default = p.default.as_deref().unwrap_or("");
        let marker = default.split('(').next().unwrap_or("").rsplit('.').next().unwrap_or("").trim();
        let required = p.default.is_none() || default.contains("(...") || default.ends_with("()");
        if ann.contains("UploadFile") || marker == "File" {
            if required {
                let many = ann.starts_with("List[") || ann.starts_with("list[") || ann.starts_with("typing.List[");
                files.push((p.name.clone(), if many { 2 } else { 1 }));
            }
            continue;
        }
        match marker {
            "Depends" | "Security" => continue,
            "Form" if required => form.push(format!("{}: {}", py_str(&p.name), scalar(ann))),
            "Query" if required => query.push(format!("{}: {}", py_str(&p.name), scalar(ann))),
            _ if p.default.is_some() => continue,
            _ if is_framework_object(ann) => continue,
            _ if is_scalar(ann) => query.push(format!("{}: {}", py_str(&p.name), scalar(ann))),
            // A body model, a required header or cookie: not sent here.
            _ => return None,
        }
    }
    if !query.is_empty() {
        route.arguments.push(format!("params={{{}}}", query.join(", ")));
    }
    if !form.is_empty() {
        route.arguments.push(format!("data={{{}}}", form.join(", ")));
    }
    if !files.is_empty() {
        let ext = upload_extension(ctx);
        let mut entries = Vec::new();
        for (name, count) in files {
            for i in 0..count {
                let path = if i == 0 { format!("upload.{ext}") } else { format!("upload{}.{ext}", i + 1) };
                push_upload(route, &path);
                entries.push(format!("({}, ({}, open({}, 'rb')))", py_str(&name), py_str(&path), py_str(&path)));
            }
        }
        route.arguments.push(format!("files=[{}]", entries.join(", ")));
    }
    Some(())
}

fn is_scalar(ann: &str) -> bool {
    let inner = ann.trim_start_matches("Optional[").trim_end_matches(']');
    matches!(inner, "" | "int" | "str" | "float" | "bool")
}

/// Parameters FastAPI fills itself (`request: Request`).
fn is_framework_object(ann: &str) -> bool {
    matches!(ann.rsplit('.').next().unwrap_or(ann), "Request" | "Response" | "BackgroundTasks" | "WebSocket" | "HTTPConnection")
}

fn scalar(ann: &str) -> String {
    match ann.trim_start_matches("Optional[").trim_end_matches(']') {
        "int" => "1".into(),
        "float" => "1.5".into(),
        "bool" => "True".into(),
        _ => py_str("example"),
    }
}

/// A JSON body with the keys the route reads, when inference gives plain
/// data; else a small object.
fn json_body(usage: &Usage) -> String {
    let v = infer::best("data", usage, 1);
    if v.to_json().is_some() && matches!(v, Value::Dict(_) | Value::List(_)) {
        v.expr()
    } else {
        "{'name': 'example', 'value': 1}".into()
    }
}

fn string_keys(usage: &Usage) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for (k, _) in &usage.subscripts {
        if let Key::Str(s) = k {
            if !keys.contains(s) {
                keys.push(s.clone());
            }
        }
    }
    keys
}

/// The entries of a form or query string with the keys the route reads,
/// each a string.
fn keyed_strings(usage: &Usage) -> Vec<String> {
    string_keys(usage).iter().map(|k| format!("{}: {}", py_str(k), py_str("example"))).collect()
}

/// Uploads are images when the fragment works with an imaging library.
fn upload_extension(ctx: &Context) -> &'static str {
    const IMAGING: &[&str] = &["PIL", "cv2", "imageio", "skimage", "torchvision", "tensorflow"];
    if fragment_modules(ctx).iter().any(|m| IMAGING.contains(&m.split('.').next().unwrap_or(""))) {
        "png"
    } else {
        "txt"
    }
}

fn push_upload(route: &mut Route, path: &str) {
    if route.uploads.iter().any(|r| r.path == path) {
        return;
    }
    if let Some(r) = resource_for(path, "open") {
        route.uploads.push(r);
    }
}

/// The driver lines that send `routes` (all of one fragment), with the
/// imports they need: one test client per application object.
pub fn driver_lines(ctx: &Context, routes: &[Route]) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut clients: Vec<(String, String)> = Vec::new();
    let taken = |n: &str| ctx.analysis.bound_names.contains(n) || ctx.analysis.free_names.iter().any(|f| f.name == n);
    for r in routes {
        let client = match clients.iter().find(|(app, _)| *app == r.app) {
            Some((_, c)) => c.clone(),
            None => {
                let base = if clients.is_empty() { "client".to_string() } else { format!("{}_client", r.app) };
                let name = if taken(&base) { format!("test_{base}") } else { base };
                lines.extend(client_setup(r, &name));
                clients.push((r.app.clone(), name.clone()));
                name
            }
        };
        // A GET beside other methods carries only its query; alone, the
        // body the route reads too (a test client sends one with any method).
        let only_get = r.methods.iter().all(|m| m == "GET");
        for m in &r.methods {
            let mut args = vec![py_str(&r.path)];
            let query = |a: &&String| a.starts_with("query_string=") || a.starts_with("params=");
            args.extend(r.arguments.iter().filter(|a| only_get || m != "GET" || query(a)).cloned());
            lines.push(format!("{client}.{}({})", m.to_ascii_lowercase(), args.join(", ")));
        }
    }
    lines
}

/// Building the test client with the framework's API. Flask's is put in
/// testing mode, its documented switch for letting a route's exception
/// reach the caller instead of an error page; FastAPI's `TestClient`
/// raises it by default.
fn client_setup(r: &Route, client: &str) -> Vec<String> {
    let app = &r.app;
    // A blueprint or router is mounted on an application of its own, built
    // with the table's recipe for one.
    let host = |ty: &str| -> Vec<String> {
        let (build, import) = library_types::recipe(ty).cloned().unwrap_or_default();
        vec![import, format!("{app}_app = {build}")]
    };
    match r.kind {
        App::Flask => vec![format!("{app}.config['TESTING'] = True"), format!("{client} = {app}.test_client()")],
        App::Blueprint => {
            let mut lines = host("flask.Flask");
            lines.extend([format!("{app}_app.config['TESTING'] = True"), format!("{app}_app.register_blueprint({app})"), format!("{client} = {app}_app.test_client()")]);
            lines
        }
        App::FastApi => vec!["from fastapi.testclient import TestClient".into(), format!("{client} = TestClient({app})")],
        App::ApiRouter => {
            let mut lines = host("fastapi.FastAPI");
            lines.extend(["from fastapi.testclient import TestClient".into(), format!("{app}_app.include_router({app})"), format!("{client} = TestClient({app}_app)")]);
            lines
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::rules::check::with_ctx;

    fn routes(src: &str) -> Vec<Route> {
        with_ctx(src, |ctx| ctx.analysis.functions.iter().filter_map(|f| route_of(ctx, f)).collect())
    }

    #[test]
    fn a_flask_route_is_sent_every_method_it_accepts_with_the_body_it_reads() {
        let src = "from flask import Flask, request\napp = Flask(__name__)\n@app.route('/users/<int:uid>/<name>', methods=['GET', 'POST'])\ndef user(uid, name):\n    if request.method == 'POST':\n        return request.json['email'].lower() + request.form['nick']\n    return request.args['q']\n";
        let r = &routes(src)[0];
        assert_eq!((r.kind, r.app.as_str(), r.path.as_str()), (App::Flask, "app", "/users/1/example"));
        assert_eq!(r.methods, ["POST", "GET"], "GET last");
        assert!(r.arguments[0].starts_with("json={'email': '"), "a string, as `.lower()` says: {:?}", r.arguments);
        assert_eq!(r.arguments[1..], ["data={'nick': 'example'}", "query_string={'q': 'example'}"]);
        let lines = with_ctx(src, |ctx| driver_lines(ctx, std::slice::from_ref(r)));
        assert_eq!(lines[0], "app.config['TESTING'] = True");
        assert_eq!(lines[1], "client = app.test_client()");
        assert!(lines[2].starts_with("client.post('/users/1/example', json={'email'"), "{lines:?}");
        assert_eq!(lines[3], "client.get('/users/1/example', query_string={'q': 'example'})");
    }

    #[test]
    fn a_fastapi_route_gets_its_path_query_and_files_from_its_parameters() {
        let src = "from fastapi import FastAPI, File, UploadFile\nfrom PIL import Image\napp = FastAPI()\n@app.post('/items/{item_id}')\nasync def up(item_id: int, q: str, image: UploadFile = File(...), limit: int = 10):\n    return Image.open(image.file).size\n";
        let r = &routes(src)[0];
        assert_eq!((r.kind, r.path.as_str()), (App::FastApi, "/items/1"));
        assert_eq!(r.methods, ["POST"]);
        assert_eq!(r.arguments, ["params={'q': 'example'}", "files=[('image', ('upload.png', open('upload.png', 'rb')))]"]);
        assert_eq!(r.uploads[0].path, "upload.png");
        assert!(r.uploads[0].content.starts_with(b"\x89PNG"), "a real image for an imaging fragment");
    }

    #[test]
    fn a_free_app_is_known_by_its_use_and_what_cannot_be_sent_is_left_to_the_plain_driver() {
        // `app` is free; its `get` beside a FastAPI import makes it one.
        let src = "from fastapi import FastAPI\nfrom pydantic import BaseModel\nclass Item(BaseModel):\n    name: str\n@app.get('/')\ndef root():\n    return {}\n@app.post('/items')\ndef create(item: Item):\n    return item\n";
        let rs = routes(src);
        assert_eq!(rs.len(), 1, "a model body is not sent: {rs:?}");
        assert_eq!((rs[0].function.as_str(), rs[0].kind), ("root", App::FastApi));
        // A router is mounted on an application of its own.
        let src = "from fastapi import APIRouter\nrouter = APIRouter()\n@router.get('/x')\ndef x():\n    return 1\n";
        let lines = with_ctx(src, |ctx| driver_lines(ctx, &routes(src)));
        assert!(lines.contains(&"router_app.include_router(router)".to_string()), "{lines:?}");
        // No framework: no route.
        assert!(routes("@cache.get('/x')\ndef x():\n    return 1\n").is_empty());
    }
}
