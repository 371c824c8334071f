#!/usr/bin/env bash
# `npm run bench`: every benchmark under bench/, one after another (they share 2 cores, so
# never in parallel). Each prints its figures as ratios against a baseline from the same run.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for file in bench/*.ts; do
  echo "=== $file ==="
  npx tsx "$file" || status=1
  echo
done
exit $status
