-- The `vim.lsp.Config` of `runnable lsp`, found by vim.lsp.config/enable
-- (Neovim 0.11+), with or without nvim-lspconfig: `vim.lsp.enable('runnable')`.
-- It is read again on every (re)start, so it follows `vim.g.runnable`.

local ok, config = pcall(require, 'runnable.config')
local cfg = ok and select(2, pcall(config.get)) or nil
if type(cfg) ~= 'table' then
  cfg = { server_path = 'runnable', settings = {} }
end
local settings = ok and config.server_settings(cfg) or {}
-- An empty Lua table is encoded as a JSON list; the server takes an object.
if next(settings) == nil then
  settings = vim.empty_dict()
end

---@type vim.lsp.Config
return {
  cmd = { cfg.server_path, 'lsp' },
  filetypes = { 'python', 'markdown' },
  root_markers = { 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', '.git' },
  init_options = settings,
  settings = { runnable = settings },
  handlers = {
    ['runnable/runFinished'] = function(...)
      return require('runnable').on_run_finished(...)
    end,
  },
}
