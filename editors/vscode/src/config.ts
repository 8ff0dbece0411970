// The extension's settings: the server's keys under `runnable.` plus
// `runnable.server.path`, which only the extension reads.

import * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';
import { expandPath } from './lookup';
import { SERVER_SETTINGS } from './protocol';
import { ALLOW_UNTRUSTED_RUNS, withTrust } from './trust';

export const SECTION = 'runnable';

function folders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

/**
 * The object the server reads (docs/protocol.md "Settings"), with dotted
 * keys. Paths get `~` and `${workspaceFolder}` expanded; empty ones are null.
 * In an untrusted workspace `runPolicy` is `"never"` unless the user allowed
 * runs there (src/trust.ts).
 */
export function serverSettings(): Record<string, unknown> {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const out: Record<string, unknown> = {};
  for (const key of SERVER_SETTINGS) {
    let value = cfg.get<unknown>(key);
    if (key === 'interpreter' || key === 'cacheDir') {
      value = typeof value === 'string' && value.trim() ? expandPath(value, folders()) : null;
    }
    out[key] = value === undefined ? null : value;
  }
  return withTrust(out, vscode.workspace.isTrusted, cfg.get<boolean>(ALLOW_UNTRUSTED_RUNS) === true);
}

/**
 * The answer to the server's `workspace/configuration` pull: for our
 * section, the same object as `initializationOptions` and
 * `didChangeConfiguration` carry (dotted keys, paths expanded, the trust
 * rule applied), read when the server asks, so a setting that changed while
 * the server was starting is not missed; other sections as the client
 * answers them.
 */
export const configurationMiddleware: Middleware['workspace'] = {
  configuration: async (params, token, next) => {
    const answers = await next(params, token);
    if (!Array.isArray(answers)) return answers;
    return params.items.map((item, i) => (item.section === SECTION ? serverSettings() : answers[i]));
  },
};

export function serverPathSetting(): string | null {
  return vscode.workspace.getConfiguration(SECTION).get<string | null>('server.path') ?? null;
}

export function workspaceFolderPaths(): string[] {
  return folders();
}
