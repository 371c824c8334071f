// The upload flow behind every upload command and a drop on a volume: read the selection
// (folders, ignore rules, size limit), ask what was not given (volume, processing, embedding
// model, duplicate names), send under one cancellable progress notification, and hand the
// new files to the Volumes view. The commands are in commands.ts.
import * as vscode from 'vscode';
import { isUnwrittenVolume } from '../../api/errors';
import type { DoChunking, FileInfo } from '../../api/types';
import { formatBytes } from '../../common/core/byteSize';
import { expandSelection, type SkippedFile } from '../../common/core/folderExpansion';
import { volumeDisplayName } from '../../common/core/volumeTargets';
import { withAbortSignal } from '../../common/vscode/cancellation';
import { excludeGlobs } from '../../common/vscode/excludeGlobs';
import type { ExtensionServices } from '../../common/vscode/services';
import { personalVolume, settings } from '../../common/vscode/settings';
import type { VolumesFeature } from '../../volumes/volumesFeature';
import { planUploads, type DuplicateChoice, type DuplicateDecider } from '../core/duplicatePlanning';
import type { ReplacementTracker } from '../core/pendingReplacements';
import { runUpload, type UploadSummary } from '../core/uploadRun';
import { sha256OfFile, type UploadedContent, type UploadedContents } from '../core/uploadedContents';
import { askAboutDuplicate, chooseChunking, chunkingLabel, embeddingModel, pickVolume, rememberVolume, showNothingToUpload, showSummary } from './uploadPrompts';

/** Answers given up front instead of asking (each one left out is asked as usual). */
export interface UploadChoices {
  volume?: string;
  doChunking?: DoChunking;
  embedding?: string;
  onDuplicate?: DuplicateChoice;
  /** Names to store files under, by path (Retry Failed keeps a folder file's D24 name). */
  volumeNames?: ReadonlyMap<string, string>;
}

/** What the flow tells the user when it ends without asking anything more. */
export interface UploadNotices {
  /** Every file of the selection was skipped (with the reasons). */
  nothingToUpload(skipped: readonly SkippedFile[]): void;
  /** The summary ("12 uploaded, 2 failed"); `retryFailed` uploads the failed files again with the same answers. */
  summary(summary: UploadSummary, retryFailed: (paths: string[]) => Promise<unknown>): void;
}

/** The extension's notices: notifications with Show Details and Retry Failed (uploadPrompts.ts). */
export function notifications(services: ExtensionServices): UploadNotices {
  return {
    nothingToUpload: (skipped) => void showNothingToUpload(services, skipped),
    summary: (summary, retryFailed) => void showSummary(services, summary, retryFailed),
  };
}

export interface UploadFlowDeps {
  services: ExtensionServices;
  volumes: VolumesFeature;
  /** Older copies a replacing upload keeps searchable until the new ones are processed. */
  replacements: ReplacementTracker;
  notices: UploadNotices;
  /** What this workspace uploaded, by content: an unchanged re-upload is skipped as "already there, identical". */
  uploaded?: UploadedContents;
}

export class UploadFlow {
  constructor(private readonly deps: UploadFlowDeps) {}

  /**
   * The whole upload flow; every choice not given in `choices` is asked. The selection is read
   * first, so a selection of only skipped files says so (with the reasons) before any
   * question; the rest (listing the volume, duplicate questions, sending) runs under one
   * cancellable progress notification.
   */
  async run(given: vscode.Uri[] | undefined, choices: UploadChoices = {}): Promise<UploadSummary | undefined> {
    const { services, volumes, replacements, notices } = this.deps;
    const uris = given ?? (await pickFiles());
    if (!uris?.length) return undefined;
    const local = uris.filter((u) => u.scheme === 'file');
    if (local.length < uris.length) void vscode.window.showWarningMessage(vscode.l10n.t('Only files on this machine can be uploaded; the others were left out.'));
    if (local.length === 0) return undefined;

    const expansion = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('KSM: reading the selection') }, () =>
      expandSelection(
        local.map((u) => u.fsPath),
        {
          excludeGlobs: excludeGlobs(),
          maxFileSizeBytes: settings.maxFileSizeBytes(),
          workspaceRoots: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
        },
      ),
    );
    for (const skip of expansion.skipped) services.log.info(`[upload] skipped ${skip.path}: ${skip.reason}`);
    for (const file of expansion.files) file.volumeName = choices.volumeNames?.get(file.path) ?? file.volumeName;
    if (expansion.files.length === 0) {
      notices.nothingToUpload(expansion.skipped);
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
    const decide: DuplicateDecider = choices.onDuplicate ? async () => ({ choice: choices.onDuplicate!, applyToAll: true }) : askAboutDuplicate(target);

    const summary = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Uploading to {0} ({1})', target, chunkingLabel(doChunking)), cancellable: true },
      (progress, token) =>
        withAbortSignal(token, async (signal) => {
          progress.report({ message: vscode.l10n.t('checking {0} for names already there…', target) });
          const existing: FileInfo[] = [];
          try {
            for await (const file of client.listAllFiles(volume, { signal, pageSize: 1000 })) existing.push(file);
          } catch (error) {
            if (!isUnwrittenVolume(error)) throw error; // D6: a new volume has no names yet
          }
          const known = this.deps.uploaded;
          const plan = await planUploads(
            expansion.files,
            existing,
            decide,
            known &&
              (async (file, clash) => {
                if (!known.knowsAny(volume, clash)) return false;
                try {
                  return known.identical(volume, clash, await sha256OfFile(file.path, signal)) !== undefined;
                } catch {
                  return false; // unreadable now: the upload reports it
                }
              }),
          );
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
                message: vscode.l10n.t('{0} / {1} files · {2} of {3}', p.filesDone, p.filesTotal, formatBytes(p.bytesSent), formatBytes(totalBytes)),
                increment: Math.max(0, (fraction - reportedFraction) * 100),
              });
              reportedFraction = Math.max(reportedFraction, fraction);
            },
          });
        }),
    );

    const uploaded = summary.results.flatMap((r) => (r.outcome === 'uploaded' ? [r.info] : []));
    await this.rememberContents(volume, summary);
    // After a cancel a batch in flight may have been stored.
    if (summary.wasCancelled) volumes.refreshVolume(volume);
    volumes.watchUploaded(volume, uploaded, doChunking);
    // The older copies stay searchable until the new ones are processed (and survive a reload).
    await replacements.add(summary.replacements);
    for (const r of summary.results) {
      const replacing = r.outcome === 'uploaded' && r.replacing ? ` (replaces ${r.replacing} older copy once processed)` : '';
      services.log.info(`[upload] ${volume}: ${r.filename} ${r.outcome}${'reason' in r ? ` — ${r.reason}` : ''}${replacing}`);
    }
    notices.summary(summary, (failedPaths) =>
      this.run(
        failedPaths.map((p) => vscode.Uri.file(p)),
        {
          volume,
          doChunking,
          embedding,
          onDuplicate: choices.onDuplicate,
          volumeNames: new Map(expansion.files.flatMap((f) => (f.volumeName ? [[f.path, f.volumeName] as const] : []))),
        },
      ),
    );
    return summary;
  }

  /** Remembers what each uploaded file held, so an identical re-upload is skipped without a question. */
  private async rememberContents(volume: string, summary: UploadSummary): Promise<void> {
    if (!this.deps.uploaded) return;
    const entries: UploadedContent[] = [];
    for (const result of summary.results) {
      if (result.outcome !== 'uploaded') continue;
      try {
        entries.push({ uuid: result.info.uuid, volume, sha256: await sha256OfFile(result.path), size: result.info.filesize });
      } catch (error) {
        this.deps.services.log.debug(`[upload] could not read ${result.path} again to remember it: ${String(error)}`);
      }
    }
    this.deps.uploaded.remember(entries);
  }
}

async function pickFiles(): Promise<vscode.Uri[] | undefined> {
  const active = vscode.window.activeTextEditor?.document.uri;
  return vscode.window.showOpenDialog({
    title: vscode.l10n.t('Upload to a KSM Volume'),
    openLabel: vscode.l10n.t('Upload'),
    canSelectFiles: true,
    canSelectFolders: true,
    canSelectMany: true,
    defaultUri: active?.scheme === 'file' ? active : vscode.workspace.workspaceFolders?.[0]?.uri,
  });
}
