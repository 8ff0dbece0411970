// End to end in a real VS Code: code-server 4.100.3 (VS Code 1.100.3) driven
// by headless Chromium (see shared notes "Running a real VS Code in tests,
// offline"). One code-server for all tests, in order:
//  1. Make Selection Runnable on tests/fixtures/string_from_methods.py from
//     the command palette: prefix in the editor and on disk, coverage inlay
//     hints, "Runnable 2/2" in the status bar; saves docs/vscode.png.
//  2. Clicking the status-bar item opens the report.
//  3. A long run shows cancellable progress; its Cancel button cancels it.
//  4. A fragment importing a package the (fresh, runnable.cacheDir) cache
//     lacks asks first (window/showMessageRequest as a VS Code notification);
//     "Not now" installs nothing, runs nothing and leaves the document as it was.
//  5. A wrong runnable.server.path gives a notification with the fix; setting
//     it back restarts the server.
//  6. The server's code action "Make this runnable" is offered in the
//     code-action menu (Ctrl+.) on the cursor's statement and runs from there.
//  7. A fragment that reads a file: the server writes the file into
//     .runnable/ itself, so it has its content on disk without any save (no
//     dirty editor for it), and the saved document runs with python3.
//  8. The status item follows the active file: its last run, or none.
//
// Env: CODE_SERVER (the code-server binary), RUNNABLE_VSIX, RUNNABLE_BIN_DIR
// (folder holding `runnable`, put on PATH), CHROMIUM (default
// /usr/bin/chromium), SCREENSHOT (default docs/vscode.png), KEEP_TMP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const env = (name, fallback) => process.env[name] || fallback;
const CODE_SERVER = env('CODE_SERVER', path.join(os.homedir(), '.cache/runnable-e2e/code-server-4.100.3/bin/code-server'));
const VSIX = env('RUNNABLE_VSIX', path.join(repo, 'editors/vscode/runnable.vsix'));
const BIN_DIR = env('RUNNABLE_BIN_DIR', path.join(repo, 'target/debug'));
const CHROMIUM = env('CHROMIUM', '/usr/bin/chromium');
const SCREENSHOT = env('SCREENSHOT', path.join(repo, 'docs/vscode.png'));
const FIXTURE = path.join(repo, 'tests/fixtures/string_from_methods.py');
const SLOW_FIXTURE = path.join(here, 'fixtures/slow_fragment.py');
const PACKAGE_FIXTURE = path.join(here, 'fixtures/needs_package.py');
const FILE_FIXTURE = path.join(repo, 'tests/fixtures/missing_file.py');
const QUICK_FIXTURE = path.join(here, 'fixtures/quick_fixes.py');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(`# [${(performance.now() / 1000).toFixed(1)}s]`, ...a);

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

class Fatal extends Error {}

/** Poll fn until it returns something truthy; a thrown Fatal stops at once. */
async function until(what, fn, timeoutMs = 30000, everyMs = 250) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      if (e instanceof Fatal) throw e;
      last = e;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last})`);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'runnable-vscode-'));
const home = path.join(tmp, 'home');
const userData = path.join(tmp, 'user-data');
const extensions = path.join(tmp, 'extensions');
const workspace = path.join(tmp, 'workspace');
const userSettings = path.join(userData, 'User/settings.json');
const cacheDir = path.join(tmp, 'runnable-cache');
const baseSettings = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.ignoreRecommendations': true,
  'extensions.autoCheckUpdates': false,
  'security.workspace.trust.enabled': false,
  'files.autoSave': 'off',
  'editor.inlayHints.enabled': 'on',
  'editor.minimap.enabled': false,
  'window.commandCenter': false,
  'chat.commandCenter.enabled': false,
  'workbench.colorTheme': 'Default Dark Modern',
  // Approval has its own tests (tests/policy_lsp.rs); here runs just go.
  'runnable.runPolicy': 'always',
};
const writeSettings = (extra = {}) => fs.writeFileSync(userSettings, JSON.stringify({ ...baseSettings, ...extra }, null, 2));
// A fresh environment cache: no package is installed, and the setting
// reaches the server (initializationOptions, the server's pull). It is in the
// workspace's settings: `runnable.cacheDir` is machine-overridable, and in a
// remote window (code-server's) VS Code leaves such settings out of the
// browser's User settings once it knows their scope; whether it knew before
// the extension read them was a race (the cache dir went unused for a whole
// session once in CI). Workspace settings apply to it always.
const workspaceSettings = { 'runnable.cacheDir': cacheDir };
const writeWorkspaceSettings = (extra = {}) => {
  const dir = path.join(workspace, '.vscode');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ ...workspaceSettings, ...extra }, null, 2));
};

let server;
let browser;
let page;
let failed = false;

/** On failure: a screenshot, the visible notifications and status bar, and the extension's log. */
async function explain() {
  try {
    if (page) {
      await page.screenshot({ path: path.join(tmp, 'failure.png') });
      console.log(`# failure screenshot: ${path.join(tmp, 'failure.png')}`);
      console.log(`# notifications: ${JSON.stringify(await page.locator('.notification-toast').allInnerTexts())}`);
      console.log(`# status bar: ${JSON.stringify(await page.locator('.statusbar-item').allInnerTexts())}`);
    }
  } catch (e) {
    console.log(`# (no screenshot: ${e.message})`);
  }
  const logs = [];
  const walk = (d) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/Runnable|remoteexthost\.log/.test(e.name)) logs.push(p);
    }
  };
  walk(path.join(userData, 'logs'));
  for (const p of [...logs, path.join(tmp, 'code-server.log')]) {
    if (!fs.existsSync(p)) continue;
    const text = fs.readFileSync(p, 'utf8').split('\n').slice(-60).join('\n# ');
    console.log(`# ---- ${p}\n# ${text}`);
  }
}

/** Wrap a test body: remember failures so that `after` explains them. */
const guarded = (fn) => async () => {
  try {
    await fn();
  } catch (e) {
    failed = true;
    throw e;
  }
};

before(guarded(async () => {
  for (const [what, p] of [['code-server', CODE_SERVER], ['the .vsix', VSIX], ['runnable', path.join(BIN_DIR, 'runnable')], ['chromium', CHROMIUM]]) {
    assert.ok(fs.existsSync(p), `${what} not found at ${p}`);
  }
  for (const d of [home, path.join(userData, 'User'), extensions, workspace]) fs.mkdirSync(d, { recursive: true });
  fs.copyFileSync(FIXTURE, path.join(workspace, 'string_from_methods.py'));
  fs.copyFileSync(SLOW_FIXTURE, path.join(workspace, 'slow_fragment.py'));
  fs.copyFileSync(PACKAGE_FIXTURE, path.join(workspace, 'needs_package.py'));
  fs.copyFileSync(FIXTURE, path.join(workspace, 'by_lightbulb.py'));
  fs.copyFileSync(FILE_FIXTURE, path.join(workspace, 'reads_file.py'));
  fs.copyFileSync(QUICK_FIXTURE, path.join(workspace, 'quick_fixes.py'));
  writeSettings();
  writeWorkspaceSettings();
  // VS Code takes the extension host's environment from a login shell, so the
  // binary goes on PATH the way a user's profile puts it there.
  const profile = `export PATH="${BIN_DIR}:${process.env.PATH}"\n`;
  fs.writeFileSync(path.join(home, '.profile'), profile);
  fs.writeFileSync(path.join(home, '.bashrc'), profile);
  const port = await freePort();
  const config = path.join(tmp, 'config.yaml');
  fs.writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const childEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    // Runnable's environments and uv's cache stay in the real user cache.
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
    PATH: `${BIN_DIR}${path.delimiter}${process.env.PATH}`,
  };
  delete childEnv.VSCODE_IPC_HOOK_CLI;
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions];

  log('installing the .vsix');
  execFileSync(CODE_SERVER, [...common, '--install-extension', VSIX], { env: childEnv, stdio: 'pipe' });
  assert.ok(fs.readdirSync(extensions).some((d) => d.startsWith('runnable.runnable-')), 'the extension is installed');

  log(`starting code-server on ${port}`);
  const serverLog = fs.openSync(path.join(tmp, 'code-server.log'), 'w');
  server = spawn(
    CODE_SERVER,
    [...common, '--config', config, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override', workspace],
    { env: childEnv, stdio: ['ignore', serverLog, serverLog] },
  );
  await until('code-server /healthz', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60000, 300);

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on('pageerror', (e) => log('page error:', e.message));
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 60000 });
}));

after(async () => {
  if (failed) await explain();
  await browser?.close().catch(() => {});
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await Promise.race([new Promise((r) => server.once('exit', r)), sleep(5000)]);
    if (server.exitCode === null) server.kill('SIGKILL');
  }
  if (!process.env.KEEP_TMP && !failed) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`# kept ${tmp}`);
});

/** Lines of the active editor as rendered (inlay hints included), top to bottom. */
async function editorLines() {
  return page.evaluate(() => {
    const lines = [...document.querySelectorAll('.editor-instance .view-lines .view-line')];
    lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
    return lines.map((l) => l.textContent.replace(/\u00a0/g, ' '));
  });
}

/** The text of the Runnable status-bar item ('' when absent). */
async function statusText() {
  const item = page.locator('.statusbar-item', { hasText: 'Runnable' });
  return (await item.count()) ? (await item.first().innerText()).trim() : '';
}

async function openFile(name, marker) {
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name });
  await row.waitFor({ timeout: 30000 });
  const shown = async () => (await editorLines()).some((l) => l.includes(marker));
  // A widget the last test left open (a code-action menu) takes the first
  // click and closes: close it first, and open again while the file is not shown.
  await page.keyboard.press('Escape');
  await row.dblclick();
  await until(`the editor shows ${name}`, async () => {
    if (await shown()) return true;
    await sleep(1000);
    if (await shown()) return true;
    await row.dblclick();
    return false;
  });
}

/** Select lines 2..end of the active editor. */
async function selectFromLine2() {
  await page.locator('.editor-instance .view-lines').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Control+Shift+End');
}

async function runCommand(title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(`>${title}`);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: title.split(': ').pop() }).first().waitFor();
  await page.keyboard.press('Enter');
}

test('Make Selection Runnable inserts the prefix, shows coverage hints and "Runnable 2/2"', { timeout: 180000 }, guarded(async () => {
  const file = path.join(workspace, 'string_from_methods.py');
  const original = fs.readFileSync(file, 'utf8');
  await openFile('string_from_methods.py', 'record_line.strip()');
  await until('the extension is running', async () => (await statusText()).startsWith('Runnable'), 30000);

  log('selecting the fragment (lines 2-3) and running the command');
  await selectFromLine2();
  await runCommand('Runnable: Make Selection Runnable');
  const started = Date.now();
  await until('the status bar shows the coverage', async () => {
    const text = await statusText();
    if (/failed|cancelled/.test(text)) throw new Fatal(`the run ended: ${text}`);
    return text.includes('Runnable 2/2');
  }, 90000);
  log(`run finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.ok(fs.existsSync(cacheDir) && fs.readdirSync(cacheDir).length > 0, `runnable.cacheDir was not used: ${cacheDir}`);

  const lines = await until('the prefix in the editor', async () => {
    const l = await editorLines();
    return l.some((x) => x.startsWith('record_line = ')) && l;
  });
  assert.equal(lines[0], original.split('\n')[0], 'the comment above the selection stays first');
  assert.ok(lines.findIndex((l) => l.startsWith('record_line = ')) === 1, `prefix inserted at the selection: ${JSON.stringify(lines)}`);

  // Inlay hints (rendered inline): the value the first statement computed;
  // both statements ran once, which needs no "ran ×1".
  const hinted = await until('the value inlay hint', async () => {
    const h = (await editorLines()).filter((x) => x.startsWith('fields = record_line.strip()') && x.includes("= ['The quick"));
    return h.length >= 1 && h;
  }, 20000);
  assert.ok(!(await editorLines()).some((l) => l.includes('ran ×1')), `no "ran ×1": ${JSON.stringify(await editorLines())}`);
  log(`hinted: ${JSON.stringify(hinted)}`);
  // What the print wrote, on its line.
  await until('the output hint on the print line', async () => (await editorLines()).some((x) => x.startsWith('print(len(fields)') && /› \d/.test(x)), 20000);
  // The provenance lens above the prefix.
  const lens = await until('the provenance lens', async () => {
    const t = (await page.locator('.codelens-decoration').allInnerTexts()).join(' | ');
    return /Runnable: .*made up/.test(t) && t.includes('Keep') && t.includes('Remove') && t;
  }, 20000);
  log(`lens: ${lens}`);

  // Saved, the file on disk holds the prefix and the unchanged fragment, and no hint text.
  await page.keyboard.press('Control+S');
  const saved = await until('the saved file', async () => {
    const t = fs.readFileSync(file, 'utf8');
    return t.includes('record_line = ') && t;
  }, 15000);
  assert.ok(saved.endsWith(original.split('\n').slice(1).join('\n')), `the fragment is unchanged on disk:\n${saved}`);
  assert.ok(!saved.includes('ran ×'), 'hints are not text');
  log(`status bar: ${await statusText()}`);

  // Clear the selection so the hints read well in the screenshot.
  await page.keyboard.press('Control+End');
  await page.mouse.move(900, 400);
  await sleep(500);
  fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT });
  log(`screenshot: ${path.relative(repo, SCREENSHOT)}`);
}));

test('clicking the status-bar item opens the report', { timeout: 60000 }, guarded(async () => {
  await page.locator('.statusbar-item', { hasText: 'Runnable 2/2' }).first().click();
  const tab = page.locator('.tabs-container .tab', { hasText: 'string_from_methods.py.report.md' });
  await tab.waitFor({ timeout: 20000 });
  await until('the report text', async () => (await editorLines()).join('\n').includes('record_line'), 10000);
  assert.ok(fs.existsSync(path.join(workspace, '.runnable/string_from_methods.py.report.md')), 'the report is on disk');
}));

test('a long run shows cancellable progress and its Cancel button cancels it', { timeout: 120000 }, guarded(async () => {
  const file = path.join(workspace, 'slow_fragment.py');
  const original = fs.readFileSync(file, 'utf8');
  await openFile('slow_fragment.py', 'time.sleep(30');
  await selectFromLine2();
  await runCommand('Runnable: Make Selection Runnable');
  const toast = page.locator('.notification-toast', { hasText: 'Runnable' });
  await toast.first().waitFor({ timeout: 30000 });
  const shown = (await toast.first().innerText()).replace(/\s+/g, ' ');
  log(`progress: ${shown}`);
  const cancel = toast.first().locator('a.monaco-button, .monaco-button', { hasText: 'Cancel' });
  await cancel.first().waitFor({ timeout: 10000 });
  const clicked = Date.now();
  await cancel.first().click();
  await until('"Runnable cancelled" in the status bar', async () => (await statusText()).includes('cancelled'), 20000);
  log(`cancelled ${((Date.now() - clicked) / 1000).toFixed(1)} s after the click`);
  await sleep(500);
  assert.ok(!(await editorLines()).some((l) => /^pause = /.test(l)), 'nothing was applied');
  assert.equal(fs.readFileSync(file, 'utf8'), original);
}));

test('a fragment importing a missing package asks before installing; "Not now" installs nothing and changes nothing', { timeout: 90000 }, guarded(async () => {
  const file = path.join(workspace, 'needs_package.py');
  const original = fs.readFileSync(file, 'utf8');
  await openFile('needs_package.py', 'humanize.naturalsize');
  await selectFromLine2();
  await runCommand('Runnable: Make Selection Runnable');
  const toast = page.locator('.notification-toast', { hasText: 'humanize' });
  await toast.first().waitFor({ timeout: 30000 });
  const text = (await toast.first().innerText()).replace(/\s+/g, ' ');
  log(`question: ${text}`);
  assert.match(text, /Install/);
  await toast.first().locator('.monaco-button', { hasText: 'Not now' }).first().click();
  const status = await until('the run to end', async () => {
    const t = await statusText();
    return /Runnable (\d+\/\d+|failed|cancelled)/.test(t) && !t.includes('2/2') && t;
  }, 60000);
  log(`status bar: ${status}`);
  assert.match(status, /Runnable cancelled/, 'nothing ran');
  await sleep(500);
  assert.ok(!(await page.locator('.tabs-container .tab.dirty', { hasText: 'needs_package.py' }).count()), 'the document was not edited');
  assert.equal(fs.readFileSync(file, 'utf8'), original);
  const envs = path.join(cacheDir, 'envs');
  const installed = fs.existsSync(envs) ? fs.readdirSync(envs).filter((d) => !d.endsWith('.lock')) : [];
  for (const env of installed) {
    const found = fs.readdirSync(path.join(envs, env), { recursive: true }).some((f) => String(f).includes('humanize'));
    assert.ok(!found, `humanize was installed into ${env}`);
  }
}));

/** Set (value) or remove (undefined) runnable.server.path in the workspace's
 * .vscode/settings.json, beside the cache dir. (The setting is
 * machine-overridable: in code-server the browser's User settings do not
 * apply to it, the workspace's do.) */
async function setServerPath(value) {
  writeWorkspaceSettings(value === undefined ? {} : { 'runnable.server.path': value });
}

test('a wrong runnable.server.path is reported with the fix; setting it back restarts the server', { timeout: 90000 }, guarded(async () => {
  await setServerPath('/nonexistent/runnable');
  const toast = page.locator('.notification-toast', { hasText: 'was not found' });
  await toast.first().waitFor({ timeout: 30000 });
  const text = (await toast.first().innerText()).replace(/\s+/g, ' ');
  log(`notification: ${text}`);
  assert.match(text, /runnable\.server\.path/);
  assert.match(text, /cargo install/);
  assert.match(text, /Open Settings/);
  const errorItem = page.locator('.statusbar-item.has-background-color', { hasText: 'Runnable' });
  await until('the status bar shows the stopped server', async () => (await errorItem.count()) > 0, 10000);
  await setServerPath(undefined);
  await until('the server is back', async () => (await errorItem.count()) === 0 && (await statusText()) === 'Runnable', 30000);
}));

test('"Make this runnable" from the code-action menu (Ctrl+.) runs the statement under the cursor', { timeout: 90000 }, guarded(async () => {
  await openFile('by_lightbulb.py', 'record_line.strip()');
  await page.locator('.editor-instance .view-lines').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('ArrowDown');
  const item = page.locator('.action-widget .monaco-list-row', { hasText: 'Make this runnable' });
  await until('"Make this runnable" in the code-action menu', async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+.');
    await item.first().waitFor({ timeout: 3000 });
    return true;
  }, 30000, 500);
  // The menu has the focus; move to our entry (it is the only one here) and take it.
  const rows = await page.locator('.action-widget .monaco-list-row').allInnerTexts();
  log(`code actions: ${JSON.stringify(rows)}`);
  await page.keyboard.press('Enter');
  await until('the prefix in the editor', async () => (await editorLines()).some((l) => l.startsWith('record_line = ')), 60000);
  // The fragment is the statement under the cursor alone: one statement, run.
  await until('"Runnable 1/1" in the status bar', async () => (await statusText()).includes('Runnable 1/1'), 10000);
}));

test('a file the fragment reads is on disk with its content without any save, and the saved document runs', { timeout: 120000 }, guarded(async () => {
  const created = path.join(workspace, '.runnable/inventory.txt');
  assert.ok(!fs.existsSync(created), 'no inventory.txt before the run');
  await openFile('reads_file.py', 'handle.read().splitlines()');
  await selectFromLine2();
  await runCommand('Runnable: Make Selection Runnable');
  await until('"Runnable 3/3" in the status bar', async () => {
    const text = await statusText();
    if (/failed|cancelled/.test(text)) throw new Fatal(`the run ended: ${text}`);
    return text.includes('Runnable 3/3');
  }, 90000);
  await until('the prefix in the editor', async () => (await editorLines()).some((l) => l.startsWith('os.chdir(')), 20000);
  // Nothing has been saved: the file is on disk with its content already,
  // and no editor holds it unsaved (the server wrote it, not a CreateFile edit).
  const content = await until('inventory.txt with content on disk', async () => fs.existsSync(created) && fs.readFileSync(created, 'utf8'), 10000);
  assert.ok(content.trim().length > 0, `inventory.txt is empty on disk: ${JSON.stringify(content)}`);
  const dirty = await page.locator('.tabs-container .tab.dirty').allInnerTexts();
  assert.ok(!dirty.some((t) => t.includes('inventory.txt')), `an unsaved editor for inventory.txt: ${JSON.stringify(dirty)}`);
  assert.ok(dirty.some((t) => t.includes('reads_file.py')), `only the document itself is unsaved: ${JSON.stringify(dirty)}`);
  // Save only the document; it then runs from anywhere with the file it reads.
  await page.keyboard.press('Control+S');
  const file = path.join(workspace, 'reads_file.py');
  await until('the saved document', async () => fs.readFileSync(file, 'utf8').includes('os.chdir('), 15000);
  const out = execFileSync('python3', [file], { cwd: '/', encoding: 'utf8' });
  assert.equal(out.trim(), content.split('\n')[0].trim(), 'the program prints the first line of the created file');

  // The lens's Remove: the prefix and the file it created go, in one step.
  await page.locator('.codelens-decoration a', { hasText: 'Remove' }).first().click();
  await until('the prefix removed', async () => !(await editorLines()).some((l) => l.startsWith('os.chdir(')), 15000);
  await until('inventory.txt deleted', async () => !fs.existsSync(created), 10000);
  const want = fs.readFileSync(FILE_FIXTURE, 'utf8').split('\n').slice(0, 3).join('\n');
  await until('back to the original', async () => (await editorLines()).slice(0, 3).map((l) => l.trimEnd()).join('\n') === want, 10000);
}));

test('quick fixes without a run: Add the import, Create a sample of the file', { timeout: 90000 }, guarded(async () => {
  await openFile('quick_fixes.py', 'print(tabulate(rows))');
  const take = async (line, title) => {
    await page.locator('.editor-instance .view-lines').click();
    await page.keyboard.press('Control+Home');
    for (let i = 1; i < line; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    const item = page.locator('.action-widget .monaco-list-row', { hasText: title });
    await until(`"${title}" in the code-action menu`, async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+.');
      await item.first().waitFor({ timeout: 3000 });
      return true;
    }, 30000, 500);
    log(`code actions: ${JSON.stringify(await page.locator('.action-widget .monaco-list-row').allInnerTexts())}`);
    // The menu has the keyboard focus and a pointer block over it: move the
    // focus to the entry with the arrow keys, then take it.
    const focused = page.locator('.action-widget .monaco-list-row.focused');
    for (let i = 0; i < 12; i++) {
      const text = await focused.first().innerText({ timeout: 1000 }).catch(() => '');
      if (text.includes(title)) break;
      await page.keyboard.press('ArrowDown');
    }
    assert.ok((await focused.first().innerText()).includes(title), `"${title}" not focused`);
    await page.keyboard.press('Enter');
  };
  await take(3, 'from tabulate import tabulate');
  await until('the import on line 1', async () => (await editorLines())[0].startsWith('from tabulate import tabulate'), 10000);
  const sample = path.join(workspace, 'scores.csv');
  assert.ok(!fs.existsSync(sample), 'no scores.csv before');
  await take(5, 'Create a sample');
  const text = await until('scores.csv on disk', async () => fs.existsSync(sample) && fs.readFileSync(sample, 'utf8'), 10000);
  assert.ok(text.split('\n')[0].includes(','), `not CSV: ${text}`);
}));

test('the status item shows the last run of the active file, not of any file', { timeout: 60000 }, guarded(async () => {
  // After the restart (test 5) by_lightbulb.py ran 1/1 and reads_file.py 3/3; needs_package.py has not run.
  await openFile('by_lightbulb.py', 'record_line.strip()');
  await until('"Runnable 1/1" for by_lightbulb.py', async () => (await statusText()).includes('Runnable 1/1'), 10000);
  await openFile('needs_package.py', 'humanize.naturalsize');
  await until('no run for needs_package.py', async () => (await statusText()) === 'Runnable', 10000);
  await openFile('reads_file.py', 'handle.read().splitlines()');
  await until('"Runnable 3/3" for reads_file.py', async () => (await statusText()).includes('Runnable 3/3'), 10000);
}));
