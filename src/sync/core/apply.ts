// Carries out a SyncPlan: uploads in batches with a bounded number in flight, then the
// deletions (older copies of replaced files, and removed files when enabled). The manifest
// is saved after every confirmed step (an answered upload batch, an answered delete), so a
// crash or a cancel loses nothing: the next plan sees the new copies as in sync and the
// older ones as pending deletions. No `vscode` import.
import { isCancellation } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { DoChunking } from '../../api/types';
import { planBatches, DEFAULT_BATCH_LIMITS } from '../../api/upload';
import { mapLimited } from './hashing';
import type { Manifest, ManifestStore } from './manifest';
import type { PlannedDelete, PlannedUpload, SyncPlan } from './plan';

export type SyncFileResult =
  | { rel: string; action: 'uploaded' | 'replaced'; uuid: string; remoteName: string }
  | { rel: string; action: 'deleted'; uuid: string; remoteName: string }
  | { rel: string; action: 'failed' | 'cancelled'; reason: string; path?: string };

export interface SyncProgress {
  done: number;
  total: number;
}

export interface SyncSummary {
  volume: string;
  results: SyncFileResult[];
  uploaded: number;
  replaced: number;
  deleted: number;
  failed: number;
  cancelled: number;
  wasCancelled: boolean;
}

export interface ApplyOptions {
  service: KsmService;
  store: ManifestStore;
  embedding: string;
  doChunking?: DoChunking;
  signal?: AbortSignal;
  /** Upload requests in flight at once (default 3). */
  concurrency?: number;
  onResult?: (result: SyncFileResult) => void;
  onProgress?: (progress: SyncProgress) => void;
  /** Test seam: runs after an upload batch is recorded, before any deletion (where a crash is worst). */
  afterUploadsRecorded?: () => Promise<void>;
}

const DELETE_BATCH = 100;

export async function applySync(plan: SyncPlan, options: ApplyOptions): Promise<SyncSummary> {
  const manifest: Manifest = structuredClone(plan.base);
  const saver = serializedSaver(options.store, manifest);
  const results: SyncFileResult[] = [];
  const progress: SyncProgress = { done: 0, total: plan.uploads.length + plan.deletes.length };
  const report = (result: SyncFileResult) => {
    results.push(result);
    progress.done++;
    options.onResult?.(result);
    options.onProgress?.({ ...progress });
  };
  let wasCancelled = false;

  if (plan.baseChanged) await saver.save();
  options.onProgress?.({ ...progress });

  const deletes: PlannedDelete[] = plan.deletes.filter((d) => d.reason === 'removed');
  const batches = planBatches(plan.uploads, DEFAULT_BATCH_LIMITS);
  await mapLimited(batches, options.concurrency ?? 3, async (batch) => {
    if (options.signal?.aborted) {
      wasCancelled = true;
      for (const upload of batch) report({ rel: upload.rel, path: upload.path, action: 'cancelled', reason: 'not sent: the sync was cancelled' });
      return;
    }
    const answered = new Set<PlannedUpload>();
    const byPath = new Map(batch.map((u) => [u.path, u]));
    try {
      await options.service.uploadFiles(
        { volume: plan.volume, embedding: options.embedding, doChunking: options.doChunking, files: batch.map((u) => ({ path: u.path, filename: u.remoteName })) },
        {
          signal: options.signal,
          batch: { maxFiles: batch.length },
          onFileResult: (result) => {
            const upload = byPath.get(result.source.path)!;
            answered.add(upload);
            if (!result.ok) {
              report({ rel: upload.rel, path: upload.path, action: 'failed', reason: result.error.message });
              return;
            }
            manifest.files[upload.rel] = { sha256: upload.sha256, size: upload.size, mtimeMs: upload.mtimeMs, uuid: result.info.uuid, remoteName: upload.remoteName };
            if (upload.replaces) {
              manifest.pendingDeletes.push(upload.replaces);
            }
            report({ rel: upload.rel, action: upload.replaces ? 'replaced' : 'uploaded', uuid: result.info.uuid, remoteName: upload.remoteName });
          },
        },
      );
    } catch (error) {
      if (!isCancellation(error)) throw error;
      wasCancelled = true;
    } finally {
      // Recorded before anything else happens: the copies are stored, whatever comes next.
      if (answered.size) await saver.save();
    }
    for (const upload of batch) {
      if (!answered.has(upload)) report({ rel: upload.rel, path: upload.path, action: 'cancelled', reason: 'not sent: the sync was cancelled' });
    }
  });
  await options.afterUploadsRecorded?.();

  // Older copies of replaced files (this run's and any an interrupted run left), then removed files.
  const toDelete: PlannedDelete[] = [...manifest.pendingDeletes.map((p) => ({ ...p, reason: 'replaced' as const })), ...deletes];
  const replacedCounted = new Set(plan.deletes.filter((d) => d.reason === 'replaced').map((d) => d.uuid));
  for (let i = 0; i < toDelete.length; i += DELETE_BATCH) {
    const chunk = toDelete.slice(i, i + DELETE_BATCH);
    const reportChunk = (make: (d: PlannedDelete) => SyncFileResult) => {
      for (const d of chunk) {
        const result = make(d);
        // Older copies of this run's replacements were counted with their upload (a failure is still told).
        if (d.reason === 'replaced' && !replacedCounted.has(d.uuid) && result.action === 'deleted') continue;
        report(result);
      }
    };
    if (options.signal?.aborted) {
      wasCancelled = true;
      reportChunk((d) => ({ rel: d.rel ?? d.remoteName, action: 'cancelled', reason: 'not deleted: the sync was cancelled (the next sync will)' }));
      continue;
    }
    try {
      const result = await options.service.deleteFiles({ volume: plan.volume, uuids: chunk.map((d) => d.uuid) }, { signal: options.signal });
      const gone = new Set([...result.deleted, ...result.notFound]);
      manifest.pendingDeletes = manifest.pendingDeletes.filter((p) => !gone.has(p.uuid));
      for (const d of chunk) if (d.rel && gone.has(d.uuid) && manifest.files[d.rel]?.uuid === d.uuid) delete manifest.files[d.rel];
      await saver.save();
      reportChunk((d) =>
        gone.has(d.uuid)
          ? { rel: d.rel ?? d.remoteName, action: 'deleted', uuid: d.uuid, remoteName: d.remoteName }
          : { rel: d.rel ?? d.remoteName, action: 'failed', reason: 'the service did not confirm the deletion' },
      );
    } catch (error) {
      if (isCancellation(error)) wasCancelled = true;
      const reason = isCancellation(error) ? 'not deleted: the sync was cancelled (the next sync will)' : `could not delete: ${(error as Error).message}`;
      reportChunk((d) => ({ rel: d.rel ?? d.remoteName, action: isCancellation(error) ? 'cancelled' : 'failed', reason }));
    }
  }
  await saver.idle();

  const count = (action: SyncFileResult['action']) => results.filter((r) => r.action === action).length;
  return {
    volume: plan.volume,
    results,
    uploaded: count('uploaded'),
    replaced: count('replaced'),
    deleted: count('deleted'),
    failed: count('failed'),
    cancelled: count('cancelled'),
    wasCancelled,
  };
}

/**
 * Saves never overlap and never go backwards: a save asked for while one is writing runs
 * once more after it, with the manifest as it is then (coalescing a burst of steps).
 */
function serializedSaver(store: ManifestStore, manifest: Manifest): { save(): Promise<void>; idle(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  return {
    save() {
      chain = chain.then(() => store.save(manifest));
      return chain;
    },
    idle: () => chain,
  };
}
