// A first sync to an empty volume, sent while the folder is still being read (issue 21: many
// small files). With no manifest (and no journal of an interrupted run) and nothing listed in
// the volume, the plan can hold nothing but uploads: no recorded copies, no same-name files
// to ask about, nothing to delete, no duplicates, no delete guard to trip. So each folder's
// files are planned as the scan takes them (the same naming, clash and hash rules as
// `planSync`), their intents made durable, and their batches sent while the next folder is
// read, instead of after the whole folder was read. Anything else (a manifest, a volume that
// lists a file, a dry run) goes through `planSync` and `applySync` as before: this returns
// undefined before anything was changed. No `vscode` import.
import * as l10n from '@vscode/l10n';
import { isUnwrittenVolume } from '../../api/errors';
import { applySync, type ApplyOptions, type SyncSummary } from './apply';
import { contentHash, hashFailureReason, scannedHash, type HashStats } from './hashing';
import { emptyManifest } from './manifest';
import type { PlanOptions, PlannedUpload, SyncPlan } from './plan';
import { remoteNameFor, scanFolder, type LocalFile } from './scan';

/**
 * Plans and applies a first sync of `options.folder` into an empty `options.volume` as the
 * folder is read; undefined (nothing read, nothing changed) when the manifest or the volume
 * holds anything, so the caller plans the usual way.
 */
export async function firstSyncStreamed(
  options: PlanOptions,
  apply: Omit<ApplyOptions, 'store' | 'service'> & {
    /** Told once the run is streamed (a first sync into an empty volume), before anything is sent. */
    onStreaming?: () => void;
  },
): Promise<{ plan: SyncPlan; summary: SyncSummary } | undefined> {
  const { volume, signal } = options;
  const timings = { listMs: 0, scanMs: 0, hashMs: 0 };
  const listStarted = performance.now();
  const listing = options.service.listFiles({ volume, offset: 0, limit: 1 }, { signal }).then(
    (page) => page.files.length === 0 && page.total === 0,
    (error: unknown) => {
      if (isUnwrittenVolume(error)) return true; // D6: a volume is created by its first upload
      throw error;
    },
  );
  listing.catch(() => undefined); // awaited below, after the manifest (whose refusal is told first)
  const loaded = await options.store.load(volume);
  if (loaded.state !== 'missing') return undefined;

  const plan: SyncPlan = {
    folder: options.folder,
    volume,
    deleteRemoved: options.deleteRemoved,
    ownership: options.ownership ?? 'ask',
    manifest: { state: 'missing', location: options.store.location },
    base: emptyManifest(volume),
    baseChanged: true,
    uploads: [],
    deletes: [],
    unchanged: 0,
    adopted: [],
    keptRemote: [],
    untracked: [],
    ignoredClaims: [],
    conflicts: [],
    duplicates: [],
    skipped: [],
    remoteCount: 0,
    hashing: { hashed: 0, hashedBytes: 0, skipped: 0 },
    timings,
  };

  // The scan hands over a folder's files at a time; the apply pulls them as planned uploads.
  const scanAbort = new AbortController();
  const scanSignal = signal ? AbortSignal.any([signal, scanAbort.signal]) : scanAbort.signal;
  const found: LocalFile[][] = [];
  let wake: (() => void) | undefined;
  let scanDone = false;
  const scanStarted = performance.now();
  const scanning = scanFolder(options.folder, { ...options.rules, keepSmallContent: true }, scanSignal, undefined, (files) => {
    found.push(files);
    wake?.();
  }).finally(() => {
    scanDone = true;
    timings.scanMs = performance.now() - scanStarted;
    wake?.();
  });
  scanning.catch(() => undefined); // its error ends the stream below
  // The folder is read while the listing is on its way (reading changes nothing); stopped when the volume holds anything.
  let empty: boolean;
  try {
    empty = await listing;
  } catch (error) {
    scanAbort.abort();
    await scanning.catch(() => undefined);
    throw error;
  }
  if (!empty) {
    scanAbort.abort();
    await scanning.catch(() => undefined);
    return undefined;
  }
  timings.listMs = performance.now() - listStarted;
  apply.onStreaming?.();
  const clashes: SyncPlan['skipped'] = [];
  const namesTaken = new Map<string, string>();
  const hashing: HashStats = plan.hashing;

  async function* planned(): AsyncGenerator<PlannedUpload[]> {
    try {
      for (;;) {
        const files = found.shift();
        if (!files) {
          if (scanDone) break;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        const group: PlannedUpload[] = [];
        for (const file of files) {
          const remoteName = remoteNameFor(file.rel);
          const clash = namesTaken.get(remoteName);
          if (clash) {
            clashes.push({ path: file.path, reason: l10n.t("would be stored under the same name as '{0}' ({1})", clash, remoteName) });
            continue;
          }
          namesTaken.set(remoteName, file.rel);
          const hashStarted = performance.now();
          let sha256: string;
          try {
            sha256 = scannedHash(file, hashing) ?? (await contentHash(file, undefined, hashing, scanSignal));
          } catch (error) {
            // Replaced, removed or unreadable since the scan: not read, said (a FIFO put in its place made this wait forever).
            const reason = hashFailureReason(error, scanSignal);
            if (reason === undefined) throw error;
            clashes.push({ path: file.path, reason, unread: true });
            continue;
          } finally {
            timings.hashMs += performance.now() - hashStarted;
          }
          group.push({ ...file, sha256, remoteName });
        }
        if (group.length) yield group;
      }
      const scan = await scanning; // its error (a folder that cannot be read) ends the run
      plan.skipped.push(...scan.skipped, ...clashes);
    } finally {
      scanAbort.abort(); // stopped or cancelled: the rest of the folder is not read
    }
  }

  try {
    const summary = await applySync(plan, { ...apply, store: options.store, service: options.service }, planned());
    // A folder with nothing to send still leaves a manifest, as a planned first sync does.
    if (plan.uploads.length === 0 && !summary.stopped && !summary.wasCancelled) await options.store.save(plan.base);
    return { plan, summary };
  } finally {
    scanAbort.abort();
    await scanning.catch(() => undefined);
  }
}
