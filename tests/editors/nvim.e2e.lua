-- End to end in a real Neovim (headless): the plugin is loaded from
-- editors/nvim by the runner (`--cmd 'set rtp^=editors/nvim'`), `runnable`
-- is on PATH. Opens a copy of tests/fixtures/string_from_methods.py, runs
-- `:'<,'>Runnable fix` on its fragment and checks the edit, the inlay hints,
-- that vim.g.runnable's settings reach the server (cacheDir), the report,
-- `:Runnable hints off`, the configuration's validation, the code action
-- through vim.lsp.buf.code_action, the run question of runPolicy 'ask' (through
-- vim.ui.select), and `:checkhealth runnable`. Prints one `ok`/`not ok` line per check (TAP) and
-- exits non-zero on any failure.
--
-- Run by tests/editors/nvim-e2e.sh; FILE is the copy to open.

local file = assert(vim.env.RUNNABLE_E2E_FILE, 'RUNNABLE_E2E_FILE is not set')
local fixture = assert(vim.env.RUNNABLE_E2E_FIXTURE, 'RUNNABLE_E2E_FIXTURE is not set')

local out = io.stdout
local passed, failed, n = 0, 0, 0
local function report(ok, name, detail)
  n = n + 1
  if ok then
    passed = passed + 1
    out:write(('ok %d - %s\n'):format(n, name))
  else
    failed = failed + 1
    out:write(('not ok %d - %s\n'):format(n, name))
    if detail then
      out:write('  # ' .. tostring(detail):gsub('\n', '\n  # ') .. '\n')
    end
  end
  out:flush()
end
local function check(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  report(ok, name, err)
  return ok
end
local function finish()
  out:write(('1..%d\n'):format(n))
  out:flush()
  vim.cmd(failed == 0 and n > 0 and 'qa!' or 'cquit! 1')
end
local t0 = vim.uv.hrtime()
local function elapsed()
  return ('%.1f s'):format((vim.uv.hrtime() - t0) / 1e9)
end

local function lines(bufnr)
  return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

local original = vim.fn.readfile(fixture)
vim.cmd.edit(vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local client

check('the plugin defines :Runnable with subcommand completion', function()
  assert(vim.g.loaded_runnable == 1, 'plugin/runnable.lua was not loaded')
  assert(vim.fn.exists(':Runnable') == 2, ':Runnable is not defined')
  local subs = vim.fn.getcompletion('Runnable ', 'cmdline')
  for _, s in ipairs({ 'fix', 'report', 'hints', 'restart', 'cancel' }) do
    assert(vim.list_contains(subs, s), ('completion lacks %s: %s'):format(s, vim.inspect(subs)))
  end
  local hints = vim.fn.getcompletion('Runnable hints ', 'cmdline')
  assert(vim.deep_equal(hints, { 'on', 'off' }), vim.inspect(hints))
end)

check('lsp/runnable.lua is a vim.lsp.Config found by vim.lsp.config', function()
  local c = vim.lsp.config.runnable
  assert(c and c.cmd[2] == 'lsp', vim.inspect(c and c.cmd))
  assert(vim.deep_equal(c.filetypes, { 'python', 'markdown' }), vim.inspect(c.filetypes))
  assert(vim.list_contains(c.root_markers, '.git'))
end)

check('vim.g.runnable is validated', function()
  local config = require('runnable.config')
  local saved = vim.g.runnable
  vim.g.runnable = { settings = { installPolicy = 'sometimes' } }
  local ok, err = pcall(config.get)
  assert(not ok and tostring(err):find('installPolicy'), 'a bad installPolicy passes: ' .. tostring(err))
  vim.g.runnable = { settings = { runPolicy = 'sometimes' } }
  ok, err = pcall(config.get)
  assert(not ok and tostring(err):find('runPolicy'), 'a bad runPolicy passes: ' .. tostring(err))
  vim.g.runnable = { settings = { runPolicy = 'never' } }
  assert(config.server_settings(config.get()).runPolicy == 'never')
  vim.g.runnable = { settings = { colour = 1 } }
  ok, err = pcall(config.get)
  assert(not ok and tostring(err):find('colour'), 'an unknown key passes: ' .. tostring(err))
  vim.g.runnable = { server_path = 3 }
  ok = pcall(config.get)
  assert(not ok, 'a numeric server_path passes')
  vim.g.runnable = { settings = { installPolicy = 'never', hints = { values = true }, budgetSeconds = 30 } }
  local s = config.server_settings(config.get())
  assert(s.installPolicy == 'never' and s['hints.values'] == true and s.budgetSeconds == 30, vim.inspect(s))
  vim.g.runnable = saved
end)

local attached = check('the client attaches to the Python buffer', function()
  assert(vim.wait(20000, function()
    client = vim.lsp.get_clients({ bufnr = bufnr, name = 'runnable' })[1]
    return client ~= nil and client.initialized
  end, 50), 'no initialized runnable client after 20 s')
  out:write(('# attached after %s\n'):format(elapsed()))
end)

-- What the plugin echoes in the command line (progress), for the check below.
local echoed = {}
local real_echo = vim.api.nvim_echo
vim.api.nvim_echo = function(chunks, history, opts)
  local parts = {}
  for _, c in ipairs(chunks) do
    parts[#parts + 1] = c[1]
  end
  echoed[#echoed + 1] = table.concat(parts)
  return real_echo(chunks, history, opts)
end

local ran = attached and check(":'<,'>Runnable fix inserts the prefix above the fragment", function()
  -- Select the fragment (lines 2-3) in Visual line mode and leave it: '< and '> are set.
  vim.cmd('normal! 2GVj')
  vim.cmd('normal! \27')
  vim.cmd("'<,'>Runnable fix")
  local state = require('runnable')
  assert(vim.wait(120000, function()
    return state.last[bufnr] ~= nil
  end, 50), 'no runnable/runFinished after 120 s')
  local done = state.last[bufnr]
  out:write(('# run finished after %s: %s\n'):format(elapsed(), vim.inspect(done, { newline = ' ', indent = '' })))
  assert(done.status == 'completed', 'status ' .. tostring(done.status))
  assert(done.covered == 2 and done.executable == 2, ('coverage %s/%s'):format(done.covered, done.executable))
  assert(vim.wait(5000, function()
    return lines(bufnr)[2]:find('^record_line = ') ~= nil
  end, 50), 'no prefix on line 2:\n' .. table.concat(lines(bufnr), '\n'))
  local l = lines(bufnr)
  assert(l[1] == original[1], 'the comment above the selection moved')
  local tail = vim.list_slice(l, #l - (#original - 2), #l)
  assert(vim.deep_equal(tail, vim.list_slice(original, 2, #original)), 'the fragment changed:\n' .. table.concat(l, '\n'))
  assert(vim.b[bufnr].runnable and vim.b[bufnr].runnable.covered == 2, 'b:runnable not set')
  assert(state.statusline() == 'Runnable 2/2', state.statusline())
  local cache = vim.env.RUNNABLE_E2E_CACHE
  assert(vim.fn.isdirectory(cache) == 1 and #vim.fn.readdir(cache) > 0, 'vim.g.runnable.settings.cacheDir did not reach the server: ' .. cache)
end)

vim.api.nvim_echo = real_echo

local fragment_rows -- 0-based rows of the fragment after the edit
if ran then
  check('progress is echoed stage by stage: environment, running (run and time), exploring', function()
    local first = {}
    for i, e in ipairs(echoed) do
      local stage = e:match('^Runnable: (%a+)')
      if stage and not first[stage] then
        first[stage] = i
      end
    end
    local shown = vim.inspect(echoed)
    assert(first.environment and first.running and first.exploring, 'stages missing: ' .. shown)
    assert(first.environment < first.running and first.running < first.exploring, 'stages out of order: ' .. shown)
    assert(echoed[first.running]:find('^Runnable: running: run 1, %d+%.%d s$'), 'no run number and time: ' .. echoed[first.running])
    out:write(('# progress: %s\n'):format(table.concat(echoed, ' | ')))
  end)

  check('inlay hints are enabled: the first value of the fragment, no "ran ×1"', function()
    local l = lines(bufnr)
    fragment_rows = { #l - 2, #l - 1 }
    assert(vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr }), 'inlay hints were not enabled for the buffer')
    local hints
    local labels = {}
    assert(vim.wait(10000, function()
      hints = vim.lsp.inlay_hint.get({ bufnr = bufnr })
      labels = {}
      for _, h in ipairs(hints) do
        local label = h.inlay_hint.label
        if type(label) == 'table' then
          label = table.concat(vim.tbl_map(function(p) return p.value end, label))
        end
        labels[h.inlay_hint.position.line] = (labels[h.inlay_hint.position.line] or '') .. label
      end
      return (labels[fragment_rows[1]] or ''):find("^= %['The quick") ~= nil
    end, 50), 'no value hint on row ' .. fragment_rows[1] .. ': ' .. vim.inspect(hints))
    -- Both statements ran once: that needs no hint.
    for row, label in pairs(labels) do
      assert(not label:find('ran ×1'), ('"ran ×1" on row %d: %s'):format(row, label))
    end
    -- What the print wrote shows on its line.
    assert((labels[fragment_rows[2]] or ''):find('^› %d'), 'no output hint on the print line: ' .. vim.inspect(labels))
    out:write(('# %d inlay hints\n'):format(#hints))
  end)

  check('the provenance lens over the prefix says what was made up, with Keep and Remove', function()
    local titles
    assert(vim.wait(10000, function()
      pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
      titles = vim.tbl_map(function(l) return l.command and l.command.title end, vim.lsp.codelens.get(bufnr))
      return #titles >= 3
    end, 200), 'no code lenses: ' .. vim.inspect(titles))
    assert(titles[1]:find('^Runnable: ') and titles[1]:find('made up', 1, true), vim.inspect(titles))
    assert(vim.tbl_contains(titles, 'Keep') and vim.tbl_contains(titles, 'Remove'), vim.inspect(titles))
  end)

  check(':Runnable report opens the Markdown report', function()
    local before = vim.api.nvim_get_current_buf()
    vim.cmd('Runnable report')
    local name
    assert(vim.wait(10000, function()
      name = vim.api.nvim_buf_get_name(vim.api.nvim_get_current_buf())
      return name:find('%.report%.md$') ~= nil
    end, 50), 'no report buffer (current: ' .. tostring(name) .. ')')
    local text = table.concat(lines(0), '\n')
    assert(text:find('record_line'), 'the report does not name record_line:\n' .. text)
    vim.api.nvim_set_current_buf(before)
  end)

  check(':Runnable hints off turns the buffer hints off', function()
    vim.cmd('Runnable hints off')
    assert(not vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr }))
    vim.cmd('Runnable hints on')
    assert(vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr }))
  end)
end

if ran then
  check('vim.lsp.buf.code_action with the kind and apply = true runs it too', function()
    local other = vim.fs.joinpath(vim.fs.dirname(file), 'by_code_action.py')
    vim.cmd.edit(vim.fn.fnameescape(other))
    local b = vim.api.nvim_get_current_buf()
    assert(vim.wait(10000, function()
      return #vim.lsp.get_clients({ bufnr = b, name = 'runnable' }) == 1
    end, 50), 'the client did not attach to the second buffer')
    vim.api.nvim_win_set_cursor(0, { 2, 0 })
    vim.lsp.buf.code_action({ context = { only = { 'refactor.rewrite.makeRunnable' } }, apply = true })
    local state = require('runnable')
    assert(vim.wait(60000, function()
      return state.last[b] ~= nil
    end, 50), 'no runFinished for the code action')
    assert(state.last[b].status == 'completed', vim.inspect(state.last[b]))
    assert(vim.wait(5000, function()
      return table.concat(lines(b), '\n'):find('record_line = ', 1, true) ~= nil
    end, 50), 'no prefix:\n' .. table.concat(lines(b), '\n'))
    vim.api.nvim_set_current_buf(bufnr)
  end)

  check("the lens's Remove takes the prefix out again in one edit", function()
    local other = vim.fs.joinpath(vim.fs.dirname(file), 'by_code_action.py')
    local b = vim.fn.bufnr(other)
    vim.api.nvim_set_current_buf(b)
    local remove
    assert(vim.wait(10000, function()
      pcall(vim.lsp.codelens.refresh, { bufnr = b })
      for _, l in ipairs(vim.lsp.codelens.get(b)) do
        if l.command and l.command.title == 'Remove' then
          remove = l.command
        end
      end
      return remove ~= nil
    end, 200), 'no Remove lens')
    local c = vim.lsp.get_clients({ bufnr = b, name = 'runnable' })[1]
    c:exec_cmd(remove, { bufnr = b })
    assert(vim.wait(10000, function()
      return table.concat(lines(b), '\n'):find('record_line = ', 1, true) == nil
    end, 50), 'the prefix is still there:\n' .. table.concat(lines(b), '\n'))
    assert(vim.deep_equal(lines(b), original), 'not back to the original:\n' .. table.concat(lines(b), '\n'))
    vim.api.nvim_set_current_buf(bufnr)
  end)
end

check('quick fixes without a run: Add import, Create a sample file', function()
  local qf = vim.fs.joinpath(vim.fs.dirname(file), 'quick_fixes.py')
  vim.cmd.edit(vim.fn.fnameescape(qf))
  local b = vim.api.nvim_get_current_buf()
  assert(vim.wait(20000, function()
    return #vim.diagnostic.get(b, { namespace = nil }) >= 2
  end, 100), 'no diagnostics: ' .. vim.inspect(vim.diagnostic.get(b)))
  local function take(row, pattern)
    vim.api.nvim_win_set_cursor(0, { row, 4 })
    vim.lsp.buf.code_action({
      context = { only = { 'quickfix' } },
      filter = function(a) return a.title:find(pattern, 1, true) ~= nil end,
      apply = true,
    })
  end
  take(3, 'from tabulate import tabulate')
  assert(vim.wait(5000, function()
    return lines(b)[1] == 'from tabulate import tabulate'
  end, 50), 'no import:\n' .. table.concat(lines(b), '\n'))
  local sample = vim.fs.joinpath(vim.fs.dirname(qf), 'scores.csv')
  assert(vim.fn.filereadable(sample) == 0, 'scores.csv before the fix')
  assert(vim.wait(10000, function()
    return #vim.tbl_filter(function(d) return d.lnum == 4 end, vim.diagnostic.get(b)) > 0
  end, 100), 'no missing-file diagnostic on the open line')
  take(5, 'Create a sample `scores.csv`')
  assert(vim.wait(10000, function()
    return vim.fn.filereadable(sample) == 1
  end, 50), 'no scores.csv on disk')
  assert(vim.fn.readfile(sample)[1]:find(','), 'scores.csv is not CSV: ' .. vim.inspect(vim.fn.readfile(sample)))
  vim.api.nvim_set_current_buf(bufnr)
end)

check('server logs: no INFO shown as an error, no initializationOptions warning', function()
  local log = vim.lsp.get_log_path()
  local text = vim.fn.filereadable(log) == 1 and table.concat(vim.fn.readfile(log), '\n') or ''
  assert(not text:find('initializationOptions', 1, true), 'an initializationOptions warning:\n' .. text)
  assert(not text:find(' INFO ', 1, true), 'server INFO in the log (as stderr):\n' .. text)
end)

if ran then
  -- The server's questions (window/showMessageRequest) reach the user
  -- through Neovim's own handler, which calls vim.ui.select.
  check("runPolicy = 'ask' asks through vim.ui.select; Cancel runs and edits nothing", function()
    local state = require('runnable')
    local asked
    local select = vim.ui.select
    vim.ui.select = function(items, opts, on_choice)
      asked = { prompt = opts.prompt, titles = vim.tbl_map(function(i) return i.title end, items) }
      for i, item in ipairs(items) do
        if item.title == 'Cancel' then
          return on_choice(item, i)
        end
      end
      on_choice(nil)
    end
    state.setup({ settings = { runPolicy = 'ask' } })
    vim.api.nvim_set_current_buf(bufnr)
    local before = table.concat(lines(bufnr), '\n')
    vim.api.nvim_win_set_cursor(0, { #lines(bufnr), 0 })
    state.last[bufnr] = nil
    vim.cmd('Runnable fix')
    local finished = vim.wait(30000, function()
      return state.last[bufnr] ~= nil
    end, 50)
    vim.ui.select = select
    state.setup({ settings = { runPolicy = 'always' } })
    assert(asked, 'no question reached vim.ui.select')
    assert(asked.prompt:find('Run this code in the sandbox?', 1, true), asked.prompt)
    assert(vim.deep_equal(asked.titles, { 'Run', 'Always in this workspace', 'Cancel' }), vim.inspect(asked.titles))
    assert(finished, 'no runFinished after the question')
    assert(state.last[bufnr].status == 'cancelled', vim.inspect(state.last[bufnr]))
    assert(table.concat(lines(bufnr), '\n') == before, 'the buffer changed')
  end)
end

check(':checkhealth runnable reports no ERROR', function()
  vim.api.nvim_set_current_buf(bufnr)
  vim.cmd('checkhealth runnable')
  local text = table.concat(lines(0), '\n')
  out:write('# ' .. text:gsub('\n', '\n# ') .. '\n')
  assert(text:find('runnable: server'), 'the health check did not run')
  assert(text:find('client %d+'), 'the health check lists no client')
  assert(not text:find('ERROR'), 'the health check reports an ERROR')
end)

out:write(('# %d passed, %d failed in %s\n'):format(passed, failed, elapsed()))
finish()
