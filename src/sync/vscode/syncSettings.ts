// The sync pairings and where each came from. A pairing lives in one of three places:
// - `user`: the user's own settings (`ksm.sync.folders`), theirs by definition;
// - `workspace`: the workspace's settings, usually committed with the repository: it does
//   nothing (no sync, no watch) until this user approves it once on this machine (the
//   approval is remembered per workspace in the extension's storage, keyed by the whole
//   pairing, so a later edit of its volume, deletion or watch needs a new approval);
// - `local`: kept in the extension's workspace storage only, when the user chose not to
//   write `.vscode/settings.json` (asked the first time a pairing is created).
// A pairing's folder is resolved to its real path (symlinks included) when it is saved and
// again before every run: outside the workspace folders it is refused with the reason.
import * as vscode from 'vscode';
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
// The ESM build: the package's UMD main loads its parts with a require() esbuild cannot follow.
import { parse as parseJsonc } from 'jsonc-parser/lib/esm/main.js';
import { SETTINGS, storedPairingsWith, type PairingSetting } from '../../common/core/settingsTable';
import { withStrings } from '../../common/core/storedState';
import { WORKSPACE_STATE_KEY } from '../../common/core/storageKeys';
import { settingLayers, storedSettingLayers, updateSetting } from '../../common/vscode/settings';

export type Pairing = PairingSetting;
export type PairingSource = 'user' | 'workspace' | 'local';

export interface SourcedPairing extends Pairing {
  source: PairingSource;
  /** False for a workspace pairing this user has not approved on this machine. */
  approved: boolean;
}

export type FolderResolution = { ok: true; path: string } | { ok: false; reason: string };

/** The pairings of every source, de-duplicated by folder and volume (the user's own, then local, then the workspace's). */
export function allPairings(state: vscode.Memento): SourcedPairing[] {
  const layers = settingLayers('syncFolders');
  const approvedSet = new Set(readStrings(state.get(WORKSPACE_STATE_KEY.syncApprovedPairings)));
  const sourced: SourcedPairing[] = [
    ...(layers.user ?? []).map((p) => ({ ...p, source: 'user' as const, approved: true })),
    ...localPairings(state).map((p) => ({ ...p, source: 'local' as const, approved: true })),
    ...(layers.workspace ?? []).map((p) => ({ ...p, source: 'workspace' as const, approved: approvedSet.has(pairingFingerprint(p)) })),
  ];
  const seen = new Set<string>();
  return sourced.filter((p) => {
    const key = pairingKey(p);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * In Restricted Mode VS Code hides a restricted setting's workspace value from extensions,
 * so the pairings waiting for trust are counted from the settings files themselves (only
 * to say so in the status bar; nothing runs from them).
 */
export async function pairingsWaitingForTrust(state: vscode.Memento): Promise<number> {
  const files = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => join(f.uri.fsPath, '.vscode', 'settings.json'));
  const counts = await Promise.all(
    files.map(async (file) => {
      const text = await readFile(file, 'utf8').catch(() => undefined);
      const parsed: unknown = text === undefined ? undefined : parseJsonc(text, [], { allowTrailingComma: true });
      const value = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>)[SETTINGS.syncFolders.key] : undefined;
      return SETTINGS.syncFolders.read(value).length;
    }),
  );
  const workspaceFile = vscode.workspace.workspaceFile?.scheme === 'file' ? vscode.workspace.workspaceFile.fsPath : undefined;
  if (workspaceFile) {
    const text = await readFile(workspaceFile, 'utf8').catch(() => undefined);
    const parsed = (text === undefined ? undefined : parseJsonc(text, [], { allowTrailingComma: true })) as { settings?: Record<string, unknown> } | undefined;
    counts.push(SETTINGS.syncFolders.read(parsed?.settings?.[SETTINGS.syncFolders.key]).length);
  }
  return counts.reduce((a, b) => a + b, 0) + (settingLayers('syncFolders').user ?? []).length + localPairings(state).length;
}

export function localPairings(state: vscode.Memento): Pairing[] {
  return SETTINGS.syncFolders.read(state.get(WORKSPACE_STATE_KEY.syncLocalPairings));
}

/**
 * Remembers the approval of `pairings`; every other stored entry is kept as it is (a later
 * version's approvals included). False when what is stored is not a list (a later version's
 * shape): it is left as it is and nothing is approved (storedState.ts).
 */
export async function approvePairings(state: vscode.Memento, pairings: readonly Pairing[]): Promise<boolean> {
  const approved = withStrings(state.get(WORKSPACE_STATE_KEY.syncApprovedPairings), pairings.map(pairingFingerprint));
  if (!approved) return false;
  await state.update(WORKSPACE_STATE_KEY.syncApprovedPairings, approved);
  return true;
}

/** Saves a pairing where the user chose, replacing one of the same folder and volume there. */
export async function savePairing(state: vscode.Memento, pairing: Pairing, target: 'workspace' | 'local'): Promise<void> {
  // The other entries are written back as stored (a later version's fields and entries kept).
  if (target === 'local') {
    await state.update(WORKSPACE_STATE_KEY.syncLocalPairings, storedPairingsWith(state.get(WORKSPACE_STATE_KEY.syncLocalPairings), pairing, pairing));
    return;
  }
  await updateSetting('sync.folders', storedPairingsWith(storedSettingLayers('syncFolders').workspace, pairing, pairing), vscode.ConfigurationTarget.Workspace);
  // The user made it here: it is theirs, no approval needed.
  await approvePairings(state, [pairing]);
}

/** Removes a pairing from the place it came from. */
export async function removePairing(state: vscode.Memento, pairing: SourcedPairing): Promise<void> {
  // The other entries are written back as stored (a later version's fields and entries kept).
  const stored = storedSettingLayers('syncFolders');
  if (pairing.source === 'local') await state.update(WORKSPACE_STATE_KEY.syncLocalPairings, storedPairingsWith(state.get(WORKSPACE_STATE_KEY.syncLocalPairings), pairing));
  else if (pairing.source === 'user') await updateSetting('sync.folders', storedPairingsWith(stored.user, pairing), vscode.ConfigurationTarget.Global);
  else await updateSetting('sync.folders', storedPairingsWith(stored.workspace, pairing), vscode.ConfigurationTarget.Workspace);
}

/** The workspace folders' real paths (symlinks resolved), `file:` folders only. */
export function realWorkspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => safeRealpath(f.uri.fsPath) ?? resolve(f.uri.fsPath));
}

/**
 * The real folder of a pairing: the first workspace folder in which it exists, resolved
 * through every symlink; refused with the reason when it does not exist or its real path
 * lies outside every workspace folder's real path (a cloned repository must not point a
 * sync at `~/.ssh`, directly or through a link it commits).
 */
export function resolvePairingFolder(pairing: Pick<Pairing, 'folder'>): FolderResolution {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  if (folders.length === 0) return { ok: false, reason: vscode.l10n.t('no workspace folder is open') };
  const candidates = isAbsolute(pairing.folder) ? [resolve(pairing.folder)] : folders.map((root) => resolve(root, ...pairing.folder.split('/')));
  const real = candidates.map(safeRealpath).find((p): p is string => p !== undefined);
  if (!real) return { ok: false, reason: vscode.l10n.t("the folder '{0}' does not exist in the workspace", pairing.folder) };
  return checkRealFolder(real, pairing.folder);
}

/** A folder the user picked, resolved as a pairing's folder is. */
export function resolvePickedFolder(fsPath: string): FolderResolution {
  const real = safeRealpath(fsPath);
  if (!real) return { ok: false, reason: vscode.l10n.t("the folder '{0}' does not exist", fsPath) };
  return checkRealFolder(real, fsPath);
}

function checkRealFolder(real: string, shown: string): FolderResolution {
  if (!workspaceRootOf(real)) {
    return {
      ok: false,
      reason: vscode.l10n.t("the folder '{0}' resolves to {1}, outside the workspace folders (a symbolic link or a path leading out); only folders inside the workspace can be synced", shown, real),
    };
  }
  return { ok: true, path: real };
}

/** How a real folder is stored in a pairing: relative to its workspace folder; undefined outside every workspace folder. */
export function storedFolder(realPath: string): string | undefined {
  const root = workspaceRootOf(realPath);
  if (!root) return undefined;
  const rel = relative(root, realPath);
  return rel ? rel.split(sep).join('/') : '.';
}

/** The workspace folder (real path) that holds a real path, or undefined. */
export function workspaceRootOf(realPath: string): string | undefined {
  return realWorkspaceRoots().find((root) => realPath === root || realPath.startsWith(root + sep));
}

export function pairingKey(p: Pick<Pairing, 'folder' | 'volume'>): string {
  return `${p.folder}\n${p.volume}`;
}

/** The whole pairing: a repository that changes the volume, deletion or watch of an approved pairing needs a new approval. */
export function pairingFingerprint(p: Pairing): string {
  return JSON.stringify([p.folder, p.volume, p.deleteRemoved, p.watch]);
}

function readStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function safeRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
