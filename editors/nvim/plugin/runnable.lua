-- Runnable: make a selected Python fragment runnable (`runnable lsp`).
if vim.g.loaded_runnable then
  return
end
vim.g.loaded_runnable = 1

if vim.fn.has('nvim-0.11') == 0 then
  vim.notify_once('runnable: Neovim 0.11 or later is required', vim.log.levels.ERROR)
  return
end

vim.api.nvim_create_user_command('Runnable', function(opts)
  require('runnable.commands').run(opts)
end, {
  nargs = '*',
  range = true,
  desc = 'Runnable: fix (make the range runnable), report, hints on|off, cancel, restart',
  complete = function(...)
    return require('runnable.commands').complete(...)
  end,
})

local group = vim.api.nvim_create_augroup('runnable', { clear = true })
vim.api.nvim_create_autocmd('LspProgress', {
  group = group,
  callback = function(ev)
    require('runnable').on_progress(ev)
  end,
})

-- Also when the server was configured by hand (without lsp/runnable.lua).
if not vim.lsp.handlers['runnable/runFinished'] then
  vim.lsp.handlers['runnable/runFinished'] = function(...)
    return require('runnable').on_run_finished(...)
  end
end

local ok, cfg = pcall(require('runnable.config').get)
if not ok then
  vim.notify('runnable: ' .. tostring(cfg), vim.log.levels.ERROR)
elseif cfg.autostart then
  vim.lsp.enable('runnable')
end
