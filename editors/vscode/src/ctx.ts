// The context owns every disposable: the language client, the output
// channel, the status-bar item and the listeners. Restarts are coalesced.

import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { SECTION, configurationMiddleware, serverPathSetting, serverSettings, workspaceFolderPaths } from './config';
import { findServer } from './lookup';
import { handleServerProgress } from './progress';
import { RUN_FINISHED, RunFinished } from './protocol';
import { Status } from './status';

const INSTALL_HINT = '`cargo install --path server` in a checkout of Runnable';

export class Ctx implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly status: Status;
  client: LanguageClient | undefined;
  /** The document of the last finished run, for "Show Last Report". */
  lastRunUri: string | undefined;
  /** The last finished run of each document (protocol URI): the status item shows the active one's. */
  private readonly runs = new Map<string, RunFinished>();
  /** Documents with a run going on. */
  private readonly running = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  private clientDisposables: vscode.Disposable[] = [];
  private pending: Promise<void> | undefined;
  private again = false;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel('Runnable', { log: true });
    this.status = new Status();
    this.disposables.push(this.log, this.status);
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfiguration(e)),
      vscode.window.onDidChangeActiveTextEditor(() => this.showActive()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log.info('workspace trusted: restarting the server');
        void this.restart();
      }),
    );
  }

  /** The protocol URI of the active editor's document, if any. */
  activeUri(): string | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    return doc && this.client ? this.client.code2ProtocolConverter.asUri(doc.uri) : undefined;
  }

  /** The last run of `uri`, if it had one this session. */
  runOf(uri: string | undefined): RunFinished | undefined {
    return uri === undefined ? undefined : this.runs.get(uri);
  }

  /** A run of `uri` has started. */
  startedRun(uri: string): void {
    this.running.add(uri);
    this.showActive();
  }

  /** A run of `uri` could not start. */
  failedToStart(uri: string): void {
    this.running.delete(uri);
    this.showActive();
  }

  /** The status item follows the active document: its run going on, its last run, or nothing. */
  private showActive(): void {
    if (!this.client?.isRunning()) return;
    const uri = this.activeUri();
    const run = this.runOf(uri);
    if (uri !== undefined && this.running.has(uri)) this.status.running();
    else if (run) this.status.finished(run);
    else this.status.idle();
  }

  /** Start, or restart, the server. Calls while one is under way coalesce into one more. */
  restart(): Promise<void> {
    if (this.pending) {
      this.again = true;
      return this.pending;
    }
    this.pending = (async () => {
      do {
        this.again = false;
        await this.stop();
        await this.start();
      } while (this.again);
    })().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async start(): Promise<void> {
    const found = findServer({
      settingPath: serverPathSetting(),
      envPath: process.env.PATH ?? '',
      workspaceFolders: workspaceFolderPaths(),
      trusted: vscode.workspace.isTrusted,
    });
    this.log.info(`looking for the server (${vscode.workspace.isTrusted ? 'trusted' : 'untrusted'} workspace):`);
    for (const step of found.steps) this.log.info(`  ${step}`);
    if (!found.path) {
      this.status.stopped('Runnable: the server binary was not found');
      void this.missingBinary(found.steps);
      return;
    }
    this.log.info(`starting ${found.path} lsp`);
    const initial = serverSettings();
    this.log.info(`settings: ${JSON.stringify(initial)}`);

    const serverOptions: ServerOptions = {
      command: found.path,
      args: ['lsp'],
      options: { env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'info' } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'python' },
        { scheme: 'untitled', language: 'python' },
        { scheme: 'file', language: 'markdown' },
      ],
      initializationOptions: initial,
      // The server pulls the settings after `initialized` and its runs wait for them.
      middleware: { workspace: configurationMiddleware },
      outputChannel: this.log,
      traceOutputChannel: this.log,
    };
    const client = new LanguageClient('runnable', 'Runnable', serverOptions, clientOptions);
    this.clientDisposables.push(
      client.onNotification(RUN_FINISHED, (run: RunFinished) => {
        this.lastRunUri = run.uri;
        this.runs.set(run.uri, run);
        this.running.delete(run.uri);
        this.showActive();
        this.log.info(`run finished: ${JSON.stringify(run)}`);
      }),
      client.onDidChangeState((e) => {
        if (e.newState === State.Stopped) this.status.stopped('Runnable: the server stopped; run "Runnable: Restart Server"');
        // The client's progress feature registers its own handler just after
        // this event; ours replaces it (again after a restart by the client).
        if (e.newState === State.Running && this.client === client) {
          setTimeout(() => {
            if (this.client === client && client.isRunning()) this.clientDisposables.push(handleServerProgress(client));
          }, 1000);
        }
      }),
    );
    this.client = client;
    try {
      await client.start();
      this.clientDisposables.push(handleServerProgress(client));
      this.status.idle();
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.log.error(`the server failed to start: ${message}`);
      this.status.stopped(`Runnable: the server failed to start: ${message}`);
      void vscode.window.showErrorMessage(`Runnable: the server failed to start: ${message}`, 'Show Logs').then((c) => {
        if (c) this.log.show();
      });
    }
  }

  private async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    // A new server knows no earlier run.
    this.runs.clear();
    this.running.clear();
    this.lastRunUri = undefined;
    for (const d of this.clientDisposables) d.dispose();
    this.clientDisposables = [];
    if (client) {
      try {
        await client.stop(5000);
      } catch (e) {
        this.log.warn(`stopping the server: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  private async missingBinary(steps: string[]): Promise<void> {
    const message =
      'Runnable: the server binary `runnable` was not found. ' +
      `Install it with ${INSTALL_HINT} so that it is on PATH, or set "runnable.server.path" to it. ` +
      `Looked at: ${steps.join('; ')}.`;
    this.log.error(message);
    const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Logs');
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'runnable.server.path');
    } else if (choice === 'Show Logs') {
      this.log.show();
    }
  }

  private onConfiguration(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration(SECTION)) return;
    if (e.affectsConfiguration(`${SECTION}.server.path`)) {
      this.log.info('runnable.server.path changed: restarting the server');
      void this.restart();
      return;
    }
    if (!this.client?.isRunning()) return;
    const settings = serverSettings();
    this.log.info(`settings changed: ${JSON.stringify(settings)}`);
    void this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: settings } });
  }

  async dispose(): Promise<void> {
    await this.stop();
    for (const d of this.disposables) d.dispose();
  }
}
