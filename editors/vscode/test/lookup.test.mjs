// Unit tests of the server lookup (src/lookup.ts, which needs no `vscode`):
// bundled on the fly with esbuild, then imported.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let findServer;
before(async () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runnable-lookup-')), 'lookup.mjs');
  await esbuild.build({ entryPoints: [path.join(root, 'src/lookup.ts')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'silent' });
  ({ findServer } = await import(pathToFileURL(out).href));
});

const exists = (...paths) => (p) => paths.includes(p);

test('the setting wins over PATH', () => {
  const r = findServer({ settingPath: '/opt/r/runnable', envPath: '/usr/bin', workspaceFolders: [], trusted: true, isExecutable: exists('/opt/r/runnable', '/usr/bin/runnable') });
  assert.equal(r.path, '/opt/r/runnable');
  assert.equal(r.source, 'setting');
});

test('PATH is searched in order when the setting is empty', () => {
  const r = findServer({ settingPath: '', envPath: '/a:/b:/c', workspaceFolders: [], trusted: true, isExecutable: exists('/b/runnable', '/c/runnable') });
  assert.equal(r.path, '/b/runnable');
  assert.equal(r.source, 'PATH');
});

test('a wrong setting is an error, not a fallback to PATH', () => {
  const r = findServer({ settingPath: '/nope/runnable', envPath: '/b', workspaceFolders: [], trusted: true, isExecutable: exists('/b/runnable') });
  assert.equal(r.path, undefined);
  assert.deepEqual(r.steps, ['runnable.server.path = /nope/runnable: not an executable file']);
});

test('nothing found: every place looked at is listed', () => {
  const r = findServer({ settingPath: null, envPath: '/a:/b', workspaceFolders: [], trusted: true, isExecutable: () => false });
  assert.equal(r.path, undefined);
  assert.equal(r.steps.length, 2);
  assert.match(r.steps[1], /no runnable/);
});

test('an untrusted workspace never starts a binary from inside its folders', () => {
  const ws = '/home/u/project';
  let r = findServer({ settingPath: `${ws}/bin/runnable`, envPath: `${ws}/.venv/bin:/usr/bin`, workspaceFolders: [ws], trusted: false, isExecutable: exists(`${ws}/bin/runnable`, `${ws}/.venv/bin/runnable`, '/usr/bin/runnable') });
  assert.equal(r.path, '/usr/bin/runnable');
  assert.equal(r.steps.filter((s) => /untrusted/.test(s)).length, 2, r.steps.join('\n'));
  r = findServer({ settingPath: '${workspaceFolder}/bin/runnable', envPath: '', workspaceFolders: [ws], trusted: false, isExecutable: exists(`${ws}/bin/runnable`) });
  assert.equal(r.path, undefined);
  // Trusted, the same binary is fine.
  r = findServer({ settingPath: '${workspaceFolder}/bin/runnable', envPath: '', workspaceFolders: [ws], trusted: true, isExecutable: exists(`${ws}/bin/runnable`) });
  assert.equal(r.path, `${ws}/bin/runnable`);
});
