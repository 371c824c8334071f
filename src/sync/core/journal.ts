// The manifest's journal (`<manifest>.journal`, beside it wherever it lives): what a run
// changes is APPENDED here as one JSON line per change (an intent before sending, a
// recorded upload, an older copy to delete, a confirmed deletion) with an fsync per append,
// instead of rewriting the whole manifest each time. It is folded back into the manifest
// ("compacted": one atomic write of the manifest, then the journal removed) at the end of a
// run, by the CLI always and by the editor once the journal has grown to half the
// manifest's size; and it is replayed whenever the manifest is read, so a crash between
// sending and recording is recognised from the intents exactly as before.
//
// It is bound to the manifest it extends: its first line records the service, the volume
// and the sha256 of the manifest's bytes (null when there was none). A journal whose
// binding no longer matches (the manifest was compacted, replaced or removed since) is
// stale and ignored; one naming another service or volume makes the manifest unusable
// (nothing deleted, same-name files need a choice), like a manifest of another volume.
// A torn last line (a crash mid-append) is dropped; any other malformed line makes it
// unusable. What it records is a HINT like the manifest itself: the plan checks every claim
// against the listing (src/sync/core/plan.ts). Never read or written through a symlink.
// No `vscode` import.
import * as l10n from '@vscode/l10n';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigurationError } from '../../api/errors';
import { volumeNameFor } from '../../common/core/folderExpansion';
import type { Manifest } from './manifest';

export const JOURNAL_VERSION = 1;

/** One change of a run, applied to the manifest in memory and appended to the journal: one definition for both. */
export type ManifestChange =
  /** About to send `rel` (durable before the request). */
  | { kind: 'intent'; rel: string; sha256: string; size: number }
  /** Not sent after all (failed, cancelled before sending). */
  | { kind: 'notSent'; rel: string }
  /** The service stored `rel` as `uuid`; without a hash and size, those of its intent (which must be there). */
  | { kind: 'recorded'; rel: string; sha256?: string; size?: number; mtimeMs: number; uuid: string }
  /** `uuid`, an older copy of `rel`, is to be deleted. */
  | { kind: 'pendingDelete'; rel: string; uuid: string }
  /** These were deleted (or already gone): no longer pending, and no longer recorded for their path. */
  | { kind: 'deleted'; items: Array<{ uuid: string; rel?: string }> };

export function journalPathFor(manifestPath: string): string {
  return `${manifestPath}.journal`;
}

/** Applies one change to a manifest in place (the apply step and the journal's replay both use this). */
export function applyChange(manifest: Manifest, change: ManifestChange): void {
  if (!isApplicable(manifest, change)) throw new Error(l10n.t("no intent for '{0}' to take the hash from", change.kind === 'recorded' ? change.rel : ''));
  switch (change.kind) {
    case 'intent':
      manifest.intents[change.rel] = { sha256: change.sha256, size: change.size };
      return;
    case 'notSent':
      delete manifest.intents[change.rel];
      return;
    case 'recorded': {
      const intent = manifest.intents[change.rel];
      const sha256 = change.sha256 ?? intent.sha256;
      const size = change.size ?? intent.size;
      manifest.files[change.rel] = { sha256, size, mtimeMs: change.mtimeMs, uuid: change.uuid, remoteName: volumeNameFor(change.rel) };
      delete manifest.intents[change.rel];
      return;
    }
    case 'pendingDelete':
      if (!manifest.pendingDeletes.some((p) => p.uuid === change.uuid)) manifest.pendingDeletes.push({ uuid: change.uuid, remoteName: volumeNameFor(change.rel), rel: change.rel });
      return;
    case 'deleted': {
      const gone = new Set(change.items.map((i) => i.uuid));
      manifest.pendingDeletes = manifest.pendingDeletes.filter((p) => !gone.has(p.uuid));
      for (const item of change.items) if (item.rel !== undefined && manifest.files[item.rel]?.uuid === item.uuid) delete manifest.files[item.rel];
      return;
    }
  }
}

/** False for a recorded upload that names no hash while its path has no intent (a journal line out of place). */
export function isApplicable(manifest: Manifest, change: ManifestChange): boolean {
  return change.kind !== 'recorded' || (change.sha256 !== undefined && change.size !== undefined) || manifest.intents[change.rel] !== undefined;
}

/** One line, short keys (the journal of a first sync is about as large as the manifest it ends in). */
export function encodeChange(change: ManifestChange): string {
  switch (change.kind) {
    case 'intent':
      return JSON.stringify({ i: change.rel, h: change.sha256, s: change.size });
    case 'notSent':
      return JSON.stringify({ n: change.rel });
    case 'recorded':
      return JSON.stringify(
        change.sha256 === undefined ? { f: change.rel, m: change.mtimeMs, u: change.uuid } : { f: change.rel, h: change.sha256, s: change.size, m: change.mtimeMs, u: change.uuid },
      );
    case 'pendingDelete':
      return JSON.stringify({ p: change.uuid, r: change.rel });
    case 'deleted':
      return JSON.stringify({ d: change.items.map((i) => (i.rel === undefined ? [i.uuid] : [i.uuid, i.rel])) });
  }
}

/** The change a line holds, or undefined when it is not one. */
export function decodeChange(line: string): ManifestChange | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(v)) return undefined;
  if (isRel(v.i) && isSha(v.h) && isSize(v.s)) return { kind: 'intent', rel: v.i, sha256: v.h, size: v.s };
  if (isRel(v.n)) return { kind: 'notSent', rel: v.n };
  if (isRel(v.f) && typeof v.m === 'number' && Number.isFinite(v.m) && isUuid(v.u)) {
    if (isSha(v.h) && isSize(v.s)) return { kind: 'recorded', rel: v.f, sha256: v.h, size: v.s, mtimeMs: v.m, uuid: v.u };
    if (v.h === undefined && v.s === undefined) return { kind: 'recorded', rel: v.f, mtimeMs: v.m, uuid: v.u };
    return undefined;
  }
  if (isUuid(v.p) && isRel(v.r)) return { kind: 'pendingDelete', uuid: v.p, rel: v.r };
  if (Array.isArray(v.d)) {
    const items: Array<{ uuid: string; rel?: string }> = [];
    for (const item of v.d as unknown[]) {
      if (!Array.isArray(item) || !isUuid(item[0]) || (item.length > 1 && !isRel(item[1])) || item.length > 2) return undefined;
      items.push(item.length > 1 ? { uuid: item[0], rel: item[1] as string } : { uuid: item[0] });
    }
    return { kind: 'deleted', items };
  }
  return undefined;
}

export interface JournalHeader {
  journal: typeof JOURNAL_VERSION;
  service: string | null;
  volume: string;
  /** sha256 of the manifest's bytes this journal extends; null: there was no manifest. */
  base: string | null;
}

export type JournalRead =
  | { state: 'none' }
  /** Written against another state of the manifest (already folded in, or the manifest was replaced): ignored. */
  | { state: 'stale' }
  | { state: 'ok'; changes: ManifestChange[]; service?: string; bytes: number }
  | { state: 'unusable'; reason: string };

/** Thrown when the journal is a symlink or not a regular file: neither read nor written. */
export class JournalRefusedError extends ConfigurationError {}

/**
 * Thrown when a newer version wrote a sync record (the manifest or its journal): it is left as
 * it is, never replaced. One class for both, so a caller that must let it through (an earlier
 * record is never adopted over it) tests one thing.
 */
export class NewerSyncRecordError extends ConfigurationError {}

/** Reads and checks a journal against the manifest it should extend (`base`: the sha256 of its bytes, null when missing). */
export async function readJournal(path: string, expect: { base: string | null; volume: string; service?: string }): Promise<JournalRead> {
  await refuseJournalNonFile(path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'none' };
    return { state: 'unusable', reason: l10n.t('could not read its journal {0}: {1}', path, (error as Error).message) };
  }
  return parseJournal(text, expect, path);
}

/** A journal a NEWER version started is refused (NewerSyncRecordError), never treated as stale and replaced. */
export function parseJournal(text: string, expect: { base: string | null; volume: string; service?: string }, location = 'journal'): JournalRead {
  const bytes = Buffer.byteLength(text);
  // A crash mid-append leaves a last line without its newline (or a tail of zero bytes): that change never counted.
  const end = text.lastIndexOf('\n');
  const lines = (end < 0 ? '' : text.slice(0, end)).split('\n');
  if (lines.length === 0 || lines[0] === '') return { state: 'stale' }; // not even a complete header: nothing was appended
  let header: unknown;
  try {
    header = JSON.parse(lines[0]);
  } catch {
    return { state: 'unusable', reason: l10n.t('its journal does not start with a journal header') };
  }
  if (isRecord(header) && Number.isInteger(header.journal) && (header.journal as number) > JOURNAL_VERSION) {
    throw new NewerSyncRecordError(
      l10n.t(
        'The sync journal {0} was written by a newer version of KSM Assistant (journal version {1}; this version reads version {2}). It and its manifest are left unchanged: update the extension or ksm, or remove both files to sync this folder from scratch.',
        location,
        String(header.journal),
        JOURNAL_VERSION,
      ),
    );
  }
  if (!isRecord(header) || header.journal !== JOURNAL_VERSION || typeof header.volume !== 'string' || (header.base !== null && !isSha(header.base))) {
    return { state: 'unusable', reason: l10n.t('its journal does not start with a journal header') };
  }
  if (header.volume !== expect.volume) return { state: 'unusable', reason: l10n.t("its journal records volume '{0}', not '{1}'", String(header.volume), expect.volume) };
  if (expect.service && typeof header.service === 'string' && header.service !== expect.service) {
    return { state: 'unusable', reason: l10n.t('its journal records the service {0}, not {1}', String(header.service), String(expect.service)) };
  }
  if (header.base !== expect.base) return { state: 'stale' };
  const changes: ManifestChange[] = [];
  for (let n = 1; n < lines.length; n++) {
    const change = decodeChange(lines[n]);
    if (!change) return { state: 'unusable', reason: l10n.t('line {0} of its journal is malformed', n + 1) };
    changes.push(change);
  }
  return { state: 'ok', changes, service: typeof header.service === 'string' ? header.service : undefined, bytes };
}

/** Throws when the journal is a symbolic link or not a regular file (it is then neither read nor written). */
export async function refuseJournalNonFile(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (info?.isSymbolicLink())
    throw new JournalRefusedError(l10n.t('The sync journal {0} is a symbolic link; it is never read or written through one. Remove the link (a sync recreates the file).', path));
  if (info && !info.isFile()) throw new JournalRefusedError(l10n.t('The sync journal {0} is not a regular file. Remove it (a sync recreates the file).', path));
}

/**
 * Appends to one journal. Appends never overlap: the ones asked for while a write is in
 * progress go out together in the next write (one write and one fdatasync for a burst of
 * answers). Opened without following a symlink (O_NOFOLLOW where the platform has it, and
 * an lstat before).
 */
export class JournalWriter {
  private handle: FileHandle | undefined;
  private pending: string[] = [];
  /** Whether a pending change must reach the disk (fdatasync) before its append resolves. */
  private pendingDurable = false;
  /** Lines written since the last fdatasync. */
  private unsynced = false;
  private tail: Promise<void> = Promise.resolve();
  private failed: unknown;
  /** Bytes appended (the bench counts them with the manifest's). */
  bytesWritten = 0;
  /** The text appended, in order (header included when it started the journal): what the file now holds after the bytes it had. */
  readonly written: string[] = [];

  /**
   * @param fresh when set, the journal is (re)created with this header (truncating a stale
   * one); otherwise the existing, current journal is appended to.
   */
  constructor(
    readonly path: string,
    private readonly fresh: JournalHeader | undefined,
    private readonly onCreated: () => Promise<void>,
    /** Keep `written` (a store that remembers its runs compares it with the file); otherwise nothing is held. */
    private readonly keepWritten = true,
  ) {}

  /**
   * Resolves once these changes (and every earlier one) are written; with `durable` (the
   * default) also fdatasync'ed. Answers the next run can rebuild from the intents and the
   * listing (a copy recorded, a file not sent) need not wait for the disk: an fdatasync per
   * burst of answers was the largest item of a first sync's CPU after the scan.
   */
  append(changes: ManifestChange[], durable = true): Promise<void> {
    for (const change of changes) this.pending.push(encodeChange(change));
    this.pendingDurable ||= durable;
    const step = this.tail.then(() => this.writePending());
    this.tail = step.catch(() => undefined);
    return step;
  }

  /**
   * Creates a fresh journal now (its header written and fsync'ed, its folder entry too),
   * before any change: a first sync does this while it reads the folder, so its first
   * intents wait for one fdatasync instead of the file's creation. Appends queue behind it;
   * nothing happens for a journal that is appended to or already open.
   */
  create(): Promise<void> {
    if (!this.fresh) return Promise.resolve();
    const step = this.tail.then(() => (this.handle ? undefined : this.writePending(true)));
    this.tail = step.catch(() => undefined);
    return step;
  }

  /** True when it (re)created the journal, so the file holds only what it wrote. */
  get recreated(): boolean {
    return this.fresh !== undefined;
  }

  /** True after a failed write: what the file holds is not known. */
  get broken(): boolean {
    return this.failed !== undefined;
  }

  async close(): Promise<void> {
    await this.tail;
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }

  private async writePending(create = false): Promise<void> {
    // After a failed write (disk full…) nothing more is appended: a line after a partial one would read as a corrupt journal.
    if (this.failed) throw this.failed;
    try {
      await this.writeLines(create);
    } catch (error) {
      this.failed = error;
      throw error;
    }
  }

  private async writeLines(create = false): Promise<void> {
    const durable = this.pendingDurable;
    this.pendingDurable = false;
    if (this.pending.length === 0 && !create) {
      if (durable && this.unsynced && this.handle) {
        await this.handle.datasync(); // an empty durable append: what was written lightly reaches the disk
        this.unsynced = false;
      }
      return;
    }
    const lines = this.pending;
    this.pending = [];
    let text = lines.length ? lines.join('\n') + '\n' : '';
    if (!this.handle) {
      await mkdir(dirname(this.path), { recursive: true });
      await refuseJournalNonFile(this.path);
      const nofollow = constants.O_NOFOLLOW ?? 0;
      try {
        if (this.fresh) {
          this.handle = await open(this.path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND | nofollow, 0o600);
          text = JSON.stringify(this.fresh) + '\n' + text;
        } else {
          this.handle = await open(this.path, constants.O_WRONLY | constants.O_APPEND | nofollow);
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new JournalRefusedError(l10n.t('The sync journal {0} is a symbolic link; it is never written through one.', this.path));
        throw error;
      }
      if (!(await this.handle.stat()).isFile()) {
        await this.handle.close();
        this.handle = undefined;
        throw new JournalRefusedError(l10n.t('The sync journal {0} is not a regular file.', this.path));
      }
      if (this.fresh) {
        await this.handle.appendFile(text);
        if (this.keepWritten) this.written.push(text);
        // The file's bytes and its folder entry made durable together (one after the other was one more wait before the first request).
        await Promise.all([this.handle.sync(), this.onCreated()]);
        this.bytesWritten += Buffer.byteLength(text);
        return;
      }
    }
    await this.handle.appendFile(text);
    if (this.keepWritten) this.written.push(text);
    if (durable) await this.handle.datasync();
    this.unsynced = !durable;
    this.bytesWritten += Buffer.byteLength(text);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSha(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

function isRel(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isUuid(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
