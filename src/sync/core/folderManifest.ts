// Where `ksm sync` keeps a folder's record: one manifest per (service, volume) pairing, in
// the folder (`.ksm-sync.<volume>.<key>.json`, named by `syncManifestName`, the one home of
// the format), each with its own journal and lock beside it. So one folder synced to two
// volumes (staging and prod, two services) keeps both records: syncing A, then B, then A
// again finds A's own record, and two runs against different volumes do not wait for each
// other, while two against the same pairing still do.
//
// A folder synced before kept ONE `.ksm-sync.json` (whichever volume synced last). It is
// still read: the run of the pairing it records moves it to that pairing's file (under that
// pairing's lock; the manifest with its journal replayed, written by the atomic-write
// routine, then the old files removed) and every other pairing leaves it alone. What it
// records stays a hint: the plan checks every claim against the listing, so a crafted one
// can cause nothing a crafted pairing file could not (src/sync/core/plan.ts). Neither is
// read or written through a symbolic link.
//
// The editor keeps its records outside the folder, in its global storage, one per folder,
// volume and service (`editorRecordName`); a record of an earlier version (keyed by folder
// and volume alone, or kept in a workspace's storage) is moved the same way. No `vscode` import.
import { createHash } from 'node:crypto';
import { lstat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SYNC_MANIFEST_NAME, syncManifestName, syncServiceKey } from '../../common/core/folderExpansion';
import { journalPathFor, NewerSyncRecordError } from './journal';
import { acquireSyncLock, type SyncLockOptions } from './lock';
import { FileManifestStore, type ManifestLoad, type ManifestStoreOptions } from './manifest';

/** This pairing's manifest in `folder` (its journal and lock are beside it). */
export function folderManifestPath(folder: string, service: string, volume: string): string {
  return join(folder, syncManifestName(service, volume));
}

/** The folder's manifest from before each pairing had its own (one for whichever volume synced last). */
export function legacyFolderManifestPath(folder: string): string {
  return join(folder, SYNC_MANIFEST_NAME);
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

/** The single-pairing manifest of `folder` when it (or its journal) is there and records this pairing; undefined otherwise. */
async function legacyRecordOf(folder: string, service: string, volume: string): Promise<{ store: FileManifestStore; loaded: ManifestLoad & { state: 'ok' } } | undefined> {
  const location = legacyFolderManifestPath(folder);
  if (!(await exists(location)) && !(await exists(journalPathFor(location)))) return undefined;
  // A symbolic link (or anything but a regular file) is refused here as it always was: ManifestRefusedError.
  const store = new FileManifestStore(location, service, { compactEveryRun: true, remember: false });
  const loaded = await store.load(volume);
  return loaded.state === 'ok' ? { store, loaded } : undefined; // another volume's or service's (or unreadable): left alone
}

export interface FolderManifestOptions extends ManifestStoreOptions {
  /**
   * Move a single-pairing `.ksm-sync.json` that records this pairing to the pairing's file
   * (the caller holds the pairing's lock). Without it (a dry run changes nothing) such a
   * manifest is read where it is when the pairing has no file of its own yet.
   */
  migrate: boolean;
  /**
   * How to wait for the single-pairing manifest's own lock (`.ksm-sync.json.lock`) before
   * moving it: an earlier `ksm` syncing this folder at this moment holds that lock, not the
   * pairing's, and is writing the file being moved.
   */
  legacyLock?: SyncLockOptions;
}

/** What `openFolderManifest` did with a single-pairing manifest of the folder. */
export type LegacyOutcome = 'none' | 'migrated' | 'read' | 'removed';

/**
 * The store of this pairing's record in `folder`, after moving the folder's single-pairing
 * manifest to it when that records this pairing (see the top of this file).
 */
export async function openFolderManifest(folder: string, service: string, volume: string, options: FolderManifestOptions): Promise<{ store: FileManifestStore; legacy: LegacyOutcome }> {
  const { migrate, legacyLock, ...storeOptions } = options;
  const store = new FileManifestStore(folderManifestPath(folder, service, volume), service, storeOptions);
  const own = await hasRecord(store);
  const seen = await legacyRecordOf(folder, service, volume);
  if (!seen) return { store, legacy: 'none' };
  if (!migrate) return own ? { store, legacy: 'none' } : { store: seen.store, legacy: 'read' };
  // Moved under its own lock, read again once held: an earlier `ksm` may be syncing with it right now (SyncBusyError after the wait; nothing changed).
  const release = await acquireSyncLock(legacyFolderManifestPath(folder), legacyLock ?? { what: folder });
  try {
    const legacy = await legacyRecordOf(folder, service, volume);
    if (!legacy) return { store, legacy: 'none' };
    // The pairing's own file wins: one left by a move that stopped before removing the old file (or newer).
    if (!own) await store.save(legacy.loaded.manifest);
    await removeRecord(legacy.store);
    return { store, legacy: own ? 'removed' : 'migrated' };
  } finally {
    await release().catch(() => undefined);
  }
}

/** Whether the store's manifest or journal (a first sync that did not finish) is there. */
export async function hasRecord(store: FileManifestStore): Promise<boolean> {
  return (await exists(store.location)) || (await exists(store.journalLocation));
}

async function removeRecord(store: FileManifestStore): Promise<void> {
  await unlink(store.journalLocation).catch(ignoreMissing);
  await unlink(store.location).catch(ignoreMissing);
}

/**
 * The file name of the editor's record of a pairing (in its global storage, never in the
 * folder): a sha256 of the folder's path, the volume and the service's address. Without a
 * service: the name earlier versions gave it (folder and volume alone), read once to move it.
 */
export function editorRecordName(folder: string, volume: string, service?: string): string {
  const key = service === undefined ? `${folder}\n${volume}` : `${folder}\n${volume}\n${syncServiceKey(service)}`;
  return `${createHash('sha256').update(key).digest('hex').slice(0, 24)}.json`;
}

/**
 * Moves the first of `earlier` (records an earlier version kept: regular files only, a link
 * is never followed) that records `volume` and no other service into `store`, its journal
 * replayed, when `store` has no record of its own (the caller holds the pairing's lock);
 * the old files are removed. Resolves with the path it moved, if any.
 */
export async function adoptEarlierRecord(store: FileManifestStore, volume: string, earlier: string[]): Promise<string | undefined> {
  if (await exists(store.location)) return undefined;
  // A first sync here that did not finish left a journal of its own (bound to no manifest): that is the record.
  // A journal left beside a manifest that is gone is not: it records changes to a manifest no one has.
  // One a newer version wrote is refused, not replaced by an earlier record (its error goes up).
  const own = await store.load(volume).catch((error: unknown) => {
    if (error instanceof NewerSyncRecordError) throw error;
    return undefined;
  });
  if (own?.state === 'ok') return undefined;
  for (const location of earlier) {
    if (location === store.location) continue;
    const info = await lstat(location).catch(() => undefined);
    if (!info?.isFile()) continue;
    const old = new FileManifestStore(location, store.service, { compactEveryRun: true, remember: false });
    const loaded = await old.load(volume);
    if (loaded.state !== 'ok') continue; // another volume's or service's, or unreadable: left alone
    await store.save(loaded.manifest);
    await removeRecord(old);
    return location;
  }
  return undefined;
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
