import { copyFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { launchBrowserContext } from './browser';
import { scenarioResultsDir } from './paths';
import { sharedRun, type E2ERun } from './run';
import { Workbench } from './workbench';

export interface ScenarioHandle {
  readonly run: E2ERun;
  readonly workbench: Workbench;
  readonly resultsDir: string;
}

/**
 * Registers the mocha hooks of one scenario: before — the shared run, then a fresh
 * Chromium profile with the workbench open on the fixture workspace; after each test — a
 * screenshot (named FAILED-… when it failed); after — the extension's log copied next to
 * the screenshots, and the browser closed even when a hook failed.
 */
export function useScenario(name: string): ScenarioHandle {
  const resultsDir = scenarioResultsDir(name);
  let run: E2ERun | undefined;
  let workbench: Workbench | undefined;
  let context: BrowserContext | undefined;
  let openedAt = 0;

  before(async function () {
    this.timeout(20 * 60_000); // the first scenario may install code-server (minutes, cold)
    for (const entry of readdirSync(resultsDir)) rmSync(join(resultsDir, entry), { recursive: true, force: true });
    run = await sharedRun();
    openedAt = Date.now();
    context = await launchBrowserContext(run.codeServer.url);
    workbench = await Workbench.open(context, run.codeServer.workbenchUrl(run.workspace), resultsDir);
  });

  afterEach(async function () {
    const test = this.currentTest;
    if (!workbench || !test) return;
    const prefix = test.state === 'failed' ? 'FAILED-' : '';
    await workbench.screenshot(`${prefix}${test.title}`);
  });

  after(async function () {
    this.timeout(60_000);
    if (run) copyExtensionLogs(run.userDataDir, openedAt, resultsDir);
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
