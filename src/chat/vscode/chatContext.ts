// The VS Code side of what the chat sends and cites: the picker of volumes an agent
// conversation searches, and the read-only documents that show a cited passage
// (`ksm-citation:` URIs, served from memory by a TextDocumentContentProvider).
import * as vscode from 'vscode';
import { shownVolumes, volumeLabel } from '../../common/core/volumeTargets';
import { CITATION_SCHEME, type PassageDocument } from '../core/citationReveal';
import type { ContextVolume } from '../core/conversationModel';

type VolumeItem = vscode.QuickPickItem & { choice: ContextVolume };

/**
 * Multi-select of My files and the volumes of `ksm.volumes.list` (volumeTargets.ts lists and
 * labels them), the conversation's current choice ticked (all of them when it chose none).
 * Resolves to the new choice, or undefined when the user cancelled.
 */
export async function pickContextVolumes(personal: string | undefined, named: readonly string[], current: readonly ContextVolume[] | undefined): Promise<ContextVolume[] | undefined> {
  const targets = shownVolumes(personal, named);
  if (targets.length === 0) {
    void vscode.window.showInformationMessage('No volumes to choose from: set ksm.userId for My files, or add a volume in the Volumes view.');
    return undefined;
  }
  const items: VolumeItem[] = targets.map((target) => ({
    label: `$(${target.personal ? 'account' : 'database'}) ${volumeLabel(target)}`,
    description: target.personal ? target.volume : undefined,
    picked: !current?.length || current.some((c) => c.volume === target.volume),
    choice: { volume: target.volume, label: volumeLabel(target), personal: target.personal },
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'KSM: Volumes the Agent Searches in This Conversation',
    placeHolder: 'Tick the volumes to search (all ticked = every volume)',
    canPickMany: true,
    ignoreFocusOut: false,
  });
  if (!picked) return undefined;
  if (picked.length === 0) {
    void vscode.window.showInformationMessage('No volume chosen: the agent keeps searching every volume.');
    return [];
  }
  // Every volume ticked is the default: stored as "no choice", so volumes added later are searched too.
  return picked.length === targets.length ? [] : picked.map((item) => item.choice);
}

/** Serves the passage documents; each is kept until the window closes (they are small). */
export class CitationDocuments implements vscode.TextDocumentContentProvider {
  private readonly documents = new Map<string, string>();

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.documents.get(uri.toString()) ?? 'This cited passage is no longer available. Click its source in the chat again.\n';
  }

  /** Opens the passage beside the chat, read-only, as a preview tab. */
  async open(passage: PassageDocument): Promise<vscode.TextEditor> {
    const uri = vscode.Uri.from({ scheme: CITATION_SCHEME, path: passage.path, query: passage.query });
    this.documents.set(uri.toString(), passage.text);
    const document = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(document, { preview: true, preserveFocus: false });
  }
}
