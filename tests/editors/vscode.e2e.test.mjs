// End to end in a real VS Code: code-server 4.100.3 (VS Code 1.100.3) driven
// by headless Chromium. Installs the built .vsix, opens a copy of
// tests/fixtures/string_from_methods.py, selects its fragment, runs
// "Runnable: Make Selection Runnable" from the command palette and checks the
// prefix in the editor and on disk, the coverage inlay hints, and the
// status-bar coverage. Saves docs/vscode.png.
//
// Env: CODE_SERVER (the code-server binary), RUNNABLE_VSIX, RUNNABLE_BIN_DIR
// (folder holding the `runnable` binary, put on PATH), CHROMIUM
// (default /usr/bin/chromium), SCREENSHOT (default docs/vscode.png).
import { test, after } from 'node:test';
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

async function until(what, fn, timeoutMs = 30000, everyMs = 250) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      if (/the run ended/.test(e.message)) throw e;
      last = e;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last})`);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'runnable-vscode-'));
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
      const toasts = await page.locator('.notification-toast').allTextContents();
      console.log(`# notifications: ${JSON.stringify(toasts)}`);
      console.log(`# status bar: ${(await page.locator('.statusbar').textContent()).replace(/\s+/g, ' ')}`);
    }
  } catch (e) {
    console.log(`# (no screenshot: ${e.message})`);
  }
  const logs = [];
  const walk = (d) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/Runnable|exthost\.log|remoteexthost\.log/.test(e.name)) logs.push(p);
    }
  };
  walk(path.join(tmp, 'user-data', 'logs'));
  for (const p of [...logs, path.join(tmp, 'code-server.log')]) {
    if (!fs.existsSync(p)) continue;
    const text = fs.readFileSync(p, 'utf8').split('\n').slice(-60).join('\n# ');
    console.log(`# ---- ${p}\n# ${text}`);
  }
}

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
async function editorLines(page) {
  return page.evaluate(() => {
    const lines = [...document.querySelectorAll('.editor-instance .view-lines .view-line')];
    lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
    return lines.map((l) => l.textContent.replace(/\u00a0/g, ' '));
  });
}

test('VS Code: Make Selection Runnable inserts the prefix, shows hints and coverage', { timeout: 240000 }, async () => {
  try {
    await scenario();
  } catch (e) {
    failed = true;
    throw e;
  }
});

async function scenario() {
  for (const [what, p] of [['code-server', CODE_SERVER], ['the .vsix', VSIX], ['runnable', path.join(BIN_DIR, 'runnable')], ['chromium', CHROMIUM]]) {
    assert.ok(fs.existsSync(p), `${what} not found at ${p}`);
  }
  const home = path.join(tmp, 'home');
  const userData = path.join(tmp, 'user-data');
  const extensions = path.join(tmp, 'extensions');
  const workspace = path.join(tmp, 'workspace');
  for (const d of [home, path.join(userData, 'User'), extensions, workspace]) fs.mkdirSync(d, { recursive: true });
  const file = path.join(workspace, 'string_from_methods.py');
  const original = fs.readFileSync(FIXTURE, 'utf8');
  fs.writeFileSync(file, original);
  fs.writeFileSync(
    path.join(userData, 'User/settings.json'),
    JSON.stringify(
      {
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
      },
      null,
      2,
    ),
  );
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

  log('opening the fixture');
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'string_from_methods.py' });
  await row.waitFor({ timeout: 60000 });
  await row.dblclick();
  await until('the editor shows the fixture', async () => (await editorLines(page)).some((l) => l.includes('record_line.strip()')));
  await until('the extension is running', async () => (await page.locator('.statusbar').textContent()).includes('Runnable'), 30000);

  log('selecting the fragment (lines 2-3) and running the command');
  await page.locator('.editor-instance .view-lines').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Control+Shift+End');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill('>Runnable: Make Selection Runnable');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Make Selection Runnable' }).first().waitFor();
  await page.keyboard.press('Enter');

  const started = Date.now();
  await until('the status bar shows the coverage', async () => {
    const text = await page.locator('.statusbar').textContent();
    if (/Runnable (failed|cancelled)/.test(text)) throw new Error(`the run ended: ${text.slice(0, 200)}`);
    return /Runnable 2\/2/.test(text);
  }, 90000);
  log(`run finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // The prefix is in the editor above the fragment.
  const lines = await until('the prefix in the editor', async () => {
    const l = await editorLines(page);
    return l.some((x) => x.startsWith('record_line = ')) && l;
  });
  const prefixAt = lines.findIndex((l) => l.startsWith('record_line = '));
  assert.equal(lines[0], original.split('\n')[0], 'the comment above the selection stays first');
  assert.ok(prefixAt >= 1, `prefix inserted below the first line: ${JSON.stringify(lines)}`);

  // Coverage inlay hints on the fragment's two statements (rendered inline).
  const hinted = await until('coverage inlay hints', async () => {
    const l = await editorLines(page);
    const h = l.filter((x) => /ran ×\d+/.test(x));
    return h.length >= 2 && h;
  }, 20000);
  assert.ok(hinted.some((l) => l.includes('fields = record_line.strip()')), `hint on the first statement: ${JSON.stringify(hinted)}`);
  assert.ok(hinted.some((l) => l.includes('print(len(fields)')), `hint on the second statement: ${JSON.stringify(hinted)}`);
  const hintCount = await page.locator('.editor-instance .view-lines [class*="dyn-rule"], .editor-instance .view-lines span[class*="inlay"]').count();
  log(`inlay hint elements: ${hintCount}`);

  // Saved, the file on disk holds the prefix and the fragment unchanged, and no hint text.
  await page.keyboard.press('Control+S');
  const saved = await until('the saved file', async () => {
    const t = fs.readFileSync(file, 'utf8');
    return t.includes('record_line = ') && t;
  }, 15000);
  assert.ok(saved.includes(original.split('\n').slice(1).join('\n')), `the fragment is unchanged on disk:\n${saved}`);
  assert.ok(!saved.includes('ran ×'), 'hints are not text');
  const status = await page.locator('.statusbar-item', { hasText: 'Runnable' }).first().innerText();
  log(`status bar: ${status.trim()}`);

  // Clear the selection so the hints read well in the screenshot.
  await page.keyboard.press('Control+End');
  await page.mouse.move(900, 400);
  await sleep(500);
  fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT });
  log(`screenshot: ${path.relative(repo, SCREENSHOT)}`);
}
