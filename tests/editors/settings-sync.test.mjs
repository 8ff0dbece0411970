// The names shared by the server, docs/protocol.md, the VS Code extension and
// the Neovim plugin agree: settings keys (and their defaults), command ids,
// the code action kind and the runFinished notification. The server's side is
// read as text from server/src/lsp/config.rs (its SETTINGS_KEYS constant).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (p) => fs.readFileSync(path.join(repo, p), 'utf8');
const sorted = (xs) => [...xs].sort();

const rust = read('server/src/lsp/config.rs');
const protocol = read('docs/protocol.md');
const pkg = JSON.parse(read('editors/vscode/package.json'));
const tsProtocol = read('editors/vscode/src/protocol.ts');
const luaConfig = read('editors/nvim/lua/runnable/config.lua');
const luaLsp = read('editors/nvim/lsp/runnable.lua');

function rustStrings(name) {
  const m = rust.match(new RegExp(`pub const ${name}: &\\[&str\\] = &\\[([^\\]]*)\\]`));
  assert.ok(m, `${name} not found in server/src/lsp/config.rs`);
  return [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]);
}
function rustConst(name) {
  const m = rust.match(new RegExp(`pub const ${name}: &str = "([^"]+)"`));
  assert.ok(m, `${name} not found in server/src/lsp/config.rs`);
  return m[1];
}

/** The Settings table of docs/protocol.md: key -> default (parsed). */
function protocolSettings() {
  const section = protocol.split(/^## Settings$/m)[1]?.split(/^## /m)[0];
  assert.ok(section, 'docs/protocol.md has no "## Settings" section');
  const rows = {};
  for (const line of section.split('\n')) {
    // Cells split on pipes that are not escaped (`"ask"` \| `"never"`).
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    const key = cells[1]?.match(/^`([^`]+)`$/);
    if (!key || cells.length < 5) continue;
    const raw = cells[3].replace(/\(.*\)$/, '').trim().replace(/^`|`$/g, '');
    rows[key[1]] = raw === 'null' ? null : raw === 'true' ? true : raw === 'false' ? false : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : JSON.parse(raw);
  }
  return rows;
}

/** Settings only the extension reads (never sent to the server). */
const EXTENSION_ONLY = ['runnable.server.path', 'runnable.untrustedWorkspace.allowRuns'];

function vscodeSettings() {
  const props = pkg.contributes.configuration.properties;
  const out = {};
  for (const [k, v] of Object.entries(props)) {
    assert.ok(k.startsWith('runnable.'), `${k} is outside the runnable section`);
    if (EXTENSION_ONLY.includes(k)) continue;
    out[k.slice('runnable.'.length)] = v.default;
  }
  return out;
}

function listIn(source, re, what) {
  const m = source.match(re);
  assert.ok(m, `${what} not found`);
  return [...m[1].matchAll(/['"]([^'"]+)['"]/g)].map((x) => x[1]);
}

const serverKeys = rustStrings('SETTINGS_KEYS');

test('the server has settings keys', () => {
  assert.ok(serverKeys.length >= 8, JSON.stringify(serverKeys));
});

test('docs/protocol.md documents exactly the server keys', () => {
  assert.deepEqual(sorted(Object.keys(protocolSettings())), sorted(serverKeys));
});

test('VS Code contributes exactly the server keys (plus its own EXTENSION_ONLY ones) with the documented defaults', () => {
  const vs = vscodeSettings();
  assert.deepEqual(sorted(Object.keys(vs)), sorted(serverKeys));
  assert.ok(pkg.contributes.configuration.properties['runnable.server.path'], 'runnable.server.path missing');
  assert.deepEqual(vs, protocolSettings());
  assert.equal(vs['llm.enabled'], false, 'the LLM is off by default');
});

test('VS Code sends the same keys it contributes (src/protocol.ts SERVER_SETTINGS)', () => {
  assert.deepEqual(sorted(listIn(tsProtocol, /SERVER_SETTINGS = \[([^\]]*)\]/, 'SERVER_SETTINGS in protocol.ts')), sorted(serverKeys));
});

test('the Neovim plugin knows and validates the same keys', () => {
  assert.deepEqual(sorted(listIn(luaConfig, /M\.SETTINGS_KEYS = \{([^}]*)\}/, 'M.SETTINGS_KEYS in config.lua')), sorted(serverKeys));
  const typesBlock = luaConfig.match(/local setting_types = \{([\s\S]*?)\n\}/);
  assert.ok(typesBlock, 'setting_types not found');
  const validated = [...typesBlock[1].matchAll(/^\s{2}(?:\['([^']+)'\]|(\w+))\s*=/gm)].map((m) => m[1] ?? m[2]);
  assert.deepEqual(sorted(validated), sorted(serverKeys));
});

test('command ids, action kind and notification agree everywhere', () => {
  const names = {
    CMD_MAKE_RUNNABLE: rustConst('CMD_MAKE_RUNNABLE'),
    CMD_SHOW_REPORT: rustConst('CMD_SHOW_REPORT'),
    CMD_CANCEL: rustConst('CMD_CANCEL'),
    ACTION_KIND: rustConst('ACTION_KIND'),
    RUN_FINISHED: rustConst('RUN_FINISHED'),
  };
  for (const [name, value] of Object.entries(names)) {
    assert.ok(protocol.includes(value), `${value} missing from docs/protocol.md`);
    assert.ok(tsProtocol.includes(`export const ${name} = '${value}'`), `protocol.ts ${name} != ${value}`);
    assert.ok(luaConfig.includes(`M.${name} = '${value}'`), `config.lua ${name} != ${value}`);
  }
  assert.ok(luaLsp.includes(`'${names.RUN_FINISHED}'`), 'lsp/runnable.lua does not handle runFinished');
});

test("VS Code's own commands do not clash with the server's (the client registers those)", () => {
  const ours = pkg.contributes.commands.map((c) => c.command);
  for (const id of rustStrings('COMMANDS')) assert.ok(!ours.includes(id), `${id} is both a server and an extension command`);
  assert.deepEqual(sorted(ours), sorted(['runnable.makeSelectionRunnable', 'runnable.showLastReport', 'runnable.restartServer', 'runnable.showLogs']));
});

test('an untrusted VS Code workspace runs nothing unless the user allows it', () => {
  const trust = pkg.capabilities.untrustedWorkspaces;
  assert.equal(trust.supported, 'limited');
  // The workspace's own values of these are ignored while it is untrusted.
  for (const k of ['runnable.server.path', 'runnable.interpreter', 'runnable.cacheDir', 'runnable.installPolicy', 'runnable.runPolicy']) {
    assert.ok(trust.restrictedConfigurations.includes(k), `${k} is not a restricted configuration`);
  }
  const allow = pkg.contributes.configuration.properties['runnable.untrustedWorkspace.allowRuns'];
  assert.equal(allow.scope, 'application', 'a workspace could allow its own runs');
  assert.equal(allow.default, false);
  // The settings the extension sends go through the trust mapping, whose
  // own unit test is editors/vscode/test/trust.test.mjs.
  const config = read('editors/vscode/src/config.ts');
  assert.match(config, /return withTrust\(out, vscode\.workspace\.isTrusted, /);
  assert.match(read('editors/vscode/src/trust.ts'), /runPolicy: 'never'/);
  assert.ok(protocol.includes('untrusted workspace'), 'docs/protocol.md does not say what an untrusted workspace does');
});

test('runFinished statuses and fields are documented where the editors read them', () => {
  for (const s of ['refused', 'cancelled', 'failed']) assert.ok(protocol.includes(`\`${s}\``), `${s} missing from docs/protocol.md`);
  for (const f of ['denied', 'network']) assert.ok(protocol.includes(`\`${f}\``), `${f} missing from docs/protocol.md`);
  assert.match(tsProtocol, /NOTHING_RAN = \[[^\]]*'refused'/, 'protocol.ts does not treat refused as a run without result');
  assert.match(read('editors/nvim/lua/runnable/init.lua'), /status == 'refused'/, 'the Neovim plugin does not know refused');
});

test('engines.vscode allows code-server 4.100.3 (VS Code 1.100)', () => {
  const m = pkg.engines.vscode.match(/^\^1\.(\d+)\.\d+$/);
  assert.ok(m && Number(m[1]) <= 100, pkg.engines.vscode);
});
