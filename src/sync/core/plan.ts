// The plan of a sync: compare the folder (by content hash) with what the manifest says the
// volume holds, and with what the volume lists. Decisions, in the order `rclone` and
// `aws s3 sync` users expect them:
// - equal content → untouched; changed content → replace (upload first, delete the old copy after);
// - a new file → upload; a file whose manifest copy vanished remotely → upload again;
// - a file gone locally (removed, renamed or now excluded) → its remote copy is deleted only
//   when deletion is enabled, else kept and reported;
// - remote files the manifest does not know are never deleted. One with the local file's
//   name and size is adopted as its copy: the service keeps no hash and offers no download,
//   so name + size is the strongest evidence there is; from then on the local hash is
//   recorded and later edits are caught by content. Every other one is reported.
// A missing or corrupt manifest is therefore a full compare that can upload but not delete.
// No `vscode` import.
import { NotFoundError } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { FileInfo } from '../../api/types';
import type { SkippedFile } from '../../common/core/folderExpansion';
import { contentHash, mapLimited, type HashStats } from './hashing';
import { emptyManifest, type Manifest, type ManifestStore } from './manifest';
import { remoteNameFor, scanFolder, type ScanRules } from './scan';

export interface PlannedUpload {
  rel: string;
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
  remoteName: string;
  /** The copy this upload replaces (deleted after the upload succeeds). */
  replaces?: { uuid: string; remoteName: string };
  /** A removed file with the same content: shown as a rename. */
  renamedFrom?: string;
}

export interface PlannedDelete {
  uuid: string;
  remoteName: string;
  /** The local file it mirrored; absent for an older copy left by an interrupted replace. */
  rel?: string;
  reason: 'removed' | 'replaced';
}

export interface SyncPlan {
  folder: string;
  volume: string;
  deleteRemoved: boolean;
  manifest: { state: 'ok' | 'missing' | 'unusable'; reason?: string; location: string };
  /** The manifest the apply step starts from (adoptions and vanished copies already recorded). */
  base: Manifest;
  /** True when `base` differs from what is stored (an apply with nothing to send still saves it). */
  baseChanged: boolean;
  uploads: PlannedUpload[];
  deletes: PlannedDelete[];
  unchanged: number;
  adopted: Array<{ rel: string; uuid: string }>;
  /** Removed locally, kept remotely because deletion is off. */
  keptRemote: string[];
  /** Remote files the manifest does not know and no local file matched: reported, never deleted. */
  untracked: FileInfo[];
  skipped: SkippedFile[];
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
  signal?: AbortSignal;
  hashConcurrency?: number;
}

export async function planSync(options: PlanOptions): Promise<SyncPlan> {
  const { volume, signal } = options;
  const loaded = await options.store.load(volume);
  const stored = loaded.state === 'ok' ? loaded.manifest : emptyManifest(volume);
  const base: Manifest = structuredClone(stored);
  let baseChanged = loaded.state !== 'ok';

  const timings = { listMs: 0, scanMs: 0, hashMs: 0 };
  const timed = async <T>(key: 'listMs' | 'scanMs', work: Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work;
    } finally {
      timings[key] = performance.now() - started;
    }
  };
  const [remote, scan] = await Promise.all([
    timed('listMs', listVolume(options.service, volume, signal)),
    timed('scanMs', scanFolder(options.folder, options.rules, signal, new Map(Object.entries(stored.files)))),
  ]);
  const remoteByUuid = new Map(remote.map((f) => [f.uuid, f]));

  // Copies deleted meanwhile (in the Volumes view, by a colleague) are forgotten.
  for (const [rel, entry] of Object.entries(base.files)) {
    if (!remoteByUuid.has(entry.uuid)) {
      delete base.files[rel];
      baseChanged = true;
    }
  }
  const pendingBefore = base.pendingDeletes.length;
  base.pendingDeletes = base.pendingDeletes.filter((p) => remoteByUuid.has(p.uuid));
  baseChanged ||= base.pendingDeletes.length !== pendingBefore;

  const claimed = new Set<string>([...Object.values(base.files).map((e) => e.uuid), ...base.pendingDeletes.map((p) => p.uuid)]);
  const unclaimedByName = new Map<string, FileInfo[]>();
  for (const file of remote) {
    if (claimed.has(file.uuid) || file.isdir) continue;
    const list = unclaimedByName.get(file.filename) ?? [];
    list.push(file);
    unclaimedByName.set(file.filename, list);
  }
  const takeUnclaimed = (name: string, size: number): FileInfo | undefined => {
    const list = unclaimedByName.get(name);
    const index = list?.findIndex((f) => f.filesize === size) ?? -1;
    if (!list || index < 0) return undefined;
    const [match] = list.splice(index, 1);
    claimed.add(match.uuid);
    return match;
  };

  const hashing: HashStats = { hashed: 0, hashedBytes: 0, skipped: 0 };
  const hashStarted = performance.now();
  const hashes = await mapLimited(scan.files, options.hashConcurrency ?? 4, (file) => contentHash(file, base.files[file.rel], hashing, signal));

  timings.hashMs = performance.now() - hashStarted;
  const local = new Set(scan.files.map((f) => f.rel));
  const removedByHash = new Map<string, string>();
  for (const [rel, entry] of Object.entries(base.files)) if (!local.has(rel)) removedByHash.set(entry.sha256, rel);

  const plan: SyncPlan = {
    folder: options.folder,
    volume,
    deleteRemoved: options.deleteRemoved,
    manifest: { state: loaded.state, reason: loaded.state === 'unusable' ? loaded.reason : undefined, location: options.store.location },
    base,
    baseChanged,
    uploads: [],
    deletes: [],
    unchanged: 0,
    adopted: [],
    keptRemote: [],
    untracked: [],
    skipped: [...scan.skipped],
    remoteCount: remote.filter((f) => !f.isdir).length,
    hashing,
    timings,
  };

  const namesTaken = new Map<string, string>();
  scan.files.forEach((file, i) => {
    const sha256 = hashes[i];
    const remoteName = remoteNameFor(file.rel);
    const clash = namesTaken.get(remoteName);
    if (clash) {
      plan.skipped.push({ path: file.path, reason: `would be stored under the same name as '${clash}' (${remoteName})` });
      return;
    }
    namesTaken.set(remoteName, file.rel);
    const known = base.files[file.rel];
    const record = (uuid: string) => {
      base.files[file.rel] = { sha256, size: file.size, mtimeMs: file.mtimeMs, uuid, remoteName };
      baseChanged = true;
    };
    if (known && known.sha256 === sha256) {
      plan.unchanged++;
      if (known.mtimeMs !== file.mtimeMs) record(known.uuid); // touched, not edited: skip the hash next time
      return;
    }
    // A copy stored by a run that crashed before it could record it: adopt, do not upload twice.
    const stray = takeUnclaimed(remoteName, file.size);
    if (known) {
      if (stray) {
        base.pendingDeletes.push({ uuid: known.uuid, remoteName: known.remoteName });
        record(stray.uuid);
        plan.adopted.push({ rel: file.rel, uuid: stray.uuid });
      } else {
        plan.uploads.push({ ...file, sha256, remoteName, replaces: { uuid: known.uuid, remoteName: known.remoteName } });
      }
      return;
    }
    if (stray) {
      record(stray.uuid);
      plan.adopted.push({ rel: file.rel, uuid: stray.uuid });
      plan.unchanged++;
      return;
    }
    plan.uploads.push({ ...file, sha256, remoteName, renamedFrom: removedByHash.get(sha256) });
  });

  for (const [rel, entry] of Object.entries(base.files)) {
    if (local.has(rel)) continue;
    if (options.deleteRemoved) plan.deletes.push({ uuid: entry.uuid, remoteName: entry.remoteName, rel, reason: 'removed' });
    else plan.keptRemote.push(rel);
  }
  for (const pending of base.pendingDeletes) plan.deletes.push({ uuid: pending.uuid, remoteName: pending.remoteName, reason: 'replaced' });
  plan.untracked = [...unclaimedByName.values()].flat();
  plan.baseChanged = baseChanged;
  return plan;
}

async function listVolume(service: KsmService, volume: string, signal?: AbortSignal): Promise<FileInfo[]> {
  const files: FileInfo[] = [];
  try {
    for await (const file of service.listAllFiles(volume, { signal, pageSize: 1000 })) files.push(file);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error; // D6: a volume is created by its first upload
  }
  return files;
}

/** Nothing to send and nothing to record. */
export function isInSync(plan: SyncPlan): boolean {
  return plan.uploads.length === 0 && plan.deletes.length === 0;
}

/** Deletions of files removed locally (not the older copies of replaced files), as a share of the volume. */
export function deletionShare(plan: SyncPlan): number {
  const removing = plan.deletes.filter((d) => d.reason === 'removed').length;
  return plan.remoteCount === 0 ? 0 : removing / plan.remoteCount;
}

/** The guard: more than `maxShare` (0..1) of the volume deleted in one run needs an explicit yes. At least 2 files, so a one-file volume can still lose its file. */
export function exceedsDeleteGuard(plan: SyncPlan, maxShare: number): boolean {
  const removing = plan.deletes.filter((d) => d.reason === 'removed').length;
  return removing > 1 && deletionShare(plan) > maxShare;
}

export function planCounts(plan: SyncPlan): { upload: number; replace: number; delete: number; unchanged: number } {
  const replace = plan.uploads.filter((u) => u.replaces).length;
  return { upload: plan.uploads.length - replace, replace, delete: plan.deletes.length, unchanged: plan.unchanged };
}
