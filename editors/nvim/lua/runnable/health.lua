-- `:checkhealth runnable`

local M = {}
local health = vim.health

local function run(cmd)
  local ok, obj = pcall(function()
    return vim.system(cmd, { text = true }):wait(10000)
  end)
  if not ok then
    return nil, tostring(obj)
  end
  if obj.code ~= 0 then
    return nil, ('exit %s: %s'):format(obj.code, vim.trim((obj.stderr or '') .. (obj.stdout or '')))
  end
  return vim.trim((obj.stdout or '') .. (obj.stderr or ''))
end

function M.check()
  health.start('runnable: Neovim')
  local v = vim.version()
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok(('Neovim %d.%d.%d'):format(v.major, v.minor, v.patch))
  else
    health.error(('Neovim %d.%d.%d: 0.11 or later is required'):format(v.major, v.minor, v.patch))
  end

  health.start('runnable: configuration')
  local ok, cfg = pcall(require('runnable.config').get)
  if ok then
    health.ok('vim.g.runnable is valid')
  else
    health.error(tostring(cfg), { 'Fix vim.g.runnable; see :help runnable-configuration' })
    cfg = require('runnable.config').defaults
  end

  health.start('runnable: server')
  local exe = vim.fn.exepath(cfg.server_path)
  if exe == '' then
    health.error(('server binary %q not found'):format(cfg.server_path), {
      'Install it: `cargo install --path server` in a checkout of Runnable (puts `runnable` in ~/.cargo/bin)',
      'or set vim.g.runnable = { server_path = "/path/to/runnable" }',
    })
  else
    local out, err = run({ exe, '--version' })
    if out then
      health.ok(('%s: %s'):format(exe, out))
    else
      health.error(('%s --version failed: %s'):format(exe, err))
    end
  end

  health.start('runnable: Python')
  local interpreter = require('runnable.config').server_settings(cfg).interpreter or 'python3'
  local py = vim.fn.exepath(interpreter)
  if py == '' then
    health.error(('interpreter %q not found'):format(interpreter), { 'Install Python 3 or set settings.interpreter' })
  else
    local out, err = run({ py, '--version' })
    if out then
      health.ok(('%s: %s'):format(py, out))
    else
      health.error(('%s --version failed: %s'):format(py, err))
    end
  end
  for _, tool in ipairs({ { 'uv', 'builds the environments; install with `pip install uv`' }, { 'bwrap', 'the sandbox; install bubblewrap' } }) do
    if vim.fn.executable(tool[1]) == 1 then
      health.ok(('%s found'):format(tool[1]))
    else
      health.warn(('%s not found: %s'):format(tool[1], tool[2]))
    end
  end

  health.start('runnable: clients')
  local clients = vim.lsp.get_clients({ name = 'runnable' })
  if #clients == 0 then
    health.warn('no runnable client is running', { 'Open a Python or Markdown file; check vim.g.runnable.autostart or call vim.lsp.enable("runnable")' })
    return
  end
  local per_buffer = {}
  for _, c in ipairs(clients) do
    local bufs = vim.tbl_keys(c.attached_buffers)
    table.sort(bufs)
    local names = vim.tbl_map(function(b)
      return ('%d (%s)'):format(b, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':~:.'))
    end, bufs)
    health.ok(('client %d (%s, root %s) attached to %s'):format(
      c.id,
      c.server_info and c.server_info.version and ('runnable ' .. c.server_info.version) or 'starting',
      c.root_dir or '-',
      #names > 0 and table.concat(names, ', ') or 'no buffer'
    ))
    for _, b in ipairs(bufs) do
      per_buffer[b] = (per_buffer[b] or 0) + 1
    end
  end
  local duplicated = false
  for b, n in pairs(per_buffer) do
    if n > 1 then
      duplicated = true
      health.error(('%d runnable clients are attached to buffer %d'):format(n, b), {
        'Configure the server once: either this plugin (autostart) or your own vim.lsp.config/lspconfig setup',
      })
    end
  end
  if not duplicated then
    health.ok('no duplicate clients')
  end
end

return M
