import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildRunner, buildSuites, RUNNER_DIR } from '../../integration-runner/build';
import { CONFIG_FILE_NAME, type RunnerConfig, type RunnerResults } from '../../integration-runner/src/config';
import { launchBrowserContext } from './browser';
import { CodeServer } from './codeServer';
import { EmulatorProcess } from './emulator';
import { eventually } from './eventually';
import { REPO_ROOT } from './paths';
import { preparedTools, removeDir } from './run';
import { writeUserSettings } from './settings';
import { findFiles } from './scenario';
import { Workbench } from './workbench';
import { prepareWorkspace } from './workspace';

const run = promisify(execFile);
const RESULTS_TIMEOUT_MS = 5 * 60_000;

/**
 * Runs test/integration/**\/*.test.ts inside code-server's extension host: a separate
 * code-server (own emulator, user data and extensions) with the real VSIX and the test-only
 * runner extension installed; the runner writes its results file once mocha finished.
 */
export async function runIntegrationSuites(resultsDir: string): Promise<RunnerResults> {
  const { launcher, vsix } = await preparedTools();
  const root = mkdtempSync(join(tmpdir(), 'ksm-e2e-integration-'));
  const stops: Array<() => Promise<void>> = [];
  try {
    stops.push(async () => removeDir(root));
    const emulator = await EmulatorProcess.start(join(resultsDir, 'emulator.log'));
    stops.push(async () => {
      await emulator.stop();
      removeDir(emulator.dataDir);
    });
    const extensionsDir = join(root, 'extensions');
    const userDataDir = join(root, 'user-data');
    await CodeServer.installExtension(launcher, extensionsDir, vsix);
    await CodeServer.installExtension(launcher, extensionsDir, await packageRunner(root));
    const runnerDir = installedRunnerDir(extensionsDir);
    const suites = await buildSuites(runnerDir);
    const workspace = prepareWorkspace();
    stops.push(async () => removeDir(workspace));
    const resultsFile = join(resultsDir, 'results.json');
    // A previous run's results must never be read as this run's (the runner also skips
    // when the file exists, so a stale one would make every suite "pass" unrun).
    rmSync(resultsFile, { force: true });
    const config: RunnerConfig = {
      mochaPath: join(REPO_ROOT, 'node_modules', 'mocha'),
      suites,
      resultsFile,
      timeoutMs: 60_000,
      env: {
        KSM_TEST_BASE_URL: emulator.url,
        KSM_TEST_API_KEY: emulator.apiKey,
        KSM_TEST_USER_ID: emulator.userId,
        KSM_TEST_WORKSPACE: workspace,
      },
    };
    writeFileSync(join(runnerDir, CONFIG_FILE_NAME), JSON.stringify(config, null, 2));
    writeUserSettings(userDataDir, {
      'ksm.baseUrl': emulator.url,
      'ksm.userId': emulator.userId,
      'ksm.chat.models': ['emu-chat', 'emu-reasoner'],
      'ksm.chat.reasoningModels': ['emu-reasoner'],
      'ksm.upload.embeddingModel': 'emu-embed',
    });
    const codeServer = await CodeServer.start(launcher, { userDataDir, extensionsDir, workspace, logFile: join(resultsDir, 'code-server.log') });
    stops.push(() => codeServer.stop());
    // The extension host starts when a window connects; the runner activates on startup.
    const context = await launchBrowserContext(codeServer.url);
    stops.push(() => context.close());
    const workbench = await Workbench.open(context, codeServer.workbenchUrl(workspace), resultsDir);
    try {
      await eventually(
        async () => existsSync(resultsFile),
        () => `the integration runner wrote no results file (${resultsFile}); the suites never finished inside code-server. See ${resultsDir}/exthost.log`,
        RESULTS_TIMEOUT_MS,
        1000,
      );
    } finally {
      await workbench.screenshot('integration-window');
      for (const [name, target] of [
        ['remoteexthost.log', 'exthost.log'],
        ['KSM Assistant.log', 'extension.log'],
      ] as const) {
        const log = findFiles(join(userDataDir, 'logs'), name)[0];
        if (log) copyFileSync(log, join(resultsDir, target));
      }
    }
    return JSON.parse(readFileSync(resultsFile, 'utf8')) as RunnerResults;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

async function packageRunner(root: string): Promise<string> {
  await buildRunner(RUNNER_DIR);
  const out = join(root, 'ksm-integration-runner.vsix');
  try {
    await run(join(REPO_ROOT, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--out', out], { cwd: RUNNER_DIR, timeout: 120_000 });
  } catch (error) {
    throw new Error(`packaging the integration runner failed:\n${(error as { stderr?: string }).stderr ?? (error as Error).message}`);
  }
  return out;
}

function installedRunnerDir(extensionsDir: string): string {
  const name = readdirSync(extensionsDir).find((entry) => entry.startsWith('ksm.ksm-integration-runner-'));
  if (!name) throw new Error(`the integration runner is not in ${extensionsDir} after --install-extension`);
  return join(extensionsDir, name);
}
