-- Configuration: the `vim.g.runnable` table, validated with vim.validate.
--
--   vim.g.runnable = {
--     server_path = 'runnable',      -- the binary (a name on PATH or a path)
--     autostart = true,              -- vim.lsp.enable('runnable') when the plugin loads
--     progress = true,               -- echo the run's progress in the command line
--     settings = {                   -- the server's settings (docs/protocol.md), sent as
--       installPolicy = 'ask',       -- init_options and settings.runnable
--       runPolicy = 'ask',           -- 'ask' before the first run per workspace | 'always' | 'never'
--       hints = { coverage = true, values = true, output = true },
--     },
--   }

local M = {}

--- The server's settings keys (docs/protocol.md "Settings"); the editors'
--- consistency test compares them with the server and the VS Code extension.
M.SETTINGS_KEYS = {
  'interpreter',
  'cacheDir',
  'installPolicy',
  'runPolicy',
  'allowBuilds',
  'budgetSeconds',
  'resourceDir',
  'hints.coverage',
  'hints.values',
  'hints.output',
  'llm.enabled',
  'llm.endpoint',
  'llm.model',
  'llm.models.environment',
  'llm.models.exploration',
  'llm.models.evolution',
  'llm.maxCalls',
  'memory.enabled',
}

M.ACTION_KIND = 'refactor.rewrite.makeRunnable'
M.CMD_MAKE_RUNNABLE = 'runnable.makeRunnable'
M.CMD_SHOW_REPORT = 'runnable.showReport'
M.CMD_CANCEL = 'runnable.cancel'
M.RUN_FINISHED = 'runnable/runFinished'

M.defaults = {
  server_path = 'runnable',
  autostart = true,
  progress = true,
  settings = {},
}

local setting_types = {
  interpreter = { 'string', 'nil' },
  cacheDir = { 'string', 'nil' },
  installPolicy = function(v)
    return v == nil or v == 'ask' or v == 'never' or v == 'always', "'ask', 'never' or 'always'"
  end,
  runPolicy = function(v)
    return v == nil or v == 'ask' or v == 'always' or v == 'never', "'ask', 'always' or 'never'"
  end,
  allowBuilds = function(v)
    if v == nil then
      return true
    end
    if type(v) ~= 'table' then
      return false, 'a list of distribution names'
    end
    for _, name in ipairs(v) do
      if type(name) ~= 'string' then
        return false, 'a list of distribution names'
      end
    end
    return true
  end,
  budgetSeconds = function(v)
    return v == nil or (type(v) == 'number' and v > 0), 'a positive number'
  end,
  resourceDir = { 'string', 'nil' },
  ['hints.coverage'] = { 'boolean', 'nil' },
  ['hints.values'] = { 'boolean', 'nil' },
  ['hints.output'] = { 'boolean', 'nil' },
  ['llm.enabled'] = { 'boolean', 'nil' },
  ['llm.endpoint'] = { 'string', 'nil' },
  ['llm.model'] = { 'string', 'nil' },
  ['llm.models.environment'] = { 'string', 'nil' },
  ['llm.models.exploration'] = { 'string', 'nil' },
  ['llm.models.evolution'] = { 'string', 'nil' },
  ['llm.maxCalls'] = function(v)
    return v == nil or (type(v) == 'number' and v >= 0 and v % 1 == 0), 'a whole number'
  end,
  ['memory.enabled'] = { 'boolean', 'nil' },
}

--- Tables that group settings (`hints = {...}`, `llm = { models = {...} }`).
local GROUPS = { hints = true, llm = true, ['llm.models'] = true, memory = true }

--- Dotted view of a settings table: `{hints = {coverage = false}}` -> `{['hints.coverage'] = false}`.
local function flatten(settings, prefix, out)
  out = out or {}
  for k, v in pairs(settings) do
    local key = prefix and (prefix .. '.' .. k) or k
    if GROUPS[key] and type(v) == 'table' then
      flatten(v, key, out)
    else
      out[key] = v
    end
  end
  return out
end

--- The validated configuration (defaults merged with vim.g.runnable).
--- Raises an error naming the bad key.
function M.get()
  local user = vim.g.runnable
  if user == nil then
    user = {}
  end
  vim.validate('vim.g.runnable', user, 'table')
  local cfg = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), user)
  vim.validate('vim.g.runnable.server_path', cfg.server_path, 'string')
  vim.validate('vim.g.runnable.autostart', cfg.autostart, 'boolean')
  vim.validate('vim.g.runnable.progress', cfg.progress, 'boolean')
  vim.validate('vim.g.runnable.settings', cfg.settings, 'table')
  for key, value in pairs(flatten(cfg.settings)) do
    local check = setting_types[key]
    if not check then
      error(('vim.g.runnable.settings: unknown key %q (known: %s)'):format(key, table.concat(M.SETTINGS_KEYS, ', ')), 0)
    end
    vim.validate('vim.g.runnable.settings.' .. key, value, check)
  end
  return cfg
end

--- The object the server reads (dotted keys, only those the user set;
--- the server applies its defaults to the rest).
function M.server_settings(cfg)
  return flatten((cfg or M.get()).settings)
end

return M
