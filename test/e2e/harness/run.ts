import { cpSync, lstatSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CodeServer, ensureCodeServer, packageExtension } from './codeServer';
import { writeMachineSettings, writeUserSettings } from './settings';
import { EmulatorProcess } from './emulator';
import { RESULTS_ROOT } from './paths';
import { e2eProfile } from './profile';
import { prepareWorkspace } from './workspace';

/** The named volume the e2e settings list beside "My files". */
export const TEAM_VOLUME = 'e2e-team';

/**
 * Everything one e2e run shares: a fresh emulator, the packaged VSIX installed into a fresh
 * extensions folder, user settings pointing at that emulator, a fresh workspace copy and
 * one code-server. Scenarios share it (starting code-server costs seconds, not minutes)
 * but each opens its own browser profile, so API keys and UI state never leak between them.
 */
export interface E2ERun {
  readonly launcher: string;
  readonly vsix: string;
  readonly emulator: EmulatorProcess;
  readonly codeServer: CodeServer;
  readonly workspace: string;
  readonly userDataDir: string;
  /** Where the extension installs the `ksm` launcher in this run ($XDG_BIN_HOME). */
  readonly binDir: string;
}

let shared: Promise<E2ERun> | undefined;
const cleanups: Array<() => Promise<void>> = [];

export function sharedRun(): Promise<E2ERun> {
  shared ??= startRun();
  return shared;
}

let prepared: Promise<{ launcher: string; vsix: string }> | undefined;
/** code-server (cached install) and the VSIX (built once per run). */
export function preparedTools(): Promise<{ launcher: string; vsix: string }> {
  prepared ??= (async () => {
    const launcher = await timed('code-server setup', ensureCodeServer());
    const vsix = await timed('npm run package', packageExtension());
    return { launcher, vsix };
  })();
  return prepared;
}

async function startRun(): Promise<E2ERun> {
  mkdirSync(RESULTS_ROOT, { recursive: true });
  const { launcher, vsix } = await preparedTools();
  const emulator = await timed('emulator start', EmulatorProcess.start(join(RESULTS_ROOT, `${e2eProfile().logPrefix}emulator.log`)));
  cleanups.push(async () => {
    await emulator.stop();
    removeDir(emulator.dataDir);
  });
  const root = mkdtempSync(join(tmpdir(), 'ksm-e2e-vscode-'));
  // Evidence (screenshots, logs) is copied to test-results/; the scratch folders go (after
  // the key hunt has looked through them, when scripts/test.sh asks for one).
  cleanups.push(async () => keepForKeyHunt(root));
  const userDataDir = join(root, 'user-data');
  const extensionsDir = join(root, 'extensions');
  await timed('install VSIX', CodeServer.installExtension(launcher, extensionsDir, vsix));
  writeUserSettings(userDataDir, {
    'ksm.baseUrl': emulator.url,
    'ksm.userId': emulator.userId,
    'ksm.volumes.list': [TEAM_VOLUME],
    'ksm.chat.models': ['emu-chat', 'emu-reasoner'],
    'ksm.chat.reasoningModels': ['emu-reasoner'],
    'ksm.upload.embeddingModel': 'emu-embed',
    // Request lines (key redacted) land in the extension log kept with each scenario.
    'ksm.debug.logRequests': true,
    ...e2eProfile().userSettings,
  });
  if (e2eProfile().machineSettings) writeMachineSettings(userDataDir, { 'ksm.baseUrl': emulator.url, 'ksm.userId': emulator.userId });
  const workspace = prepareWorkspace();
  cleanups.push(async () => keepForKeyHunt(workspace));
  const codeServer = await timed(
    'code-server start',
    // XDG_BIN_HOME: KSM: Install 'ksm' Command in PATH writes there, never into the machine's ~/.local/bin.
    CodeServer.start(launcher, { userDataDir, extensionsDir, workspace, logFile: join(RESULTS_ROOT, `${e2eProfile().logPrefix}code-server.log`), env: { XDG_BIN_HOME: join(root, 'bin') } }),
  );
  cleanups.push(() => codeServer.stop());
  return { launcher, vsix, emulator, codeServer, workspace, userDataDir, binDir: join(root, 'bin') };
}

/** Registers teardown work that runs after the whole suite, even when it failed. */
export function onRunTeardown(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}

/** Stops everything the run started, newest first; never throws. */
export async function stopSharedRun(): Promise<void> {
  while (cleanups.length > 0) {
    const cleanup = cleanups.pop();
    try {
      await cleanup?.();
    } catch (error) {
      console.error('e2e teardown step failed:', error);
    }
  }
  shared = undefined;
}

/**
 * With KSM_KEY_HUNT_DIR set (scripts/test.sh), a scratch folder (VS Code's user data with
 * its logs, global and workspace storage and conversation files; the workspace) is moved
 * there for scripts/key-hunt.mjs, which removes it after looking; otherwise it is removed.
 */
function keepForKeyHunt(dir: string): void {
  const huntDir = process.env.KSM_KEY_HUNT_DIR;
  if (huntDir) {
    mkdirSync(huntDir, { recursive: true });
    try {
      // Files and folders only: code-server's IPC socket cannot be copied (and holds no data).
      const copyable = (path: string) => {
        const info = lstatSync(path);
        return info.isFile() || info.isDirectory() || info.isSymbolicLink();
      };
      cpSync(dir, join(huntDir, basename(dir)), { recursive: true, dereference: false, errorOnExist: false, filter: copyable });
    } finally {
      removeDir(dir);
    }
    return;
  }
  removeDir(dir);
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

async function timed<T>(label: string, work: Promise<T>): Promise<T> {
  const start = Date.now();
  const result = await work;
  console.log(`      [e2e] ${label}: ${((Date.now() - start) / 1000).toFixed(1)}s`);
  return result;
}
