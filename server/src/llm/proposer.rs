//! The model as a [`Proposer`]: `refine` is the exploration stage (k
//! prefixes per call), `variants` the evolution stage (a generator program
//! run in the sandbox, its printed candidates), and [`ModelProposer::environment`]
//! the environment stage. Every call is within the budget, redacted, and
//! every proposal passes the realism check or is counted and dropped.

use super::budget::{may_call, LlmStats};
use super::client::{ChatRequest, Client};
use super::config::{LlmConfig, Stage};
use super::extract::{self, EnvironmentProposal, PrefixProposal};
use super::feedback::{self, Feedback};
use super::prompt;
use super::proposal::to_prefix;
use super::realism;
use crate::redact::Redactor;
use super::LlmError;
use crate::exec::{Executor, RunRequest};
use crate::synth::deterministic::Deterministic;
use crate::synth::prefix::Prefix;
use crate::synth::session::{Attempt, Context};
use crate::synth::Proposer;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Candidates read from one generator's output.
const MAX_GENERATED: usize = 20;
/// Wall time of one generator program.
const GENERATOR_TIMEOUT: Duration = Duration::from_secs(5);

/// What the proposer keeps between calls.
#[derive(Default)]
struct State {
    stats: LlmStats,
    redactor: Redactor,
    /// Failed attempts worth telling (pruned when coverage rises).
    history: Vec<String>,
    library_errors: Vec<String>,
}

pub struct ModelProposer<'a> {
    client: Client,
    config: LlmConfig,
    /// Runs the evolution stage's generator programs (the sandbox, no network).
    executor: &'a dyn Executor,
    cancel: Option<Arc<AtomicBool>>,
    state: Mutex<State>,
}

impl<'a> ModelProposer<'a> {
    pub fn new(config: &LlmConfig, executor: &'a dyn Executor, cancel: Option<Arc<AtomicBool>>) -> Result<Self, LlmError> {
        let client = Client::new(config)?;
        let mut state = State::default();
        for s in Stage::ALL {
            state.stats.stage(s).model = client.model(s).to_string();
        }
        Ok(ModelProposer { client, config: config.clone(), executor, cancel, state: Mutex::new(state) })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn stats(&self) -> LlmStats {
        self.state().stats.clone()
    }

    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Whether one more call fits in the budget.
    pub fn may_call(&self) -> bool {
        may_call(&self.state().stats, self.config.max_calls, self.config.max_tokens).is_ok() && !self.cancelled()
    }

    /// Tell the proposer what the session learned since the last call.
    pub fn learn(&self, library_errors: Option<Vec<String>>, failed: Option<String>, coverage_rose: bool) {
        let mut s = self.state();
        if let Some(e) = library_errors {
            s.library_errors = e;
        }
        if let Some(f) = failed {
            s.history.push(f);
        }
        feedback::prune(&mut s.history, coverage_rose);
    }

    pub fn note_kept(&self, stage: Stage) {
        self.state().stats.stage(stage).kept += 1;
    }

    fn feedback(&self, ctx: &Context, best: &Attempt) -> Feedback {
        let s = self.state();
        feedback::of(ctx, best, &s.library_errors, &s.history)
    }

    /// One call with its repair round; `read` checks the answer's shape.
    fn ask<T>(&self, req: ChatRequest, read: impl Fn(&str) -> Result<T, String>) -> Result<T, LlmError> {
        let stage = req.stage;
        let mut req = req;
        for round in 0..2 {
            if let Err(why) = may_call(&self.state().stats, self.config.max_calls, self.config.max_tokens) {
                return Err(LlmError::Budget(why));
            }
            let answer = self.client.chat(&req, self.cancel.as_deref());
            let answer = {
                let mut s = self.state();
                let st = s.stats.stage(stage);
                st.calls += 1;
                if let Ok(a) = &answer {
                    st.prompt_tokens += a.prompt_tokens;
                    st.completion_tokens += a.completion_tokens;
                    st.seconds += a.seconds;
                }
                answer?
            };
            match read(&answer.content) {
                Ok(v) => return Ok(v),
                Err(why) if round == 0 => req = prompt::repair(req, &answer.content, &why),
                Err(why) => return Err(LlmError::Malformed(why)),
            }
        }
        unreachable!("the loop returns in its second round")
    }

    fn note_error(&self, e: &LlmError) {
        if !matches!(e, LlmError::Cancelled) {
            self.state().stats.note_error(e.to_string());
        }
    }

    /// Proposals that pass the realism check, as prefixes.
    fn admit(&self, ctx: &Context, stage: Stage, proposals: Vec<PrefixProposal>) -> Vec<Prefix> {
        let mut out = Vec::new();
        for p in proposals {
            let verdict = to_prefix(&p).and_then(|prefix| match realism::violation(ctx, &prefix) {
                None => Ok(prefix),
                Some(why) => Err(why),
            });
            let mut s = self.state();
            match verdict {
                Ok(prefix) => {
                    s.stats.stage(stage).proposals += 1;
                    out.push(prefix);
                }
                Err(why) => {
                    s.stats.stage(stage).rejected += 1;
                    s.history.push(feedback::failure_note(&p.prefix, &format!("rejected: {why}")));
                }
            }
        }
        out
    }

    /// The environment stage: distributions and files the fragment needs.
    pub fn environment(&self, ctx: &Context, best: &Attempt) -> Option<EnvironmentProposal> {
        let f = self.feedback(ctx, best);
        let req = prompt::environment(&f, &mut self.state().redactor);
        self.ask(req, extract::environment).map_err(|e| self.note_error(&e)).ok()
    }

    /// Count an environment file the checks refused.
    pub fn note_rejected(&self, stage: Stage, n: usize) {
        self.state().stats.stage(stage).rejected += n;
    }

    /// Run a generator program in the sandbox and read its candidates.
    fn generate(&self, program: &str) -> Vec<PrefixProposal> {
        let req = RunRequest { program: program.to_string(), probes: Default::default(), resources: Vec::new(), preload: Vec::new(), timeout: GENERATOR_TIMEOUT };
        let outcome = match &self.cancel {
            Some(c) => self.executor.run_cancellable(&req, c),
            None => self.executor.run(&req),
        };
        match outcome {
            Ok(o) => extract::generated(&o.stdout, MAX_GENERATED),
            Err(e) => {
                self.state().stats.note_error(format!("the generator program did not run: {e}"));
                Vec::new()
            }
        }
    }
}

impl Proposer for ModelProposer<'_> {
    /// The model never writes the first prefix: the rules' comes first.
    fn initial(&self, ctx: &Context) -> Prefix {
        Deterministic.initial(ctx)
    }

    /// Exploration: k prefixes that may get further than `attempt`.
    fn refine(&self, ctx: &Context, attempt: &Attempt) -> Vec<Prefix> {
        if !self.may_call() {
            return Vec::new();
        }
        let f = self.feedback(ctx, attempt);
        let req = prompt::exploration(&f, self.config.k, &mut self.state().redactor);
        match self.ask(req, extract::prefixes) {
            Ok(p) => self.admit(ctx, Stage::Exploration, p.into_iter().take(self.config.k.max(1) * 2).collect()),
            Err(e) => {
                self.note_error(&e);
                Vec::new()
            }
        }
    }

    /// Evolution: the candidates a generator program prints.
    fn variants(&self, ctx: &Context, best: &Attempt, _uncovered: &[u32]) -> Vec<Prefix> {
        if !self.may_call() {
            return Vec::new();
        }
        let f = self.feedback(ctx, best);
        let req = prompt::evolution(&f, &mut self.state().redactor);
        match self.ask(req, extract::program) {
            Ok(program) => {
                let candidates = self.generate(&program);
                self.admit(ctx, Stage::Evolution, candidates)
            }
            Err(e) => {
                self.note_error(&e);
                Vec::new()
            }
        }
    }
}
