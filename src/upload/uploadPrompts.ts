// The questions an upload asks: target volume (recent first), do_chunking (remembered per
// volume), embedding model (offered to save), and what to do with duplicate names.
import * as vscode from 'vscode';
import type { DoChunking } from '../api/types';
import type { ExtensionServices } from '../common/services';
import { personalVolume, settings, updateSetting } from '../common/settings';
import { addVolumeToView } from '../volumes/volumeCommands';
import { volumeNameProblem } from '../volumes/volumeNames';
import type { DuplicateDecider } from './duplicatePlanning';

const RECENT_KEY = 'ksm.upload.recentVolumes';
const CHUNKING_KEY = 'ksm.upload.doChunkingByVolume';

export async function pickVolume(services: ExtensionServices): Promise<string | undefined> {
  const state = services.context.globalState;
  const personal = personalVolume();
  const named = settings.volumes();
  const recent = state.get<string[]>(RECENT_KEY, []).filter((v) => v === personal || named.includes(v));
  const all = [...(personal ? [personal] : []), ...named.filter((v) => v !== personal)];
  const ordered = [...recent, ...all.filter((v) => !recent.includes(v))];
  type Item = vscode.QuickPickItem & { volume?: string; add?: boolean };
  const items: Item[] = ordered.map((volume) => ({
    label: volume === personal ? 'My files' : volume,
    description: volume === personal ? volume : recent.includes(volume) ? 'recently used' : undefined,
    iconPath: new vscode.ThemeIcon(volume === personal ? 'account' : 'database'),
    volume,
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
  await addVolumeToView(name.trim());
  return name.trim();
}

export async function rememberVolume(services: ExtensionServices, volume: string): Promise<void> {
  const state = services.context.globalState;
  const recent = state.get<string[]>(RECENT_KEY, []).filter((v) => v !== volume);
  await state.update(RECENT_KEY, [volume, ...recent].slice(0, 10));
}

export async function pickChunking(services: ExtensionServices, volume: string): Promise<DoChunking | undefined> {
  const remembered = services.context.globalState.get<Record<string, DoChunking>>(CHUNKING_KEY, {});
  const current = remembered[volume] ?? settings.doChunking();
  const options: Array<vscode.QuickPickItem & { value: DoChunking }> = [
    { value: 1, label: 'Chunk and embed', detail: 'Searchable by the agent (do_chunking = 1)' },
    { value: 2, label: 'Chunk only', detail: 'Split into chunks, no vectors: not searchable (do_chunking = 2)' },
    { value: 0, label: 'Store only', detail: 'Kept as is, not searchable (do_chunking = 0)' },
  ];
  const ordered = [...options.filter((o) => o.value === current), ...options.filter((o) => o.value !== current)];
  ordered[0]!.description = 'last used';
  const picked = await vscode.window.showQuickPick(ordered, { title: `Processing for ${volume}` });
  if (!picked) return undefined;
  await services.context.globalState.update(CHUNKING_KEY, { ...remembered, [volume]: picked.value });
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
