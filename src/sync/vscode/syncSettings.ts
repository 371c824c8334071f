// The pairings of `ksm.sync.folders` (workspace settings, so the whole team shares them) and
// the sync settings, read at call time. A pairing's folder is stored relative to the
// workspace folder that holds it (portable between clones), absolute only outside one.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

export interface Pairing {
  /** As stored: relative to a workspace folder (`/`-separated). Folders outside the workspace are refused. */
  folder: string;
  volume: string;
  deleteRemoved: boolean;
  watch: boolean;
}

export const syncSettings = {
  pairings: (): Pairing[] => {
    const raw = vscode.workspace.getConfiguration('ksm.sync').get<unknown[]>('folders', []);
    if (!Array.isArray(raw)) return [];
    return raw.flatMap((entry) => {
      if (typeof entry !== 'object' || entry === null) return [];
      const e = entry as Record<string, unknown>;
      if (typeof e.folder !== 'string' || !e.folder.trim() || typeof e.volume !== 'string' || !e.volume.trim()) return [];
      return [{ folder: e.folder.trim(), volume: e.volume.trim(), deleteRemoved: e.deleteRemoved === true, watch: e.watch === true }];
    });
  },
  /** 0..1: the share of a volume one sync may delete without an extra confirmation. */
  deleteGuardShare: (): number => Math.min(100, Math.max(0, vscode.workspace.getConfiguration('ksm.sync').get<number>('deleteGuardPercent', 20))) / 100,
  watchDelayMs: (): number => Math.max(100, vscode.workspace.getConfiguration('ksm.sync').get<number>('watchDelayMs', 1500)),
};

export async function savePairings(pairings: Pairing[]): Promise<void> {
  await vscode.workspace.getConfiguration('ksm.sync').update('folders', pairings, vscode.ConfigurationTarget.Workspace);
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
