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

function vscodeSettings() {
  const props = pkg.contributes.configuration.properties;
  const out = {};
  for (const [k, v] of Object.entries(props)) {
    assert.ok(k.startsWith('runnable.'), `${k} is outside the runnable section`);
    if (k === 'runnable.server.path') continue;
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

test('VS Code contributes exactly the server keys (plus runnable.server.path) with the documented defaults', () => {
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

test('engines.vscode allows code-server 4.100.3 (VS Code 1.100)', () => {
  const m = pkg.engines.vscode.match(/^\^1\.(\d+)\.\d+$/);
  assert.ok(m && Number(m[1]) <= 100, pkg.engines.vscode);
});
