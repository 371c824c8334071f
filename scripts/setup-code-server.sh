#!/usr/bin/env bash
# Installs code-server (a real VS Code, served to a browser) into a cache folder of its own,
# outside the extension's dependencies, for the end-to-end suite. Pinned: 4.100.3 is the
# newest code-server that runs on Node 20 (it bundles VS Code 1.100.3).
# The plain `npm install code-server` fails offline and as root; the three fixes below are
# measured in docs/notes (real-vscode-offline.md). A complete install writes a marker file
# last, so an interrupted install is redone instead of reused.
# Prints the code-server executable path as its last line of stdout; fails loudly (exit 1)
# naming what is missing — it never reports success without a usable code-server.
set -euo pipefail

VERSION=4.100.3
CACHE_ROOT="${KSM_E2E_CACHE:-$HOME/.cache/ksm-assistant-e2e}"
DIR="$CACHE_ROOT/code-server-$VERSION"
MARKER="$DIR/.install-complete"
BIN="$DIR/node_modules/code-server/out/node/entry.js"

fail() { echo "setup-code-server: FAILED: $*" >&2; exit 1; }
step() { echo "setup-code-server: $*" >&2; }

# The Debian packages it builds with (and Chromium) are listed once, in provision.sh.
bash "$(dirname "$0")/provision.sh" --check || fail "prerequisites missing (see above)."

if [ -f "$MARKER" ] && [ -f "$BIN" ]; then
  step "reusing $DIR"
  echo "$DIR/node_modules/.bin/code-server"
  exit 0
fi

started=$(date +%s)
step "installing code-server $VERSION into $DIR (takes minutes; log: $DIR.install.log)"
rm -rf "$DIR"
mkdir -p "$DIR"
cd "$DIR"
echo '{"name":"ksm-e2e-code-server","private":true}' > package.json
export npm_config_yes=true npm_config_unsafe_perm=true npm_config_fund=false npm_config_audit=false
# node-gyp downloads Node's headers unless told where they are, and that download is
# blocked offline: point it at the headers installed with this Node (nodejs ships them in
# <prefix>/include/node) unless the caller chose a nodedir.
node_prefix=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
if [ -z "${npm_config_nodedir:-}" ] && [ -f "$node_prefix/include/node/node.h" ]; then
  export npm_config_nodedir="$node_prefix"
fi
{
  # 1. Without scripts: code-server's postinstall refuses root and would download ripgrep.
  npm install --ignore-scripts --no-save "code-server@$VERSION"
  cd node_modules/code-server/lib/vscode
  npm install --ignore-scripts --omit=dev
  # 2. @vscode/ripgrep's postinstall skips its GitHub download when bin/ already exists.
  mkdir -p node_modules/@vscode/ripgrep/bin
  cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  # 3. Native modules (node-pty, kerberos, …); node-pty calls npx, hence npm_config_yes.
  npm rebuild
  # What code-server's own postinstall.sh would do.
  ln -sfn node_modules node_modules.asar
  ln -sfn code-linux.sh bin/remote-cli/code-server
  ln -sfn browser-linux.sh bin/helpers/browser.sh
  (cd extensions && npm install --omit=dev)
  cd "$DIR"
  npm rebuild argon2
} >"$DIR.install.log" 2>&1 || fail "code-server install failed; last lines of $DIR.install.log:
$(tail -30 "$DIR.install.log")"

[ -f "$BIN" ] || fail "code-server entry point $BIN missing after install"
[ -x "$DIR/node_modules/.bin/code-server" ] || fail "code-server launcher missing after install"
"$DIR/node_modules/.bin/code-server" --version >/dev/null 2>&1 || fail "installed code-server does not start (--version failed)"
date -u +%FT%TZ > "$MARKER"
step "installed in $(( $(date +%s) - started ))s"
echo "$DIR/node_modules/.bin/code-server"
