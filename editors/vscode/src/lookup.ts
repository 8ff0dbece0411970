// Finding the server binary, without the `vscode` module so it can be unit
// tested: the setting `runnable.server.path` (when set, it is the answer, or
// the error), then `runnable` on PATH (as ruff-vscode does). An untrusted
// workspace never gets a binary from inside one of its folders.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface LookupInput {
  /** `runnable.server.path`, as configured (may be empty). */
  settingPath: string | null | undefined;
  /** The process's PATH. */
  envPath: string;
  /** Workspace folders (file system paths). */
  workspaceFolders: string[];
  trusted: boolean;
  /** For tests: is this an executable file? */
  isExecutable?: (p: string) => boolean;
}

export interface LookupResult {
  /** The binary to start, or undefined when none was found. */
  path?: string;
  /** Where it came from: `setting` or `PATH`. */
  source?: 'setting' | 'PATH';
  /** One line per place looked at, for the log and the error message. */
  steps: string[];
}

export const BINARY = process.platform === 'win32' ? 'runnable.exe' : 'runnable';

function defaultIsExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `~` and `${workspaceFolder}` / `${userHome}` in a configured path. */
export function expandPath(p: string, workspaceFolders: string[]): string {
  let out = p.trim();
  if (out === '~' || out.startsWith('~/')) out = path.join(os.homedir(), out.slice(1));
  out = out.replace(/\$\{userHome\}/g, os.homedir());
  if (workspaceFolders.length > 0) out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolders[0]);
  if (!path.isAbsolute(out) && workspaceFolders.length > 0 && out.includes(path.sep)) {
    out = path.resolve(workspaceFolders[0], out);
  }
  return out;
}

function inside(child: string, folders: string[]): boolean {
  const c = path.resolve(child);
  return folders.some((f) => {
    const rel = path.relative(path.resolve(f), c);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}

export function findServer(input: LookupInput): LookupResult {
  const isExec = input.isExecutable ?? defaultIsExecutable;
  const steps: string[] = [];
  const untrustedHere = (p: string) => !input.trusted && inside(p, input.workspaceFolders);

  const setting = (input.settingPath ?? '').trim();
  if (setting) {
    const p = expandPath(setting, input.workspaceFolders);
    if (untrustedHere(p)) {
      steps.push(`runnable.server.path = ${p}: skipped, it is inside an untrusted workspace`);
    } else if (isExec(p)) {
      steps.push(`runnable.server.path = ${p}: found`);
      return { path: p, source: 'setting', steps };
    } else {
      // A path the user chose but that does not work is a configuration
      // error to report, not a reason to start some other binary.
      steps.push(`runnable.server.path = ${p}: not an executable file`);
      return { steps };
    }
  } else {
    steps.push('runnable.server.path: not set');
  }

  for (const dir of input.envPath.split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(path.resolve(dir), BINARY);
    if (!isExec(p)) continue;
    if (untrustedHere(p)) {
      steps.push(`PATH: ${p}: skipped, it is inside an untrusted workspace`);
      continue;
    }
    steps.push(`PATH: ${p}: found`);
    return { path: p, source: 'PATH', steps };
  }
  steps.push(`PATH (${input.envPath}): no ${BINARY}`);
  return { steps };
}
