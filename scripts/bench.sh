#!/usr/bin/env bash
# `npm run bench`: every benchmark under bench/, one after another (they share 2 cores, so
# never in parallel). Each prints its figures as ratios against a baseline from the same run,
# every line with the load average it was measured under (bench/support/loadStamp.ts).
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for file in bench/*.ts; do
  echo "=== $file ==="
  npx tsx --import ./bench/support/loadStamp.ts "$file" || status=1
  echo
done
exit $status
