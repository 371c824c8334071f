// Tree nodes of the Volumes view and how each is drawn. Node objects are kept stable
// (one per volume, one per file) so change events can name exactly the nodes that changed.
import * as vscode from 'vscode';
import { volumeCodicon, volumeLabel } from '../../common/core/volumeTargets';
import type { DoChunking, FileInfo } from '../../api/types';
import { fileAccessibleLabel, fileDescription, fileRowLabel, fileState, fileTooltipMarkdown, treeRowId, volumeAccessibleLabel } from '../core/fileDisplay';
import { markdownCode, markdownText, shownInput } from '../../common/core/untrustedText';
import { COMMAND } from '../../common/core/contributionIds';
import type { ErrorFix } from '../../common/core/errorFixes';

export interface VolumeNode {
  kind: 'volume';
  volume: string;
  personal: boolean;
}

export interface FileNode {
  kind: 'file';
  volume: string;
  /** Updated in place by polling; the node object stays the same. */
  file: FileInfo;
}

export interface LoadMoreNode {
  kind: 'loadMore';
  volume: string;
  /** Filter mode: "search further" instead of "next page". */
  search: boolean;
}

export interface MessageNode {
  kind: 'message';
  volume: string;
  role: 'empty' | 'missing' | 'error' | 'loading' | 'noMatches';
  label: string;
  detail?: string;
  /** What a click does on an error the user can fix (errorFixes.ts); other errors retry. */
  fix?: ErrorFix['action'];
}

export type VolumesNode = VolumeNode | FileNode | LoadMoreNode | MessageNode;

/**
 * `syncedWith`: the workspace folder kept in sync with this volume (ksm.sync.folders), if any.
 * Both names come from settings a repository may hold: shown escaped, and the tooltip's
 * Markdown renders no icon syntax, so `$(…)` or `[…](…)` in them stays text.
 */
export function volumeItem(node: VolumeNode, summary: string | undefined, shownSyncedWith?: string): vscode.TreeItem {
  const label = shownInput(volumeLabel(node), 200);
  const syncedWith = shownSyncedWith === undefined ? undefined : shownInput(shownSyncedWith, 200);
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = treeRowId('volume', node.volume);
  item.contextValue = node.personal ? 'ksm.volume.personal' : 'ksm.volume.named';
  item.iconPath = new vscode.ThemeIcon(volumeCodicon(node));
  item.description = syncedWith ? [`⇄ ${syncedWith}`, summary].filter(Boolean).join(' · ') : summary;
  item.accessibilityInformation = { label: volumeAccessibleLabel(label, node.personal, summary, syncedWith), role: 'treeitem' };
  const code = markdownCode(shownInput(node.volume, 200));
  item.tooltip = new vscode.MarkdownString(
    `**${markdownText(label)}**\n\n${node.personal ? vscode.l10n.t('Your personal volume `{0}`', code) : vscode.l10n.t('Named volume `{0}`', code)}` +
      (syncedWith ? `\n\n⇄ ${vscode.l10n.t('Kept in sync with the folder `{0}`', markdownCode(syncedWith))}` : ''),
  );
  return item;
}

/** `mode`: the do_chunking this extension uploaded the file with, if it remembers (D24). */
export function fileItem(node: FileNode, mode?: DoChunking): vscode.TreeItem {
  const { file } = node;
  const known = file.doChunking ?? mode;
  // Folders have no listable children (the service lists a volume flat), so none expand.
  const item = new vscode.TreeItem(fileRowLabel(file), vscode.TreeItemCollapsibleState.None);
  item.id = treeRowId('file', node.volume, file.uuid);
  item.description = fileDescription(file, known);
  item.accessibilityInformation = { label: fileAccessibleLabel(file, known), role: 'treeitem' };
  item.tooltip = new vscode.MarkdownString(fileTooltipMarkdown(file, node.volume, vscode.env.language, known));
  if (file.isdir) {
    item.iconPath = vscode.ThemeIcon.Folder;
    item.contextValue = 'ksm.folder';
  } else {
    const state = fileState(file, known);
    item.iconPath = new vscode.ThemeIcon(state.icon, state.warning ? new vscode.ThemeColor('list.warningForeground') : undefined);
    item.contextValue = `ksm.file.${file.status}`;
  }
  return item;
}

export function loadMoreItem(node: LoadMoreNode, remaining: string): vscode.TreeItem {
  const item = new vscode.TreeItem(node.search ? vscode.l10n.t('Search further…') : vscode.l10n.t('Load more…'), vscode.TreeItemCollapsibleState.None);
  item.id = treeRowId(node.search ? 'search' : 'more', node.volume);
  item.description = remaining;
  item.accessibilityInformation = { label: [item.label as string, remaining].filter(Boolean).join(', '), role: 'treeitem' };
  item.iconPath = new vscode.ThemeIcon(node.search ? 'search' : 'ellipsis');
  item.contextValue = 'ksm.loadMore';
  item.command = { command: COMMAND.volumesLoadMore, title: item.label as string, arguments: [node] };
  return item;
}

export function messageItem(node: MessageNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
  item.id = treeRowId('message', node.volume, node.role);
  item.description = node.detail;
  item.tooltip = node.detail ? `${node.label}\n${node.detail}` : node.label;
  item.accessibilityInformation = { label: [node.role === 'error' ? vscode.l10n.t('Error: {0}', node.label) : node.label, node.detail].filter(Boolean).join(', '), role: 'treeitem' };
  if (node.role === 'error') {
    item.contextValue = 'ksm.error';
    item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    item.command = node.fix ? { command: node.fix.command, title: node.fix.title } : { command: COMMAND.volumesRefreshVolume, title: vscode.l10n.t('Retry'), arguments: [node] };
  } else {
    item.contextValue = 'ksm.message';
    item.iconPath = new vscode.ThemeIcon(node.role === 'loading' ? 'loading~spin' : 'info');
  }
  return item;
}
