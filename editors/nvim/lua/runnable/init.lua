-- Runtime state of the plugin: the last run of each buffer, the handler of
-- `runnable/runFinished`, progress echo, and a statusline component.

local M = {}

--- Last `runnable/runFinished` params per buffer.
---@type table<integer, {uri: string, version: integer, status: string, covered: integer, executable: integer, ratio: number, denied: table[], network: boolean, error?: string}>
M.last = {}
--- URI of the last finished run (for `:Runnable report`).
M.last_uri = nil
--- Buffers whose inlay hints the user turned off with `:Runnable hints off`.
M.hints_off = {}

--- Optional: `require('runnable').setup({...})` merges opts into vim.g.runnable,
--- validates it, honours `autostart` and sends the settings to running servers.
function M.setup(opts)
  local config = require('runnable.config')
  vim.g.runnable = vim.tbl_deep_extend('force', vim.g.runnable or {}, opts or {})
  local cfg = config.get()
  vim.lsp.enable('runnable', cfg.autostart)
  local settings = { runnable = config.server_settings(cfg) }
  for _, client in ipairs(vim.lsp.get_clients({ name = 'runnable' })) do
    client.settings = settings
    client:notify('workspace/didChangeConfiguration', { settings = settings })
  end
end

--- Statuses of a run that produced no result (`refused`: runPolicy is 'never').
function M.nothing_ran(status)
  return status == 'failed' or status == 'cancelled' or status == 'refused'
end

--- Handler of the `runnable/runFinished` notification.
function M.on_run_finished(err, result, _ctx)
  if err or type(result) ~= 'table' or not result.uri then
    return
  end
  local bufnr = vim.uri_to_bufnr(result.uri)
  M.last[bufnr] = result
  M.last_uri = result.uri
  if vim.api.nvim_buf_is_loaded(bufnr) then
    vim.b[bufnr].runnable = { status = result.status, covered = result.covered, executable = result.executable }
    if not M.hints_off[bufnr] and not M.nothing_ran(result.status) then
      vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
    end
    -- The provenance lens over the prefix (Keep / Remove: `vim.lsp.codelens.run()`).
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
  end
  local level = vim.log.levels.INFO
  local text
  if M.nothing_ran(result.status) then
    text = ('Runnable: %s'):format(result.status)
    level = result.status == 'failed' and vim.log.levels.ERROR or vim.log.levels.WARN
  else
    text = ('Runnable %d/%d (%s)'):format(result.covered or 0, result.executable or 0, result.status)
    if result.status ~= 'completed' then
      level = vim.log.levels.WARN
    end
  end
  if result.error and result.error ~= vim.NIL then
    text = text .. ': ' .. tostring(result.error)
  end
  vim.notify(text, level)
  vim.api.nvim_exec_autocmds('User', { pattern = 'RunnableFinished', data = result, modeline = false })
end

--- `LspProgress` callback: echo the run's progress in the command line.
function M.on_progress(ev)
  local client = vim.lsp.get_client_by_id(ev.data.client_id)
  if not client or client.name ~= 'runnable' then
    return
  end
  local ok, cfg = pcall(require('runnable.config').get)
  if ok and not cfg.progress then
    return
  end
  local value = ev.data.params.value or {}
  local text = value.message or value.title or ''
  if value.kind == 'end' then
    text = 'done: ' .. text
  end
  vim.api.nvim_echo({ { 'Runnable: ', 'Title' }, { text } }, false, {})
end

--- Statusline component: "Runnable 11/12" for the current buffer after a run.
function M.statusline()
  local r = M.last[vim.api.nvim_get_current_buf()]
  if not r then
    return ''
  end
  if M.nothing_ran(r.status) then
    return 'Runnable ' .. r.status
  end
  return ('Runnable %d/%d'):format(r.covered or 0, r.executable or 0)
end

return M
