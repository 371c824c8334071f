// Runs a planned upload: batches through `KsmService.uploadFiles`, reports throttled
// progress, and ends with one outcome per file (uploaded / failed / skipped / cancelled) and
// the replacements to settle once the new copies are processed. No `vscode` import.
import * as l10n from '@vscode/l10n';
import { isCancellation } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { DoChunking, FileInfo, UploadBatchLimits, UploadProgress } from '../../api/types';
import type { PlannedUpload, UploadPlan } from './duplicatePlanning';
import type { PendingReplacement } from './pendingReplacements';

export type FileOutcome =
  /** `replacing`: older copies deleted once this one is searchable ("Replace"). */
  | { path: string; filename: string; outcome: 'uploaded'; info: FileInfo; replacing: number }
  | {
      path: string;
      filename: string;
      outcome: 'failed' | 'skipped' | 'cancelled';
      reason: string;
      /** The failure itself (front ends classify it: `ksm upload` exits 3 on a configuration-class answer). */ error?: unknown;
      /** A skip by the folder's own rules (`SkippedFile.excluded`): counted as `excluded`, not `skipped`. */
      excluded?: true;
    };

export interface UploadSummary {
  volume: string;
  results: FileOutcome[];
  uploaded: number;
  failed: number;
  /** Files the selection holds but could not send (a link, a credential, a name already there…); not those its own rules left out. */
  skipped: number;
  /** Files left out by the folder's own rules (exclude and include patterns, `.gitignore`): `SkippedFile.excluded`. */
  excluded: number;
  cancelled: number;
  /** True when the user cancelled before every batch was answered. */
  wasCancelled: boolean;
  /** Older copies to delete once their new copy reached `done` (none is deleted yet). */
  replacements: PendingReplacement[];
}

export interface UploadRunOptions {
  service: KsmService;
  volume: string;
  embedding: string;
  doChunking: DoChunking;
  plan: UploadPlan;
  signal?: AbortSignal;
  batch?: Partial<UploadBatchLimits>;
  /** Upload requests in flight at once (default 1). */
  concurrency?: number;
  /** Called at most once per `progressIntervalMs` (VS Code drops faster updates), and once at the end. */
  onProgress?: (progress: UploadProgress) => void;
  progressIntervalMs?: number;
  /** Told each file's outcome as its batch is answered (`ksm upload --json-lines`); the summary still lists all. */
  onResult?: (outcome: FileOutcome) => void;
}

export async function runUpload(options: UploadRunOptions): Promise<UploadSummary> {
  const { service, volume, plan } = options;
  const byPath = new Map<string, PlannedUpload>(plan.uploads.map((u) => [u.source.path, u]));
  const outcomes = new Map<string, FileOutcome>();
  const report = throttle(options.onProgress, options.progressIntervalMs ?? 200);
  let wasCancelled = false;

  if (plan.uploads.length > 0) {
    try {
      await service.uploadFiles(
        { volume, embedding: options.embedding, doChunking: options.doChunking, files: plan.uploads.map((u) => u.source) },
        {
          signal: options.signal,
          batch: options.batch,
          concurrency: options.concurrency,
          onProgress: report.call,
          onFileResult: (result) => {
            const planned = byPath.get(result.source.path);
            const filename = planned?.source.filename ?? result.source.filename ?? result.source.path;
            const outcome: FileOutcome = result.ok
              ? { path: result.source.path, filename, outcome: 'uploaded', info: result.info, replacing: 0 }
              : { path: result.source.path, filename, outcome: 'failed', reason: result.error.message, error: result.error };
            outcomes.set(result.source.path, outcome);
            options.onResult?.(outcome);
          },
        },
      );
    } catch (error) {
      if (!isCancellation(error)) throw error;
      wasCancelled = true;
    } finally {
      report.flush();
    }
  }

  const replacements = replacementsOf(volume, outcomes, byPath);

  const results: FileOutcome[] = [];
  for (const upload of plan.uploads) {
    results.push(
      outcomes.get(upload.source.path) ?? {
        path: upload.source.path,
        filename: upload.source.filename,
        outcome: 'cancelled',
        reason: l10n.t('not sent: the upload was cancelled'),
      },
    );
  }
  for (const skip of plan.skipped) results.push({ path: skip.path, filename: baseName(skip.path), outcome: 'skipped', reason: skip.reason, ...(skip.excluded ? { excluded: true as const } : {}) });
  const count = (kind: FileOutcome['outcome']) => results.filter((r) => r.outcome === kind).length;
  const excluded = results.filter((r) => r.outcome === 'skipped' && r.excluded).length;
  return { volume, results, uploaded: count('uploaded'), failed: count('failed'), skipped: count('skipped') - excluded, excluded, cancelled: count('cancelled'), wasCancelled, replacements };
}

/**
 * "Replace": the older copies go only once the new copy is searchable (`done`), which takes
 * the service minutes; the ReplacementTracker settles what this returns (pendingReplacements.ts).
 */
function replacementsOf(volume: string, outcomes: Map<string, FileOutcome>, byPath: Map<string, PlannedUpload>): PendingReplacement[] {
  const pending: PendingReplacement[] = [];
  for (const [path, outcome] of outcomes) {
    const older = byPath.get(path)?.replaces ?? [];
    if (outcome.outcome !== 'uploaded' || older.length === 0) continue;
    outcome.replacing = older.length;
    pending.push({ volume, uuid: outcome.info.uuid, filename: outcome.info.filename, replaces: older.map((f) => f.uuid) });
  }
  return pending;
}

/** Leading call, then at most one per interval, and `flush` sends the last value. Hand-written: a dozen lines, no timers kept alive. */
function throttle<T>(fn: ((value: T) => void) | undefined, intervalMs: number): { call: (value: T) => void; flush: () => void } {
  let last = -Infinity;
  let pending: T | undefined;
  let has = false;
  return {
    call: (value) => {
      if (!fn) return;
      const now = Date.now();
      if (now - last >= intervalMs) {
        last = now;
        has = false;
        fn(value);
      } else {
        pending = value;
        has = true;
      }
    },
    flush: () => {
      if (fn && has) fn(pending as T);
      has = false;
    },
  };
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
