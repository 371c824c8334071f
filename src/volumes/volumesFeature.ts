// The Volumes view: tree, drag and drop, commands, and the API other features use
// (chat citations reveal files; uploads refresh a volume and watch new files settle).
import * as vscode from 'vscode';
import type { AgentFileRef, DoChunking, FileInfo } from '../api/types';
import { ProcessingModes } from './core/processingModes';
import { GLOBAL_STATE_KEY, WORKSPACE_STATE_KEY } from '../common/core/storageKeys';
import { registerLazyCommands } from '../common/vscode/lazyCommands';
import type { ExtensionServices } from '../common/vscode/services';
import { personalVolume, settings } from '../common/vscode/settings';
import { revealFailureMessage, type FileSortOrder } from './core/fileDisplay';
import { VolumeDropController } from './vscode/volumeDrop';
import type { VolumesNode } from './vscode/volumeNodes';
import { VolumesTreeProvider } from './vscode/volumesTree';
import { LAZY_COMMANDS, VIEW_ID } from '../common/core/contributionIds';
import { volumeDisplayName } from '../common/core/volumeTargets';

export interface VolumesFeatureDeps {
  askAgentAbout(files: Array<AgentFileRef & { volume: string }>): Promise<void>;
  /** Files dropped on a volume: the upload feature's flow. */
  uploadTo(volume: string, uris: vscode.Uri[]): Promise<void>;
}

/** How `revealFile` ended; the two misses were also told to the user. `notVisible`: left alone, as asked. */
export type RevealOutcome = 'revealed' | 'volumeNotShown' | 'fileNotFound' | 'notVisible';

export interface RevealOptions {
  /**
   * Only select the row when the Volumes view is already on screen, without moving the focus:
   * a source opened from KSM Chat must not swap the side bar to Volumes and hide the answer
   * being read (issue 26, rough edge 2).
   */
  onlyIfVisible?: boolean;
}

export interface VolumesFeature {
  /** Reveals and selects a file in the Volumes tree, loading pages as needed (used by chat citations). */
  revealFile(volume: string, fileId: string, options?: RevealOptions): Promise<RevealOutcome>;
  /** Re-lists a volume and starts live status polling for files not yet final. */
  refreshVolume(volume: string): void;
  /**
   * Shows files just uploaded (even beyond the loaded pages) and polls them until final;
   * `doChunking` (what they were sent with) tells a chosen `na` from a failed one (D24).
   */
  watchUploaded(volume: string, files: FileInfo[], doChunking?: DoChunking): void;
  /** Remembers the do_chunking files were uploaded with elsewhere (folder sync), for reading their `na` (D24). */
  rememberProcessing(uuids: string[], doChunking: DoChunking): void;
  /** Adds a named volume to `ksm.volumes.list` (the upload picker's "Add Volume…"). */
  addVolumeToView(name: string): Promise<void>;
  /** Marks volumes kept in sync with a workspace folder (volume → folder label). */
  markSynced(marks: ReadonlyMap<string, string>): void;
}

/** How far `revealFile` pages through a volume looking for a file. */
const REVEAL_MAX_PAGES = 40;

export function registerVolumesFeature(services: ExtensionServices, deps: VolumesFeatureDeps): VolumesFeature {
  const { context } = services;
  const tree = createVolumesTree(services);
  tree.sortOrder = context.workspaceState.get<FileSortOrder>(WORKSPACE_STATE_KEY.fileSortOrder, 'upload');
  // Read from globalState on first use (the first file row drawn), not at activation.
  let loaded: ProcessingModes | undefined;
  const modes = () =>
    (loaded ??= new ProcessingModes(context.globalState.get(GLOBAL_STATE_KEY.processingModes), (entries) => {
      void context.globalState.update(GLOBAL_STATE_KEY.processingModes, entries);
    }));
  tree.processingMode = (uuid) => modes().get(uuid);
  const view = vscode.window.createTreeView<VolumesNode>(VIEW_ID.volumes, {
    treeDataProvider: tree,
    canSelectMany: true,
    showCollapseAll: true,
    dragAndDropController: new VolumeDropController((volume, uris) => deps.uploadTo(volume, uris)),
  });
  tree.setViewVisible(view.visible);
  context.subscriptions.push(
    tree,
    view,
    view.onDidChangeVisibility((e) => tree.setViewVisible(e.visible)),
    services.apiKey.onDidChange(() => tree.resetAll()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (['ksm.baseUrl', 'ksm.userId', 'ksm.volumes.pageSize', 'ksm.network', 'ksm.request'].some((key) => e.affectsConfiguration(key))) {
        tree.resetAll();
      } else if (e.affectsConfiguration('ksm.volumes.list')) {
        tree.refreshRoots();
      }
    }),
  );

  // The commands' code (filters, deletion, settings edits) loads at the first command.
  registerLazyCommands(services, LAZY_COMMANDS.volumes, async () => {
    const { registerVolumeCommands } = await import('./vscode/commands');
    return (recorder) => registerVolumeCommands(recorder, tree, view, (files) => deps.askAgentAbout(files));
  });
  return createVolumesApi(tree, view, modes);
}

/** The tree over the current settings and key: roots only when a base URL and a key exist. */
export function createVolumesTree(services: ExtensionServices): VolumesTreeProvider {
  return new VolumesTreeProvider(
    {
      roots: async () => {
        if (!settings.baseUrl() || !(await services.apiKey.get())) return undefined;
        return { personal: personalVolume(), named: settings.volumes() };
      },
      client: () => services.getClient(),
      pageSize: () => settings.pageSize(),
    },
    (volume, error) => services.log.warn(`[volumes] status poll of ${volume} failed: ${(error as Error).message}`),
  );
}

/** What other features call: over the tree, the view that reveals files, and the remembered processing modes. */
export function createVolumesApi(tree: VolumesTreeProvider, view: Pick<vscode.TreeView<VolumesNode>, 'reveal'> & { readonly visible?: boolean }, modes: () => ProcessingModes): VolumesFeature {
  return {
    addVolumeToView: async (name) => (await import('./vscode/commands')).addVolumeToView(name),
    refreshVolume: (volume) => {
      void tree.listing(volume).reload();
    },
    markSynced: (marks) => tree.setSyncMarks(marks),
    rememberProcessing: (uuids, doChunking) => modes().remember(uuids, doChunking),
    watchUploaded: (volume, files, doChunking) => {
      if (doChunking !== undefined)
        modes().remember(
          files.map((f) => f.uuid),
          doChunking,
        );
      const listing = tree.listing(volume);
      if (listing.state.kind === 'loaded') listing.addUploaded(files);
      else void listing.reload();
      if (files.length) tree.poller.watch(volume);
    },
    revealFile: async (volume, fileId, options = {}) => {
      if (options.onlyIfVisible && !view.visible) return 'notVisible';
      const volumes = await tree.currentVolumes();
      if (!volumes.includes(volume)) {
        void vscode.window.showInformationMessage(revealFailureMessage('volumeNotShown', volumeDisplayName(volume, personalVolume()), fileId));
        return 'volumeNotShown';
      }
      const listing = tree.listing(volume);
      await listing.ensureLoaded();
      for (let page = 0; !listing.find(fileId) && listing.hasMore && page < REVEAL_MAX_PAGES; page++) await listing.loadMore();
      const file = listing.find(fileId);
      if (!file) {
        void vscode.window.showInformationMessage(revealFailureMessage('fileNotFound', volumeDisplayName(volume, personalVolume()), fileId));
        return 'fileNotFound';
      }
      await view.reveal(tree.fileNode(volume, file), { select: true, focus: !options.onlyIfVisible, expand: true });
      return 'revealed';
    },
  };
}
