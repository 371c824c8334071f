// Upload commands: from the Explorer (multi-select, folders), an editor tab, the palette
// (file picker), a volume's inline button and drag and drop (via `ksm.upload.toVolume`).
// Both commands return the UploadSummary, so scripts and tests can drive them with
// `UploadChoices` instead of answering the pickers.
import * as vscode from 'vscode';
import { NotFoundError } from '../api/errors';
import type { DoChunking, FileInfo } from '../api/types';
import type { ExtensionServices } from '../common/vscode/services';
import { personalVolume, settings } from '../common/vscode/settings';
import { volumeDisplayName } from '../common/core/volumeTargets';
import type { VolumesFeature } from '../volumes/volumesFeature';
import { planUploads, type DuplicateChoice, type DuplicateDecider } from './core/duplicatePlanning';
import { expandSelection } from '../common/core/folderExpansion';
import { askAboutDuplicate, chooseChunking, chunkingLabel, embeddingModel, pickVolume, rememberVolume, showNothingToUpload, showSummary } from './vscode/uploadPrompts';
import { ReplacementTracker, type PendingReplacement } from './core/pendingReplacements';
import { runUpload, type UploadSummary } from './core/uploadRun';
import { formatBytes } from '../common/core/byteSize';
import { COMMAND } from '../common/core/contributionIds';
import { withAbortSignal } from '../common/vscode/cancellation';

/** Answers given up front instead of asking (each one left out is asked as usual). */
export interface UploadChoices {
  volume?: string;
  doChunking?: DoChunking;
  embedding?: string;
  onDuplicate?: DuplicateChoice;
  /** No summary notification (the caller reads the returned summary). */
  quiet?: boolean;
  /** Names to store files under, by path (Retry Failed keeps a folder file's D24 name). */
  volumeNames?: ReadonlyMap<string, string>;
}

/** globalState key of the replacements waiting for their new copy to be processed. */
const PENDING_REPLACEMENTS_KEY = 'ksm.upload.pendingReplacements';
/** After a reload, pending replacements are looked at this long after activation (never during it). */
const RESUME_DELAY_MS = 10_000;

const trackers = new WeakMap<ExtensionServices, ReplacementTracker>();

/** The one tracker of pending replacements per extension instance (created on first use). */
function replacementTracker(services: ExtensionServices, volumes: VolumesFeature): ReplacementTracker {
  const existing = trackers.get(services);
  if (existing) return existing;
  const state = services.context.globalState;
  const replacements = new ReplacementTracker({
    service: () => services.getClient(),
    storage: {
      get: () => state.get<PendingReplacement[]>(PENDING_REPLACEMENTS_KEY, []),
      set: async (pending) => void (await state.update(PENDING_REPLACEMENTS_KEY, pending)),
    },
    onSettled: ({ pending, outcome, message }) => {
      services.log.info(`[upload] replace ${outcome}: ${message}`);
      volumes.refreshVolume(pending.volume);
      if (outcome !== 'replaced') void vscode.window.showWarningMessage(message);
    },
    volumeName: (volume) => volumeDisplayName(volume, personalVolume()),
    onError: (error) => services.log.warn(`[upload] pending replacements: ${error instanceof Error ? error.message : String(error)}`),
  });
  services.context.subscriptions.push({ dispose: () => replacements.dispose() });
  trackers.set(services, replacements);
  return replacements;
}

export function registerUploadFeature(services: ExtensionServices, deps: { volumes: VolumesFeature }): void {
  const replacements = replacementTracker(services, deps.volumes);
  if (replacements.pending.length > 0) {
    const timer = setTimeout(() => replacements.resume(), RESUME_DELAY_MS);
    services.context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  }
  const upload = (uris: vscode.Uri[] | undefined, choices: UploadChoices = {}) => uploadToVolume(services, deps.volumes, uris, choices);

  services.registerCommand(COMMAND.upload, (uri?: vscode.Uri, uris?: vscode.Uri[], choices?: UploadChoices) =>
    upload(selectedUris(uri, uris), choices),
  );
  services.registerCommand(COMMAND.uploadToVolume, (node?: { volume?: string }, uris?: vscode.Uri[], choices?: UploadChoices) =>
    upload(uris?.length ? uris : undefined, { ...choices, volume: node?.volume ?? choices?.volume }),
  );
}

function selectedUris(uri: unknown, uris: unknown): vscode.Uri[] | undefined {
  if (Array.isArray(uris) && uris.length && uris.every((u) => u instanceof vscode.Uri)) return uris;
  return uri instanceof vscode.Uri ? [uri] : undefined;
}

/**
 * The whole upload flow; every choice not given in `choices` is asked. The selection is read
 * first, so a selection of only skipped files says so (with the reasons) before any
 * question; the rest (listing the volume, duplicate questions, sending) runs under one
 * cancellable progress notification.
 */
export async function uploadToVolume(
  services: ExtensionServices,
  volumes: VolumesFeature,
  given: vscode.Uri[] | undefined,
  choices: UploadChoices,
): Promise<UploadSummary | undefined> {
  const uris = given ?? (await pickFiles());
  if (!uris?.length) return undefined;
  const local = uris.filter((u) => u.scheme === 'file');
  if (local.length < uris.length) void vscode.window.showWarningMessage('Only files on this machine can be uploaded; the others were left out.');
  if (local.length === 0) return undefined;

  const expansion = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'KSM: reading the selection' }, () =>
    expandSelection(
      local.map((u) => u.fsPath),
      {
        excludeGlobs: [...filesExcludeGlobs(), ...settings.uploadExclude()],
        maxFileSizeBytes: settings.maxFileSizeBytes(),
        workspaceRoots: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
      },
    ),
  );
  for (const skip of expansion.skipped) services.log.info(`[upload] skipped ${skip.path}: ${skip.reason}`);
  for (const file of expansion.files) file.volumeName = choices.volumeNames?.get(file.path) ?? file.volumeName;
  if (expansion.files.length === 0) {
    if (!choices.quiet) void showNothingToUpload(services, expansion.skipped);
    return undefined;
  }

  let volume = choices.volume;
  let changeProcessing = false;
  if (!volume) {
    const picked = await pickVolume(services, volumes);
    if (!picked) return undefined;
    ({ volume, changeProcessing } = picked);
  }
  const doChunking = choices.doChunking ?? (await chooseChunking(services, volume, changeProcessing));
  if (doChunking === undefined) return undefined;
  const embedding = choices.embedding ?? (await embeddingModel());
  if (!embedding) return undefined;
  await rememberVolume(services, volume);
  const target = volumeDisplayName(volume, personalVolume());

  const client = services.getClient();
  const decide: DuplicateDecider = choices.onDuplicate
    ? async () => ({ choice: choices.onDuplicate!, applyToAll: true })
    : askAboutDuplicate(target);

  const summary = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Uploading to ${target} (${chunkingLabel(doChunking)})`, cancellable: true },
    (progress, token) => withAbortSignal(token, async (signal) => {
      progress.report({ message: `checking ${target} for names already there…` });
      const existing: FileInfo[] = [];
      try {
        for await (const file of client.listAllFiles(volume, { signal, pageSize: 1000 })) existing.push(file);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error; // D6: a new volume has no names yet
      }
      const plan = await planUploads(expansion.files, existing, decide);
      for (const skip of plan.skipped) services.log.info(`[upload] skipped ${skip.path}: ${skip.reason}`);
      plan.skipped.unshift(...expansion.skipped);
      const totalBytes = plan.uploads.reduce((sum, u) => sum + u.size, 0);
      let reportedFraction = 0;
      return runUpload({
        service: client,
        volume,
        embedding,
        doChunking,
        plan,
        signal,
        onProgress: (p) => {
          const fraction = totalBytes > 0 ? p.bytesSent / totalBytes : p.filesDone / Math.max(1, p.filesTotal);
          progress.report({
            message: `${p.filesDone} / ${p.filesTotal} files · ${formatBytes(p.bytesSent)} of ${formatBytes(totalBytes)}`,
            increment: Math.max(0, (fraction - reportedFraction) * 100),
          });
          reportedFraction = Math.max(reportedFraction, fraction);
        },
      });
    }),
  );

  const uploaded = summary.results.flatMap((r) => (r.outcome === 'uploaded' ? [r.info] : []));
  // After a cancel a batch in flight may have been stored.
  if (summary.wasCancelled) volumes.refreshVolume(volume);
  volumes.watchUploaded(volume, uploaded, doChunking);
  // The older copies stay searchable until the new ones are processed (and survive a reload).
  await replacementTracker(services, volumes).add(summary.replacements);
  for (const r of summary.results) {
    const replacing = r.outcome === 'uploaded' && r.replacing ? ` (replaces ${r.replacing} older copy once processed)` : '';
    services.log.info(`[upload] ${volume}: ${r.filename} ${r.outcome}${'reason' in r ? ` — ${r.reason}` : ''}${replacing}`);
  }
  if (!choices.quiet) {
    void showSummary(services, summary, (failedPaths) =>
      uploadToVolume(services, volumes, failedPaths.map((p) => vscode.Uri.file(p)), {
        volume,
        doChunking,
        embedding,
        onDuplicate: choices.onDuplicate,
        volumeNames: new Map(expansion.files.flatMap((f) => (f.volumeName ? [[f.path, f.volumeName] as const] : []))),
      }),
    );
  }
  return summary;
}

async function pickFiles(): Promise<vscode.Uri[] | undefined> {
  const active = vscode.window.activeTextEditor?.document.uri;
  return vscode.window.showOpenDialog({
    title: 'Upload to a KSM Volume',
    openLabel: 'Upload',
    canSelectFiles: true,
    canSelectFolders: true,
    canSelectMany: true,
    defaultUri: active?.scheme === 'file' ? active : vscode.workspace.workspaceFolders?.[0]?.uri,
  });
}

/** `files.exclude` entries switched on (`true`); conditional `{when}` entries are not applied. */
function filesExcludeGlobs(): string[] {
  const excludes = vscode.workspace.getConfiguration('files').get<Record<string, unknown>>('exclude', {});
  return Object.entries(excludes).filter(([, on]) => on === true).map(([glob]) => glob);
}
