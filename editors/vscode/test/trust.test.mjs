// Unit tests of the workspace-trust mapping (src/trust.ts, which needs no
// `vscode`): bundled on the fly with esbuild, then imported.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let withTrust;
let ALLOW_UNTRUSTED_RUNS;
before(async () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runnable-trust-')), 'trust.mjs');
  await esbuild.build({ entryPoints: [path.join(root, 'src/trust.ts')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'silent' });
  ({ withTrust, ALLOW_UNTRUSTED_RUNS } = await import(pathToFileURL(out).href));
});

const settings = (runPolicy) => ({ installPolicy: 'ask', runPolicy, budgetSeconds: 20 });

test('a trusted workspace sends the settings as they are', () => {
  for (const p of ['ask', 'always', 'never', null]) assert.deepEqual(withTrust(settings(p), true, false), settings(p));
});

test('an untrusted workspace sends runPolicy "never", whatever is configured', () => {
  for (const p of ['ask', 'always', 'never', null]) {
    const s = withTrust(settings(p), false, false);
    assert.equal(s.runPolicy, 'never', `configured ${p}`);
    assert.equal(s.installPolicy, 'ask', 'the other settings are kept');
  }
});

test('allowing runs in untrusted workspaces still asks first', () => {
  assert.equal(withTrust(settings('always'), false, true).runPolicy, 'ask');
  assert.equal(withTrust(settings('ask'), false, true).runPolicy, 'ask');
  assert.equal(withTrust(settings(null), false, true).runPolicy, 'ask');
  assert.equal(withTrust(settings('never'), false, true).runPolicy, 'never');
});

test('the allowing setting is the one package.json declares, as an application setting', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const decl = pkg.contributes.configuration.properties[`runnable.${ALLOW_UNTRUSTED_RUNS}`];
  assert.ok(decl, `runnable.${ALLOW_UNTRUSTED_RUNS} is not declared`);
  assert.equal(decl.default, false);
  assert.equal(decl.scope, 'application', 'a workspace must not be able to allow itself');
});
