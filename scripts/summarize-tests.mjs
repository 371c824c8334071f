// Adds up mocha's "N passing / N failing / N pending" lines from the stage logs and
// prints one closing line "N passed, N failed, N skipped", which CI reads.
import { readFileSync } from 'node:fs';

let passed = 0,
  failed = 0,
  skipped = 0;
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/^\s*(\d+) passing/gm)) passed += Number(m[1]);
  for (const m of text.matchAll(/^\s*(\d+) failing/gm)) failed += Number(m[1]);
  for (const m of text.matchAll(/^\s*(\d+) pending/gm)) skipped += Number(m[1]);
}
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed === 0 || failed > 0) process.exit(1);
