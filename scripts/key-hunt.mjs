// The key hunt (issue 11): after the mocha suite and the e2e run with a distinctive API key
// (KSM_E2E_API_KEY), that key must be found nowhere: not in test-results/ (mocha, webview
// and e2e logs, the extension's log kept per scenario, screenshots' folders) and not in the
// e2e run's VS Code user data (logs, global and workspace storage, conversation files) and
// workspace, which the e2e harness left in KSM_KEY_HUNT_DIR. Fails loudly, naming each file.
//
// Not searched, and why: the emulator's own logs (test-results/e2e/emulator.log, and one per
// e2e profile such as native-emulator.log) are the service's log, which prints the key it accepts at startup; the Chromium profiles are not
// kept (they hold VS Code's SecretStorage, the one place the key is meant to be).
//
// Usage: node scripts/key-hunt.mjs <key> <folder>...
import { readdirSync, readFileSync, lstatSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

const [key, ...roots] = process.argv.slice(2);
if (!key || key.length < 8) {
  console.error('key-hunt: give the distinctive key (at least 8 characters) and the folders to search');
  process.exit(2);
}
/** The emulator's own logs: emulator.log, and <profile>-emulator.log for each e2e profile. */
const isEmulatorLog = (name) => name === 'emulator.log' || name.endsWith('-emulator.log');

/** The key as bytes in every encoding a file may hold it in. */
const forms = new Map();
for (const [text, form] of [
  [key, 'as is'],
  [JSON.stringify(key).slice(1, -1), 'JSON-escaped'],
  [encodeURIComponent(key), 'URL-encoded'],
]) {
  if (!forms.has(text)) forms.set(text, form);
}
const needles = [...[...forms].map(([text, form]) => [form, Buffer.from(text, 'utf8')]), ['UTF-16', Buffer.from(key, 'utf16le')]];

const found = [];
let files = 0;
function walk(path) {
  let info;
  try {
    info = lstatSync(path);
  } catch {
    return;
  }
  if (info.isSymbolicLink()) return;
  if (info.isDirectory()) {
    for (const name of readdirSync(path)) walk(join(path, name));
    return;
  }
  if (!info.isFile() || isEmulatorLog(path.split(/[\\/]/).pop())) return;
  files++;
  const bytes = readFileSync(path);
  for (const [form, needle] of needles) if (bytes.includes(needle)) found.push(`${relative(process.cwd(), path)} (${form})`);
}

for (const root of roots) if (existsSync(root)) walk(root);
if (found.length > 0) {
  console.error(`\nKEY HUNT FAILED: the API key was found in ${found.length} place(s):`);
  for (const place of found) console.error(`  ${place}`);
  process.exit(1);
}
console.log(`key hunt: the key is in none of ${files} files under ${roots.filter(existsSync).join(', ') || '(no folder)'}`);
