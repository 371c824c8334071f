import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { launchBrowserContext } from './browser';
import { CodeServer } from './codeServer';
import { RESULTS_ROOT, scenarioResultsDir } from './paths';
import { onRunTeardown, removeDir, sharedRun, type E2ERun } from './run';
import { Workbench } from './workbench';

/**
 * A code-server of the scenario's own, for what the shared one cannot be: workspace trust
 * on (scenario 15), another display language (scenario 17). `prepare` writes what it needs
 * into `root` (a temporary folder removed with the run): user data, a workspace, an
 * extensions folder; the harness starts code-server on them (its log beside the run's
 * results), stops it with the run and opens the workbench there.
 */
export interface OwnCodeServer {
  prepare(
    run: E2ERun,
    root: string,
  ):
    | Promise<{ userDataDir: string; workspace: string; extensionsDir?: string; workspaceTrust?: boolean; locale?: string }>
    | { userDataDir: string; workspace: string; extensionsDir?: string; workspaceTrust?: boolean; locale?: string };
  /** Wait for the KSM activity-bar entry by its English name (false under another language). Default true. */
  waitForKsm?: boolean;
}

export interface ScenarioHandle {
  readonly run: E2ERun;
  readonly workbench: Workbench;
  readonly resultsDir: string;
  /** The workspace the workbench shows: the run's, or the one an own code-server's `prepare` made. */
  readonly workspace: string;
}

/**
 * Registers the mocha hooks of one scenario: before — the shared run, then a fresh
 * Chromium profile with the workbench open on the fixture workspace; after each test — a
 * screenshot (named FAILED-… when it failed); after — the extension's log copied next to
 * the screenshots, and the browser closed even when a hook failed.
 */
export function useScenario(name: string, options: { ownCodeServer?: OwnCodeServer } = {}): ScenarioHandle {
  const resultsDir = scenarioResultsDir(name);
  let run: E2ERun | undefined;
  let workbench: Workbench | undefined;
  let context: BrowserContext | undefined;
  let workspace: string | undefined;
  let userDataDir: string | undefined;
  let openedAt = 0;

  before(async function () {
    this.timeout(20 * 60_000); // the first scenario may install code-server (minutes, cold)
    for (const entry of readdirSync(resultsDir)) rmSync(join(resultsDir, entry), { recursive: true, force: true });
    run = await sharedRun();
    let codeServer = run.codeServer;
    workspace = run.workspace;
    userDataDir = run.userDataDir;
    const own = options.ownCodeServer;
    if (own) {
      const root = mkdtempSync(join(tmpdir(), `ksm-e2e-${name}-`));
      onRunTeardown(async () => removeDir(root));
      const prepared = await own.prepare(run, root);
      ({ workspace, userDataDir } = prepared);
      const started = await CodeServer.start(run.launcher, {
        ...prepared,
        extensionsDir: prepared.extensionsDir ?? run.codeServer.extensionsDir,
        logFile: join(RESULTS_ROOT, `${name}-code-server.log`),
      });
      onRunTeardown(() => started.stop());
      codeServer = started;
    }
    openedAt = Date.now();
    context = await launchBrowserContext(codeServer.url);
    if (own?.waitForKsm === false) {
      const page = context.pages()[0] ?? (await context.newPage());
      workbench = new Workbench(context, page, resultsDir);
      await page.goto(codeServer.workbenchUrl(workspace));
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    } else {
      workbench = await Workbench.open(context, codeServer.workbenchUrl(workspace), resultsDir);
    }
  });

  afterEach(async function () {
    const test = this.currentTest;
    if (!workbench || !test) return;
    const prefix = test.state === 'failed' ? 'FAILED-' : '';
    await workbench.screenshot(`${prefix}${test.title}`);
  });

  after(async function () {
    this.timeout(60_000);
    if (userDataDir) copyExtensionLogs(userDataDir, openedAt, resultsDir);
    await context?.close().catch(() => undefined);
    context = undefined;
    workbench = undefined;
  });

  return {
    get run() {
      if (!run) throw new Error(`scenario "${name}": the e2e run did not start (see the before hook's error)`);
      return run;
    },
    get workbench() {
      if (!workbench) throw new Error(`scenario "${name}": the workbench did not open (see the before hook's error)`);
      return workbench;
    },
    get workspace() {
      if (!workspace) throw new Error(`scenario "${name}": the e2e run did not start (see the before hook's error)`);
      return workspace;
    },
    resultsDir,
  };
}

/**
 * Copies the extension's log and the extension host's own log (tree view and activation
 * errors land there) written since `since`; one of each per extension host session.
 */
function copyExtensionLogs(userDataDir: string, since: number, target: string): void {
  const logsRoot = join(userDataDir, 'logs');
  for (const [name, copyName] of [
    ['KSM Assistant.log', 'extension'],
    ['remoteexthost.log', 'exthost'],
  ] as const) {
    let index = 0;
    for (const file of findFiles(logsRoot, name)) {
      if (statSync(file).mtimeMs < since) continue;
      index += 1;
      copyFileSync(file, join(target, index === 1 ? `${copyName}.log` : `${copyName}-${index}.log`));
    }
  }
}

export function findFiles(root: string, name: string): string[] {
  let found: string[] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  for (const entry of entries) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) found = found.concat(findFiles(path, name));
    else if (entry.name === name) found.push(path);
  }
  return found;
}
