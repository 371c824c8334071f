// Builds the bundles: the extension host (Node, CommonJS, `vscode` external), the chat
// webview (browser, IIFE) and the `ksm` command line (dist/cli.js, Node; in the VSIX and the npm package). Types are checked by `tsc --noEmit` (esbuild strips them).
// `--outdir DIR` builds elsewhere than dist/ (the activation benchmark uses it); `--cli-only`
// builds just the command line (bin/ksm.js uses it when dist/cli.js is stale).
import * as esbuild from 'esbuild';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const outdirFlag = process.argv.indexOf('--outdir');
const outdir = outdirFlag > 0 ? process.argv[outdirFlag + 1] : 'dist';

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
  { specifier: 'undici', out: 'undici', entry: 'node_modules/undici/index.js' },
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
 * The command line (and the MCP server it starts) ships inside the VSIX and in the npm
 * package (`npm pack`). It shares the extension's vendor files (undici, the lockfile, the
 * atomic writer: dist/vendor/) instead of carrying its own copies.
 */
const cliTarget = {
  ...common,
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  define: { 'process.env.KSM_CLI_VERSION': JSON.stringify(version) },
  plugins: [...common.plugins, lazyVendorPlugin],
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
  {
    ...common,
    entryPoints: { extension: 'src/extension.ts' },
    outdir,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [...common.plugins, lazyVendorPlugin, vscodeOncePlugin],
  },
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
  cliTarget,
];
const cliOnly = process.argv.includes('--cli-only');
const targets = cliOnly ? [cliTarget, ...vendorTargets] : allTargets;

// A production build starts clean so no stale source map or old chunk reaches the VSIX
// (`--cli-only` leaves the extension's bundles alone: `npm pack` builds only the CLI).
if (production && !cliOnly) rmSync(outdir, { recursive: true, force: true });

if (watch) {
  const contexts = await Promise.all(targets.map((t) => esbuild.context(t)));
  await Promise.all(contexts.map((c) => c.watch()));
  // Type errors come from tsc in parallel, matched by `$tsc-watch`.
  spawn('npx', ['tsc', '-p', '.', '--noEmit', '--watch', '--preserveWatchOutput'], { stdio: 'inherit' });
  spawn('npx', ['tsc', '-p', 'src/webview', '--noEmit', '--watch', '--preserveWatchOutput'], { stdio: 'inherit' });
} else {
  await Promise.all(targets.map((t) => esbuild.build(t)));
}
