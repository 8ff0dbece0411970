//! `initialize`: negotiate the position encoding, read the client's
//! capabilities and the settings, announce ours.

use crate::lsp::config::{Settings, ACTION_KIND, COMMANDS};
use crate::lsp::position::Encoding;
use crate::lsp::state::{lock, ClientCaps, State};
use std::sync::Arc;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::lsp_types::*;
use tower_lsp_server::UriExt;

pub fn handle(state: &Arc<State>, params: InitializeParams) -> Result<InitializeResult> {
    let c = &params.capabilities;
    let encoding = Encoding::negotiate(c.general.as_ref().and_then(|g| g.position_encodings.as_deref()));
    let edit = c.workspace.as_ref().and_then(|w| w.workspace_edit.as_ref());
    let caps = ClientCaps {
        encoding,
        work_done_progress: c.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
        document_changes: edit.and_then(|e| e.document_changes).unwrap_or(false),
        show_document: c.window.as_ref().and_then(|w| w.show_document.as_ref()).is_some_and(|s| s.support),
        inlay_hint_refresh: c.workspace.as_ref().and_then(|w| w.inlay_hint.as_ref()).and_then(|i| i.refresh_support).unwrap_or(false),
        code_lens_refresh: c.workspace.as_ref().and_then(|w| w.code_lens.as_ref()).and_then(|i| i.refresh_support).unwrap_or(false),
        code_action_resolve: c.text_document.as_ref().and_then(|t| t.code_action.as_ref()).is_some_and(|a| a.resolve_support.is_some()),
        configuration: c.workspace.as_ref().and_then(|w| w.configuration).unwrap_or(false),
    };
    if caps.configuration {
        // Pulled after `initialized`; a run waits for the answer.
        state.settings_pending();
    }
    *lock(&state.caps) = caps;
    if let Some(options) = &params.initialization_options {
        let (settings, warnings) = Settings::from_json(options);
        if !warnings.is_empty() {
            // To the client's log with its level (stderr reads as an error there).
            let client = state.client.clone();
            tokio::spawn(async move {
                for w in warnings {
                    client.log_message(MessageType::WARNING, format!("Runnable initializationOptions: {w}")).await;
                }
            });
        }
        *lock(&state.settings) = settings;
    }
    let folders: Vec<_> = params.workspace_folders.iter().flatten().filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned())).collect();
    *lock(&state.root) = folders.first().cloned();
    *lock(&state.folders) = folders;

    Ok(InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(encoding.kind()),
            text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                ..Default::default()
            })),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::from(ACTION_KIND)]),
                resolve_provider: Some(true),
                ..Default::default()
            })),
            execute_command_provider: Some(ExecuteCommandOptions {
                commands: COMMANDS.iter().map(|c| c.to_string()).collect(),
                work_done_progress_options: WorkDoneProgressOptions { work_done_progress: Some(true) },
            }),
            inlay_hint_provider: Some(OneOf::Left(true)),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
            ..Default::default()
        },
        server_info: Some(ServerInfo { name: "runnable".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
    })
}
