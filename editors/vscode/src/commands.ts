// The extension's commands. The server's own commands (runnable.makeRunnable,
// runnable.showReport, runnable.cancel) are registered by the language client;
// these wrap them with the editor's selection and document.

import * as vscode from 'vscode';
import { ExecuteCommandRequest, ResponseError } from 'vscode-languageclient/node';
import type { Ctx } from './ctx';
import { newToken } from './progress';
import { CMD_MAKE_RUNNABLE, CMD_SHOW_REPORT } from './protocol';

const LANGUAGES = new Set(['python', 'markdown']);

function errorText(e: unknown): string {
  if (e instanceof ResponseError) return e.message;
  return e instanceof Error ? e.message : String(e);
}

async function runningClient(ctx: Ctx) {
  if (!ctx.client?.isRunning()) await ctx.restart();
  const client = ctx.client;
  if (!client?.isRunning()) {
    void vscode.window.showErrorMessage('Runnable: the server is not running; see "Runnable: Show Logs".');
    return undefined;
  }
  return client;
}

export async function makeSelectionRunnable(ctx: Ctx): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !LANGUAGES.has(editor.document.languageId)) {
    void vscode.window.showWarningMessage('Runnable: open a Python or Markdown file and select the code to run.');
    return;
  }
  const client = await runningClient(ctx);
  if (!client) return;
  const doc = editor.document;
  const arg = {
    uri: client.code2ProtocolConverter.asUri(doc.uri),
    version: doc.version,
    range: client.code2ProtocolConverter.asRange(editor.selection),
  };
  ctx.log.info(`${CMD_MAKE_RUNNABLE} ${JSON.stringify(arg)}`);
  ctx.startedRun(arg.uri);
  try {
    await client.sendRequest(ExecuteCommandRequest.type, { command: CMD_MAKE_RUNNABLE, arguments: [arg], workDoneToken: newToken(client) });
  } catch (e) {
    ctx.failedToStart(arg.uri);
    void vscode.window.showErrorMessage(`Runnable: ${errorText(e)}`);
  }
}

export async function showLastReport(ctx: Ctx): Promise<void> {
  const client = await runningClient(ctx);
  if (!client) return;
  // The active document's report when it has been run (the status item shows that run), else the last run's.
  const active = ctx.activeUri();
  const uri = ctx.runOf(active) ? active : (ctx.lastRunUri ?? active);
  try {
    await client.sendRequest(ExecuteCommandRequest.type, { command: CMD_SHOW_REPORT, arguments: uri ? [{ uri }] : [] });
  } catch (e) {
    void vscode.window.showInformationMessage(`Runnable: ${errorText(e)}`);
  }
}

export function register(ctx: Ctx): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('runnable.makeSelectionRunnable', () => makeSelectionRunnable(ctx)),
    vscode.commands.registerCommand('runnable.showLastReport', () => showLastReport(ctx)),
    vscode.commands.registerCommand('runnable.restartServer', () => ctx.restart()),
    vscode.commands.registerCommand('runnable.showLogs', () => ctx.log.show()),
  ];
}
