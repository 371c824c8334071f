// Carries out a SyncPlan: records the intent to upload every planned file (durable before
// anything is sent), uploads in batches with a bounded number in flight, then the deletions
// (older copies of replaced files, removed files when enabled, extra copies with dedupe).
// The older copies of a batch's replaced files go while batches are still to be sent, each
// once the journal holds its new copy (pumpDeletes below).
// Every change is applied to the manifest in memory and appended to its journal through
// src/sync/core/changeRecorder.ts (journal.ts: a line per change, the answers of a burst in one write and one
// fsync) instead of rewriting the whole manifest; the store folds the journal in at the end
// of the run (or, in the editor, once it has grown), so the manifest's cost grows with the
// files synced and a small re-sync of a large folder writes a few lines. A crash loses no
// upload: the next plan recognises the copies from the intents.
// Errors that would fail every file the same way stop the run (SyncStoppedError): a
// configuration-class answer (unknown embedding model, a path that is not the API, a
// refused key) after the first request that shows it; the service unreachable or failing
// for a batch and its one retry. Before a retry, and after a cancel, the listing is read so
// a copy the service stored but never confirmed is recorded, not sent twice.
// No `vscode` import.
import * as l10n from '@vscode/l10n';
import pMap from 'p-map';
import { isCancellation, isConfigurationAnswer, KsmError } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { DoChunking, FileInfo, UploadFileResult } from '../../api/types';
import { planBatches, DEFAULT_BATCH_LIMITS } from '../../api/upload';
import { applyChange, type ManifestChange } from './journal';
import type { Manifest, ManifestStore } from './manifest';
import type { PlannedDelete, PlannedUpload, SyncPlan } from './plan';
import { changeRecorder, type ChangeRecorder } from './changeRecorder';

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
  /** Wait before the one retry of a batch that failed transiently (default 500 ms). */
  retryDelayMs?: number;
  onResult?: (result: SyncFileResult) => void;
  onProgress?: (progress: SyncProgress) => void;
  /**
   * Test seam: runs before each delete request, once the new copies of the older copies it
   * names are recorded (where a crash is worst). Older copies of a batch's replacements are
   * deleted while later batches are on the wire.
   */
  beforeDeleting?: (uuids: string[]) => Promise<void>;
}

const DELETE_BATCH = 100;
const TRANSIENT = new Set(['network', 'server', 'timeout', 'rate-limited']);

function isTransient(error: unknown): boolean {
  return error instanceof KsmError && TRANSIENT.has(error.kind);
}

/**
 * Uploads that arrive while the plan is still being made (a first sync to an empty volume,
 * src/sync/core/firstSync.ts): each group is pushed to `plan.uploads`, its intents made
 * durable, and its batches sent, while the folder is still read. Ends when the iterable
 * does; stops asking it for more once the run stops or is cancelled (the iterable's
 * `return` is called, which ends the scan). An error it throws ends the run after the
 * batches in flight have settled.
 */
export type UploadStream = AsyncIterable<PlannedUpload[]>;

export async function applySync(plan: SyncPlan, options: ApplyOptions, incoming?: UploadStream): Promise<SyncSummary> {
  if (!incoming && plan.uploads.length === 0 && plan.deletes.length === 0 && !plan.baseChanged) {
    // In sync and nothing to record: no copy of the manifest (a no-op re-sync of 5,000 files spent ~20 ms cloning it).
    options.onProgress?.({ done: 0, total: 0 });
    return { volume: plan.volume, results: [], uploaded: 0, replaced: 0, deleted: 0, failed: 0, cancelled: 0, wasCancelled: false };
  }
  // The plan's base becomes the run's manifest (a plan is applied once; cloning 5,000 entries cost ~20 ms).
  const manifest: Manifest = plan.base;
  const journal = changeRecorder(options.store, manifest);
  try {
    return await applyRecorded(plan, options, manifest, journal, incoming);
  } finally {
    await journal.finish();
  }
}

async function applyRecorded(plan: SyncPlan, options: ApplyOptions, manifest: Manifest, journal: ChangeRecorder, incoming: UploadStream | undefined): Promise<SyncSummary> {
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
  /** The copies already this folder's (made when a listing is checked: only after a cut connection or a cancel, ~1 ms for 5,000 files before the first request). */
  const recordedNow: string[] = [];
  const claimedNow = () => new Set<string>([...Object.values(manifest.files).map((e) => e.uuid), ...manifest.pendingDeletes.map((p) => p.uuid), ...recordedNow]);

  // The intents first, on disk before any request: whatever happens once one is sent, the next run recognises its copies.
  const intents: ManifestChange[] = plan.uploads.map((u) => ({ kind: 'intent', rel: u.rel, sha256: u.sha256, size: u.size }));
  if (incoming) {
    // Streamed: each group's intents are made durable as it arrives (streamedBatches below).
  } else if (plan.baseChanged && (plan.manifest.state !== 'missing' || intents.length === 0)) {
    // What is stored differs from the plan's base (claims dropped, an interrupted run recovered, another's manifest): written whole, intents included.
    for (const change of intents) applyChange(manifest, change);
    await options.store.save(manifest);
  } else if (intents.length) {
    await journal.now(intents); // with no manifest yet, the journal starts from an empty one
  }
  options.onProgress?.({ ...progress });

  const record = (upload: PlannedUpload, info: FileInfo) => {
    upload.content = undefined; // sent: the scan's copy of its bytes is no longer needed
    recordedNow.push(info.uuid);
    const intent = manifest.intents[upload.rel];
    const fromIntent = intent?.sha256 === upload.sha256 && intent.size === upload.size; // the journal line then names neither (a third shorter)
    journal.later([
      { kind: 'recorded', rel: upload.rel, ...(fromIntent ? {} : { sha256: upload.sha256, size: upload.size }), mtimeMs: upload.mtimeMs, uuid: info.uuid },
      ...(upload.replaces ?? []).map((older): ManifestChange => ({ kind: 'pendingDelete', rel: upload.rel, uuid: older.uuid })),
    ]);
    for (const older of upload.replaces ?? []) olderReady.push({ uuid: older.uuid, rel: upload.rel });
    report({ rel: upload.rel, action: upload.replaces ? 'replaced' : 'uploaded', uuid: info.uuid, remoteName: upload.remoteName });
  };

  /** Older copies whose new copies are recorded (their pendingDelete lines on their way to the disk), not yet asked to delete. */
  const olderReady: Array<{ uuid: string; rel: string }> = [];
  let deleting: Promise<void> | undefined;
  let deleteFailure: { error: unknown } | undefined;
  /** Set after a failed request and once the uploads are over: the deletions at the end take the rest. */
  let pumpOff = false;
  /**
   * Deletes the older copies of the batches answered so far while later batches are on the
   * wire (a re-sync waited for every upload before its one delete request): one request in
   * flight at a time, each taking what is ready (up to DELETE_BATCH). A request is sent only
   * once the journal holds the new copies and the older ones as pending (fdatasync'ed), and
   * not after a stop or a cancel. What it does not delete (not sent, not confirmed, an error)
   * stays pending in the manifest: the deletions at the end send or report it as before.
   */
  const pumpDeletes = () => {
    if (deleting || pumpOff || stopped || options.signal?.aborted || olderReady.length === 0 || !moreToSend()) return;
    deleting = (async () => {
      try {
        while (olderReady.length && !stopped && !options.signal?.aborted) {
          const chunk = olderReady.splice(0, DELETE_BATCH);
          await journal.flush(); // their records and pendingDelete lines were handed to the journal before: now on disk
          if (stopped || options.signal?.aborted) return;
          const uuids = chunk.map((c) => c.uuid);
          await options.beforeDeleting?.(uuids);
          let result: { deleted: string[]; notFound: string[] };
          try {
            result = await options.service.deleteFiles({ volume: plan.volume, uuids }, { signal: options.signal });
          } catch (error) {
            if (isCancellation(error)) wasCancelled = true;
            pumpOff = true; // left pending: the deletions at the end try once more and report
            return;
          }
          const gone = new Set([...result.deleted, ...result.notFound]);
          const items = chunk.filter((c) => gone.has(c.uuid));
          if (items.length) journal.later([{ kind: 'deleted', items }]);
        }
      } catch (error) {
        deleteFailure ??= { error };
        pumpOff = true;
      } finally {
        deleting = undefined;
      }
      pumpDeletes(); // what became ready while the last request was on its way
    })();
  };
  const notSent = (upload: PlannedUpload, reason: string, action: 'failed' | 'cancelled' = 'cancelled') => {
    journal.later([{ kind: 'notSent', rel: upload.rel }]);
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
    const claimed = claimedNow();
    for (const upload of uploads) {
      const stored = listing.find((f) => !f.isdir && !claimed.has(f.uuid) && f.filename === upload.remoteName && f.filesize === upload.size);
      if (stored) {
        record(upload, stored);
        claimed.add(stored.uuid);
      } else left.push(upload);
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
        {
          volume: plan.volume,
          embedding: options.embedding,
          doChunking: options.doChunking,
          // identity: the file the scan found or nothing (a path swapped for a link to a key outside since the plan is not read through).
          files: batch.map((u) => ({ path: u.path, filename: u.remoteName, knownSize: u.size, content: u.content, identity: u.identity })),
        },
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

  const limits = { ...DEFAULT_BATCH_LIMITS, ...(options.batchFiles ? { maxFiles: options.batchFiles } : {}) };
  let streamFailure: { error: unknown } | undefined;
  /**
   * The batches of uploads that arrive while the folder is read. The stream is read ahead of
   * the requests (the next group's intents are written while batches are on the wire); a
   * group's intents are on disk before any of its batches is handed out; a batch short of a
   * full request waits for the next group (or the end), so requests stay as full as the whole
   * plan's would be.
   */
  function streamedBatches(stream: UploadStream): AsyncIterable<PlannedUpload[]> {
    const halted = () => Boolean(stopped) || Boolean(options.signal?.aborted);
    const released: PlannedUpload[][] = [];
    let waiting: PlannedUpload[] = [];
    let reading = true;
    let wake: (() => void) | undefined;
    const woken = () => {
      wake?.();
      wake = undefined;
    };
    const release = async (all: boolean) => {
      const batches = planBatches(waiting, limits);
      const last = batches[batches.length - 1];
      waiting = !all && last && last.length < limits.maxFiles ? batches.pop()! : [];
      const sending = batches.flat();
      if (sending.length) await journal.now(sending.map((u): ManifestChange => ({ kind: 'intent', rel: u.rel, sha256: u.sha256, size: u.size })));
      released.push(...batches);
      woken();
    };
    journal.prepare(); // the journal's creation (two fsyncs) overlaps the reading of the first folder
    const reader = (async () => {
      const groups = stream[Symbol.asyncIterator]();
      let ended = false;
      try {
        // Stopped or cancelled: the stream is asked for nothing more (the folder is read no further).
        while (!halted()) {
          const next = await groups.next();
          if (next.done) {
            ended = true;
            break;
          }
          plan.uploads.push(...next.value);
          progress.total += next.value.length;
          waiting.push(...next.value);
          if (halted()) break;
          await release(false);
        }
        if (ended) await release(true);
      } catch (error) {
        if (options.signal?.aborted && isCancellation(error)) wasCancelled = true;
        else streamFailure = { error };
      } finally {
        if (!ended) await groups.return?.().catch(() => undefined);
        reading = false;
        woken();
      }
    })();
    return (async function* () {
      for (;;) {
        const batch = released.shift();
        if (batch) {
          yield batch; // after a stop, sendBatch reports it not sent (its intents are on disk)
          continue;
        }
        if (!reading) break;
        await new Promise<void>((resolve) => (wake = resolve));
      }
      await reader;
      if (options.signal?.aborted && !stopped) wasCancelled = true;
      // Read but never recorded as an intent: not sent, and told so (the next run uploads them).
      for (const u of waiting)
        report({ rel: u.rel, path: u.path, action: stopped ? 'failed' : 'cancelled', reason: stopped ? l10n.t('not sent: {0}', stopped.message) : l10n.t('not sent: the sync was cancelled') });
    })();
  }

  // Early deletions only while batches are still to be sent: once all are on the wire they end
  // together (the service answers them one after another), and one request at the end was
  // quicker than two or three competing with the last uploads (docs/benchmarks.md).
  const planned = incoming ? undefined : planBatches(plan.uploads, limits);
  let started = 0;
  const moreToSend = () => (planned ? started < planned.length : true);
  const sendThenDelete = async (batch: PlannedUpload[]) => {
    started++;
    await sendBatch(batch, 0);
    pumpDeletes();
  };
  try {
    if (incoming) await pMap(streamedBatches(incoming), sendThenDelete, { concurrency: options.concurrency ?? 3 });
    else await pMap(planned!, sendThenDelete, { concurrency: options.concurrency ?? 3 });
  } finally {
    pumpOff = true;
    while (deleting) await deleting;
    await journal.flush();
  }
  if (streamFailure) throw streamFailure.error;
  if (deleteFailure) throw deleteFailure.error;

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
    await options.beforeDeleting?.(chunk.map((d) => d.uuid));
    try {
      const result = await options.service.deleteFiles({ volume: plan.volume, uuids: chunk.map((d) => d.uuid) }, { signal: options.signal });
      const gone = new Set([...result.deleted, ...result.notFound]);
      journal.later([{ kind: 'deleted', items: chunk.filter((d) => gone.has(d.uuid)).map((d) => ({ uuid: d.uuid, rel: d.rel })) }]);
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
  await journal.flush();

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
