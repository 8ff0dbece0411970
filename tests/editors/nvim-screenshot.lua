-- Startup script of tests/editors/nvim-screenshot.sh: a plain Neovim with
-- the plugin, which makes the fixture's fragment (lines 2-3) runnable as soon
-- as the server attaches and writes $RUNNABLE_SHOT_DONE when the run is over.
vim.o.number = true
vim.o.termguicolors = true
vim.o.laststatus = 2
vim.o.showmode = false
vim.o.statusline = " %f %m%=%{v:lua.require'runnable'.statusline()}  %l:%c "
vim.api.nvim_create_autocmd('LspAttach', {
  once = true,
  callback = function(ev)
    vim.defer_fn(function()
      vim.cmd('normal! 2GVj')
      vim.cmd('normal! \27')
      vim.cmd("'<,'>Runnable fix")
    end, 300)
  end,
})
vim.api.nvim_create_autocmd('User', {
  pattern = 'RunnableFinished',
  callback = function()
    vim.defer_fn(function()
      vim.cmd('normal! G')
      vim.fn.writefile({ 'done' }, vim.env.RUNNABLE_SHOT_DONE)
    end, 800)
  end,
})
