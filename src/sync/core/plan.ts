// The plan of a sync: compare the folder (by content hash) with the volume's LISTING, the
// truth, using the manifest only as a hint of which listed copies this folder uploaded.
// Decisions, in the order `rclone` and `aws s3 sync` users expect them:
// - equal content → untouched; changed content → replace (upload first, delete the old copy after);
// - a new file → upload; a file whose recorded copy vanished remotely → upload again;
// - a file gone locally (removed, renamed or now excluded) → its copy is deleted only when
//   deletion is enabled, else kept and reported.
// Ownership (docs/sync.md): a listed file is this folder's own copy only when the manifest
// records its uuid for a path AND the listing holds that uuid under the exact name this
// folder gives that path; or when the manifest recorded the intent to upload that path
// (before sending) and an unrecorded file of that name and size is listed (a crash between
// sending and recording). Every other manifest claim (a uuid listed under another name, a
// pending deletion without a newer copy, another volume's manifest) is ignored and
// reported. A same-name file the folder never recorded is never adopted silently: with no
// usable manifest the plan holds a `conflicts` list and the caller must choose `adopt`
// (they are this folder's older copies: replaced) or `keepOthers` (upload alongside).
// No `vscode` import.
import * as l10n from '@vscode/l10n';
import pMap from 'p-map';
import { unseenFiles } from '../../api/decode';
import { isUnwrittenVolume } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { FileInfo } from '../../api/types';
import type { SkippedFile } from '../../common/core/folderExpansion';
import { contentHash, hashFailureReason, knownHash, scannedHash, type HashStats } from './hashing';
import { emptyManifest, type Manifest, type ManifestEntry, type ManifestStore } from './manifest';
import { remoteNameFor, scanFolder, unreadMatcher, type ScanRules } from './scan';
import { resendWaitMs, type ResendRule } from './watchBatcher';

export interface PlannedUpload {
  rel: string;
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
  remoteName: string;
  /** The copies this upload replaces (deleted after the upload succeeds): the folder's older one, or same-name files adopted with `adopt`. */
  replaces?: Array<{ uuid: string; remoteName: string }>;
  /** A removed file with the same content: shown as a rename. */
  renamedFrom?: string;
  /** The bytes the scan read and hashed as `sha256` (small files): sent as they are, not read again. */
  content?: Buffer;
  /** The file the scan found (device and inode): its upload reads that file or nothing. */
  identity?: { dev: number; ino: number };
}

export interface PlannedDelete {
  uuid: string;
  /** The name the service lists it under (never the manifest's word). */
  remoteName: string;
  /** The local path it mirrored. */
  rel?: string;
  /** removed: gone locally; replaced: older copy of a replaced file; duplicate: an extra copy (--dedupe). */
  reason: 'removed' | 'replaced' | 'duplicate';
}

/** How same-name files the folder never recorded are treated. */
export type Ownership = 'ask' | 'adopt' | 'keepOthers';

export interface SyncPlan {
  folder: string;
  volume: string;
  deleteRemoved: boolean;
  ownership: Ownership;
  manifest: { state: 'ok' | 'missing' | 'unusable'; reason?: string; location: string };
  /** The manifest the apply step starts from (only claims the listing backs; recovered intents recorded). */
  base: Manifest;
  /** True when `base` differs from what is stored (an apply with nothing to send still saves it). */
  baseChanged: boolean;
  uploads: PlannedUpload[];
  deletes: PlannedDelete[];
  unchanged: number;
  /** Unrecorded copies recognised from the intents of an interrupted run. */
  adopted: Array<{ rel: string; uuid: string }>;
  /** Removed locally, kept remotely because deletion is off. */
  keptRemote: string[];
  /** Remote files no local file owns: reported, never deleted. */
  untracked: FileInfo[];
  /** Manifest claims the listing does not back: ignored, reported. */
  ignoredClaims: string[];
  /**
   * With no usable manifest: local files whose name is already taken by files this folder
   * never recorded. Non-empty with ownership `ask` means the run must stop for a choice.
   */
  conflicts: Array<{ rel: string; remote: FileInfo[] }>;
  /** Extra listed copies under the name of one of the folder's own files (an earlier accident); deleted with `dedupe`. */
  duplicates: Array<{ rel: string; file: FileInfo; sameSize: boolean }>;
  skipped: SkippedFile[];
  /**
   * A watch run's changed files whose last copy was sent a moment ago (PlanOptions.resend,
   * WATCH_LIMITS.fileIntervalMs): not replaced in this run, that copy kept and still recorded
   * (the file is local: never deleted as removed); each may be sent in `readyInMs`.
   */
  waiting?: Array<{ rel: string; readyInMs: number }>;
  /** Files the volume listed (for the delete guard). */
  remoteCount: number;
  hashing: HashStats;
  /** Where the planning time went (for the log and the bench). */
  timings: { listMs: number; scanMs: number; hashMs: number };
}

export interface PlanOptions {
  folder: string;
  volume: string;
  service: KsmService;
  store: ManifestStore;
  rules: ScanRules;
  deleteRemoved: boolean;
  /** Same-name files the folder never recorded (default `ask`). */
  ownership?: Ownership;
  /** Delete extra copies of the folder's own files (same name and size as the recorded copy). */
  dedupe?: boolean;
  /** A watch run: a changed file sent less than WATCH_LIMITS.fileIntervalMs ago is left out (`SyncPlan.waiting`). Absent (a run the user starts): every file is taken. */
  resend?: ResendRule;
  signal?: AbortSignal;
  hashConcurrency?: number;
}

export async function planSync(options: PlanOptions): Promise<SyncPlan> {
  const { volume, signal } = options;
  const ownership = options.ownership ?? 'ask';
  const timings = { listMs: 0, scanMs: 0, hashMs: 0 };
  // The listing does not depend on the manifest: asked for while the manifest is read.
  const listStarted = performance.now();
  const loading = options.store.load(volume);
  const recordedCount = loading.then(
    (l) => (l.state === 'ok' ? countKeys(l.manifest.files) + countKeys(l.manifest.intents) : 0),
    () => 0,
  );
  const listing = listVolume(options.service, volume, signal, recordedCount).finally(() => (timings.listMs = performance.now() - listStarted));
  listing.catch(() => undefined); // awaited below; a manifest refused meanwhile must not leave it unhandled
  // The folder is walked and stat'ed while the manifest is read too; only the files' checks wait for it (what it records skips the readable-files sniff).
  const scanStarted = performance.now();
  const known = loading.then(
    (l) => (l.state === 'ok' ? { get: (rel: string) => l.manifest.files[rel] } : undefined),
    () => undefined,
  );
  const scanning = scanFolder(options.folder, options.rules, signal, known).finally(() => (timings.scanMs = performance.now() - scanStarted));
  scanning.catch(() => undefined); // awaited below; a manifest refused meanwhile must not leave it unhandled
  const loaded = await loading;
  const stored = loaded.state === 'ok' ? loaded.manifest : emptyManifest(volume);
  const base: Manifest = emptyManifest(volume, stored.service);
  let baseChanged = loaded.state !== 'ok';
  const storedFiles = stored.files;
  const [listed, scan] = await Promise.all([listing, scanning]);
  // One pass over the listing (a no-op re-sync of 5,000 files spent a good part of its plan
  // building these): folders dropped from the uuid map in place, and a name's files kept as
  // the first one plus, rarely, a list of the others (no array per file).
  const byUuid = listed;
  const remote: FileInfo[] = [];
  const byName = new Map<string, FileInfo>();
  const moreByName = new Map<string, FileInfo[]>();
  for (const file of listed.values()) {
    if (file.isdir) {
      byUuid.delete(file.uuid);
      continue;
    }
    remote.push(file);
    if (!byName.has(file.filename)) byName.set(file.filename, file);
    else {
      const more = moreByName.get(file.filename);
      if (more) more.push(file);
      else moreByName.set(file.filename, [file]);
    }
  }
  const none: FileInfo[] = [];
  /** Every listed file of that name. */
  const named = (name: string): FileInfo[] => {
    const first = byName.get(name);
    if (!first) return none;
    const more = moreByName.get(name);
    return more ? [first, ...more] : [first];
  };
  const claimed = new Set<string>();
  const ignoredClaims: string[] = [];
  /** Entries in `base.files` (counted as they are added: no key array of 5,000 paths to learn whether a recorded path is gone). */
  let baseCount = 0;

  // 1. Recorded copies: kept only when listed under the name this folder gives the path.
  for (const rel in storedFiles) {
    const entry = storedFiles[rel];
    const listed = byUuid.get(entry.uuid);
    const name = entry.remoteName; // the folder's naming of rel, worked out when the manifest was read (never read from it)
    if (!listed) {
      baseChanged = true; // deleted meanwhile (in the Volumes view, by a colleague): forgotten
    } else if (listed.filename !== name) {
      ignoredClaims.push(l10n.t("'{0}' records {1}, which the volume lists as '{2}', not '{3}'", rel, entry.uuid, listed.filename, name));
      baseChanged = true;
    } else if (claimed.has(entry.uuid)) {
      ignoredClaims.push(l10n.t("'{0}' records {1}, which another entry already claims", rel, entry.uuid));
      baseChanged = true;
    } else {
      base.files[rel] = entry;
      baseCount++;
      claimed.add(entry.uuid);
    }
  }
  // 2. Intents of an interrupted run: an unrecorded file of that name and size is the copy it sent.
  for (const [rel, intent] of Object.entries(stored.intents)) {
    baseChanged = true;
    const name = remoteNameFor(rel);
    const stray = named(name).find((f) => !claimed.has(f.uuid) && f.filesize === intent.size);
    if (!stray) continue;
    const older = base.files[rel];
    if (older) base.pendingDeletes.push({ uuid: older.uuid, remoteName: older.remoteName, rel });
    else baseCount++;
    base.files[rel] = { sha256: intent.sha256, size: intent.size, mtimeMs: 0, uuid: stray.uuid, remoteName: name };
    claimed.add(stray.uuid);
  }
  const recovered = Object.entries(stored.intents).flatMap(([rel]) => (base.files[rel] && base.files[rel].uuid !== stored.files[rel]?.uuid ? [{ rel, uuid: base.files[rel].uuid }] : []));
  // 3. Older copies still to delete: only one listed under the path's name while a newer copy of that name is listed.
  for (const pending of stored.pendingDeletes) {
    const listed = byUuid.get(pending.uuid);
    if (!listed) {
      baseChanged = true;
      continue;
    }
    const name = pending.rel === undefined ? undefined : remoteNameFor(pending.rel);
    const newer = pending.rel === undefined ? undefined : base.files[pending.rel];
    if (!name || listed.filename !== name || claimed.has(pending.uuid) || !newer || newer.uuid === pending.uuid) {
      ignoredClaims.push(l10n.t("a pending deletion of {0} ('{1}') is not an older copy of one of this folder's files", pending.uuid, listed.filename));
      baseChanged = true;
      continue;
    }
    base.pendingDeletes.push({ uuid: pending.uuid, remoteName: listed.filename, rel: pending.rel });
    claimed.add(pending.uuid);
  }

  const hashing: HashStats = { hashed: 0, hashedBytes: 0, skipped: 0 };
  const hashStarted = performance.now();
  // Each file's recorded entry, looked up once (the lookups by path were a good part of the plan's pass).
  const knowns = new Array<ManifestEntry | undefined>(scan.files.length);
  let recordedSeen = 0;
  const reused = new Array<string | undefined>(scan.files.length);
  const toHash: number[] = [];
  for (let i = 0; i < scan.files.length; i++) {
    const file = scan.files[i];
    const known = (knowns[i] = base.files[file.rel]);
    if (known) recordedSeen++;
    // Unchanged files (same size and mtime) reuse the recorded hash, small files the scan read whole the scan's, without a promise each; only the rest are hashed.
    const hash = (reused[i] = knownHash(file, known, hashing) ?? scannedHash(file, hashing));
    if (hash === undefined) toHash.push(i);
  }
  /** Files that could not be hashed (replaced, removed or unreadable since the scan): not read, their records kept. */
  const unhashed = new Map<number, string>();
  const computed = await pMap(
    toHash,
    (i) =>
      contentHash(scan.files[i], knowns[i], hashing, signal).catch((error: unknown) => {
        const reason = hashFailureReason(error, signal);
        if (reason === undefined) throw error;
        unhashed.set(i, reason);
        return undefined;
      }),
    { concurrency: options.hashConcurrency ?? 8, signal },
  );
  toHash.forEach((index, k) => (reused[index] = computed[k]));
  const hashes = reused;
  timings.hashMs = performance.now() - hashStarted;

  // Whether any recorded path is gone locally: counted, so a run where none is builds no set of local paths.
  const local = recordedSeen < baseCount ? new Set(scan.files.map((f) => f.rel)) : undefined;
  // A recorded file the scan found but could not read (no permission, its folder unreadable) is
  // not gone: its copy is kept and stays recorded, never deleted as removed (docs/sync.md).
  const unread = local ? unreadMatcher(options.folder, scan.skipped) : undefined;
  const gone = (rel: string) => !local!.has(rel) && !unread?.(rel);
  /** Removed paths by content (a new file with one of these is shown as a rename); worked out at the first new file. */
  let removedByHash: Map<string, string> | undefined;
  const renamedFrom = (sha256: string): string | undefined => {
    if (!local) return undefined;
    if (!removedByHash) {
      removedByHash = new Map();
      for (const rel in base.files) if (gone(rel)) removedByHash.set(base.files[rel].sha256, rel);
    }
    return removedByHash.get(sha256);
  };

  const plan: SyncPlan = {
    folder: options.folder,
    volume,
    deleteRemoved: options.deleteRemoved,
    ownership,
    manifest: { state: loaded.state, reason: loaded.state === 'unusable' ? loaded.reason : undefined, location: options.store.location },
    base,
    baseChanged,
    uploads: [],
    deletes: [],
    unchanged: 0,
    adopted: recovered,
    keptRemote: [],
    untracked: [],
    ignoredClaims,
    conflicts: [],
    duplicates: [],
    skipped: [...scan.skipped],
    waiting: options.resend ? [] : undefined,
    remoteCount: remote.length,
    hashing,
    timings,
  };

  const unclaimedNamed = (name: string): FileInfo[] => {
    const first = byName.get(name);
    if (!first || (!moreByName.has(name) && claimed.has(first.uuid))) return none; // the common case: only the folder's own copy
    return named(name).filter((f) => !claimed.has(f.uuid));
  };
  const namesTaken = new Map<string, string>();
  scan.files.forEach((file, i) => {
    const unread = unhashed.get(i);
    if (unread !== undefined) {
      plan.skipped.push({ path: file.path, reason: unread, unread: true }); // still a local file: never planned as removed
      return;
    }
    const sha256 = hashes[i]!;
    if (file.content && file.sha256 !== sha256) file.content = undefined; // only bytes whose hash is the plan's are sent as read
    const known = knowns[i];
    const remoteName = known?.remoteName ?? remoteNameFor(file.rel);
    const clash = namesTaken.get(remoteName);
    if (clash) {
      plan.skipped.push({ path: file.path, reason: l10n.t("would be stored under the same name as '{0}' ({1})", clash, remoteName) });
      return;
    }
    namesTaken.set(remoteName, file.rel);
    if (known) {
      for (const other of unclaimedNamed(remoteName)) plan.duplicates.push({ rel: file.rel, file: other, sameSize: other.filesize === known.size });
      if (known.sha256 === sha256) {
        plan.unchanged++;
        if (known.mtimeMs !== file.mtimeMs) {
          base.files[file.rel] = { ...known, mtimeMs: file.mtimeMs }; // touched, not edited: skip the hash next time
          plan.baseChanged = true;
        }
      } else {
        const readyInMs = options.resend && resendWaitMs(file.rel, options.resend);
        // Changed again a moment after its last copy was sent (a log appended every few seconds): that copy stays until the interval is over.
        if (readyInMs !== undefined) plan.waiting!.push({ rel: file.rel, readyInMs });
        else plan.uploads.push({ ...file, sha256, remoteName, replaces: [{ uuid: known.uuid, remoteName }] });
      }
      return;
    }
    const others = unclaimedNamed(remoteName);
    if (others.length && loaded.state !== 'ok') {
      plan.conflicts.push({ rel: file.rel, remote: others });
      if (ownership === 'adopt') {
        for (const other of others) claimed.add(other.uuid);
        plan.uploads.push({ ...file, sha256, remoteName, replaces: others.map((o) => ({ uuid: o.uuid, remoteName })) });
        return;
      }
    }
    // Same-name files the folder never recorded stay someone else's: uploaded alongside, reported as untracked.
    plan.uploads.push({ ...file, sha256, remoteName, renamedFrom: renamedFrom(sha256) });
  });

  if (local) {
    for (const rel in base.files) {
      if (!gone(rel)) continue;
      const entry = base.files[rel];
      if (options.deleteRemoved) plan.deletes.push({ uuid: entry.uuid, remoteName: entry.remoteName, rel, reason: 'removed' });
      else plan.keptRemote.push(rel);
    }
  }
  for (const pending of base.pendingDeletes) plan.deletes.push({ uuid: pending.uuid, remoteName: pending.remoteName, rel: pending.rel, reason: 'replaced' });
  if (options.dedupe) {
    for (const d of plan.duplicates) {
      if (!d.sameSize) continue;
      claimed.add(d.file.uuid);
      plan.deletes.push({ uuid: d.file.uuid, remoteName: d.file.filename, rel: d.rel, reason: 'duplicate' });
    }
  }
  plan.untracked = remote.filter((f) => !claimed.has(f.uuid));
  plan.baseChanged ||= baseChanged;
  return plan;
}

const keyCounts = new WeakMap<object, number>();

/** The number of keys of a manifest map, without an array of them (remembered for a frozen one: a store hands the same one out again). */
function countKeys(record: object): number {
  const known = keyCounts.get(record);
  if (known !== undefined) return known;
  let n = 0;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  for (const _key in record) n++;
  if (Object.isFrozen(record)) keyCounts.set(record, n);
  return n;
}

/** True when the run must stop for a choice: no usable manifest and same-name files the folder never recorded. */
export function needsOwnershipChoice(plan: SyncPlan): boolean {
  return plan.ownership === 'ask' && plan.conflicts.length > 0;
}

/**
 * The whole listing: the first page says the total, the other pages are asked for 3 at a
 * time (a 5,000-file volume is 5 pages; one after another they were most of a no-op sync).
 * The pages the manifest's file count predicts are asked for while the first is on its way,
 * four at a time (a no-op re-sync of 5,000 files waited for the first page before asking for
 * the rest). Deduplicated by uuid, in case the volume changed between pages; the map is the
 * plan's uuid index.
 */
async function listVolume(service: KsmService, volume: string, signal: AbortSignal | undefined, recordedCount: Promise<number>): Promise<Map<string, FileInfo>> {
  const limit = 1000;
  // Pages come back in any order; a page of only files another page listed is an error, and a
  // short page ends the asking (the offsets are produced lazily: `total` is the service's word,
  // and 10^12 of it made an array of a billion offsets before any request).
  const seen = new Set<string>();
  let ended = false;
  const page = async (offset: number) => {
    const got = await service.listFiles({ volume, offset, limit }, { signal });
    if (got.files.length < limit) ended = true;
    unseenFiles(seen, got.files, volume, offset);
    return got;
  };
  const firstPage = page(0);
  firstPage.catch(() => undefined); // awaited below
  const recorded = await recordedCount;
  const predicted: number[] = [];
  for (let offset = limit; offset < recorded; offset += limit) predicted.push(offset);
  // Four at once: a 5,000-file volume's other pages all go together (two at a time, the listing leg of a no-op re-sync was ~1.4× longer at load 8).
  const early = pMap(predicted, page, { concurrency: 4, signal });
  early.catch(() => undefined); // awaited below, after the first page (whose error is the one told)
  try {
    const first = await firstPage;
    function* offsets(): Generator<number> {
      for (let offset = limit + predicted.length * limit; first.files.length > 0 && offset < first.total && !ended; offset += limit) yield offset;
    }
    const [earlyPages, morePages] = await Promise.all([early, pMap(offsets(), page, { concurrency: 3, signal })]);
    const pages = [...earlyPages, ...morePages];
    const byUuid = new Map<string, FileInfo>();
    let read = 0;
    for (const p of [first, ...pages]) {
      read += p.files.length;
      for (const file of p.files) byUuid.set(file.uuid, file);
    }
    // A page shorter than asked (the volume shrank meanwhile) leaves no gap: what is missing is read in order.
    if (read < first.total && pages.some((p) => p.files.length < limit)) {
      for await (const file of service.listAllFiles(volume, { signal, pageSize: limit })) byUuid.set(file.uuid, file);
    }
    return byUuid;
  } catch (error) {
    if (!isUnwrittenVolume(error)) throw error; // D6: a volume is created by its first upload
    return new Map();
  }
}

/** Nothing to send and nothing to record. */
export function isInSync(plan: SyncPlan): boolean {
  return plan.uploads.length === 0 && plan.deletes.length === 0;
}

/**
 * Deletions that lower the volume's file count: every planned deletion (removed files,
 * extra copies, older copies left by earlier runs: a crafted manifest cannot slip one past
 * the guard). The older copies this run replaces (its own, or adopted same-name files) go
 * only after their new copy is stored, so the count does not drop for them.
 */
export function guardedDeletions(plan: SyncPlan): number {
  return plan.deletes.length;
}

/** Guarded deletions as a share of the volume. */
export function deletionShare(plan: SyncPlan): number {
  return plan.remoteCount === 0 ? 0 : guardedDeletions(plan) / plan.remoteCount;
}

/**
 * The guard: more than `maxShare` (0..1) of the volume, or more than `maxCount` files,
 * deleted in one run needs an explicit yes. The share needs at least 2 files, so a one-file
 * volume can still lose its file.
 */
export function exceedsDeleteGuard(plan: SyncPlan, maxShare: number, maxCount = Infinity): boolean {
  const removing = guardedDeletions(plan);
  return removing > maxCount || (removing > 1 && deletionShare(plan) > maxShare);
}

export function planCounts(plan: SyncPlan): { upload: number; replace: number; delete: number; unchanged: number } {
  const replace = plan.uploads.filter((u) => u.replaces).length;
  return { upload: plan.uploads.length - replace, replace, delete: plan.deletes.length, unchanged: plan.unchanged };
}
