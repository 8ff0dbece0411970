//! Handlers called directly on a state (no transport): fixture documents
//! in, protocol values out.

use super::*;
use crate::lsp::state::State;
use serde_json::json;
use std::sync::Arc;
use tower_lsp_server::lsp_types::*;
use tower_lsp_server::LspService;

struct Nothing;
impl tower_lsp_server::LanguageServer for Nothing {
    async fn initialize(&self, _: InitializeParams) -> tower_lsp_server::jsonrpc::Result<InitializeResult> {
        Ok(InitializeResult::default())
    }
    async fn shutdown(&self) -> tower_lsp_server::jsonrpc::Result<()> {
        Ok(())
    }
}

/// A state with an initialized UTF-16 client that resolves code actions
/// (as VS Code does) and `text` open as `file:///w/a.py`.
fn state_with(text: &str, language: &str) -> (Arc<State>, Uri) {
    state_with_caps(text, language, json!({"general": {"positionEncodings": ["utf-16"]}, "textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}}}))
}

fn state_with_caps(text: &str, language: &str, capabilities: serde_json::Value) -> (Arc<State>, Uri) {
    let mut client = None;
    let (_service, _socket) = LspService::new(|c| {
        client = Some(c);
        Nothing
    });
    let state = Arc::new(State::new(client.unwrap()));
    let init: InitializeParams = serde_json::from_value(json!({
        "capabilities": capabilities,
        "initializationOptions": {"hints": {"values": false}}
    }))
    .unwrap();
    let result = initialize::handle(&state, init).unwrap();
    assert_eq!(result.capabilities.position_encoding, Some(PositionEncodingKind::UTF16));
    let uri: Uri = "file:///w/a.py".parse().unwrap();
    did_open::handle(
        &state,
        DidOpenTextDocumentParams { text_document: TextDocumentItem { uri: uri.clone(), language_id: language.into(), version: 1, text: text.into() } },
    );
    (state, uri)
}

fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Range {
    Range::new(Position::new(l1, c1), Position::new(l2, c2))
}

fn actions(state: &Arc<State>, uri: &Uri, r: Range, only: Option<Vec<CodeActionKind>>) -> tower_lsp_server::jsonrpc::Result<Vec<CodeAction>> {
    let params = CodeActionParams {
        text_document: TextDocumentIdentifier { uri: uri.clone() },
        range: r,
        context: CodeActionContext { diagnostics: vec![], only, trigger_kind: None },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    Ok(code_action::handle(state, params)?
        .unwrap_or_default()
        .into_iter()
        .filter_map(|a| match a {
            CodeActionOrCommand::CodeAction(a) => Some(a),
            _ => None,
        })
        .collect())
}

#[tokio::test]
async fn code_actions_carry_data_and_reject_bad_ranges() {
    let (state, uri) = state_with("x = 1\ndef f():\n    return x\n", "python");
    let got = actions(&state, &uri, range(2, 4, 2, 4), None).unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].data, Some(json!({"uri": "file:///w/a.py", "version": 1, "range": range(1, 0, 2, 12)})));
    assert!(got[0].edit.is_none() && got[0].command.is_none());
    // `x` is defined on the line above the function: the whole block is offered too.
    assert_eq!(got[1].title, "Make lines 1–3 runnable (`x` is defined in the lines around the selection)");
    assert_eq!(got[1].data, Some(json!({"uri": "file:///w/a.py", "version": 1, "range": range(0, 0, 2, 12)})));
    let err = actions(&state, &uri, range(9, 0, 9, 0), None).unwrap_err();
    assert_eq!(err.code, tower_lsp_server::jsonrpc::ErrorCode::InvalidParams);
    let err = actions(&state, &uri, range(2, 0, 1, 0), None).unwrap_err();
    assert!(err.message.contains("before its start"), "{}", err.message);
    assert!(actions(&state, &"file:///w/unknown.py".parse().unwrap(), range(0, 0, 0, 0), None).unwrap().is_empty());
}

#[tokio::test]
async fn a_client_without_resolve_support_gets_the_command_with_the_same_argument() {
    // eglot 1.9: code action literals, but no `resolveSupport`.
    let caps = json!({"general": {"positionEncodings": ["utf-16"]}, "textDocument": {"codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["refactor"]}}}}});
    let (state, uri) = state_with_caps("x = 1\nprint(x)\n", "python", caps);
    let got = actions(&state, &uri, range(1, 0, 1, 0), None).unwrap();
    let command = got[0].command.as_ref().expect("a command to run");
    assert_eq!(command.command, "runnable.makeRunnable");
    assert_eq!(command.arguments.as_deref(), Some(&[got[0].data.clone().unwrap()][..]));
}

#[tokio::test]
async fn changes_are_applied_and_inlay_hints_checked() {
    let (state, uri) = state_with("a = '😀'\n", "python");
    did_change::handle(
        &state,
        DidChangeTextDocumentParams {
            text_document: VersionedTextDocumentIdentifier { uri: uri.clone(), version: 2 },
            content_changes: vec![TextDocumentContentChangeEvent { range: Some(range(0, 8, 0, 8)), range_length: None, text: "!".into() }],
        },
    );
    let snap = state.snapshot(&uri).unwrap();
    assert_eq!((snap.version, snap.rope.to_string().as_str()), (2, "a = '😀'!\n"));
    let hints = |r| {
        inlay_hint::handle(&state, InlayHintParams { work_done_progress_params: Default::default(), text_document: TextDocumentIdentifier { uri: uri.clone() }, range: r })
    };
    assert_eq!(hints(range(0, 0, 1, 0)).unwrap().map(|h| h.len()), Some(0));
    assert!(hints(range(0, 0, 5, 0)).is_err());
    assert!(!state.settings().hints_values, "initializationOptions were read");
}

#[tokio::test]
async fn commands_validate_their_arguments() {
    let (state, uri) = state_with("print(1)\n", "python");
    let run = |command: &str, arguments: Vec<serde_json::Value>| {
        execute_command::handle(&state, ExecuteCommandParams { command: command.into(), arguments, work_done_progress_params: Default::default() })
    };
    assert!(run("runnable.makeRunnable", vec![]).is_err());
    assert!(run("runnable.makeRunnable", vec![json!({"uri": uri, "range": range(5, 0, 5, 0)})]).is_err());
    assert!(run("runnable.makeRunnable", vec![json!({"uri": uri, "version": 9, "range": range(0, 0, 0, 0)})]).is_err(), "stale version");
    assert_eq!(run("runnable.cancel", vec![json!({"uri": uri})]).unwrap(), Some(json!(false)));
    assert!(run("runnable.showReport", vec![json!({"uri": uri})]).is_err(), "no run yet");
    assert!(run("runnable.other", vec![]).is_err());
}

#[tokio::test]
async fn a_document_too_large_to_analyse_gets_no_actions_and_no_run() {
    let big = "x = np.zeros(3)\n".repeat(crate::lsp::document::MAX_ANALYSED_BYTES / 16 + 1);
    let (state, uri) = state_with(&big, "python");
    assert!(actions(&state, &uri, range(0, 0, 0, 0), None).unwrap().is_empty());
    let run = execute_command::handle(
        &state,
        ExecuteCommandParams {
            command: "runnable.makeRunnable".into(),
            arguments: vec![json!({"uri": uri, "range": range(0, 0, 0, 0)})],
            work_done_progress_params: Default::default(),
        },
    );
    assert!(run.unwrap_err().message.contains("too large to analyse"));
}

#[tokio::test]
async fn markdown_actions_only_inside_python_fences() {
    let (state, uri) = state_with("text\n```python\nprint(x)\n```\n", "markdown");
    assert!(actions(&state, &uri, range(0, 0, 0, 0), None).unwrap().is_empty());
    let got = actions(&state, &uri, range(2, 0, 2, 0), Some(vec![CodeActionKind::REFACTOR])).unwrap();
    assert_eq!(got[0].data.as_ref().unwrap()["range"], json!(range(2, 0, 2, 8)));
}
