// The dialogs of an upload: the questions it asks (target volume, recent first; do_chunking,
// remembered per volume; embedding model, offered to save; what to do with duplicate names)
// and the summary it ends with ("12 uploaded, 2 failed" with "Show Details", a per-file
// listing in an output channel, and "Retry Failed").
import * as vscode from 'vscode';
import type { DoChunking } from '../../api/types';
import type { ExtensionServices } from '../../common/vscode/services';
import type { VolumesFeature } from '../../volumes/volumesFeature';
import { personalVolume, settings, updateSetting } from '../../common/vscode/settings';
import { volumeCodicon, volumeLabel, volumeNameProblem } from '../../common/core/volumeTargets';
import type { DuplicateDecider } from '../core/duplicatePlanning';
import { chunkingOrder, rememberedChunking, volumeChoices, withChunking, withRecentVolume } from '../core/uploadMemory';
import { GLOBAL_STATE_KEY } from '../../common/core/storageKeys';
import type { UploadSummary } from '../core/uploadRun';


export async function pickVolume(services: ExtensionServices, volumes: VolumesFeature): Promise<string | undefined> {
  const named = settings.volumes();
  const choices = volumeChoices(personalVolume(), named, services.context.globalState.get(GLOBAL_STATE_KEY.recentUploadVolumes));
  type Item = vscode.QuickPickItem & { volume?: string; add?: boolean };
  const items: Item[] = choices.map((choice) => ({
    label: volumeLabel(choice),
    description: [choice.personal ? choice.volume : undefined, choice.recent ? 'recently used' : undefined].filter(Boolean).join(' · ') || undefined,
    iconPath: new vscode.ThemeIcon(volumeCodicon(choice)),
    volume: choice.volume,
  }));
  items.push({ label: 'Add Volume…', iconPath: new vscode.ThemeIcon('add'), add: true, alwaysShow: true });
  const picked = await vscode.window.showQuickPick(items, { title: 'Upload to Volume', placeHolder: 'Choose the volume to upload to' });
  if (!picked) return undefined;
  if (!picked.add) return picked.volume;
  const name = await vscode.window.showInputBox({
    title: 'Upload to a New Volume',
    prompt: 'Named volume; it is created by this upload and added to the Volumes view.',
    validateInput: (v) => volumeNameProblem(v, named),
  });
  if (!name) return undefined;
  await volumes.addVolumeToView(name.trim());
  return name.trim();
}

export async function rememberVolume(services: ExtensionServices, volume: string): Promise<void> {
  const state = services.context.globalState;
  await state.update(GLOBAL_STATE_KEY.recentUploadVolumes, withRecentVolume(state.get(GLOBAL_STATE_KEY.recentUploadVolumes), volume));
}

const CHUNKING_OPTIONS: Record<DoChunking, { label: string; detail: string }> = {
  1: { label: 'Chunk and embed', detail: 'Searchable by the agent (do_chunking = 1)' },
  2: { label: 'Chunk only', detail: 'Split into chunks, no vectors: not searchable (do_chunking = 2)' },
  0: { label: 'Store only', detail: 'Kept as is, not searchable (do_chunking = 0)' },
};

export async function pickChunking(services: ExtensionServices, volume: string): Promise<DoChunking | undefined> {
  const state = services.context.globalState;
  const last = rememberedChunking(state.get(GLOBAL_STATE_KEY.chunkingByVolume), volume);
  const first = last === undefined ? 'default (ksm.upload.doChunking)' : 'last used';
  const items = chunkingOrder(last ?? settings.doChunking()).map((value, index) => ({ value, ...CHUNKING_OPTIONS[value], description: index === 0 ? first : undefined }));
  const picked = await vscode.window.showQuickPick(items, { title: `Processing for ${volume}` });
  if (!picked) return undefined;
  await state.update(GLOBAL_STATE_KEY.chunkingByVolume, withChunking(state.get(GLOBAL_STATE_KEY.chunkingByVolume), volume, picked.value));
  return picked.value;
}

export async function embeddingModel(): Promise<string | undefined> {
  const configured = settings.embeddingModel();
  if (configured) return configured;
  const model = await vscode.window.showInputBox({
    title: 'Embedding Model',
    prompt: 'Id of the embedding model for this upload (sent as `embedding`).',
    placeHolder: 'emu-embed',
    validateInput: (v) => (v.trim() ? undefined : 'Enter the embedding model id.'),
  });
  if (!model?.trim()) return undefined;
  void vscode.window.showInformationMessage(`Use "${model.trim()}" for every upload?`, 'Save in Settings').then((c) => {
    if (c) void updateSetting('upload.embeddingModel', model.trim());
  });
  return model.trim();
}

/** Replace / Keep Both / Skip, each also "for all", in one modal. */
export const askAboutDuplicate: DuplicateDecider = async ({ filename, existing, remaining }) => {
  const many = remaining > 1;
  const buttons = many ? ['Replace', 'Keep Both', 'Skip', 'Replace All', 'Keep All', 'Skip All'] : ['Replace', 'Keep Both', 'Skip'];
  const answer = await vscode.window.showWarningMessage(
    `"${filename}" already exists in the volume${existing.length > 1 ? ` (${existing.length} copies)` : ''}.`,
    {
      modal: true,
      detail: `Replace uploads the new file, then deletes the old one. Keep Both uploads it under a new name.${many ? ` ${remaining} names clash in this upload; "… All" answers for every one.` : ''}`,
    },
    ...buttons,
  );
  switch (answer) {
    case 'Replace':
    case 'Replace All':
      return { choice: 'replace', applyToAll: answer === 'Replace All' };
    case 'Keep Both':
    case 'Keep All':
      return { choice: 'keepBoth', applyToAll: answer === 'Keep All' };
    case 'Skip':
    case 'Skip All':
      return { choice: 'skip', applyToAll: answer === 'Skip All' };
    default:
      return undefined;
  }
};

let detailsChannel: vscode.OutputChannel | undefined;

function summaryLine(summary: UploadSummary): string {
  const parts = [`${summary.uploaded} uploaded`];
  if (summary.failed) parts.push(`${summary.failed} failed`);
  if (summary.skipped) parts.push(`${summary.skipped} skipped`);
  if (summary.cancelled) parts.push(`${summary.cancelled} not sent (cancelled)`);
  const replacing = summary.replacements.length;
  if (replacing) parts.push(`${replacing} replace${replacing === 1 ? 's' : ''} an older copy once processed`);
  return `${parts.join(', ')} — ${summary.volume}`;
}

export async function showSummary(services: ExtensionServices, summary: UploadSummary, retry: (paths: string[]) => unknown): Promise<void> {
  const failedPaths = summary.results.filter((r) => r.outcome === 'failed' || r.outcome === 'cancelled').map((r) => r.path);
  const actions = ['Show Details', ...(failedPaths.length ? ['Retry Failed'] : [])];
  const line = summaryLine(summary);
  const show = summary.failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const choice = await show(line, ...actions);
  if (choice === 'Show Details') {
    if (!detailsChannel) {
      detailsChannel = vscode.window.createOutputChannel('KSM Upload Details');
      services.context.subscriptions.push(detailsChannel);
    }
    detailsChannel.clear();
    detailsChannel.appendLine(line);
    for (const r of summary.results) {
      const why = r.outcome === 'uploaded' ? `as ${r.info.uuid}${r.replacing ? `; the older copy stays searchable until this one is processed` : ''}` : r.reason;
      detailsChannel.appendLine(`${r.outcome.padEnd(9)} ${r.filename}  ${why}  [${r.path}]`);
    }
    detailsChannel.show(true);
  } else if (choice === 'Retry Failed') {
    await retry(failedPaths);
  }
}
