// The VS Code side of what the chat sends and cites: the picker of volumes an agent
// conversation searches, and the read-only documents that show a cited passage
// (`ksm-citation:` URIs, served from memory by a TextDocumentContentProvider).
import * as vscode from 'vscode';
import type { KsmService } from '../../api/service';
import { shownVolumes, volumeLabel, type VolumeTarget } from '../../common/core/volumeTargets';
import { CITATION_SCHEME, type PassageDocument } from '../core/citationReveal';
import type { CitedPassage } from '../core/conversationContext';

/** A workspace file and the cited passage's lines in it (0-based, end inclusive). */
export interface WorkspaceSource {
  path: string;
  passage?: { startLine: number; endLine: number };
}
import type { AttachedFile, ContextVolume } from '../core/conversationModel';
import { messageWithFix } from '../../common/core/errorFixes';
import { shownWithIcons } from '../../common/core/untrustedText';

/** The pickers the chat view opens for the context of an agent conversation. */
export interface ContextPickers {
  volumes(current: readonly ContextVolume[] | undefined): Promise<ContextVolume[] | undefined>;
  files(current: readonly AttachedFile[] | undefined): Promise<AttachedFile[] | undefined>;
}

/**
 * The most files the file picker lists from one volume. The quick pick filters thousands
 * well; past this the user is told to narrow down with a volume instead.
 */
export const MAX_PICKABLE_FILES = 5000;

type VolumeItem = vscode.QuickPickItem & { choice: ContextVolume };

/**
 * Multi-select of My files and the volumes of `ksm.volumes.list` (volumeTargets.ts lists and
 * labels them), the conversation's current choice ticked (all of them when it chose none).
 * Resolves to the new choice, or undefined when the user cancelled.
 */
export async function pickContextVolumes(personal: string | undefined, named: readonly string[], current: readonly ContextVolume[] | undefined): Promise<ContextVolume[] | undefined> {
  const targets = shownVolumes(personal, named);
  if (targets.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No volumes to choose from: set ksm.userId for My files, or add a volume in the Volumes view.'));
    return undefined;
  }
  const items: VolumeItem[] = targets.map((target) => ({
    label: `$(${target.personal ? 'account' : 'database'}) ${shownWithIcons(volumeLabel(target))}`,
    description: target.personal ? target.volume : undefined,
    picked: !current?.length || current.some((c) => c.volume === target.volume),
    choice: { volume: target.volume, label: volumeLabel(target), personal: target.personal },
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('KSM: Volumes the Agent Searches in This Conversation'),
    placeHolder: vscode.l10n.t('Tick the volumes to search (all ticked = every volume)'),
    canPickMany: true,
    ignoreFocusOut: false,
  });
  if (!picked) return undefined;
  if (picked.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No volume chosen: the agent keeps searching every volume.'));
    return [];
  }
  // Every volume ticked is the default: stored as "no choice", so volumes added later are searched too.
  return picked.length === targets.length ? [] : picked.map((item) => item.choice);
}

type FileItem = vscode.QuickPickItem & { file: AttachedFile };

/**
 * Two steps: one volume (My files or a named one), then any of its searchable (`done`)
 * files, the conversation's current files of that volume ticked. Resolves to the whole new
 * list (other volumes' files kept), or undefined when the user cancelled.
 */
export async function pickContextFiles(
  service: () => KsmService,
  personal: string | undefined,
  named: readonly string[],
  current: readonly AttachedFile[] | undefined,
): Promise<AttachedFile[] | undefined> {
  const targets = shownVolumes(personal, named);
  const volume = await vscode.window.showQuickPick(
    targets.map((target) => ({ label: `$(${target.personal ? 'account' : 'database'}) ${shownWithIcons(volumeLabel(target))}`, target })),
    { title: vscode.l10n.t('KSM: Files the Agent Searches — 1/2: Volume'), placeHolder: vscode.l10n.t('Whose files should this conversation search?') },
  );
  if (!volume) return undefined;
  let files: AttachedFile[];
  try {
    files = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Listing {0}…', volumeLabel(volume.target)) }, () =>
      searchableFiles(service(), volume.target),
    );
  } catch (error) {
    // A named volume nobody uploaded to yet answers 404 (D6): it has no files to choose.
    const missing = (error as { status?: unknown }).status === 404;
    void vscode.window.showWarningMessage(
      missing ? vscode.l10n.t('{0} has no files yet.', volumeLabel(volume.target)) : vscode.l10n.t('Could not list {0}: {1}', volumeLabel(volume.target), messageWithFix(error)),
    );
    return undefined;
  }
  if (files.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} has no searchable files yet (only processed files can be searched).', volumeLabel(volume.target)));
    return undefined;
  }
  // The names are the service's (anyone who uploads to a shared volume chose them): text, not icons.
  const items: FileItem[] = files.map((file) => ({
    label: shownWithIcons(file.filename),
    description: shownWithIcons(volumeLabel(volume.target)),
    picked: current?.some((c) => c.fileId === file.fileId) ?? false,
    file,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('KSM: Files the Agent Searches — 2/2: {0}', volumeLabel(volume.target)),
    placeHolder: vscode.l10n.t('Tick the files to search (the agent then searches only the chosen files)'),
    canPickMany: true,
    matchOnDescription: true,
  });
  if (!picked) return undefined;
  const others = (current ?? []).filter((c) => c.volume !== volume.target.volume);
  return [...others, ...picked.map((item) => item.file)];
}

async function searchableFiles(service: KsmService, target: VolumeTarget): Promise<AttachedFile[]> {
  const files: AttachedFile[] = [];
  for await (const info of service.listAllFiles(target.volume)) {
    if (info.status === 'done' && info.isdir !== 1) files.push({ fileId: info.uuid, filename: info.filename, size: info.filesize, volume: target.volume });
    if (files.length >= MAX_PICKABLE_FILES) break;
  }
  return files;
}

/** Serves the passage documents; each is kept until the window closes (they are small). */
export class CitationDocuments implements vscode.TextDocumentContentProvider {
  private readonly documents = new Map<string, string>();

  /** `workspaceSource`: the workspace file a cited file was synced from (the sync feature), opened instead of the passage. */
  constructor(private readonly workspaceSource?: (cited: CitedPassage) => Promise<WorkspaceSource | undefined>) {}

  /**
   * A citation leads to the code: the workspace file it was synced from, at the cited
   * passage (its lines selected), when there is one; else the read-only passage document.
   */
  async openCited(passage: PassageDocument, cited: CitedPassage): Promise<vscode.TextEditor> {
    const local = await this.workspaceSource?.(cited).catch(() => undefined);
    if (!local) return this.open(passage);
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(local.path));
    const range = local.passage ? new vscode.Range(local.passage.startLine, 0, local.passage.endLine, document.lineAt(Math.min(local.passage.endLine, document.lineCount - 1)).text.length) : undefined;
    const editor = await vscode.window.showTextDocument(document, { preview: true, preserveFocus: false, ...(range ? { selection: range } : {}) });
    if (range) editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return editor;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.documents.get(uri.toString()) ?? `${vscode.l10n.t('This cited passage is no longer available. Click its source in the chat again.')}\n`;
  }

  /** Opens the passage beside the chat, read-only, as a preview tab. */
  async open(passage: PassageDocument): Promise<vscode.TextEditor> {
    const uri = vscode.Uri.from({ scheme: CITATION_SCHEME, path: passage.path, query: passage.query });
    this.documents.set(uri.toString(), passage.text);
    const document = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(document, { preview: true, preserveFocus: false });
  }
}
