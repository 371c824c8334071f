// Where the `ksm` launcher of KSM: Install 'ksm' Command in PATH lives and what it holds, and
// keeping an installed one pointing at this extension's bundle. Its own module, loaded just
// after activation for that check, so the check loads no more than it needs (no hashing,
// no child processes: mcpServerProvider.ts has those).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/vscode/services';
import { launcherTarget, readLauncher, refreshNeeded, writeLauncher, type LauncherTarget } from '../core/launcherInstall';

export function cliBundle(context: vscode.ExtensionContext): string {
  return join(context.extensionPath, 'dist', 'cli.js');
}

/** Where `KSM: Install 'ksm' Command in PATH` puts the launcher on this machine, and what it holds. */
export function launcher(context: vscode.ExtensionContext): LauncherTarget {
  return launcherTarget({ platform: process.platform, env: process.env, home: homedir(), runtime: process.execPath, cliBundle: cliBundle(context) });
}

/**
 * Keeps an installed launcher pointing at this extension's bundle after an update moved it
 * (VS Code's own shell command is a link into the app that moves the same way), but never
 * takes it over from another live VS Code build (refreshNeeded). Never touches a file it did
 * not write, nor anything through a link (launcherInstall.ts).
 */
export function refreshInstalledLauncher(context: vscode.ExtensionContext, log: ExtensionServices['log']): void {
  const target = launcher(context);
  try {
    if (refreshNeeded(readLauncher(target.path), target.content, { cliBundle: cliBundle(context), exists: existsSync })) {
      writeLauncher(target);
      log.info(`[mcp] updated ${target.path} to this version of the extension`);
    }
  } catch (error) {
    log.warn(`[mcp] could not check ${target.path}: ${(error as Error).message}`);
  }
}
