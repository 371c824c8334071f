// The dialogs of an upload: the questions it asks (target volume, recent first; do_chunking,
// remembered per volume; embedding model, offered to save; what to do with duplicate names)
// and the summary it ends with ("12 uploaded, 2 failed" with "Show Details", a per-file
// listing in an output channel, and "Retry Failed").
import * as vscode from 'vscode';
import { shown } from '../../common/core/untrustedText';
import type { DoChunking } from '../../api/types';
import type { ExtensionServices } from '../../common/vscode/services';
import type { VolumesFeature } from '../../volumes/volumesFeature';
import { personalVolume, settings, updateSetting } from '../../common/vscode/settings';
import { volumeDisplayName } from '../../common/core/volumeTargets';
import { pickVolume as pickVolumeOrNew } from '../../common/vscode/volumePicker';
import type { DuplicateDecider } from '../core/duplicatePlanning';
import { chunkingOrder, processingWithoutAsking, rememberedChunking, volumeChoices, withChunking, withRecentVolume } from '../core/uploadMemory';
import { allIdentical, duplicateOptions, duplicateTitle, nothingToUploadMessage, summaryLine, type DuplicateOption } from '../core/uploadMessages';
import type { SkippedFile } from '../../common/core/folderExpansion';
import { GLOBAL_STATE_KEY } from '../../common/core/storageKeys';
import type { UploadSummary } from '../core/uploadRun';

/** The target volume, and whether the user asked to choose its processing this time. */
export interface VolumePick {
  volume: string;
  changeProcessing: boolean;
}

/**
 * The target volume, recent first. Each volume shows the processing it remembers; its
 * gear button ("Change processing…") picks the volume and asks the processing again.
 */
export async function pickVolume(services: ExtensionServices, volumes: VolumesFeature): Promise<VolumePick | undefined> {
  const named = settings.volumes();
  const state = services.context.globalState;
  const changeButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('settings-gear'), tooltip: vscode.l10n.t('Upload here and choose the processing again') };
  const choices = volumeChoices(personalVolume(), named, state.get(GLOBAL_STATE_KEY.recentUploadVolumes)).map((choice) => {
    const remembered = rememberedChunking(state.get(GLOBAL_STATE_KEY.chunkingByVolume), choice.volume);
    return {
      ...choice,
      notes: [choice.recent ? vscode.l10n.t('recently used') : undefined, remembered === undefined ? undefined : CHUNKING_OPTIONS[remembered].label].filter((n): n is string => !!n),
      button: remembered === undefined ? undefined : changeButton,
    };
  });
  const picked = await pickVolumeOrNew(choices, {
    title: vscode.l10n.t('Upload to Volume'),
    placeholder: vscode.l10n.t('Choose the volume to upload to (the gear changes its processing)'),
    newVolume: {
      label: vscode.l10n.t('Add Volume…'),
      icon: 'add',
      title: vscode.l10n.t('Upload to a New Volume'),
      prompt: vscode.l10n.t('Named volume; it is created by this upload and added to the Volumes view.'),
      taken: named,
    },
  });
  if (!picked) return undefined;
  if (picked.isNew) await volumes.addVolumeToView(picked.volume);
  return { volume: picked.volume, changeProcessing: picked.viaButton };
}

export async function rememberVolume(services: ExtensionServices, volume: string): Promise<void> {
  const state = services.context.globalState;
  const recent = withRecentVolume(state.get(GLOBAL_STATE_KEY.recentUploadVolumes), volume);
  if (recent) await state.update(GLOBAL_STATE_KEY.recentUploadVolumes, recent); // a later version's shape is left as it is
}

const CHUNKING_OPTIONS: Record<DoChunking, { label: string; detail: string }> = {
  1: { label: vscode.l10n.t('Chunk and embed'), detail: vscode.l10n.t('Searchable by the agent (do_chunking = 1)') },
  2: { label: vscode.l10n.t('Chunk only'), detail: vscode.l10n.t('Split into chunks, no vectors: not searchable (do_chunking = 2)') },
  0: { label: vscode.l10n.t('Store only'), detail: vscode.l10n.t('Kept as is, not searchable (do_chunking = 0)') },
};

/**
 * The processing for an upload to `volume`: the one remembered for it without a question
 * (unless `ask` or ksm.upload.askProcessing), else the pick below.
 */
export async function chooseChunking(services: ExtensionServices, volume: string, ask: boolean): Promise<DoChunking | undefined> {
  const known = ask ? undefined : processingWithoutAsking(services.context.globalState.get(GLOBAL_STATE_KEY.chunkingByVolume), volume, settings.askProcessing());
  return known ?? pickChunking(services, volume);
}

/** Asks the processing, the remembered (or default) one first, and remembers the answer for the volume. */
export async function pickChunking(services: ExtensionServices, volume: string): Promise<DoChunking | undefined> {
  const state = services.context.globalState;
  const last = rememberedChunking(state.get(GLOBAL_STATE_KEY.chunkingByVolume), volume);
  const first = last === undefined ? vscode.l10n.t('default (ksm.upload.doChunking)') : vscode.l10n.t('last used');
  const items = chunkingOrder(last ?? settings.doChunking()).map((value, index) => ({ value, ...CHUNKING_OPTIONS[value], description: index === 0 ? first : undefined }));
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Processing for {0}', volumeDisplayName(volume, personalVolume())),
    placeHolder: vscode.l10n.t('Remembered for this volume (change it later with the gear in the volume list, or ask every time: ksm.upload.askProcessing)'),
  });
  if (!picked) return undefined;
  const remembered = withChunking(state.get(GLOBAL_STATE_KEY.chunkingByVolume), volume, picked.value);
  if (remembered) await state.update(GLOBAL_STATE_KEY.chunkingByVolume, remembered); // a later version's shape is left as it is
  return picked.value;
}

/** The short name of a processing choice ("Chunk and embed"), for titles. */
export function chunkingLabel(value: DoChunking): string {
  return CHUNKING_OPTIONS[value].label;
}

export async function embeddingModel(): Promise<string | undefined> {
  const configured = settings.embeddingModel();
  if (configured) return configured;
  const model = await vscode.window.showInputBox({
    title: vscode.l10n.t('Embedding Model'),
    prompt: vscode.l10n.t('Id of the embedding model for this upload (sent as `embedding`).'),
    placeHolder: vscode.l10n.t('emu-embed'),
    validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Enter the embedding model id.')),
  });
  if (!model?.trim()) return undefined;
  void vscode.window.showInformationMessage(vscode.l10n.t('Use "{0}" for every upload?', model.trim()), vscode.l10n.t('Save in Settings')).then((c) => {
    if (c) void updateSetting('upload.embeddingModel', model.trim());
  });
  return model.trim();
}

/**
 * The duplicate question for uploads to `volume` (its display name): Skip / Keep Both /
 * Replace and, with more clashes to come, the same "for all" (uploadMessages.ts). A quick
 * pick rather than a modal: each choice says what it does, and the safe Skip is the
 * default (Enter), never Replace. Escape cancels the whole upload.
 */
export function askAboutDuplicate(volume: string): DuplicateDecider {
  return async (question) => {
    type Item = vscode.QuickPickItem & { option?: DuplicateOption };
    const options = duplicateOptions(question, volume);
    const items: Item[] = [];
    options.forEach((option, index) => {
      if (index === 3) items.push({ label: vscode.l10n.t('This and the {0} remaining clashes', question.remaining - 1), kind: vscode.QuickPickItemKind.Separator });
      items.push({ label: option.label, detail: option.detail, option });
    });
    const picked = await vscode.window.showQuickPick(items, {
      title: duplicateTitle(question, volume),
      placeHolder: question.remaining > 1 ? vscode.l10n.t('{0} names clash in this upload; Escape cancels the upload', question.remaining) : vscode.l10n.t('Escape cancels the upload'),
      ignoreFocusOut: true,
    });
    return picked?.option ? { choice: picked.option.choice, applyToAll: picked.option.applyToAll } : undefined;
  };
}

let detailsChannel: vscode.OutputChannel | undefined;

export async function showSummary(services: ExtensionServices, summary: UploadSummary, retry: (paths: string[]) => unknown): Promise<void> {
  const failedPaths = summary.results.filter((r) => r.outcome === 'failed' || r.outcome === 'cancelled').map((r) => r.path);
  const showDetailsLabel = vscode.l10n.t('Show Details');
  const retryLabel = vscode.l10n.t('Retry Failed');
  const actions = [showDetailsLabel, ...(failedPaths.length ? [retryLabel] : [])];
  const line = summaryLine(summary, volumeDisplayName(summary.volume, personalVolume()));
  // Nothing stored while something was skipped or failed is worth a warning, not an info.
  const show = summary.failed || (summary.uploaded === 0 && summary.skipped && !allIdentical(summary)) ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const choice = await show(line, ...actions);
  if (choice === showDetailsLabel) {
    showDetails(
      services,
      line,
      summary.results.map((r) => {
        const why =
          r.outcome === 'uploaded'
            ? r.replacing
              ? vscode.l10n.t('as {0}; the older copy stays searchable until this one is processed', r.info.uuid)
              : vscode.l10n.t('as {0}', r.info.uuid)
            : r.reason;
        return `${r.outcome.padEnd(9)} ${r.filename}  ${why}  [${r.path}]`;
      }),
    );
  } else if (choice === retryLabel) {
    await retry(failedPaths);
  }
}

/** A selection where every file was skipped: said at once, as a warning with the reasons. */
export async function showNothingToUpload(services: ExtensionServices, skipped: readonly SkippedFile[]): Promise<void> {
  const line = nothingToUploadMessage(skipped);
  const showDetailsLabel = vscode.l10n.t('Show Details');
  const choice = await vscode.window.showWarningMessage(line, ...(skipped.length ? [showDetailsLabel] : []));
  if (choice === showDetailsLabel)
    showDetails(
      services,
      line,
      skipped.map((s) => `skipped   ${s.path}  ${s.reason}`),
    );
}

function showDetails(services: ExtensionServices, line: string, rows: string[]): void {
  if (!detailsChannel) {
    detailsChannel = vscode.window.createOutputChannel(vscode.l10n.t('KSM Upload Details'));
    services.context.subscriptions.push(detailsChannel);
  }
  detailsChannel.clear();
  detailsChannel.appendLine(line);
  // A row quotes names and the service's ids and reasons: a newline in one would forge rows.
  for (const row of rows) detailsChannel.appendLine(shown(row));
  detailsChannel.show(true);
}
