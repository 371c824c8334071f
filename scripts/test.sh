#!/usr/bin/env bash
# `npm test`: sets up what it needs (scripts/provision.sh), then every suite, in the order
# that fails fastest. Each stage must run tests; a stage that finds none fails (a test that
# did not run never counts as passed).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results
started=$(date +%s)

stage() { echo; echo "=== $1 ==="; }

stage "provision (Debian packages, cached code-server)"
bash scripts/provision.sh

stage "type check"
npm run --silent typecheck

stage "lint (layers: docs/architecture.md) and format (prettier --check)"
npm run --silent lint
npm run --silent format:check

stage "build"
node esbuild.mjs

stage "unit, emulator contract and client tests (mocha, real HTTP on loopback)"
npx mocha 2>&1 | tee test-results/mocha.log

if [ -f test/webview/.mocharc.json ]; then
  stage "webview tests (headless Chromium)"
  npx mocha --config test/webview/.mocharc.json 2>&1 | tee test-results/webview.log
fi

# Users run `ksm` under whatever Node they have; the machine has Node 20. The command-line and
# MCP suites run again with `ksm` (and only `ksm`) under the newest Node line: mocha and the
# emulator stay on Node 20, whose build of the emulator's native store they need.
stage "command line and MCP server again, ksm under Node 26 (scripts/setup-node.sh)"
cli_node="$(bash scripts/setup-node.sh 26 | tail -1)"
echo "ksm runs under Node $("$cli_node" --version) from $cli_node"
KSM_TEST_CLI_NODE="$cli_node" npx mocha --config test/cli/.mocharc.newest-node.json 2>&1 | tee test-results/cli-node26.log

# The key hunt (scripts/key-hunt.mjs): the e2e run uses this distinctive key and keeps its
# VS Code user data and workspace for the hunt, which must find the key nowhere.
export KSM_E2E_API_KEY="ksm-hunt-$(node -e 'process.stdout.write(require("crypto").randomBytes(9).toString("hex"))')"
export KSM_KEY_HUNT_DIR="$PWD/test-results/key-hunt-scratch"
rm -rf "$KSM_KEY_HUNT_DIR"

if [ -f scripts/e2e.sh ]; then
  stage "end-to-end tests (real VS Code: code-server in Chromium)"
  bash scripts/e2e.sh 2>&1 | tee test-results/e2e.log
fi

stage "key hunt: the API key in no log, storage folder or conversation file"
node scripts/key-hunt.mjs "$KSM_E2E_API_KEY" test-results "$KSM_KEY_HUNT_DIR"
rm -rf "$KSM_KEY_HUNT_DIR"

node scripts/summarize-tests.mjs test-results/*.log
echo "total time: $(( $(date +%s) - started ))s"
