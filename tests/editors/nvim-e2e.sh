#!/usr/bin/env bash
# Runs tests/editors/nvim.e2e.lua in a headless Neovim with the plugin from
# editors/nvim and target/debug/runnable on PATH, in a throwaway HOME.
# Env: NVIM (default: nvim on PATH), RUNNABLE_BIN_DIR (default target/debug).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
NVIM=${NVIM:-nvim}
BIN_DIR=${RUNNABLE_BIN_DIR:-$REPO/target/debug}
TMP=$(mktemp -d /tmp/runnable-nvim-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/work" "$TMP/state" "$TMP/config" "$TMP/data"
cp tests/fixtures/string_from_methods.py "$TMP/work/"
cp tests/fixtures/string_from_methods.py "$TMP/work/by_code_action.py"
cp tests/editors/fixtures/quick_fixes.py "$TMP/work/"
# Neovim's own state (logs, shada) in the temp folder; Runnable's
# environments stay in the user cache.
XDG_CONFIG_HOME=$TMP/config XDG_STATE_HOME=$TMP/state XDG_DATA_HOME=$TMP/data \
PATH="$BIN_DIR:$PATH" \
RUNNABLE_E2E_FILE="$TMP/work/string_from_methods.py" \
RUNNABLE_E2E_FIXTURE="$REPO/tests/fixtures/string_from_methods.py" \
RUNNABLE_E2E_CACHE="$TMP/runnable-cache" \
  timeout 300 "$NVIM" --headless --clean -i NONE \
  --cmd "lua vim.g.runnable = { settings = { cacheDir = vim.env.RUNNABLE_E2E_CACHE, runPolicy = 'always' } }" \
  --cmd "set rtp^=$REPO/editors/nvim" \
  -c "luafile $REPO/tests/editors/nvim.e2e.lua" </dev/null 2>"$TMP/stderr" && rc=0 || rc=$?
# What Neovim echoed (progress, notifications), after the TAP lines.
sed 's/^/# nvim: /' "$TMP/stderr" | tr -s '\r' '\n'
echo
exit "$rc"
