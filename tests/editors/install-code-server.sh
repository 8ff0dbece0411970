#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100.3, the last release for Node 20)
# into DIR without network access beyond the npm registry: the package's own
# install scripts fetch from GitHub, so they are skipped and their work is
# done here (see shared notes "Running a real VS Code in tests, offline").
# Needs Debian's chromium ripgrep libkrb5-dev, build-essential, python3.
# Usage: install-code-server.sh DIR   (skips when DIR/.complete exists)
set -euo pipefail

VERSION=4.100.3
DIR=${1:?usage: install-code-server.sh DIR}
if [ -f "$DIR/.complete" ]; then
  echo "code-server $VERSION: cached in $DIR"
  exit 0
fi
rm -rf "$DIR"
mkdir -p "$DIR"
export npm_config_nodedir=/usr npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
NODE_GYP="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
LOG="$DIR.log"
: >"$LOG"
trap 'echo "code-server install failed; last lines of $LOG:" >&2; tail -30 "$LOG" >&2' ERR
gyp() { (cd "$1" && node "$NODE_GYP" rebuild --nodedir=/usr >>"$LOG" 2>&1); }

echo "code-server $VERSION: installing into $DIR"
npm install -g --prefix "$DIR" --ignore-scripts --loglevel=error "code-server@$VERSION" >>"$LOG" 2>&1
CS="$DIR/lib/node_modules/code-server"

# argon2 (password hashing; loaded at start even with auth: none).
(cd "$CS/node_modules/argon2" && node ../@mapbox/node-pre-gyp/bin/node-pre-gyp rebuild --nodedir=/usr >>"$LOG" 2>&1)

# VS Code's own dependencies, from its shrinkwrap, with the native modules built here.
VS="$CS/lib/vscode"
(cd "$VS" && npm install --omit=dev --ignore-scripts --loglevel=error >>"$LOG" 2>&1)
mkdir -p "$VS/node_modules/@vscode/ripgrep/bin"
cp /usr/bin/rg "$VS/node_modules/@vscode/ripgrep/bin/rg"
for m in @vscode/spdlog native-watchdog node-pty kerberos @vscode/deviceid; do
  gyp "$VS/node_modules/$m"
done

# The links code-server's postinstall would make.
ln -sfn node_modules "$VS/node_modules.asar"
ln -sfn code-linux.sh "$VS/bin/remote-cli/code-server"
ln -sfn browser-linux.sh "$VS/bin/helpers/browser.sh"
(cd "$VS/extensions" && npm install --omit=dev --ignore-scripts --loglevel=error >>"$LOG" 2>&1)

"$DIR/bin/code-server" --version >/dev/null
touch "$DIR/.complete"
echo "code-server $VERSION: installed"
