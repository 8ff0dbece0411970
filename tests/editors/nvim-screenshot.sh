#!/usr/bin/env bash
# Takes docs/nvim.png: a real (non-headless) Neovim in a 100x24 tmux pane
# makes the fixture's fragment runnable; the pane is captured with its
# colours, rendered to HTML (ansi2html.py) and photographed by headless
# Chromium. Env: NVIM, RUNNABLE_BIN_DIR, CHROMIUM, SCREENSHOT.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
NVIM=${NVIM:-$(command -v nvim)}
BIN_DIR=${RUNNABLE_BIN_DIR:-$REPO/target/debug}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
OUT=${SCREENSHOT:-$REPO/docs/nvim.png}
COLS=100 ROWS=20
TMP=$(mktemp -d /tmp/runnable-nvim-shot-XXXXXX)
SOCK="$TMP/tmux.sock"
cleanup() { tmux -S "$SOCK" kill-server 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT
mkdir -p "$TMP/work" "$TMP/state" "$TMP/config" "$TMP/data"
cp tests/fixtures/string_from_methods.py "$TMP/work/"

tmux -S "$SOCK" -f /dev/null new-session -d -s shot -x "$COLS" -y "$ROWS" -c "$TMP/work" \
  env TERM=tmux-256color COLORTERM=truecolor PATH="$BIN_DIR:$PATH" \
  XDG_CONFIG_HOME="$TMP/config" XDG_STATE_HOME="$TMP/state" XDG_DATA_HOME="$TMP/data" \
  RUNNABLE_SHOT_DONE="$TMP/done" RUNNABLE_RUN_POLICY=always \
  "$NVIM" --clean -i NONE --cmd "lua vim.g.runnable = { settings = { runPolicy = vim.env.RUNNABLE_RUN_POLICY } }" --cmd "set rtp^=$REPO/editors/nvim" \
  -c "luafile $REPO/tests/editors/nvim-screenshot.lua" string_from_methods.py
for _ in $(seq 1 600); do
  [ -f "$TMP/done" ] && break
  sleep 0.1
done
[ -f "$TMP/done" ] || { echo "nvim-screenshot: the run did not finish" >&2; tmux -S "$SOCK" capture-pane -p -t shot >&2; exit 1; }
sleep 0.5
tmux -S "$SOCK" capture-pane -e -p -t shot >"$TMP/screen.txt"
grep -q "= \['The quick" "$TMP/screen.txt" || { echo "nvim-screenshot: no inlay hint on screen" >&2; cat "$TMP/screen.txt" >&2; exit 1; }
python3 tests/editors/ansi2html.py "$TMP/screen.txt" "$TMP/screen.html" --cols "$COLS" --rows "$ROWS"
mkdir -p "$(dirname "$OUT")"
"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
  --no-first-run --disable-background-networking --disable-component-update \
  --user-data-dir="$TMP/chromium" --window-size=940,440 --screenshot="$OUT" "file://$TMP/screen.html" >/dev/null 2>&1
[ -s "$OUT" ] || { echo "nvim-screenshot: chromium wrote no $OUT" >&2; exit 1; }
echo "nvim-screenshot: ${OUT#$REPO/}"
