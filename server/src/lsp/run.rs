//! One "Make this runnable" run, from the request to the applied result.
//!
//! `start` (synchronous, called by a handler) takes a snapshot, picks the
//! fragment, claims the document's single run slot and spawns `run_task`,
//! which: asks for approval per `runPolicy` (`policy::gate`; refused runs end
//! at once with status `refused`); opens work-done progress; prepares the environment on a blocking
//! thread (and asks before installing, per `installPolicy`); runs the
//! engine's `fix` in `spawn_blocking` with a `Progress` bridge whose
//! `cancelled` hook is the run's flag (also handed, through `cancel_flag`,
//! to the executor, whose watchdog kills the program running in the sandbox
//! within milliseconds of a cancel); when the report says the sandbox's
//! network namespace denied the fragment the network, asks "Allow network for
//! this run" and, only on that answer, runs once more with the network
//! (nothing remembered); then, only if the document is still at
//! the version that ran, pins hints and the runtime error to its lines and
//! writes the files the run needs into `resourceDir` (`safe_write`; asking
//! before replacing a file that differs) and sends one `workspace/applyEdit`
//! for the document; finally `runnable/runFinished`.

use super::config::{InstallPolicy, RUN_FINISHED};
use super::convert::{self, EditOptions, ResultEdit};
use super::document::{file_path, Snapshot};
use super::files::{self, Action};
use super::policy::{self, Gate, RunAnswer};
use super::position;
use super::publish;
use super::regions::{self, Fragment};
use super::safe_write::Folder;
use super::state::{lock, Cancel, LastRun, Loaded, RunHandle, State};
use crate::fix::FixOptions;
use crate::report::FixReport;
use crate::synth::deterministic::Deterministic;
use crate::synth::search::Progress;
use crate::synth::session::Context;
use crate::synth::Proposer;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::jsonrpc::{Error, ErrorCode};
use tower_lsp_server::lsp_types::notification::Notification;
use tower_lsp_server::lsp_types::request::WorkDoneProgressCreate;
use tower_lsp_server::lsp_types::*;

/// `{uri, version, range}`: the code action's data and the command's argument.
#[derive(Debug, Clone, Deserialize)]
pub struct RunRequest {
    pub uri: Uri,
    #[serde(default)]
    pub version: Option<i32>,
    pub range: Range,
}

/// JSON-RPC "RequestFailed" (LSP 3.17).
pub fn failed(message: impl Into<String>) -> Error {
    Error { code: ErrorCode::ServerError(-32803), message: message.into().into(), data: None }
}

pub struct Started {
    pub cancel: Arc<Cancel>,
    /// The final status (`completed`, `raised`, ..., `cancelled`, `failed`).
    pub done: oneshot::Receiver<String>,
}

/// Validate the request and start the run in the background.
pub fn start(state: &Arc<State>, req: RunRequest, token: Option<ProgressToken>) -> Result<Started, Error> {
    if state.shutting_down.load(Ordering::SeqCst) {
        return Err(failed("the server is shutting down"));
    }
    let enc = state.encoding();
    let snap = state.snapshot(&req.uri).ok_or_else(|| Error::invalid_params(format!("{} is not open", req.uri.as_str())))?;
    if snap.too_large() {
        return Err(failed(super::document::too_large_message(&snap.uri, snap.rope.len_bytes())));
    }
    if let Some(v) = req.version {
        if v != snap.version {
            return Err(Error::content_modified());
        }
    }
    position::check_range(&snap.rope, req.range, enc).map_err(|e| Error::invalid_params(e.to_string()))?;
    let empty = req.range.start == req.range.end;
    let start_line = req.range.start.line;
    let mut end_line = req.range.end.line;
    if !empty && req.range.end.character == 0 && end_line > start_line {
        end_line -= 1;
    }
    let fragment = regions::fragment_for(&snap, start_line, end_line, empty).ok_or_else(|| failed("there is no Python code to run here"))?;
    let handle = RunHandle { id: state.next_id(), cancel: Arc::new(Cancel::default()), token: None, stale: Arc::new(AtomicBool::new(false)) };
    {
        let mut runs = lock(&state.runs);
        if runs.contains_key(&snap.uri) {
            return Err(failed("Runnable is already running this document; cancel that run first"));
        }
        runs.insert(snap.uri.clone(), handle.clone());
    }
    let (tx, rx) = oneshot::channel();
    let cancel = handle.cancel.clone();
    let task_state = state.clone();
    tokio::spawn(async move {
        let uri = snap.uri.clone();
        let version = snap.version;
        let id = handle.id;
        let st = task_state.clone();
        // A panic in the run is reported like any failure; the slot is freed.
        let outcome = tokio::spawn(run_task(task_state.clone(), snap, fragment, handle, token)).await;
        let status = match outcome {
            Ok(status) => status,
            Err(e) => {
                release(&st, &uri, id);
                st.client.show_message(MessageType::ERROR, format!("Runnable: the run failed: {e}")).await;
                let params = convert::run_finished(&uri, version, "failed", None, Some(e.to_string()));
                st.client.send_notification::<RunFinished>(params).await;
                "failed".to_string()
            }
        };
        let _ = tx.send(status);
    });
    Ok(Started { cancel, done: rx })
}

/// Free the document's run slot (if still ours).
fn release(state: &State, uri: &Uri, id: u64) {
    let mut runs = lock(&state.runs);
    if runs.get(uri).is_some_and(|r| r.id == id) {
        runs.remove(uri);
    }
}

/// Cancel the run of `uri`; false when there is none.
pub fn cancel_document(state: &State, uri: &Uri) -> bool {
    match lock(&state.runs).get(uri) {
        Some(run) => {
            run.cancel.cancel();
            true
        }
        None => false,
    }
}

/// Cancel the run whose progress token this is.
pub fn cancel_token(state: &State, token: &ProgressToken) -> bool {
    let runs = lock(&state.runs);
    match runs.values().find(|r| r.token.as_ref() == Some(token)) {
        Some(run) => {
            run.cancel.cancel();
            true
        }
        None => false,
    }
}

/// Work-done progress of one run (a no-op when the client has none).
struct Reporter {
    state: Arc<State>,
    token: Option<ProgressToken>,
}

impl Reporter {
    async fn begin(state: &Arc<State>, given: Option<ProgressToken>, run_id: u64, uri: &Uri) -> Reporter {
        let mut token = given;
        if token.is_none() && state.caps().work_done_progress {
            let t = NumberOrString::String(format!("runnable/run/{run_id}"));
            let created = tokio::time::timeout(
                Duration::from_secs(10),
                state.client.send_request::<WorkDoneProgressCreate>(WorkDoneProgressCreateParams { token: t.clone() }),
            )
            .await;
            if matches!(created, Ok(Ok(()))) {
                token = Some(t);
            }
        }
        if let Some(t) = &token {
            if let Some(run) = lock(&state.runs).get_mut(uri) {
                run.token = Some(t.clone());
            }
        }
        let r = Reporter { state: state.clone(), token };
        r.send(WorkDoneProgress::Begin(WorkDoneProgressBegin {
            title: "Runnable".into(),
            cancellable: Some(true),
            message: Some("environment".into()),
            percentage: None,
        }))
        .await;
        r
    }

    async fn send(&self, value: WorkDoneProgress) {
        if let Some(token) = &self.token {
            self.state
                .client
                .send_notification::<notification::Progress>(ProgressParams { token: token.clone(), value: ProgressParamsValue::WorkDone(value) })
                .await;
        }
    }

    async fn report(&self, message: String) {
        self.send(WorkDoneProgress::Report(WorkDoneProgressReport { cancellable: Some(true), message: Some(message), percentage: None })).await;
    }

    async fn end(&self, message: String) {
        self.send(WorkDoneProgress::End(WorkDoneProgressEnd { message: Some(message) })).await;
    }
}

/// The engine's progress events, forwarded to the async side; `cancelled`
/// is the run's flag. The stages a user sees: `environment` (sent by the
/// `Reporter`), `running` until the first run is judged, then `exploring`
/// and `evolving`; each later run adds its number and the time so far to
/// the stage it belongs to, so a long search visibly moves.
struct Bridge {
    cancel: Arc<Cancel>,
    tx: mpsc::UnboundedSender<String>,
    /// The search's stage once it has one (`exploring: ...`, `evolving`).
    stage: std::sync::Mutex<Option<String>>,
}

impl Bridge {
    fn new(cancel: Arc<Cancel>, tx: mpsc::UnboundedSender<String>) -> Bridge {
        Bridge { cancel, tx, stage: std::sync::Mutex::new(None) }
    }

    fn enter(&self, stage: String) {
        let _ = self.tx.send(stage.clone());
        *lock(&self.stage) = Some(stage);
    }
}

impl Progress for Bridge {
    fn running(&self, run: usize, elapsed: Duration) {
        let _ = self.tx.send(running_message(lock(&self.stage).as_deref(), run, elapsed));
    }
    fn exploring(&self, round: usize, coverage: f64) {
        self.enter(format!("exploring: round {round}, coverage {:.0}%", coverage * 100.0));
    }
    fn evolving(&self, _variant: usize, _coverage: f64) {
        self.enter("evolving".into());
    }
    fn asking_model(&self, stage: &str) {
        self.enter(format!("asking the model ({stage})"));
    }
    fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
    fn cancel_flag(&self) -> Option<Arc<std::sync::atomic::AtomicBool>> {
        Some(self.cancel.flag())
    }
}

/// `running: run 1, 0.2 s` before the search has a stage, then that stage
/// with the run: `exploring: round 2, coverage 50% (run 5, 1.3 s)`.
fn running_message(stage: Option<&str>, run: usize, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    match stage {
        None => format!("running: run {run}, {secs:.1} s"),
        Some(stage) => format!("{stage} (run {run}, {secs:.1} s)"),
    }
}

struct RunFinished;
impl Notification for RunFinished {
    type Params = serde_json::Value;
    const METHOD: &'static str = RUN_FINISHED;
}

/// Whether the run may start, per `runPolicy`: `None` to go ahead, else the
/// status and message it ends with (the run slot is then freed here).
async fn approve(state: &Arc<State>, snap: &Snapshot, fragment: Fragment, handle: &RunHandle) -> Option<(String, Option<String>)> {
    let workspace = {
        let folders = lock(&state.folders).clone();
        match file_path(&snap.uri) {
            Some(path) => policy::workspace_of(&path, &folders),
            None => folders.first().cloned().unwrap_or_default(),
        }
    };
    let allowed_here = lock(&state.run_allowed).contains(&workspace);
    let stop = match policy::gate(state.settings().run_policy, allowed_here) {
        Gate::Run => return None,
        Gate::Refuse => {
            state.client.show_message(MessageType::WARNING, format!("Runnable: {}", policy::REFUSED_MESSAGE)).await;
            (policy::STATUS_REFUSED.to_string(), Some(policy::REFUSED_MESSAGE.to_string()))
        }
        Gate::Ask => {
            let name = file_path(&snap.uri).and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())).unwrap_or_else(|| snap.uri.as_str().to_string());
            let question = policy::run_question(&name, fragment.start + 1, fragment.end + 1);
            let actions = [policy::RUN_ONCE, policy::RUN_ALWAYS_HERE, policy::RUN_CANCEL]
                .map(|t| MessageActionItem { title: t.into(), properties: Default::default() })
                .to_vec();
            let asked = state.client.show_message_request(MessageType::INFO, question, Some(actions));
            let answer = tokio::select! {
                a = asked => a,
                _ = handle.cancel.cancelled() => Ok(None),
            };
            let title = answer.ok().flatten().map(|item| item.title);
            match policy::run_answer(title.as_deref()) {
                RunAnswer::Once => return None,
                RunAnswer::AlwaysHere => {
                    lock(&state.run_allowed).insert(workspace);
                    return None;
                }
                RunAnswer::Cancel => ("cancelled".to_string(), None),
            }
        }
    };
    release(state, &snap.uri, handle.id);
    Some(stop)
}

/// Whether the report is the results cache's (`memory`), not a new run.
fn cached(report: &FixReport) -> bool {
    report.memory.as_ref().is_some_and(|m| m.cached)
}

/// The whole run; returns its final status.
async fn run_task(state: Arc<State>, snap: Snapshot, fragment: Fragment, handle: RunHandle, token: Option<ProgressToken>) -> String {
    // The client's settings first (pulled after `initialized`): a run never
    // goes ahead on the defaults its settings are about to replace.
    state.settings_ready().await;
    if let Some((status, error)) = approve(&state, &snap, fragment, &handle).await {
        state.client.send_notification::<RunFinished>(convert::run_finished(&snap.uri, snap.version, &status, None, error)).await;
        return status;
    }
    let progress = Reporter::begin(&state, token, handle.id, &snap.uri).await;
    let (status, report, error) = match execute(&state, &snap, fragment, &handle, &progress).await {
        Ok(Some(report)) => {
            let status = convert::status_text(&report);
            let error = convert::error_text(&report, fragment);
            (status, Some(report), error)
        }
        Ok(None) => ("cancelled".to_string(), None, None),
        Err(message) => {
            state.client.show_message(MessageType::ERROR, format!("Runnable: {message}")).await;
            ("failed".to_string(), None, Some(message))
        }
    };
    let summary = match &report {
        Some(r) => format!("{status}: {}/{} statements ran{}", r.coverage.covered.len(), r.coverage.executable.len(), if cached(r) { " (cached)" } else { "" }),
        None => status.clone(),
    };
    if report.as_ref().is_some_and(cached) {
        // The result is a stored one: the editor says so.
        progress.report("cached".into()).await;
    }
    progress.end(summary).await;
    state.client.send_notification::<RunFinished>(convert::run_finished(&snap.uri, snap.version, &status, report.as_ref(), error)).await;
    status
}

/// Environment, install question, the engine run, and applying the result.
/// `Ok(None)` when cancelled.
async fn execute(state: &Arc<State>, snap: &Snapshot, fragment: Fragment, handle: &RunHandle, progress: &Reporter) -> Result<Option<FixReport>, String> {
    let settings = state.settings();
    let source = snap.rope.to_string();
    let lines = Some((fragment.start + 1, fragment.end + 1));

    // 1. The environment: which distributions it lacks.
    let env_state = state.clone();
    let env_settings = settings.clone();
    let env_source = source.clone();
    let env = tokio::task::spawn_blocking(move || -> Result<EnvCheck, String> {
        let loaded = env_state.engine.get(&env_settings)?;
        let (dists, own) = needed_distributions(&loaded, &env_source, lines);
        let missing = if dists.is_empty() {
            Vec::new()
        } else {
            loaded.envs.prepare_allowing(&dists, &[], false, &env_settings.allow_builds).map_err(|e| e.to_string())?.missing
        };
        Ok(EnvCheck { loaded, dists, own, missing })
    });
    let checked = tokio::select! {
        r = env => r.map_err(|e| format!("the environment check failed: {e}")).and_then(|r| r),
        _ = handle.cancel.cancelled() => { release(state, &snap.uri, handle.id); return Ok(None) }
    };
    let EnvCheck { loaded, dists, own, missing } = checked.inspect_err(|_| release(state, &snap.uri, handle.id))?;

    // 2. Installing asks first.
    let install = if missing.is_empty() {
        // Nothing to ask about now; "always" also lets the engine add an
        // optional dependency a library asks for while the fragment runs.
        settings.install_policy == InstallPolicy::Always
    } else {
        let ask = decide_install(state, settings.install_policy, &dists, &own, &missing);
        let answer = tokio::select! {
            answer = ask => answer,
            _ = handle.cancel.cancelled() => { release(state, &snap.uri, handle.id); return Ok(None) }
        };
        match answer {
            Install::Yes => true,
            Install::No => false,
            // "Not now" changes nothing: running without the packages would
            // still edit the document (a prefix of stand-ins for them), which
            // is not what the user chose. The run ends as cancelled.
            Install::NotNow => {
                release(state, &snap.uri, handle.id);
                return Ok(None);
            }
        }
    };
    if install && !missing.is_empty() {
        progress.report(format!("environment: installing {}", missing.join(", "))).await;
    }

    // 3. The engine, on a blocking thread, with progress and cancellation.
    let opts = FixOptions { lines, install, allow_builds: settings.allow_builds.clone(), budget: settings.budget(), llm: settings.llm_config(), ..FixOptions::default() };
    let Some(result) = run_engine(state, snap, &loaded, &source, opts.clone(), handle, progress).await else { return Ok(None) };
    let mut report = result.inspect_err(|_| end_slot(state, snap, handle, install))?;

    // 3b. Escalation: the sandbox kept the fragment off the network and that
    // is why it failed. Only an explicit yes re-runs it, once, with network.
    if let Some(denial) = policy::network_denial(&report).cloned() {
        let allow = tokio::select! {
            yes = ask_network(state, &denial) => yes,
            _ = handle.cancel.cancelled() => { end_slot(state, snap, handle, install); return Ok(None) }
        };
        if allow {
            progress.report("re-running with network access".into()).await;
            let again = FixOptions { allow_network: true, ..opts };
            let Some(result) = run_engine(state, snap, &loaded, &source, again, handle, progress).await else { return Ok(None) };
            report = result.inspect_err(|_| end_slot(state, snap, handle, install))?;
        }
    }
    end_slot(state, snap, handle, install);
    if handle.cancel.is_cancelled() {
        return Ok(None);
    }

    // 4. The result, only onto the version that ran.
    apply(state, snap, fragment, report.clone(), handle, &settings.resource_dir, if install { missing } else { Vec::new() }).await;
    Ok(Some(report))
}

/// The engine is done with the document: free its slot, and after an
/// install let diagnostics see the new environment.
fn end_slot(state: &Arc<State>, snap: &Snapshot, handle: &RunHandle, install: bool) {
    release(state, &snap.uri, handle.id);
    if install {
        publish::forget_environments(state);
    }
}

/// One engine run on a blocking thread, forwarding progress. `None` when
/// cancelled: the document's slot is then freed once the engine has stopped
/// (the executor kills the program in flight, the engine stops at its next
/// check, well within a second). Otherwise the slot stays claimed.
async fn run_engine(
    state: &Arc<State>,
    snap: &Snapshot,
    loaded: &Arc<Loaded>,
    source: &str,
    opts: FixOptions,
    handle: &RunHandle,
    progress: &Reporter,
) -> Option<Result<FixReport, String>> {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let bridge = Bridge::new(handle.cancel.clone(), tx);
    let run_loaded = loaded.clone();
    let source = source.to_string();
    let mut job = tokio::task::spawn_blocking(move || {
        let result = run_loaded.engine.fix(&source, &opts, &bridge);
        drop(run_loaded);
        result
    });
    let result = loop {
        tokio::select! {
            Some(message) = rx.recv() => progress.report(message).await,
            r = &mut job => {
                // `select!` picks among ready branches at random: what the
                // engine reported just before it finished is still queued.
                while let Ok(message) = rx.try_recv() {
                    progress.report(message).await;
                }
                break Some(r);
            }
            _ = handle.cancel.cancelled() => break None,
        }
    };
    let Some(result) = result else {
        // Cancelled: answer now; free the slot when the engine has stopped.
        let st = state.clone();
        let uri = snap.uri.clone();
        let id = handle.id;
        tokio::spawn(async move {
            let _ = job.await;
            release(&st, &uri, id);
        });
        return None;
    };
    Some(result.map_err(|e| format!("the run failed: {e}")).and_then(|r| r.map_err(|e| e.to_string())))
}

/// "Allow network for this run" / "Not now"; a dismissed question is no.
async fn ask_network(state: &Arc<State>, denial: &crate::exec::Denial) -> bool {
    let actions = [policy::ALLOW_NETWORK, policy::NOT_NOW].map(|t| MessageActionItem { title: t.into(), properties: Default::default() }).to_vec();
    let answer = state.client.show_message_request(MessageType::WARNING, policy::network_question(denial), Some(actions)).await;
    policy::allows_network(answer.ok().flatten().map(|item| item.title).as_deref())
}

/// The engine, the distributions a run wants, and which of them its environment lacks.
struct EnvCheck {
    loaded: Arc<Loaded>,
    dists: BTreeSet<String>,
    /// Those the fragment's own imports need (the rest are the prefix's).
    own: BTreeSet<String>,
    missing: Vec<String>,
}

/// The distributions the engine will want: the fragment's imports and
/// those its first prefix adds (as `Engine::fix` computes them); and
/// which of them the fragment's own imports need.
fn needed_distributions(loaded: &Loaded, source: &str, lines: Option<(u32, u32)>) -> (BTreeSet<String>, BTreeSet<String>) {
    let fragment = match lines {
        Some((a, b)) => source.lines().skip(a as usize - 1).take((b - a + 1) as usize).collect::<Vec<_>>().join("\n") + "\n",
        None => source.to_string(),
    };
    let analysis = crate::analysis::analyze(&fragment);
    if !analysis.syntax_errors.is_empty() {
        return Default::default();
    }
    let ctx = Context { fragment: &fragment, analysis: &analysis, stdlib: &loaded.stdlib };
    let mut modules: Vec<String> = crate::env::fragment_import_paths(&analysis.imports);
    let own = crate::env::plan_imports(&modules, &loaded.stdlib).distributions;
    modules.extend(Deterministic.initial(&ctx).imported_modules());
    (crate::env::plan_imports(&modules, &loaded.stdlib).distributions, own)
}

/// What to do about distributions an environment lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Install {
    /// Install them, then run.
    Yes,
    /// Run without them (`installPolicy: never`).
    No,
    /// The user said "Not now" (or dismissed the question): run nothing.
    NotNow,
}

/// Whether to install `missing`, per the policy; asks the user under `ask`.
/// Only "Install" is remembered (per set of distributions, this session):
/// "Not now" means this time, so the next run asks again.
async fn decide_install(state: &Arc<State>, policy: InstallPolicy, dists: &BTreeSet<String>, own: &BTreeSet<String>, missing: &[String]) -> Install {
    match policy {
        InstallPolicy::Never => return Install::No,
        InstallPolicy::Always => return Install::Yes,
        InstallPolicy::Ask => {}
    }
    if lock(&state.install_answers).get(dists) == Some(&true) {
        return Install::Yes;
    }
    let install = MessageActionItem { title: INSTALL.into(), properties: Default::default() };
    let not_now = MessageActionItem { title: policy::NOT_NOW.into(), properties: Default::default() };
    let message = policy::install_question(own, missing);
    let answer = state.client.show_message_request(MessageType::INFO, message, Some(vec![install, not_now])).await;
    match answer {
        Ok(Some(item)) if item.title == INSTALL => {
            lock(&state.install_answers).insert(dists.clone(), true);
            Install::Yes
        }
        // "Not now", dismissed or unsupported.
        _ => Install::NotNow,
    }
}

/// The install question's yes.
const INSTALL: &str = "Install";

/// Apply a finished run to the document if it has not changed since.
async fn apply(state: &Arc<State>, snap: &Snapshot, fragment: Fragment, report: FixReport, handle: &RunHandle, resource_dir: &str, installed_now: Vec<String>) {
    let caps = state.caps();
    let fragment_text = (fragment.start..=fragment.end).map(|l| position::line_text(&snap.rope, l as usize)).collect::<Vec<_>>().join("\n");
    let mut last = LastRun {
        uri: snap.uri.clone(),
        version: snap.version,
        fragment,
        fragment_text,
        report: report.clone(),
        applied: false,
        note: None,
        created: Vec::new(),
        skipped: Vec::new(),
        installed_now,
    };
    let syntax_error = report.status == crate::report::Status::SyntaxError;
    let edit = convert::result_edit(
        snap,
        fragment,
        &report,
        &EditOptions { resource_dir, document_changes: caps.document_changes, encoding: caps.encoding },
    );
    // Pin the results to the lines of the version that ran, if it is still current.
    let current = {
        let mut docs = lock(&state.docs);
        match docs.get_mut(&snap.uri) {
            Some(doc) if doc.version == snap.version && !handle.stale.load(Ordering::SeqCst) => {
                // Nothing ran when the fragment does not parse: no hints
                // then, only where it does not parse.
                let (hints, errors) = convert::line_results(&report, fragment, &snap.rope);
                let hints = if syntax_error { Vec::new() } else { hints };
                doc.set_results(hints, errors);
                true
            }
            _ => false,
        }
    };
    if !current {
        last.note = Some("the document changed during the run; the result was not applied".into());
        state.client.show_message(MessageType::WARNING, "Runnable: the document changed during the run; result not applied").await;
    } else if !syntax_error {
        let written = write_files(state, &edit).await;
        if !written.skipped.is_empty() {
            state.client.show_message(MessageType::WARNING, files::skipped_message(&written.skipped)).await;
        }
        // The runnable copy is opened only if it is the run's.
        let show = edit.show.as_ref().zip(edit.folder.as_ref()).map(|(copy, (base, dir))| base.join(dir).join(copy));
        let show = show.filter(|p| written.created.contains(p)).and_then(|p| convert::file_uri(&p));
        last.created = written.created;
        last.skipped = written.skipped;
        let made = written.made;
        if let Some(n) = &edit.note {
            last.note = Some(n.clone());
        }
        let has_edit = edit.edit.document_changes.is_some() || edit.edit.changes.is_some();
        let applied = if has_edit {
            match state.client.apply_edit(edit.edit.clone()).await {
                Ok(r) if r.applied => true,
                Ok(r) => {
                    let why = r.failure_reason.unwrap_or_else(|| "no reason given".into());
                    state.client.show_message(MessageType::WARNING, format!("Runnable: the editor did not apply the result ({why})")).await;
                    false
                }
                Err(e) => {
                    state.client.show_message(MessageType::WARNING, format!("Runnable: the editor did not apply the result ({e})")).await;
                    false
                }
            }
        } else {
            true
        };
        last.applied = applied;
        if applied && has_edit {
            let made_up = report.names.iter().map(|n| n.name.clone()).collect();
            let p = super::provenance::Provenance { inserted: edit.inserted.clone(), made_up, created: made };
            lock(&state.provenance).insert(snap.uri.clone(), p);
            refresh_code_lens(state);
        }
        if let (Some(why), true) = (&edit.copy_reason, show.is_some()) {
            state.client.show_message(MessageType::INFO, why.clone()).await;
            last.note.get_or_insert_with(|| why.clone());
        }
        if applied && caps.show_document {
            if let Some(uri) = show {
                let _ = state.client.show_document(ShowDocumentParams { uri, external: Some(false), take_focus: Some(true), selection: None }).await;
            }
        }
    }
    lock(&state.last).insert(snap.uri.clone(), last);
    *lock(&state.last_uri) = Some(snap.uri.clone());
    publish::schedule(state, &snap.uri);
    refresh_inlay_hints(state);
}

/// What writing a run's files did.
#[derive(Debug, Default)]
struct Written {
    /// Files that now hold the run's bytes (created, replaced, or already so).
    created: Vec<PathBuf>,
    /// Files not written, and why.
    skipped: Vec<(PathBuf, String)>,
    /// Files this run created (nothing was there), with their bytes: the
    /// only ones the provenance lens's Remove deletes.
    made: Vec<(PathBuf, Vec<u8>)>,
}

/// Write the run's files into the resource folder, never through a symlink
/// and never over a file that differs unless the user says so.
async fn write_files(state: &Arc<State>, edit: &ResultEdit) -> Written {
    let mut out = Written::default();
    let Some((base, dir)) = edit.folder.as_ref().filter(|_| !edit.files.is_empty()) else { return out };
    let folder = match Folder::open_resources(base, dir) {
        Ok(folder) => folder,
        Err(e) => {
            out.skipped = edit.files.iter().map(|(rel, _)| (base.join(dir).join(rel), e.to_string())).collect();
            return out;
        }
    };
    let mut differ = Vec::new();
    for (rel, bytes) in &edit.files {
        let path = folder.path().join(rel);
        let action = folder.probe(rel, bytes).map(files::decide).unwrap_or_else(|e| Action::Refuse(e.to_string()));
        let result = match action {
            Action::Create => folder.create_new(rel, bytes).inspect(|p| out.made.push((p.clone(), bytes.clone()))).map(Some),
            Action::Replace => folder.replace(rel, bytes).map(Some),
            Action::Unchanged => Ok(Some(path.clone())),
            Action::AskToReplace => {
                differ.push((rel, bytes, path.clone()));
                Ok(None)
            }
            Action::Refuse(why) => {
                out.skipped.push((path.clone(), why));
                Ok(None)
            }
        };
        match result {
            Ok(Some(written)) => out.created.push(written),
            Ok(None) => {}
            Err(e) => out.skipped.push((path, e.to_string())),
        }
    }
    if differ.is_empty() {
        return out;
    }
    let paths: Vec<PathBuf> = differ.iter().map(|(_, _, p)| p.clone()).collect();
    let overwrite = ask_overwrite(state, files::ask_message(&paths, folder.path())).await;
    for (rel, bytes, path) in differ {
        if !overwrite {
            out.skipped.push((path, files::KEPT.into()));
            continue;
        }
        match folder.replace(rel, bytes) {
            Ok(written) => out.created.push(written),
            Err(e) => out.skipped.push((path, e.to_string())),
        }
    }
    out
}

/// Ask whether to overwrite files; anything but "Overwrite" keeps them.
async fn ask_overwrite(state: &Arc<State>, message: String) -> bool {
    let item = |title: &str| MessageActionItem { title: title.into(), properties: Default::default() };
    let ask = state.client.show_message_request(MessageType::WARNING, message, Some(vec![item(files::OVERWRITE), item(files::KEEP)]));
    // A client that never answers keeps the user's files.
    matches!(tokio::time::timeout(Duration::from_secs(600), ask).await, Ok(Ok(Some(answer))) if answer.title == files::OVERWRITE)
}

/// Ask the client to re-request code lenses (spawned, never awaited by a handler).
pub fn refresh_code_lens(state: &Arc<State>) {
    if !state.caps().code_lens_refresh {
        return;
    }
    let state = state.clone();
    tokio::spawn(async move {
        let _ = state.client.code_lens_refresh().await;
    });
}

/// Ask the client to re-request inlay hints (spawned, never awaited by a handler).
pub fn refresh_inlay_hints(state: &Arc<State>) {
    if !state.caps().inlay_hint_refresh {
        return;
    }
    let state = state.clone();
    tokio::spawn(async move {
        let _ = state.client.inlay_hint_refresh().await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_announced_in_the_stage_they_belong_to() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let bridge = Bridge::new(Arc::new(Cancel::default()), tx);
        bridge.running(1, Duration::from_millis(240));
        bridge.exploring(0, 0.5);
        bridge.running(2, Duration::from_millis(1260));
        bridge.evolving(1, 0.5);
        bridge.running(3, Duration::from_secs(2));
        let got: Vec<String> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
        assert_eq!(
            got,
            [
                "running: run 1, 0.2 s",
                "exploring: round 0, coverage 50%",
                "exploring: round 0, coverage 50% (run 2, 1.3 s)",
                "evolving",
                "evolving (run 3, 2.0 s)"
            ]
        );
    }
}
