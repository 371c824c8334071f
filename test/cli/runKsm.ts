// The built `ksm` (bin/ksm.js, which rebuilds dist/cli.js when it is stale) run as a child
// process with only PATH and the given variables, as CI runs it: one runner for every
// command-line suite.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { startFixture, type EmulatorFixture } from '../volumes/volumesEmulator';

export const LAUNCHER = resolve('bin/ksm.js');

/**
 * The Node that runs `ksm` in the command-line and MCP suites: this one, or the one named by
 * KSM_TEST_CLI_NODE (`npm test` runs those suites again under the newest Node line, while the
 * emulator and mocha stay on the project's Node: its native store is built for that one).
 */
export const CLI_NODE = process.env.KSM_TEST_CLI_NODE || process.execPath;

export interface KsmRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `ksm args…` to its end; `stdin` is written and closed (no input by default). */
export function runKsm(args: string[], env: Record<string, string | undefined>, options: { cwd?: string; stdin?: string } = {}): Promise<KsmRun> {
  return new Promise((done) => {
    const child = execFile(CLI_NODE, [LAUNCHER, ...args], { cwd: options.cwd, env: { PATH: process.env.PATH, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(options.stdin ?? '');
  });
}

/**
 * What a command-line suite starts before its tests: the emulator, the variables that point
 * `ksm` at it (with `extra`), and the built `ksm` (made once here if it is stale, so no test's
 * time pays for the build). The suite closes `fx` after its tests.
 */
export async function startKsmFixture(extra: Record<string, string> = {}): Promise<{ fx: EmulatorFixture; env: Record<string, string> }> {
  const fx = await startFixture(5);
  await runKsm(['--version'], {});
  return { fx, env: { KSM_BASE_URL: fx.emulator.url, KSM_API_KEY: fx.emulator.apiKey, ...extra } };
}
