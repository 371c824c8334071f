#!/usr/bin/env bash
# `npm start`: builds the installable VSIX, then runs the local service emulator in the
# foreground so the extension has something to talk to. Ctrl+C stops the emulator.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci
npm run --silent package
vsix="ksm-assistant-$(node -p 'require("./package.json").version').vsix"
echo
echo "Built $vsix. Install it with:  code --install-extension $vsix"
echo "Then run 'KSM: Connect to Local Emulator' from the command palette."
echo
exec npm run --silent emulator -- "$@"
