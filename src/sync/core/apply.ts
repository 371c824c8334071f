// Carries out a SyncPlan: records the intent to upload every planned file (one save, before
// anything is sent), uploads in batches with a bounded number in flight, then the deletions
// (older copies of replaced files, removed files when enabled, extra copies with dedupe).
// The manifest is saved at most every `saveEveryMs` (doubling after each such save) while
// uploads are answered and at the end, so its cost grows with the files synced, not with
// their square; a crash loses no upload: the next plan recognises the copies from the intents.
// Errors that would fail every file the same way stop the run (SyncStoppedError): a
// configuration-class answer (unknown embedding model, a path that is not the API, a
// refused key) after the first request that shows it; the service unreachable or failing
// for a batch and its one retry. Before a retry, and after a cancel, the listing is read so
// a copy the service stored but never confirmed is recorded, not sent twice.
// No `vscode` import.
import * as l10n from '@vscode/l10n';
import pMap from 'p-map';
import { isCancellation, KsmError } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { DoChunking, FileInfo, UploadFileResult } from '../../api/types';
import { planBatches, DEFAULT_BATCH_LIMITS } from '../../api/upload';
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
  /** Set when the run stopped early because every later file would fail the same way. */
  stopped?: SyncStoppedError;
}

/** The run stopped: `kind` 'config' (exit 3) or 'service' (exit 5). Files not sent are reported as not sent. */
export class SyncStoppedError extends Error {
  constructor(
    message: string,
    readonly stopKind: 'config' | 'service',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SyncStoppedError';
  }
}

export interface ApplyOptions {
  service: KsmService;
  store: ManifestStore;
  embedding: string;
  doChunking?: DoChunking;
  signal?: AbortSignal;
  /** Upload requests in flight at once (default 3). */
  concurrency?: number;
  /** Files per upload request (default 20, the service's batch limit). */
  batchFiles?: number;
  /** The manifest is saved at most this often while uploading (default 5 s), and at the end. */
  saveEveryMs?: number;
  /** Wait before the one retry of a batch that failed transiently (default 500 ms). */
  retryDelayMs?: number;
  onResult?: (result: SyncFileResult) => void;
  onProgress?: (progress: SyncProgress) => void;
  /** Test seam: runs after the uploads are recorded, before any deletion (where a crash is worst). */
  afterUploadsRecorded?: () => Promise<void>;
}

const DELETE_BATCH = 100;
const TRANSIENT = new Set(['network', 'server', 'timeout', 'rate-limited']);

/** An answer that every later request would get too: stop, exit 3. */
export function isConfigurationAnswer(error: unknown): boolean {
  if (!(error instanceof KsmError)) return false;
  if (error.kind === 'auth' || error.kind === 'permission' || error.kind === 'config' || error.kind === 'not-found') return true;
  return error.kind === 'invalid-request' && error.status !== undefined && error.status !== 413;
}

function isTransient(error: unknown): boolean {
  return error instanceof KsmError && TRANSIENT.has(error.kind);
}

export async function applySync(plan: SyncPlan, options: ApplyOptions): Promise<SyncSummary> {
  if (plan.uploads.length === 0 && plan.deletes.length === 0 && !plan.baseChanged) {
    // In sync and nothing to record: no copy of the manifest (a no-op re-sync of 5,000 files spent ~20 ms cloning it).
    options.onProgress?.({ done: 0, total: 0 });
    return { volume: plan.volume, results: [], uploaded: 0, replaced: 0, deleted: 0, failed: 0, cancelled: 0, wasCancelled: false };
  }
  const manifest: Manifest = structuredClone(plan.base);
  const saver = throttledSaver(options.store, manifest, options.saveEveryMs ?? 5_000);
  const results: SyncFileResult[] = [];
  const progress: SyncProgress = { done: 0, total: plan.uploads.length + plan.deletes.length };
  /** The paths with a result so far (a batch checks which of its files got none). */
  const reported = new Set<string>();
  const report = (result: SyncFileResult) => {
    results.push(result);
    reported.add(result.rel);
    progress.done++;
    options.onResult?.(result);
    options.onProgress?.({ ...progress });
  };
  let wasCancelled = false;
  let stopped: SyncStoppedError | undefined;
  const claimed = new Set<string>([...Object.values(manifest.files).map((e) => e.uuid), ...manifest.pendingDeletes.map((p) => p.uuid)]);

  // The intents first: whatever happens once a request is sent, the next run recognises its copies.
  for (const upload of plan.uploads) manifest.intents[upload.rel] = { sha256: upload.sha256, size: upload.size };
  if (plan.baseChanged || plan.uploads.length) await saver.force();
  options.onProgress?.({ ...progress });

  const record = (upload: PlannedUpload, info: FileInfo) => {
    claimed.add(info.uuid);
    manifest.files[upload.rel] = { sha256: upload.sha256, size: upload.size, mtimeMs: upload.mtimeMs, uuid: info.uuid, remoteName: upload.remoteName };
    delete manifest.intents[upload.rel];
    for (const older of upload.replaces ?? []) manifest.pendingDeletes.push({ uuid: older.uuid, remoteName: older.remoteName, rel: upload.rel });
    report({ rel: upload.rel, action: upload.replaces ? 'replaced' : 'uploaded', uuid: info.uuid, remoteName: upload.remoteName });
    saver.soon();
  };
  const notSent = (upload: PlannedUpload, reason: string, action: 'failed' | 'cancelled' = 'cancelled') => {
    delete manifest.intents[upload.rel];
    report({ rel: upload.rel, path: upload.path, action, reason });
  };
  /** Copies the service stored without confirming (a cut connection, a cancel): found by name and size. */
  const recoverFromListing = async (uploads: PlannedUpload[]): Promise<PlannedUpload[]> => {
    let listing: FileInfo[];
    try {
      listing = [];
      for await (const file of options.service.listAllFiles(plan.volume, { pageSize: 1000 })) listing.push(file);
    } catch {
      return uploads; // cannot tell: the intents stay, the next run recognises them
    }
    const left: PlannedUpload[] = [];
    for (const upload of uploads) {
      const stored = listing.find((f) => !f.isdir && !claimed.has(f.uuid) && f.filename === upload.remoteName && f.filesize === upload.size);
      if (stored) record(upload, stored);
      else left.push(upload);
    }
    return left;
  };

  const sendBatch = async (batch: PlannedUpload[], attempt: number): Promise<void> => {
    if (stopped) return void batch.forEach((u) => notSent(u, l10n.t('not sent: {0}', stopped!.message), 'failed'));
    if (options.signal?.aborted) {
      wasCancelled = true;
      return void batch.forEach((u) => notSent(u, l10n.t('not sent: the sync was cancelled')));
    }
    const byPath = new Map(batch.map((u) => [u.path, u]));
    const failures: Array<{ upload: PlannedUpload; error: Error }> = [];
    let cancelledInFlight = false;
    try {
      await options.service.uploadFiles(
        { volume: plan.volume, embedding: options.embedding, doChunking: options.doChunking, files: batch.map((u) => ({ path: u.path, filename: u.remoteName })) },
        {
          signal: options.signal,
          batch: { maxFiles: batch.length },
          onFileResult: (result: UploadFileResult) => {
            const upload = byPath.get(result.source.path)!;
            if (result.ok) record(upload, result.info);
            else failures.push({ upload, error: result.error });
          },
        },
      );
    } catch (error) {
      if (!isCancellation(error)) throw error;
      wasCancelled = true;
      cancelledInFlight = true;
    }
    const answered = reported; // every result so far, kept as they come (was rebuilt from all results per batch)
    const unanswered = batch.filter((u) => !answered.has(u.rel) && !failures.some((f) => f.upload === u));
    if (cancelledInFlight) {
      // The request was on its way: the service may have stored it. The listing says.
      for (const u of await recoverFromListing(unanswered)) report({ rel: u.rel, path: u.path, action: 'cancelled', reason: l10n.t('not confirmed: the sync was cancelled (the next sync checks)') });
      return;
    }
    const requestError =
      failures.length && failures.every((f) => f.error === failures[0].error) && failures.length === batch.filter((u) => !answered.has(u.rel)).length ? failures[0].error : undefined;
    if (requestError && isConfigurationAnswer(requestError)) {
      stopped ??= new SyncStoppedError(requestError.message, 'config', { cause: requestError });
      for (const f of failures) notSent(f.upload, requestError.message, 'failed');
      return;
    }
    if (requestError && isTransient(requestError)) {
      const again = await recoverFromListing(failures.map((f) => f.upload));
      if (attempt === 0 && again.length && !stopped) {
        await delay(options.retryDelayMs ?? 500, options.signal);
        return sendBatch(again, 1);
      }
      if (again.length) stopped ??= new SyncStoppedError(l10n.t('{0} (also on the retry; the run stopped)', requestError.message), 'service', { cause: requestError });
      for (const u of again) report({ rel: u.rel, path: u.path, action: 'failed', reason: requestError.message });
      return;
    }
    for (const f of failures) notSent(f.upload, f.error.message, 'failed');
  };

  const batches = planBatches(plan.uploads, { ...DEFAULT_BATCH_LIMITS, ...(options.batchFiles ? { maxFiles: options.batchFiles } : {}) });
  try {
    await pMap(batches, (batch) => sendBatch(batch, 0), { concurrency: options.concurrency ?? 3 });
  } finally {
    await saver.now();
  }
  await options.afterUploadsRecorded?.();

  // Older copies of replaced files (this run's, and those an interrupted run left, checked by the plan), then removed files and duplicates.
  const others: PlannedDelete[] = plan.deletes.filter((d) => d.reason !== 'replaced');
  const toDelete: PlannedDelete[] = [...manifest.pendingDeletes.map((p) => ({ ...p, reason: 'replaced' as const })), ...others];
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
    if (stopped || options.signal?.aborted) {
      wasCancelled ||= Boolean(options.signal?.aborted);
      reportChunk((d) => ({
        rel: d.rel ?? d.remoteName,
        action: 'cancelled',
        reason: stopped ? l10n.t('not deleted: the run stopped (the next sync will)') : l10n.t('not deleted: the sync was cancelled (the next sync will)'),
      }));
      continue;
    }
    try {
      const result = await options.service.deleteFiles({ volume: plan.volume, uuids: chunk.map((d) => d.uuid) }, { signal: options.signal });
      const gone = new Set([...result.deleted, ...result.notFound]);
      manifest.pendingDeletes = manifest.pendingDeletes.filter((p) => !gone.has(p.uuid));
      for (const d of chunk) if (d.rel && gone.has(d.uuid) && manifest.files[d.rel]?.uuid === d.uuid) delete manifest.files[d.rel];
      saver.soon();
      reportChunk((d) =>
        gone.has(d.uuid)
          ? { rel: d.rel ?? d.remoteName, action: 'deleted', uuid: d.uuid, remoteName: d.remoteName }
          : { rel: d.rel ?? d.remoteName, action: 'failed', reason: l10n.t('the service did not confirm the deletion') },
      );
    } catch (error) {
      if (isCancellation(error)) wasCancelled = true;
      else if (isConfigurationAnswer(error)) stopped ??= new SyncStoppedError((error as Error).message, 'config', { cause: error });
      else if (isTransient(error)) stopped ??= new SyncStoppedError((error as Error).message, 'service', { cause: error });
      const reason = isCancellation(error) ? l10n.t('not deleted: the sync was cancelled (the next sync will)') : l10n.t('could not delete: {0}', (error as Error).message);
      reportChunk((d) => ({ rel: d.rel ?? d.remoteName, action: isCancellation(error) ? 'cancelled' : 'failed', reason }));
    }
  }
  await saver.now();

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
    stopped,
  };
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * Saves never overlap and never go backwards. `soon()` saves at most every `everyMs` (a
 * burst of answers becomes one write), and the wait doubles after each such save (5, 10,
 * 20 s…): every save rewrites the whole manifest, so a run slowed to 15 s wrote 3.3× the
 * final size with a fixed 5 s; doubling keeps the periodic saves logarithmic in the run's
 * length (the intents saved before sending already make a crash lose no upload). `now()`
 * writes what is pending and waits for it.
 */
function throttledSaver(store: ManifestStore, manifest: Manifest, everyMs: number): { soon(): void; now(): Promise<void>; force(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  let dirty = false;
  let last = 0;
  let interval = everyMs;
  let timer: NodeJS.Timeout | undefined;
  const write = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    dirty = false;
    last = Date.now();
    chain = chain.then(() => store.save(manifest));
    return chain;
  };
  return {
    soon() {
      dirty = true;
      if (timer) return;
      const wait = Math.max(0, last + interval - Date.now());
      timer = setTimeout(() => {
        interval *= 2;
        void write().catch(() => undefined);
      }, wait);
      timer.unref?.();
    },
    async now() {
      if (timer || dirty) await write();
      else await chain;
    },
    force: () => write(),
  };
}
