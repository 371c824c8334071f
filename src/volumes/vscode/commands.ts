// Commands on volumes and files: add/remove volumes, delete, copy id, ask the agent,
// filter and sort. Thin: the logic lives in the vscode-free modules they call.
import * as vscode from 'vscode';
import type { AgentFileRef } from '../../api/types';
import type { ExtensionServices } from '../../common/vscode/services';
import { fileSortOrders } from '../core/fileDisplay';
import { deleteQuestion, deleteSelectedFiles, describeFileList } from '../core/fileDeletion';
import { matchCountText, VolumeSearch } from '../core/fileSearch';
import { volumeDisplayName, volumeListAddition, volumeListRemovals, volumeNameProblem } from '../../common/core/volumeTargets';
import { inspectSetting, personalVolume, settings, updateSetting } from '../../common/vscode/settings';
import type { FileNode, VolumeNode, VolumesNode } from './volumeNodes';
import type { VolumesTreeProvider } from './volumesTree';
import { COMMAND, CONTEXT_KEY } from '../../common/core/contributionIds';
import { WORKSPACE_STATE_KEY } from '../../common/core/storageKeys';
import { withAbortSignal } from '../../common/vscode/cancellation';
import { shown, shownWithIcons } from '../../common/core/untrustedText';

/** Matches wanted per volume before a filter stops paging (more on "Search further…"). */
const FILTER_BATCH = 100;

export function registerVolumeCommands(
  services: ExtensionServices,
  tree: VolumesTreeProvider,
  view: Pick<vscode.TreeView<VolumesNode>, 'selection' | 'description' | 'message'>,
  askAgentAbout: (files: Array<AgentFileRef & { volume: string }>) => Promise<void>,
): void {
  const { context } = services;
  // An active filter shows in the view's title bar ("Filter "q" · 12 matches") with Clear
  // Filter beside it, not only as a changed icon; the tree reports every change of filter.
  // VS Code hides a view's description when the view is alone in its container (Volumes is,
  // since the chat has its own), so the same words also head the tree as its message.
  tree.onSearchesChanged = () => {
    const description = filterDescription([...tree.searches()]);
    view.description = description;
    view.message = description ? vscode.l10n.t('{0}. Clear Filter shows every file.', description) : undefined;
    void vscode.commands.executeCommand('setContext', CONTEXT_KEY.volumesFiltered, tree.filtering);
  };

  services.registerCommand(COMMAND.volumesAdd, async () => {
    const current = settings.volumes();
    const name = await vscode.window.showInputBox({
      title: vscode.l10n.t('Add Volume'),
      prompt: vscode.l10n.t('Name of a named volume. A volume that does not exist yet is created by its first upload.'),
      placeHolder: vscode.l10n.t('team-docs'),
      validateInput: (value) => volumeNameProblem(value, current),
    });
    if (name) await addVolumeToView(name.trim());
  });

  services.registerCommand(COMMAND.volumesRemove, async (node?: VolumeNode) => {
    if (node?.kind !== 'volume' || node.personal) return;
    const targets = { workspaceFolder: vscode.ConfigurationTarget.WorkspaceFolder, workspace: vscode.ConfigurationTarget.Workspace, global: vscode.ConfigurationTarget.Global };
    for (const { scope, list } of volumeListRemovals(inspectSetting('volumesList') ?? {}, vscode.workspace.isTrusted, node.volume)) {
      await updateSetting('volumes.list', list, targets[scope]);
    }
  });

  services.registerCommand(COMMAND.volumesRefresh, () => tree.resetAll());
  services.registerCommand(COMMAND.volumesRefreshVolume, (node?: VolumesNode) => {
    if (node) void tree.listing(node.volume).reload();
    else {
      // VS Code could not resolve the clicked row (it was being redrawn): the click still retries every volume showing an error.
      const errored = tree.erroredVolumes();
      services.log.info(`[volumes] Refresh Volume without a row: retrying ${errored.length ? errored.join(', ') : 'no volume (none shows an error)'}`);
      for (const volume of errored) void tree.listing(volume).reload();
    }
  });
  services.registerCommand(COMMAND.volumesOpenSettings, () => vscode.commands.executeCommand(COMMAND.openSettings, 'ksm.volumes'));

  services.registerCommand(COMMAND.volumesLoadMore, async (node?: VolumesNode) => {
    if (node?.kind !== 'loadMore') return;
    if (!node.search) return tree.listing(node.volume).loadMore();
    const search = tree.search(node.volume);
    if (!search) return;
    await runSearches([search]);
    tree.redrawVolume(node.volume);
  });

  services.registerCommand(COMMAND.volumesFilter, async () => {
    const query = await vscode.window.showInputBox({
      title: vscode.l10n.t('Filter Files'),
      prompt: vscode.l10n.t('Part of a file name (* and ? are wildcards). Large volumes are searched page by page.'),
      validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Enter part of a file name.')),
    });
    if (!query?.trim()) return;
    const volumes = await tree.currentVolumes();
    const client = services.getClient();
    const searches = new Map(volumes.map((v) => [v, new VolumeSearch(client, v, query.trim())]));
    tree.setSearches(searches);
    await runSearches([...searches.values()]);
    tree.refreshRoots();
  });

  services.registerCommand(COMMAND.volumesClearFilter, () => tree.setSearches(new Map()));

  services.registerCommand(COMMAND.volumesSort, async () => {
    const picked = await vscode.window.showQuickPick(
      fileSortOrders().map((o) => ({ ...o, description: o.order === tree.sortOrder ? vscode.l10n.t('(current)') : undefined })),
      { title: vscode.l10n.t('Sort Loaded Files By'), placeHolder: vscode.l10n.t('The service lists in upload order; sorting applies to the files loaded so far') },
    );
    if (!picked) return;
    tree.sortOrder = picked.order;
    await context.workspaceState.update(WORKSPACE_STATE_KEY.fileSortOrder, picked.order);
    tree.refreshRoots();
  });

  services.registerCommand(COMMAND.filesCopyId, async (node?: VolumesNode) => {
    if (node?.kind !== 'file') return;
    await vscode.env.clipboard.writeText(node.file.uuid);
    vscode.window.setStatusBarMessage(vscode.l10n.t('Copied the id of "{0}"', shownWithIcons(node.file.filename, 80)), 3000);
  });

  services.registerCommand(COMMAND.filesAskAgent, async (node?: VolumesNode, selected?: VolumesNode[]) => {
    const files = selectedFiles(node, selected);
    if (files.length === 0) return;
    await askAgentAbout(files.map((f) => ({ file_id: f.file.uuid, filename: f.file.filename, size: f.file.filesize, volume: f.volume })));
  });

  // From the context menu (node, selection) or the Delete key (no arguments: the view's selection).
  services.registerCommand(COMMAND.filesDelete, async (node?: VolumesNode, selected?: VolumesNode[]) => {
    const files = node || selected?.length ? selectedFiles(node, selected) : selectedFiles(undefined, [...view.selection]);
    if (files.length === 0) return;
    const deleteLabel = vscode.l10n.t('Delete');
    const answer = await vscode.window.showWarningMessage(
      deleteQuestion(
        files.map((f) => ({ volume: f.volume, uuid: f.file.uuid, filename: f.file.filename })),
        (volume) => volumeDisplayName(volume, personalVolume()),
      ),
      { modal: true, detail: vscode.l10n.t('The files are removed from the volume with their chunks and vectors. This cannot be undone.') },
      deleteLabel,
    );
    if (answer !== deleteLabel) return;
    const outcomes = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: files.length === 1 ? vscode.l10n.t('Deleting 1 file…') : vscode.l10n.t('Deleting {0} files…', files.length) },
      () =>
        deleteSelectedFiles(
          services.getClient(),
          files.map((f) => ({ volume: f.volume, uuid: f.file.uuid, filename: f.file.filename })),
        ),
    );
    const byVolume = new Map<string, string[]>();
    for (const o of outcomes) if (o.outcome !== 'failed') byVolume.set(o.volume, [...(byVolume.get(o.volume) ?? []), o.uuid]);
    for (const [volume, uuids] of byVolume) tree.listing(volume).removeFiles(uuids);
    const failed = outcomes.filter((o) => o.outcome === 'failed');
    const gone = outcomes.filter((o) => o.outcome === 'already gone');
    for (const o of outcomes) services.log.info(`[volumes] delete ${o.volume}/${shown(o.filename)} (${shown(o.uuid)}): ${o.outcome}${'reason' in o ? ` — ${o.reason}` : ''}`);
    if (failed.length) {
      const choice = await vscode.window.showErrorMessage(
        vscode.l10n.t(
          '{0} of {1} could not be deleted: {2}. {3}',
          failed.length,
          files.length,
          describeFileList(failed.map((f) => f.filename)),
          failed[0]!.outcome === 'failed' ? failed[0]!.reason : '',
        ),
        vscode.l10n.t('Show Log'),
      );
      if (choice) services.log.show();
    } else if (gone.length) {
      void vscode.window.showInformationMessage(
        gone.length === 1
          ? vscode.l10n.t('{0} was already gone.', describeFileList(gone.map((g) => g.filename)))
          : vscode.l10n.t('{0} were already gone.', describeFileList(gone.map((g) => g.filename))),
      );
    }
  });

  async function runSearches(searches: VolumeSearch[]): Promise<void> {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Filtering files by "{0}"', searches[0]?.query ?? ''), cancellable: true },
      (progress, token) =>
        withAbortSignal(token, async (signal) => {
          for (const search of searches) {
            try {
              await search.findMore(FILTER_BATCH, signal, (p) =>
                progress.report({ message: vscode.l10n.t('{0}: {1} files read, {2} matches', volumeDisplayName(search.volume, personalVolume()), p.scanned, p.matches) }),
              );
            } catch (error) {
              if (signal.aborted) return;
              services.log.warn(`[volumes] filter in ${search.volume} failed: ${(error as Error).message}`);
            }
            tree.redrawVolume(search.volume);
          }
        }),
    );
    tree.onSearchesChanged?.();
  }
}

/** The view's description while filtering: the query and the matches over every volume. */
function filterDescription(searches: VolumeSearch[]): string | undefined {
  if (searches.length === 0) return undefined;
  const count = searches.reduce((sum, s) => sum + s.matches.length, 0);
  const text = matchCountText(
    count,
    searches.some((s) => s.hasMoreMatches),
    searches.some((s) => !s.complete),
  );
  return `Filter "${searches[0]!.query}" · ${text}`;
}

function selectedFiles(node: VolumesNode | undefined, selected: VolumesNode[] | undefined): FileNode[] {
  const nodes = selected?.length ? selected : node ? [node] : [];
  return nodes.filter((n): n is FileNode => n.kind === 'file');
}

/** Adds a named volume to `ksm.volumes.list` without hiding the volumes listed in another scope. */
export async function addVolumeToView(name: string): Promise<void> {
  const inspected = inspectSetting('volumesList');
  // In Restricted Mode the workspace's list is not read, so it is not written either.
  const { scope, list } = volumeListAddition(inspected ?? {}, Boolean(vscode.workspace.workspaceFolders?.length) && vscode.workspace.isTrusted, name);
  await updateSetting('volumes.list', list, scope === 'workspace' ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global);
}
