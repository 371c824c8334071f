// Builds the bundles: the extension host (Node, CommonJS, `vscode` external), the chat
// webview (browser, IIFE) and the `ksm` command line (dist/cli.js, Node; never in the VSIX). Types are checked by `tsc --noEmit` (esbuild strips them).
// `--outdir DIR` builds elsewhere than dist/ (the activation benchmark uses it); `--cli-only`
// builds just the command line (bin/ksm.js uses it when dist/cli.js is stale).
import * as esbuild from 'esbuild';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const outdirFlag = process.argv.indexOf('--outdir');
const outdir = outdirFlag > 0 ? process.argv[outdirFlag + 1] : 'dist';

/**
 * undici is most of the extension's code but is needed only once a request is made.
 * The tokenizer (gpt-tokenizer's cl100k_base, about 1 MB) is needed only when VS Code's
 * Chat counts tokens for a KSM model; it gets the same treatment.
 * Parsing it inside extension.js would cost activation ~10-20 ms even though it only
 * runs later, so it is built as its own file and required at first use (src/api imports
 * it only from modules that load lazily; see src/common/core/lazyClient.ts).
 */
const lazyVendorPlugin = {
  name: 'lazy-vendor',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, () => ({ path: './vendor/undici.js', external: true }));
    build.onResolve({ filter: /^gpt-tokenizer\/encoding\/cl100k_base$/ }, () => ({ path: './vendor/tokenizer.js', external: true }));
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

const cliTarget = {
  ...common,
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  define: { 'process.env.KSM_CLI_VERSION': JSON.stringify(version) },
};

const allTargets = [
  {
    ...common,
    entryPoints: { extension: 'src/extension.ts' },
    outdir,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [...common.plugins, lazyVendorPlugin],
  },
  {
    ...common,
    entryPoints: { 'vendor/undici': 'node_modules/undici/index.js' },
    outdir,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    entryPoints: { 'vendor/tokenizer': 'node_modules/gpt-tokenizer/cjs/encoding/cl100k_base.js' },
    outdir,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
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
const targets = process.argv.includes('--cli-only') ? [cliTarget] : allTargets;

// A production build starts clean so no stale source map or old chunk reaches the VSIX.
if (production) rmSync(outdir, { recursive: true, force: true });

if (watch) {
  const contexts = await Promise.all(targets.map((t) => esbuild.context(t)));
  await Promise.all(contexts.map((c) => c.watch()));
  // Type errors come from tsc in parallel, matched by `$tsc-watch`.
  spawn('npx', ['tsc', '-p', '.', '--noEmit', '--watch', '--preserveWatchOutput'], { stdio: 'inherit' });
  spawn('npx', ['tsc', '-p', 'src/webview', '--noEmit', '--watch', '--preserveWatchOutput'], { stdio: 'inherit' });
} else {
  await Promise.all(targets.map((t) => esbuild.build(t)));
}
