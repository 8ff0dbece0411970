-- `:Runnable {fix|report|hints on|off|cancel|restart}`.

local config = require('runnable.config')
local M = {}

local function notify(msg, level)
  vim.notify('Runnable: ' .. msg, level or vim.log.levels.INFO)
end

---@return vim.lsp.Client?
local function client_for(bufnr)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'runnable' })[1]
  if not client then
    notify('no server attached to this buffer (see :checkhealth runnable)', vim.log.levels.ERROR)
  end
  return client
end

local function on_error(err)
  if err then
    notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
  end
end

--- Run "Make this runnable" on lines line1..line2 (1-based), or on the
--- statement under the cursor when no range is given. Sends the server's
--- command `runnable.makeRunnable` ({uri, version, range}); the server answers
--- at once, reports progress, applies the result as a workspace edit and
--- sends `runnable/runFinished` (which turns the inlay hints on).
function M.fix(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return
  end
  local range
  if opts.range > 0 then
    -- Whole lines: from the start of line1 to the start of the line after line2.
    range = { start = { line = opts.line1 - 1, character = 0 }, ['end'] = { line = opts.line2, character = 0 } }
  else
    local row = vim.api.nvim_win_get_cursor(0)[1] - 1
    range = { start = { line = row, character = 0 }, ['end'] = { line = row, character = 0 } }
  end
  local arg = { uri = vim.uri_from_bufnr(bufnr), version = vim.lsp.util.buf_versions[bufnr], range = range }
  client:exec_cmd({ title = 'Make this runnable', command = config.CMD_MAKE_RUNNABLE, arguments = { arg } }, { bufnr = bufnr }, on_error)
end

function M.report()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = vim.lsp.get_clients({ name = 'runnable' })[1]
  if not client then
    notify('the server is not running', vim.log.levels.ERROR)
    return
  end
  local state = require('runnable')
  local uri = state.last[bufnr] and state.last[bufnr].uri or state.last_uri
  client:exec_cmd({ title = 'Show report', command = config.CMD_SHOW_REPORT, arguments = uri and { { uri = uri } } or {} }, { bufnr = bufnr }, on_error)
end

function M.cancel()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if client then
    client:exec_cmd({ title = 'Cancel', command = config.CMD_CANCEL, arguments = { { uri = vim.uri_from_bufnr(bufnr) } } }, { bufnr = bufnr }, on_error)
  end
end

function M.hints(arg)
  local bufnr = vim.api.nvim_get_current_buf()
  if arg ~= 'on' and arg ~= 'off' then
    arg = vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr }) and 'off' or 'on'
  end
  require('runnable').hints_off[bufnr] = arg == 'off' or nil
  vim.lsp.inlay_hint.enable(arg == 'on', { bufnr = bufnr })
end

--- Stop the clients and start them again with the current vim.g.runnable.
function M.restart()
  local ok, err = pcall(config.get)
  if not ok then
    notify(tostring(err), vim.log.levels.ERROR)
    return
  end
  local clients = vim.lsp.get_clients({ name = 'runnable' })
  vim.lsp.enable('runnable', false)
  vim.wait(5000, function()
    for _, c in ipairs(clients) do
      if not c:is_stopped() then
        return false
      end
    end
    return true
  end, 50)
  vim.lsp.enable('runnable')
  notify('restarted')
end

M.subcommands = {
  fix = M.fix,
  report = function()
    M.report()
  end,
  cancel = function()
    M.cancel()
  end,
  hints = function(opts)
    M.hints(opts.fargs[2])
  end,
  restart = function()
    M.restart()
  end,
}

function M.run(opts)
  local name = opts.fargs[1] or 'fix'
  local sub = M.subcommands[name]
  if not sub then
    notify(('unknown subcommand %q (%s)'):format(name, table.concat(vim.tbl_keys(M.subcommands), ', ')), vim.log.levels.ERROR)
    return
  end
  sub(opts)
end

function M.complete(arglead, cmdline, _)
  local words = vim.split(cmdline:gsub('^%S*%s*', ''), '%s+', { trimempty = false })
  local candidates
  if #words <= 1 then
    candidates = vim.tbl_keys(M.subcommands)
    table.sort(candidates)
  elseif words[1] == 'hints' and #words == 2 then
    candidates = { 'on', 'off' }
  else
    return {}
  end
  return vim.tbl_filter(function(c)
    return vim.startswith(c, arglead)
  end, candidates)
end

return M
