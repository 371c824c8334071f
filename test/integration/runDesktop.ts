// `npm run test:desktop`: the same integration suites (test/integration/**/*.test.ts) in
// VS Code desktop through @vscode/test-electron, for machines that can download VS Code
// (set KSM_VSCODE_VERSION to pin one; default "stable"; on a headless Linux run it under
// xvfb-run). The e2e suite (`npm test`) runs these suites in code-server instead, because
// VS Code desktop cannot be downloaded on the offline CI machines.
// Same runner, same results file and the same rule: nothing that did not run passes.
import { runTests } from '@vscode/test-electron';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../emulator/server';
import { buildRunner, buildSuites, REPO_ROOT, RUNNER_DIR } from '../integration-runner/build';
import type { RunnerConfig, RunnerResults } from '../integration-runner/src/config';
import { CONFIG_ENV_VAR } from '../integration-runner/src/config';
import { writeUserSettings } from '../e2e/harness/settings';
import { prepareWorkspace } from '../e2e/harness/workspace';

async function main(): Promise<number> {
  execFileSync(process.execPath, ['esbuild.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
  await buildRunner(RUNNER_DIR);
  const suites = await buildSuites(RUNNER_DIR);

  const root = mkdtempSync(join(tmpdir(), 'ksm-desktop-integration-'));
  const apiKey = `desktop-key-${Math.random().toString(36).slice(2, 10)}`;
  const userId = 'desktop-user';
  const emulator = await startEmulator({ port: 0, dataDir: join(root, 'emulator'), apiKeys: { [apiKey]: userId }, testControls: true, stepMs: 100 });
  try {
    const workspace = prepareWorkspace();
    const userDataDir = join(root, 'user-data');
    writeUserSettings(userDataDir, {
      'ksm.baseUrl': emulator.url,
      'ksm.userId': userId,
      'ksm.chat.models': ['emu-chat', 'emu-reasoner'],
      'ksm.chat.reasoningModels': ['emu-reasoner'],
      'ksm.upload.embeddingModel': 'emu-embed',
    });
    const resultsFile = join(root, 'results.json');
    const config: RunnerConfig = {
      mochaPath: join(REPO_ROOT, 'node_modules', 'mocha'),
      suites,
      resultsFile,
      timeoutMs: 60_000,
      env: { KSM_TEST_BASE_URL: emulator.url, KSM_TEST_API_KEY: apiKey, KSM_TEST_USER_ID: userId, KSM_TEST_WORKSPACE: workspace },
    };
    const configFile = join(root, 'config.json');
    writeFileSync(configFile, JSON.stringify(config, null, 2));

    let failure: unknown;
    try {
      await runTests({
        version: process.env.KSM_VSCODE_VERSION ?? 'stable',
        // The real extension from source (dist/ built above) and the runner beside it.
        extensionDevelopmentPath: [REPO_ROOT, RUNNER_DIR],
        extensionTestsPath: join(RUNNER_DIR, 'out', 'runner.js'),
        extensionTestsEnv: { [CONFIG_ENV_VAR]: configFile },
        launchArgs: [workspace, '--user-data-dir', userDataDir, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
      });
    } catch (error) {
      failure = error;
    }
    return report(resultsFile, failure);
  } finally {
    await emulator.close();
  }
}

/** Prints mocha-style totals (scripts/summarize-tests.mjs reads them) and the exit code. */
function report(resultsFile: string, failure: unknown): number {
  let results: RunnerResults;
  try {
    results = JSON.parse(readFileSync(resultsFile, 'utf8')) as RunnerResults;
  } catch {
    console.error(`The runner wrote no results (${resultsFile}): the suites did not run.`, failure ?? '');
    return 1;
  }
  const count = (state: string) => results.tests.filter((t) => t.state === state).length;
  for (const test of results.tests) console.log(`  ${test.state === 'passed' ? '✔' : test.state === 'failed' ? '✗' : '-'} ${test.title}${test.error ? `\n      ${test.error.split('\n')[0]}` : ''}`);
  if (results.fatalError) console.error(`runner error: ${results.fatalError}`);
  console.log(`\n  ${count('passed')} passing`);
  if (count('failed') > 0 || results.fatalError) console.log(`  ${count('failed') + (results.fatalError ? 1 : 0)} failing`);
  if (count('pending') > 0) console.log(`  ${count('pending')} pending`);
  return failure || results.fatalError || count('failed') > 0 || count('passed') === 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
