// Compiles the runner extension and every test/integration/**/*.test.ts (one CommonJS
// bundle each, `vscode` and mocha external) for both launchers. Bundled per suite so a
// suite that fails to compile is named, and so `vscode` resolves from inside the runner's
// folder (the extension host ties `require('vscode')` to the extension by file path).
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';

export const RUNNER_DIR = resolve(__dirname);
export const REPO_ROOT = resolve(__dirname, '..', '..');
export const INTEGRATION_DIR = join(REPO_ROOT, 'test', 'integration');

/** test/integration/**\/*.test.ts, sorted, as absolute paths. */
export function integrationSuiteSources(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) found.push(path);
    }
  };
  walk(INTEGRATION_DIR);
  return found.sort();
}

/** Bundles the runner into `<extensionDir>/out/runner.js`. */
export async function buildRunner(extensionDir: string): Promise<string> {
  const outfile = join(extensionDir, 'out', 'runner.js');
  await build({ entryPoints: [join(RUNNER_DIR, 'src', 'runner.ts')], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], logLevel: 'error' });
  return outfile;
}

/** Bundles each integration suite into `<extensionDir>/out/tests/`; returns the bundles. */
export async function buildSuites(extensionDir: string): Promise<string[]> {
  const outputs: string[] = [];
  for (const source of integrationSuiteSources()) {
    const name = relative(INTEGRATION_DIR, source).replace(/[\\/]/g, '__').replace(/\.ts$/, '.js');
    const outfile = join(extensionDir, 'out', 'tests', name);
    try {
      await build({ entryPoints: [source], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'mocha'], sourcemap: 'inline', logLevel: 'error' });
    } catch (error) {
      throw new Error(`integration suite ${basename(source)} does not compile: ${(error as Error).message}`);
    }
    outputs.push(outfile);
  }
  return outputs;
}
