// The test-only runner extension. Two ways in:
// - code-server e2e: installed beside the real extension; on activation it looks for
//   e2e-config.json in its own folder (written by the harness) and runs the suites once;
// - @vscode/test-electron: `run()` is the extensionTestsPath entry; the config path comes
//   from KSM_INTEGRATION_CONFIG.
// Either way the results file is written only after mocha finished, and a suite that fails
// to load is recorded as a fatal error, so nothing that did not run can look passed.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { CONFIG_ENV_VAR, CONFIG_FILE_NAME, type RunnerConfig, type RunnerResults, type TestOutcome } from './config';

/** What integration suites may reach through `globalThis.ksmIntegrationHost` (see test/integration/host.ts). */
export interface IntegrationHost {
  /** The runner's own extension context: a real SecretStorage, globalState and storage paths. */
  context?: vscode.ExtensionContext;
}

export function activate(context: vscode.ExtensionContext): IntegrationHost {
  const configPath = join(context.extensionPath, CONFIG_FILE_NAME);
  if (existsSync(configPath)) {
    const config = readConfig(configPath);
    // A window reload restarts the extension host; the suites run once per install.
    if (!existsSync(config.resultsFile)) void runSuites(config, context);
  }
  return { context };
}

export function deactivate(): void {
  // Nothing to release: mocha finishes on its own.
}

/** @vscode/test-electron entry: rejects when any test failed or nothing ran. */
export async function run(): Promise<void> {
  const configPath = process.env[CONFIG_ENV_VAR];
  if (!configPath) throw new Error(`${CONFIG_ENV_VAR} is not set; run through test/integration/runDesktop.ts`);
  const config = readConfig(configPath);
  const host = (await vscode.extensions.getExtension('ksm.ksm-integration-runner')?.activate()) as IntegrationHost | undefined;
  const results = await runSuites(config, host?.context);
  const failed = results.tests.filter((t) => t.state === 'failed');
  const passed = results.tests.filter((t) => t.state === 'passed');
  if (results.fatalError) throw new Error(`integration suites did not run: ${results.fatalError}`);
  if (failed.length > 0) throw new Error(`${failed.length} integration test(s) failed:\n${failed.map((t) => `- ${t.title}: ${t.error}`).join('\n')}`);
  if (passed.length === 0) throw new Error('no integration test ran');
}

function readConfig(path: string): RunnerConfig {
  return JSON.parse(readFileSync(path, 'utf8')) as RunnerConfig;
}

async function runSuites(config: RunnerConfig, context: vscode.ExtensionContext | undefined): Promise<RunnerResults> {
  const results: RunnerResults = { startedAt: new Date().toISOString(), finishedAt: '', vscodeVersion: vscode.version, tests: [] };
  try {
    Object.assign(process.env, config.env);
    const host: IntegrationHost = { context };
    (globalThis as { ksmIntegrationHost?: IntegrationHost }).ksmIntegrationHost = host;
    // Mocha is loaded from the repository at run time, not bundled: its reporters and
    // interfaces are found through dynamic requires that a bundle would break.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Mocha = require(config.mochaPath) as typeof import('mocha');
    const mocha = new Mocha({ ui: 'bdd', timeout: config.timeoutMs, color: false, reporter: 'spec', forbidOnly: true });
    for (const suite of config.suites) mocha.addFile(suite);
    await new Promise<void>((resolveRun) => {
      const runner = mocha.run(() => resolveRun());
      const record = (test: Mocha.Test, state: TestOutcome['state'], error?: Error) =>
        results.tests.push({ file: test.file ?? '', title: test.fullTitle(), state, durationMs: test.duration, error: error ? `${error.message}\n${error.stack ?? ''}`.slice(0, 4000) : undefined });
      runner.on('pass', (test) => record(test, 'passed'));
      runner.on('pending', (test) => record(test, 'pending'));
      runner.on('fail', (test, error: Error) => {
        // A failing hook fails every test below it; record it under the hook's title.
        record(test as Mocha.Test, 'failed', error);
      });
    });
  } catch (error) {
    results.fatalError = error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error);
  }
  results.finishedAt = new Date().toISOString();
  const temporary = `${config.resultsFile}.partial`;
  writeFileSync(temporary, JSON.stringify(results, null, 2));
  renameSync(temporary, config.resultsFile);
  return results;
}
