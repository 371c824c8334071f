// Upload commands: from the Explorer (multi-select, folders), an editor tab, the palette
// (file picker), a volume's inline button and drag and drop (via `ksm.upload.toVolume`).
// Both commands return the UploadSummary, so scripts and tests can drive them with
// `UploadChoices` instead of answering the pickers.
import * as vscode from 'vscode';
import { NotFoundError } from '../api/errors';
import type { DoChunking, FileInfo } from '../api/types';
import type { ExtensionServices } from '../common/vscode/services';
import { settings } from '../common/vscode/settings';
import type { VolumesFeature } from '../volumes/volumesFeature';
import { planUploads, type DuplicateChoice, type DuplicateDecider } from './core/duplicatePlanning';
import { expandSelection } from '../common/core/folderExpansion';
import { askAboutDuplicate, embeddingModel, pickChunking, pickVolume, rememberVolume, showSummary } from './vscode/uploadPrompts';
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

/** The whole upload flow; every choice not given in `choices` is asked. */
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

  const volume = choices.volume ?? (await pickVolume(services, volumes));
  if (!volume) return undefined;
  const doChunking = choices.doChunking ?? (await pickChunking(services, volume));
  if (doChunking === undefined) return undefined;
  const embedding = choices.embedding ?? (await embeddingModel());
  if (!embedding) return undefined;
  await rememberVolume(services, volume);

  const client = services.getClient();
  const decide: DuplicateDecider = choices.onDuplicate
    ? async () => ({ choice: choices.onDuplicate!, applyToAll: true })
    : askAboutDuplicate;

  const prepared = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Preparing upload to ${volume}…`, cancellable: true },
    (_progress, token) => withAbortSignal(token, async (signal) => {
      const expansion = await expandSelection(
        local.map((u) => u.fsPath),
        {
          excludeGlobs: [...filesExcludeGlobs(), ...settings.uploadExclude()],
          maxFileSizeBytes: settings.maxFileSizeBytes(),
          workspaceRoots: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
          signal,
        },
      );
      const existing: FileInfo[] = [];
      if (expansion.files.length) {
        try {
          for await (const file of client.listAllFiles(volume, { signal, pageSize: 1000 })) existing.push(file);
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error; // D6: a new volume has no names yet
        }
      }
      return { expansion, existing };
    }),
  );
  const plan = await planUploads(prepared.expansion.files, prepared.existing, decide);
  plan.skipped.unshift(...prepared.expansion.skipped);
  for (const skip of plan.skipped) services.log.info(`[upload] skipped ${skip.path}: ${skip.reason}`);

  const totalBytes = plan.uploads.reduce((sum, u) => sum + u.size, 0);
  const summary = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Uploading to ${volume}`, cancellable: true },
    (progress, token) => withAbortSignal(token, async (signal) => {
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
  volumes.watchUploaded(volume, uploaded);
  // The older copies stay searchable until the new ones are processed (and survive a reload).
  await replacementTracker(services, volumes).add(summary.replacements);
  for (const r of summary.results) {
    const replacing = r.outcome === 'uploaded' && r.replacing ? ` (replaces ${r.replacing} older copy once processed)` : '';
    services.log.info(`[upload] ${volume}: ${r.filename} ${r.outcome}${'reason' in r ? ` — ${r.reason}` : ''}${replacing}`);
  }
  if (!choices.quiet) {
    void showSummary(services, summary, (failedPaths) =>
      uploadToVolume(services, volumes, failedPaths.map((p) => vscode.Uri.file(p)), { volume, doChunking, embedding, onDuplicate: choices.onDuplicate }),
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
