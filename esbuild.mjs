// Builds the bundles: the extension host (Node, CommonJS, `vscode` external), the chat
// webview (browser, IIFE) and the `ksm` command line (dist/cli.js, Node; in the VSIX and the npm package). Types are checked by `tsc --noEmit` (esbuild strips them).
// `--outdir DIR` builds elsewhere than dist/ (the activation benchmark uses it); `--cli-only`
// builds just the command line (bin/ksm.js uses it when dist/cli.js is stale).
import * as esbuild from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const outdirFlag = process.argv.indexOf('--outdir');
const outdir = outdirFlag > 0 ? process.argv[outdirFlag + 1] : 'dist';
// `--metafile FILE` writes the node build's metafile (which source modules each output holds; test/build/bundles.test.ts reads it).
const metafileFlag = process.argv.indexOf('--metafile');
const metafilePath = metafileFlag > 0 ? process.argv[metafileFlag + 1] : undefined;

const requireFromHere = createRequire(import.meta.url);
/**
 * What loads at first use instead of at activation: the module specifier, its file under
 * dist/vendor/ and the file the vendor bundle is built from. Parsing these inside
 * extension.js would cost activation time even though they only run later, so each is
 * built as its own file and required at first use, and src/ imports them only with
 * `await import()` or from modules that load lazily (see src/common/core/lazyClient.ts).
 * undici is most of the extension's code but is needed only once a request is made; the
 * tokenizer (about 1 MB) only when VS Code's Chat counts tokens for a KSM model;
 * proper-lockfile and
 * write-file-atomic (with graceful-fs, retry and signal-exit under them, about 28 KB
 * minified) are needed only when a conversation or a sync manifest is first written, and
 * are imported only with `await import()`; inside extension.js they still cost parsing at
 * activation, which had crept past its 20 ms budget.
 */
const LAZY_VENDOR = [
  // undici: only what src/ uses (scripts/undici-vendor.mjs), not its index (fetch, WebSocket, caches, mocks).
  { specifier: 'undici', out: 'undici', entry: 'scripts/undici-vendor.mjs' },
  { specifier: 'gpt-tokenizer/encoding/cl100k_base', out: 'tokenizer', entry: 'node_modules/gpt-tokenizer/cjs/encoding/cl100k_base.js' },
  { specifier: 'proper-lockfile', out: 'lockfile', entry: requireFromHere.resolve('proper-lockfile') },
  { specifier: 'write-file-atomic', out: 'write-file-atomic', entry: requireFromHere.resolve('write-file-atomic') },
  // markdown-it (with entities and linkify-it, about 85 KB minified) is needed only by KSM: Read Last Answer.
  { specifier: 'markdown-it', out: 'markdown-it', entry: requireFromHere.resolve('markdown-it') },
];
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const lazyVendorPlugin = {
  name: 'lazy-vendor',
  setup(build) {
    for (const { specifier, out } of LAZY_VENDOR) {
      build.onResolve({ filter: new RegExp(`^${escapeRegExp(specifier)}$`) }, () => ({ path: `./vendor/${out}.js`, external: true }));
    }
  },
};

/**
 * Every `import * as vscode from 'vscode'` of an external CommonJS module makes esbuild copy
 * the whole API object's properties at that import site (`__toESM`), once per importing
 * file: 30-odd copies of a few hundred properties, measured at about a third of the
 * bundle's load time. Routing every import through one ESM module that re-exports
 * `vscode` makes the copy happen once.
 */
const VSCODE_ONCE = 'vscode-once';
const vscodeOncePlugin = {
  name: VSCODE_ONCE,
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (args) => (args.namespace === VSCODE_ONCE ? { path: 'vscode', external: true } : { path: 'vscode', namespace: VSCODE_ONCE }));
    build.onLoad({ filter: /.*/, namespace: VSCODE_ONCE }, () => ({ contents: "export * from 'vscode';", loader: 'js' }));
  },
};

/** Prints build problems in the format of the `$esbuild-watch` problem matcher. */
const problemMatcherPlugin = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of [...result.errors, ...result.warnings]) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      console.log('[watch] build finished');
    });
  },
};

const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: production ? 'none' : 'inline',
  plugins: watch ? [problemMatcherPlugin] : [],
};

const version = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version;

/**
 * The extension host and the command line (with the MCP server it starts) are one build with
 * code splitting: every source module lands in exactly one output file, so what both use
 * (the service client, the cores, retrieval) is shared instead of copied, and what the
 * extension reaches only through `await import()` (a feature's command bodies, views,
 * engines) becomes its own file, required at first use rather than parsed at activation.
 * esbuild splits only ES modules, and VS Code 1.100 loads only CommonJS extensions, so the
 * split build is written as ESM into a staging folder and each file is then rewritten as
 * CommonJS (`import` → `require`, `import()` → a `require` in a promise, so `vscode` always
 * resolves through VS Code's loader) into the output folder, keeping the source maps.
 * All of these files sit in the output folder's root beside extension.js and cli.js (named
 * `chunk-<hash>.js` or after their entry module), so their `./vendor/` paths hold. The
 * command line ships inside the VSIX and in the npm package (`npm pack`, see .npmignore).
 */
const NODE_ENTRIES = { extension: 'src/extension.ts', cli: 'src/cli/main.ts' };
const nodeStage = mkdtempSync(join(tmpdir(), 'ksm-esbuild-'));
/** How a staged ESM file is rewritten as CommonJS (the split build's files and the activation entry alike). */
const toCommonJsOptions = {
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // `import()` of our own files and the vendor files becomes `require`: VS Code's
  // loader, not Node's ESM loader, must resolve every `vscode` they import.
  supported: { 'dynamic-import': false },
  minify: production,
  sourcemap: common.sourcemap,
  sourcesContent: false,
  legalComments: common.legalComments,
  logLevel: 'warning',
};
const toCommonJs = {
  name: 'esm-to-cjs',
  setup(build) {
    build.onEnd(async (result) => {
      if (result.errors.length || !result.metafile) return;
      const outputs = Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js'));
      const keep = new Set();
      await Promise.all(
        outputs.map((file) => {
          const name = relative(nodeStage, resolve(file));
          keep.add(name);
          if (!production) keep.add(`${name}.map`);
          return esbuild.build({
            entryPoints: [resolve(file)],
            outfile: join(outdir, name),
            ...toCommonJsOptions,
            plugins: [siblingsExternal],
          });
        }),
      );
      await embedActivationChunks(result.metafile);
      // Outputs of an earlier build (other chunk hashes) would otherwise pile up and ship.
      for (const entry of readdirSync(outdir, { withFileTypes: true })) {
        if (entry.isFile() && /\.js(\.map)?$/.test(entry.name) && !keep.has(entry.name)) rmSync(join(outdir, entry.name));
      }
      if (metafilePath) {
        // Outputs named as they are in the output folder, imports of siblings likewise.
        const named = (file) => (resolve(file).startsWith(nodeStage) ? relative(nodeStage, resolve(file)) : file);
        const outputs = Object.entries(result.metafile.outputs).map(([file, output]) => [named(file), { ...output, imports: output.imports.map((i) => ({ ...i, path: named(i.path) })) }]);
        writeFileSync(metafilePath, JSON.stringify({ inputs: result.metafile.inputs, outputs: Object.fromEntries(outputs) }, null, 1));
      }
    });
  },
};
/**
 * The rewrite's inputs: every import stays a `require` of the file beside it. And
 * `import * as vscode from 'vscode'` becomes a plain `require('vscode')`: as a namespace
 * import esbuild would copy the whole API object's properties (`__toESM`) once per file
 * that imports it, measured at about a third of the activation time. The sources use
 * `vscode` only as a namespace of properties (lint: no default import of it), so the copy adds nothing.
 */
const VSCODE_NAMESPACE_IMPORT = /import\s*\*\s*as\s*([\w$]+)\s*from\s*"vscode";?/g;
const siblingsExternal = {
  name: 'siblings-external',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => (args.kind === 'entry-point' ? undefined : { path: args.path, external: true }));
    build.onLoad({ filter: /\.js$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(VSCODE_NAMESPACE_IMPORT, (_, name) => `const ${name} = require("vscode");`),
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};
/**
 * What activation loads in one file (issue 26, activation < 20 ms): each file a `require`
 * reads, resolves and compiles on its own, and the split build leaves extension.js with
 * a dozen small shared chunks it loads at once (the settings table, the error texts, the
 * contribution ids…: modules that lazily loaded files and the command line use too, so
 * esbuild cannot put them in extension.js). extension.js is therefore rebuilt from its
 * staged ESM with those chunks inside, and registers each of them in `require.cache` under
 * the chunk's own file name before anything else can load it: a lazily loaded file that
 * requires `./chunk-….js` later gets the same module instance (one settings cache, one
 * `instanceof` for errors), as Node documents for `require.cache` entries. The chunk files
 * stay in the output folder for the command line and to be resolved by the lazy files, so
 * these few kilobytes ship twice. test/architecture/bundles.test.ts checks that activation
 * reads one file and that the embedded chunks are the instances lazy files get.
 */
async function embedActivationChunks(metafile) {
  const stagedName = (file) => relative(nodeStage, resolve(file));
  const outputs = new Map(Object.entries(metafile.outputs).map(([file, output]) => [stagedName(file), output]));
  const atActivation = new Set();
  const visit = (name) => {
    if (atActivation.has(name) || !outputs.has(name)) return;
    atActivation.add(name);
    for (const i of outputs.get(name).imports) if (i.kind === 'import-statement') visit(stagedName(i.path));
  };
  visit('extension.js');
  atActivation.delete('extension.js');
  if (!atActivation.size) return;
  const chunks = [...atActivation].sort();
  const entry = [
    ...chunks.map((name, i) => `import * as chunk${i} from './${name}';`),
    `export * from './extension.js';`,
    `const Module = require('module');`,
    `const { join } = require('path');`,
    `for (const [name, ns] of [${chunks.map((name, i) => `[${JSON.stringify(name)}, chunk${i}]`).join(', ')}]) {`,
    `  const filename = join(__dirname, name);`,
    `  if (require.cache[filename]) continue;`,
    // The same shape as the chunk file's own module.exports (esbuild's __toCommonJS).
    `  const exports = Object.defineProperty({}, '__esModule', { value: true });`,
    `  for (const key of Object.keys(ns)) Object.defineProperty(exports, key, { get: () => ns[key], enumerable: true });`,
    `  const chunk = new Module(filename, module);`,
    `  chunk.filename = filename;`,
    `  chunk.paths = module.paths;`,
    `  chunk.exports = exports;`,
    `  chunk.loaded = true;`,
    `  require.cache[filename] = chunk;`,
    `}`,
  ].join('\n');
  const embedded = new Set(['extension.js', ...chunks].map((name) => join(nodeStage, name)));
  await esbuild.build({
    stdin: { contents: entry, resolveDir: nodeStage, sourcefile: 'extension-entry.js', loader: 'js' },
    outfile: join(outdir, 'extension.js'),
    ...toCommonJsOptions,
    plugins: [
      {
        name: 'embed-activation-chunks',
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === 'entry-point') return undefined;
            const path = args.path.startsWith('.') ? resolve(args.resolveDir, args.path) : args.path;
            return embedded.has(path) ? { path } : { path: args.path, external: true };
          });
          build.onLoad({ filter: /\.js$/ }, async (args) => ({
            contents: (await readFile(args.path, 'utf8')).replace(VSCODE_NAMESPACE_IMPORT, (_, name) => `const ${name} = require("vscode");`),
            loader: 'js',
            resolveDir: dirname(args.path),
          }));
        },
      },
    ],
  });
}

const nodeTarget = {
  ...common,
  entryPoints: NODE_ENTRIES,
  outdir: nodeStage,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['vscode'],
  metafile: true,
  define: { 'process.env.KSM_CLI_VERSION': JSON.stringify(version) },
  plugins: [...common.plugins, lazyVendorPlugin, toCommonJs],
};
const vendorTargets = LAZY_VENDOR.map(({ out, entry }) => ({
  ...common,
  entryPoints: { [`vendor/${out}`]: entry },
  outdir,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
}));

const allTargets = [
  nodeTarget,
  ...vendorTargets,
  {
    ...common,
    entryPoints: { 'webview/chat': 'src/webview/main.ts', 'webview/chat-style': 'src/webview/chat.css' },
    outdir,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    tsconfig: 'src/webview/tsconfig.json',
  },
];
// The command line and the extension share their files, so `--cli-only` builds both (not the webview).
const cliOnly = process.argv.includes('--cli-only');
const targets = cliOnly ? [nodeTarget, ...vendorTargets] : allTargets;

// A production build starts clean so no stale source map or old chunk reaches the VSIX
// (`--cli-only` leaves the webview's bundles alone: `npm pack` builds only the node bundles).
if (production && !cliOnly) rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

if (watch) {
  const contexts = await Promise.all(targets.map((t) => esbuild.context(t)));
  await Promise.all(contexts.map((c) => c.watch()));
  // Type errors come from tsc in parallel, matched by `$tsc-watch`.
  spawn('npx', ['tsc', '-p', '.', '--noEmit', '--watch', '--preserveWatchOutput'], { stdio: 'inherit' });
  spawn('npx', ['tsc', '-p', 'src/webview', '--noEmit', '--watch', '--preserveWatchOutput'], { stdio: 'inherit' });
} else {
  try {
    await Promise.all(targets.map((t) => esbuild.build(t)));
  } finally {
    rmSync(nodeStage, { recursive: true, force: true });
  }
}
