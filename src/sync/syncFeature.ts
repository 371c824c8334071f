// Folder sync ↔ volume: the public surface and its wiring. The sync itself
// (vscode/syncRuntime.ts: the runners, the status bar, the commands) loads only when this
// workspace has a pairing (or may have one: Restricted Mode hides the workspace's settings)
// or when a sync command runs, and from then on follows the settings. Nothing here touches
// the network, the disk or the workspace at activation.
import * as vscode from 'vscode';
import type { CitedFileRef, PassageRange } from './core/citedSource';
import type { VolumesFeature } from '../volumes/volumesFeature';
import { LAZY_COMMANDS, type CommandId } from '../common/core/contributionIds';
import { SETTINGS } from '../common/core/settingsTable';
import { WORKSPACE_STATE_KEY } from '../common/core/storageKeys';
import type { CommandHandler } from '../common/vscode/commands';
import { registerLazyCommands } from '../common/vscode/lazyCommands';
import type { ExtensionServices } from '../common/vscode/services';
import { settingLayers } from '../common/vscode/settings';
import type { PairingRunner } from './vscode/syncRunner';
import type { SyncNotices } from './vscode/syncStatusBar';
import type { SourcedPairing } from './vscode/syncSettings';
import { loadOnce } from '../common/core/loadOnce';

export interface SyncFeatureDeps {
  /** Refresh a synced volume, mark synced volumes, put a newly paired volume in the view. */
  volumes: Pick<VolumesFeature, 'refreshVolume' | 'markSynced' | 'addVolumeToView' | 'rememberProcessing'>;
}

/** What the commands need from the feature: the runners and a rebuild after a change. */
export interface SyncRunners {
  all(): PairingRunner[];
  get(pairing: Pick<SourcedPairing, 'folder' | 'volume'>): PairingRunner | undefined;
  rebuild(): void;
  notices(): SyncNotices;
}

export interface SyncFeature {
  /**
   * The workspace file a cited volume file was synced from, and the cited passage's lines in
   * it (found by text; undefined when it changed past recognition); undefined when the file
   * is not from a synced folder, is gone, or would lead outside its folder.
   */
  workspaceSourceOf(cited: CitedFileRef & { snippet?: string }): Promise<{ path: string; passage?: PassageRange } | undefined>;
}

/** Whether sync has anything to do here without a command: a pairing in any settings layer or this workspace's own, or settings Restricted Mode hides. */
function mayHavePairings(state: vscode.Memento): boolean {
  if (!vscode.workspace.isTrusted) return true;
  const layers = settingLayers('syncFolders');
  return Boolean(layers.user?.length || layers.workspace?.length || SETTINGS.syncFolders.read(state.get(WORKSPACE_STATE_KEY.syncLocalPairings)).length);
}

export function registerSyncFeature(services: ExtensionServices, deps: SyncFeatureDeps): SyncFeature {
  const commands = new Map<CommandId, CommandHandler<unknown[]>>();
  const start = loadOnce(async (): Promise<SyncFeature> =>
    (await import('./vscode/syncRuntime')).startSync({ ...services, registerCommand: (id, handler) => void commands.set(id, handler as CommandHandler<unknown[]>) }, deps),
  );
  const startIfPaired = () => {
    if (!start.started && mayHavePairings(services.context.workspaceState)) start().catch((error: unknown) => services.log.error(error instanceof Error ? error : String(error)));
  };
  registerLazyCommands(services, LAZY_COMMANDS.sync, async () => {
    await start();
    return (recorder) => commands.forEach((handler, id) => recorder.registerCommand(id, handler));
  });
  // Once started, the runtime follows the settings itself; until then a new pairing starts it.
  services.context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ksm.sync')) startIfPaired();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => startIfPaired()),
  );
  startIfPaired();
  return {
    // Without a started sync no folder is synced, so no cited file has a workspace source.
    workspaceSourceOf: async (cited) => start.value?.workspaceSourceOf(cited),
  };
}
