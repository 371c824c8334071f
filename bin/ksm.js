#!/usr/bin/env node
// Launcher for the `ksm` command line (package.json "bin"). From a clone, `npx ksm …` runs
// this; it (re)builds dist/cli.js with esbuild when the bundle is missing or older than any
// source under src/, so a fresh `npm ci` or a `git pull` never runs a stale CLI.
'use strict';
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const bundle = join(root, 'dist', 'cli.js');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const sources = join(root, 'src');
const stale = !existsSync(bundle) || (existsSync(sources) && newestSource(sources) > statSync(bundle).mtimeMs);
if (stale) {
  try {
    // Loaded only here: most runs find the bundle fresh and need no child process.
    require('node:child_process').execFileSync(process.execPath, [join(root, 'esbuild.mjs'), '--cli-only'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch {
    process.stderr.write('ksm: building the command line failed; run `npm ci` in the repository first.\n');
    process.exit(2);
  }
}
// Node 22.1+ keeps V8's compiled code of the bundle between runs (in its own cache folder,
// checked against the source); older Node has no such call and compiles as before.
require('node:module').enableCompileCache?.();
require(bundle);
