// What the last sync stored, per pairing: relative path → content hash, size, mtime and the
// uuid of the copy this folder uploaded, plus the intents of the run in progress (what it is
// about to send, recorded before sending) and older copies still to delete. It is a HINT,
// never the truth: every claim is checked against the volume's listing before it may cause
// anything (src/sync/core/plan.ts, docs/sync.md "What the manifest may cause"). It records
// the service and volume it belongs to; another's is unusable. It is never read or written
// through a symlink, and it is written by the project's one atomic-write routine (temp
// file, fsync, rename, folder fsync). A run's changes are appended to its journal
// (src/sync/core/journal.ts) and folded in at the end of the run or once the journal has
// grown; reading the manifest replays its journal. No `vscode` import.
import * as l10n from '@vscode/l10n';
import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigurationError } from '../../api/errors';
import { fsyncFolder, writeFileAtomic } from '../../common/core/atomicWrite';
import { SYNC_MANIFEST_NAME, volumeNameFor } from '../../common/core/folderExpansion';
import {
  applyChange,
  isApplicable,
  JOURNAL_VERSION,
  journalPathFor,
  JournalWriter,
  NewerSyncRecordError,
  parseJournal,
  refuseJournalNonFile,
  type JournalHeader,
  type JournalRead,
  type ManifestChange,
} from './journal';

export const MANIFEST_VERSION = 2;

export interface ManifestEntry {
  sha256: string;
  size: number;
  /** Local mtime when hashed: with `size`, lets an unchanged file skip hashing (0 = hash again). */
  mtimeMs: number;
  uuid: string;
  /** Always the folder's naming of the path (never read from the file). */
  remoteName: string;
}

/** A remote copy that must go once its replacement is stored (replace = upload, then delete). */
export interface PendingDelete {
  uuid: string;
  remoteName: string;
  /** The path whose older copy it is; a pending deletion without one is never acted on. */
  rel?: string;
}

/** Recorded before a file is sent, so a copy stored by a run that crashed before recording it is recognised. */
export interface UploadIntent {
  sha256: string;
  size: number;
}

export interface Manifest {
  version: typeof MANIFEST_VERSION;
  /** The service address it belongs to (absent in the editor's own store and in version 1 files). */
  service?: string;
  volume: string;
  files: Record<string, ManifestEntry>;
  pendingDeletes: PendingDelete[];
  intents: Record<string, UploadIntent>;
}

export type ManifestLoad =
  | { state: 'ok'; manifest: Manifest }
  | { state: 'missing' }
  /** Unreadable, not JSON, wrong shape or another volume's: treated like missing (nothing deleted, same-name files need a choice). */
  | { state: 'unusable'; reason: string };

export interface ManifestStore {
  /** Where it lives, for messages. */
  readonly location: string;
  /** The manifest with its journal replayed. */
  load(volume: string): Promise<ManifestLoad>;
  /** Writes the whole manifest (atomically) and drops the journal it folds in. */
  save(manifest: Manifest): Promise<void>;
  /**
   * Appends changes already applied to `manifest` to the journal; resolves once they are on
   * disk (`durable`, the default: fdatasync'ed; otherwise written, synced with a later durable append or the run's end).
   */
  append(manifest: Manifest, changes: ManifestChange[], durable?: boolean): Promise<void>;
  /**
   * Optional: creates the journal ahead of the first append when it would start a new one
   * (a streamed first sync, while it reads the folder); later appends queue behind it.
   */
  prepare?(manifest: Manifest): Promise<void>;
  /** The end of a run: the journal closed, and folded into the manifest when the store's policy says so. */
  finish(manifest: Manifest): Promise<void>;
}

export function emptyManifest(volume: string, service?: string): Manifest {
  // Maps without a prototype: a path named `__proto__` is an entry like any other, never the object's prototype.
  return { version: MANIFEST_VERSION, service, volume, files: Object.create(null) as Record<string, ManifestEntry>, pendingDeletes: [], intents: Object.create(null) as Record<string, UploadIntent> };
}

/** Thrown when the manifest path is a symlink: it is neither read nor written. */
export class ManifestRefusedError extends ConfigurationError {}

export interface ManifestStoreOptions {
  /**
   * Fold the journal into the manifest at the end of every run that appended to it (the
   * CLI's manifest in the folder is committed or cached: it must be whole after a run).
   * Otherwise (the editor's own store) only once the journal is half the manifest's size
   * (or there is no manifest yet), so a small re-sync of a large folder rewrites nothing.
   */
  compactEveryRun?: boolean;
  /**
   * Keep a run's manifest in memory for the next load in this process, once the files are
   * read back and match (default). A process that runs one sync and exits (the CLI) says
   * false: reading back and copying a 5,000-file manifest at the end of the run gains it nothing.
   */
  remember?: boolean;
}

/** What the last load or save found on disk: the journal's binding and sizes for the compaction policy. */
interface OnDisk {
  /** sha256 of the manifest's bytes; null: no manifest. */
  digest: string | null;
  manifestBytes: number;
  /** 'current': a journal bound to this manifest exists and is appended to; otherwise a new one is started (replacing a stale one). */
  journal: 'none' | 'current' | 'stale';
  journalBytes: number;
}

/**
 * What a store last read or wrote, per manifest location, while the process lives (the
 * editor re-syncs a folder many times in one extension host: a no-op re-sync of 5,000 files
 * spent ~15 ms of its ~140 ms parsing a manifest it had itself written). Used only when the
 * manifest and its journal still hold exactly the bytes it was taken from (both are read and
 * compared whole: no timestamp or inode is trusted, a same-size edit within the same second
 * is seen). Frozen: a run builds its own base from it and never writes into it. Like the
 * files themselves, it is only a HINT, checked against the listing by the plan.
 */
interface Remembered {
  /** The manifest's and the journal's bytes it was taken from (undefined: the file did not exist). */
  manifestBytes: Buffer | undefined;
  journalBytes: Buffer | undefined;
  volume: string;
  service?: string;
  manifest: Manifest;
  onDisk: OnDisk;
}
const remembered = new Map<string, Remembered>();
/** Pairings remembered at once (each about twice its manifest's size). */
const REMEMBERED_MAX = 8;

function remember(location: string, entry: Remembered): void {
  remembered.delete(location);
  remembered.set(location, entry);
  if (remembered.size > REMEMBERED_MAX) remembered.delete(remembered.keys().next().value!);
}

/** Forgets every remembered manifest (tests). */
export function forgetRememberedManifests(): void {
  remembered.clear();
}

function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}

/** A file's bytes; undefined when it does not exist. */
async function readBytes(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Frozen, with maps and lists of its own when `copy` (a run's manifest, whose maps the run
 * changed); entries are never changed in place, only replaced, so they are frozen where they are.
 */
function frozen(manifest: Manifest, service: string | undefined, copy: boolean): Manifest {
  const files = copy ? (Object.create(null) as Record<string, ManifestEntry>) : manifest.files;
  for (const rel in manifest.files) files[rel] = Object.freeze(manifest.files[rel]);
  const intents = copy ? (Object.create(null) as Record<string, UploadIntent>) : manifest.intents;
  for (const rel in manifest.intents) intents[rel] = Object.freeze(manifest.intents[rel]);
  return Object.freeze({
    version: MANIFEST_VERSION,
    service,
    volume: manifest.volume,
    files: Object.freeze(files),
    intents: Object.freeze(intents),
    pendingDeletes: Object.freeze(manifest.pendingDeletes.map((p) => Object.freeze(p))) as PendingDelete[],
  });
}

export class FileManifestStore implements ManifestStore {
  private savedBytes = 0;
  /** The service the manifest on disk records (what a parse of it would give), for what is remembered after a run. */
  private diskService: string | undefined;
  /** This store wrote the manifest or its journal since it was loaded. */
  private wrote = false;
  /** The bytes the manifest and the journal hold after this store's last read or write ('unknown' after a failed or partial write). */
  private expected: { manifest: Buffer | undefined; journal: Buffer | undefined } | 'unknown' = 'unknown';
  private journalBytesWritten = 0;
  private onDisk: OnDisk | undefined;
  private writer: JournalWriter | undefined;
  readonly journalLocation: string;

  constructor(
    readonly location: string,
    /** The service address it belongs to (a manifest recording another is unusable). */
    readonly service?: string,
    private readonly options: ManifestStoreOptions = { compactEveryRun: true },
  ) {
    this.journalLocation = journalPathFor(location);
  }

  /** Bytes written to the manifest and its journal (the bench checks the manifest's cost stays linear). */
  get bytesWritten(): number {
    return this.savedBytes + this.journalBytesWritten + (this.writer?.bytesWritten ?? 0);
  }

  private async refuseSymlink(): Promise<void> {
    const info = await lstat(this.location).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      throw new ManifestRefusedError(l10n.t('The sync manifest {0} is a symbolic link; it is never read or written through one. Remove the link (a sync recreates the file).', this.location));
    }
    if (info && !info.isFile()) throw new ManifestRefusedError(l10n.t('The sync manifest {0} is not a regular file. Remove it (a sync recreates the file).', this.location));
  }

  async load(volume: string): Promise<ManifestLoad> {
    await Promise.all([this.refuseSymlink(), refuseJournalNonFile(this.journalLocation)]);
    this.wrote = false;
    this.expected = 'unknown';
    let bytes: Buffer | undefined;
    try {
      bytes = await readBytes(this.location);
    } catch (error) {
      return { state: 'unusable', reason: l10n.t('could not read {0}: {1}', this.location, (error as Error).message) };
    }
    let journalBytes: Buffer | undefined;
    let journal: JournalRead | undefined;
    try {
      journalBytes = await readBytes(this.journalLocation);
    } catch (error) {
      journal = { state: 'unusable', reason: l10n.t('could not read its journal {0}: {1}', this.journalLocation, (error as Error).message) };
    }
    const hit = journal ? undefined : remembered.get(this.location);
    if (hit && hit.volume === volume && hit.service === this.service && sameBytes(hit.manifestBytes, bytes) && sameBytes(hit.journalBytes, journalBytes)) {
      this.onDisk = { ...hit.onDisk };
      this.diskService = hit.manifest.service;
      this.expected = { manifest: bytes, journal: journalBytes };
      return { state: 'ok', manifest: hit.manifest };
    }
    const text = bytes?.toString('utf8');
    const digest = text === undefined ? null : sha256(text);
    journal ??= journalBytes === undefined ? { state: 'none' } : parseJournal(journalBytes.toString('utf8'), { base: digest, volume, service: this.service }, this.journalLocation);
    this.onDisk = {
      digest,
      manifestBytes: bytes?.length ?? 0,
      journal: journal.state === 'ok' ? 'current' : journal.state === 'none' ? 'none' : 'stale',
      journalBytes: journal.state === 'ok' ? journal.bytes : 0,
    };
    this.expected = { manifest: bytes, journal: journalBytes };
    let loaded: ManifestLoad;
    if (text !== undefined) loaded = parseManifest(text, volume, this.service, this.location);
    else if (journal.state === 'ok')
      loaded = { state: 'ok', manifest: emptyManifest(volume, journal.service) }; // a first sync that did not finish
    else return { state: 'missing' };
    if (loaded.state !== 'ok') return loaded;
    if (journal.state === 'unusable') return { state: 'unusable', reason: journal.reason };
    if (journal.state === 'ok') {
      for (const [n, change] of journal.changes.entries()) {
        if (!isApplicable(loaded.manifest, change)) return { state: 'unusable', reason: l10n.t('change {0} of its journal records an upload without an intent', n + 1) };
        applyChange(loaded.manifest, change);
      }
    }
    this.diskService = loaded.manifest.service;
    const manifest = frozen(loaded.manifest, loaded.manifest.service, false);
    remember(this.location, { manifestBytes: bytes, journalBytes, volume, service: this.service, manifest, onDisk: { ...this.onDisk } });
    return { state: 'ok', manifest };
  }

  async save(manifest: Manifest): Promise<void> {
    await mkdir(dirname(this.location), { recursive: true });
    await this.refuseSymlink();
    await this.closeJournal();
    const text = serializeManifest({ ...manifest, service: this.service ?? manifest.service });
    this.savedBytes += Buffer.byteLength(text);
    this.wrote = true;
    this.expected = 'unknown';
    await writeFileAtomic(this.location, text);
    this.diskService = this.service ?? manifest.service;
    // Folded in: the journal goes. Left behind by a crash right here, it no longer matches the manifest's bytes, so it is ignored.
    let journal: OnDisk['journal'] = 'none';
    await unlink(this.journalLocation).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') journal = 'stale';
    });
    if (journal === 'none') this.expected = { manifest: Buffer.from(text), journal: undefined };
    this.onDisk = { digest: sha256(text), manifestBytes: Buffer.byteLength(text), journal, journalBytes: 0 };
  }

  append(manifest: Manifest, changes: ManifestChange[], durable = true): Promise<void> {
    if (!this.onDisk) return this.save(manifest); // never loaded: nothing to bind a journal to
    this.wrote = true;
    return this.journalWriter(manifest).append(changes, durable);
  }

  prepare(manifest: Manifest): Promise<void> {
    if (!this.onDisk) return Promise.resolve(); // never loaded: the first append saves the whole manifest
    this.wrote = true;
    return this.journalWriter(manifest).create();
  }

  private journalWriter(manifest: Manifest): JournalWriter {
    if (!this.writer && this.onDisk) {
      // Created synchronously: the answers of parallel batches must not start two journals.
      const onDisk = this.onDisk;
      const fresh: JournalHeader | undefined =
        onDisk.journal === 'current' ? undefined : { journal: JOURNAL_VERSION, service: this.service ?? manifest.service ?? null, volume: manifest.volume, base: onDisk.digest };
      this.writer = new JournalWriter(this.journalLocation, fresh, () => fsyncFolder(dirname(this.location)), this.options.remember !== false);
      if (fresh) Object.assign(onDisk, { journal: 'current', journalBytes: 0 });
    }
    return this.writer!;
  }

  async finish(manifest: Manifest): Promise<void> {
    const appended = this.writer !== undefined;
    await this.closeJournal();
    const onDisk = this.onDisk;
    if (appended && onDisk && onDisk.journal === 'current') {
      if (this.options.compactEveryRun || onDisk.digest === null || onDisk.journalBytes * 2 > onDisk.manifestBytes) await this.save(manifest);
    }
    if (this.wrote && this.onDisk && this.options.remember !== false) await this.rememberWritten(manifest, this.onDisk);
  }

  /**
   * After a run that wrote: the run's manifest is what the files now hold when they hold
   * exactly the bytes this store read and wrote (read back and compared: another writer,
   * which the lock excludes, would show there), remembered for the next load.
   */
  private async rememberWritten(manifest: Manifest, onDisk: OnDisk): Promise<void> {
    const expected = this.expected;
    if (expected === 'unknown' || onDisk.journal === 'stale') return;
    const [bytes, journalBytes] = await Promise.all([readBytes(this.location), readBytes(this.journalLocation)]).catch(() => [undefined, undefined]);
    if (bytes === undefined || !sameBytes(bytes, expected.manifest) || !sameBytes(journalBytes, expected.journal)) return;
    remember(this.location, { manifestBytes: bytes, journalBytes, volume: manifest.volume, service: this.service, manifest: frozen(manifest, this.diskService, true), onDisk: { ...onDisk } });
  }

  /** Closes the journal as it is, without folding it in (what a run that dies here leaves; tests). */
  close(): Promise<void> {
    return this.closeJournal();
  }

  private async closeJournal(): Promise<void> {
    const writer = this.writer;
    if (!writer) return;
    this.writer = undefined;
    try {
      await writer.close();
    } finally {
      this.journalBytesWritten += writer.bytesWritten;
      if (this.onDisk) this.onDisk.journalBytes += writer.bytesWritten;
      const expected = this.expected;
      if (writer.broken || expected === 'unknown' || this.options.remember === false) this.expected = 'unknown';
      else if (writer.written.length) {
        const appended = Buffer.from(writer.written.join(''));
        this.expected = { manifest: expected.manifest, journal: writer.recreated ? appended : Buffer.concat([expected.journal ?? Buffer.alloc(0), appended]) };
      }
    }
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** One entry per line (readable diffs when committed); derived fields (remote names) left out. */
export function serializeManifest(manifest: Manifest): string {
  const files = Object.entries(manifest.files).map(([rel, e]) => `  ${JSON.stringify(rel)}: ${JSON.stringify({ sha256: e.sha256, size: e.size, mtimeMs: e.mtimeMs, uuid: e.uuid })}`);
  const intents = Object.entries(manifest.intents).map(([rel, i]) => `  ${JSON.stringify(rel)}: ${JSON.stringify({ sha256: i.sha256, size: i.size })}`);
  const pending = manifest.pendingDeletes.map((p) => `  ${JSON.stringify({ uuid: p.uuid, rel: p.rel })}`);
  const block = (lines: string[], open: string, close: string) => (lines.length ? `${open}\n${lines.join(',\n')}\n ${close}` : `${open}${close}`);
  return (
    `{"version": ${MANIFEST_VERSION}, "service": ${JSON.stringify(manifest.service ?? null)}, "volume": ${JSON.stringify(manifest.volume)},\n` +
    ` "files": ${block(files, '{', '}')},\n` +
    ` "intents": ${block(intents, '{', '}')},\n` +
    ` "pendingDeletes": ${block(pending, '[', ']')}\n}\n`
  );
}

/**
 * Reads a manifest. One written by a NEWER version (a downgrade: the user went back to an
 * older extension or ksm) is refused, NewerSyncRecordError: treated like missing, the run
 * would write this version's manifest over it and the newer version's record would be lost.
 */
export function parseManifest(text: string, volume: string, service?: string, location = SYNC_MANIFEST_NAME): ManifestLoad {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { state: 'unusable', reason: l10n.t('not valid JSON ({0})', (error as Error).message) };
  }
  if (isRecord(value) && Number.isInteger(value.version) && (value.version as number) > MANIFEST_VERSION) {
    throw new NewerSyncRecordError(
      l10n.t(
        'The sync manifest {0} was written by a newer version of KSM Assistant (manifest version {1}; this version reads versions 1 to {2}). It is left unchanged: update the extension or ksm, or remove the file to sync this folder from scratch.',
        location,
        String(value.version),
        MANIFEST_VERSION,
      ),
    );
  }
  if (!isRecord(value) || (value.version !== 1 && value.version !== MANIFEST_VERSION) || !isRecord(value.files) || !Array.isArray(value.pendingDeletes)) {
    return { state: 'unusable', reason: l10n.t('not a version {0} sync manifest', MANIFEST_VERSION) };
  }
  if (value.volume !== volume) return { state: 'unusable', reason: l10n.t("it records volume '{0}', not '{1}'", String(value.volume), volume) };
  if (service && typeof value.service === 'string' && value.service !== service) {
    return { state: 'unusable', reason: l10n.t('it records the service {0}, not {1}', String(value.service), service) };
  }
  // The parsed entries are checked and completed in place (copying each was garbage on every re-sync of a large folder).
  const files = Object.setPrototypeOf(value.files, null) as Record<string, ManifestEntry>; // `toString`, `__proto__`… are paths like any other
  for (const rel in files) {
    const entry: unknown = files[rel];
    if (!isEntry(entry)) return { state: 'unusable', reason: l10n.t("the entry for '{0}' is malformed", rel) };
    entry.remoteName = volumeNameFor(rel);
  }
  const pendingDeletes: PendingDelete[] = [];
  for (const pending of value.pendingDeletes) {
    if (!isRecord(pending) || typeof pending.uuid !== 'string' || (pending.rel !== undefined && typeof pending.rel !== 'string')) {
      return { state: 'unusable', reason: l10n.t('a pending deletion is malformed') };
    }
    // Version 1 recorded no path: such an entry is reported, never acted on.
    const rel = typeof pending.rel === 'string' ? pending.rel : undefined;
    pendingDeletes.push({ uuid: pending.uuid, rel, remoteName: rel ? volumeNameFor(rel) : typeof pending.remoteName === 'string' ? pending.remoteName : '' });
  }
  const intents = Object.create(null) as Record<string, UploadIntent>;
  if (isRecord(value.intents)) {
    for (const [rel, intent] of Object.entries(value.intents)) {
      if (!isRecord(intent) || !isSha(intent.sha256) || !Number.isFinite(intent.size)) return { state: 'unusable', reason: l10n.t("the intent for '{0}' is malformed", rel) };
      intents[rel] = { sha256: intent.sha256 as string, size: intent.size as number };
    }
  }
  return { state: 'ok', manifest: { version: MANIFEST_VERSION, service: typeof value.service === 'string' ? value.service : undefined, volume, files, pendingDeletes, intents } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSha(value: unknown): boolean {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

function isEntry(value: unknown): value is ManifestEntry {
  return isRecord(value) && isSha(value.sha256) && Number.isFinite(value.size) && Number.isFinite(value.mtimeMs) && typeof value.uuid === 'string';
}
