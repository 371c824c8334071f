// The pairings of `ksm.sync.folders` (workspace settings, so the whole team shares them) and
// the sync settings, read at call time. A pairing's folder is stored relative to the
// workspace folder that holds it (portable between clones), absolute only outside one.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { PairingSetting } from '../../common/core/settingsTable';
import { readSetting, settings, updateSetting } from '../../common/vscode/settings';

export type Pairing = PairingSetting;

export const syncSettings = {
  pairings: (): Pairing[] => readSetting('syncFolders'),
  /** 0..1: the share of a volume one sync may delete without an extra confirmation. */
  deleteGuardShare: (): number => settings.syncDeleteGuardShare(),
  watchDelayMs: (): number => settings.syncWatchDelayMs(),
};

export async function savePairings(pairings: Pairing[]): Promise<void> {
  await updateSetting('sync.folders', pairings, vscode.ConfigurationTarget.Workspace);
}

/**
 * The absolute folder of a pairing (the first workspace folder in which it exists), or
 * undefined when it would lie outside every workspace folder: the setting comes from the
 * repository, and a cloned repository must not be able to point a sync at `~/.ssh`.
 */
export function resolvePairingFolder(pairing: Pairing): string | undefined {
  const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const candidates = isAbsolute(pairing.folder) ? [resolve(pairing.folder)] : roots.map((root) => resolve(root, ...pairing.folder.split('/')));
  const inside = candidates.filter((path) => workspaceRootOf(path) !== undefined);
  return inside.find((path) => existsSync(path)) ?? inside[0];
}

/** How a folder is stored in the setting: relative to its workspace folder; undefined outside every workspace folder. */
export function storedFolder(fsPath: string): string | undefined {
  const root = workspaceRootOf(fsPath);
  if (!root) return undefined;
  const rel = relative(root, fsPath);
  return rel ? rel.split(sep).join('/') : '.';
}

export function workspaceRootOf(fsPath: string): string | undefined {
  return (vscode.workspace.workspaceFolders ?? [])
    .filter((f) => f.uri.scheme === 'file')
    .map((f) => f.uri.fsPath)
    .find((root) => fsPath === root || fsPath.startsWith(root + sep));
}

export function pairingKey(p: Pick<Pairing, 'folder' | 'volume'>): string {
  return `${p.folder}\n${p.volume}`;
}
