// What the last sync stored, per pairing: relative path → content hash, size, mtime and the
// uuid of the copy this folder uploaded, plus the intents of the run in progress (what it is
// about to send, recorded before sending) and older copies still to delete. It is a HINT,
// never the truth: every claim is checked against the volume's listing before it may cause
// anything (src/sync/core/plan.ts, docs/sync.md "What the manifest may cause"). It records
// the service and volume it belongs to; another's is unusable. It is never read or written
// through a symlink, and it is written by the project's one atomic-write routine (temp
// file, fsync, rename, folder fsync). No `vscode` import.
import * as l10n from '@vscode/l10n';
import { lstat, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigurationError } from '../../api/errors';
import { writeFileAtomic } from '../../common/core/atomicWrite';
import { volumeNameFor } from '../../common/core/folderExpansion';

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
  load(volume: string): Promise<ManifestLoad>;
  save(manifest: Manifest): Promise<void>;
}

export function emptyManifest(volume: string, service?: string): Manifest {
  return { version: MANIFEST_VERSION, service, volume, files: {}, pendingDeletes: [], intents: {} };
}

/** Thrown when the manifest path is a symlink: it is neither read nor written. */
export class ManifestRefusedError extends ConfigurationError {}

export class FileManifestStore implements ManifestStore {
  /** Bytes written by save() (the bench checks the manifest's cost stays linear). */
  bytesWritten = 0;

  constructor(
    readonly location: string,
    private readonly service?: string,
  ) {}

  private async refuseSymlink(): Promise<void> {
    const info = await lstat(this.location).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      throw new ManifestRefusedError(l10n.t('The sync manifest {0} is a symbolic link; it is never read or written through one. Remove the link (a sync recreates the file).', this.location));
    }
    if (info && !info.isFile()) throw new ManifestRefusedError(l10n.t('The sync manifest {0} is not a regular file. Remove it (a sync recreates the file).', this.location));
  }

  async load(volume: string): Promise<ManifestLoad> {
    await this.refuseSymlink();
    let text: string;
    try {
      text = await readFile(this.location, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
      return { state: 'unusable', reason: l10n.t('could not read {0}: {1}', this.location, (error as Error).message) };
    }
    return parseManifest(text, volume, this.service);
  }

  async save(manifest: Manifest): Promise<void> {
    await mkdir(dirname(this.location), { recursive: true });
    await this.refuseSymlink();
    const text = serializeManifest({ ...manifest, service: this.service ?? manifest.service });
    this.bytesWritten += Buffer.byteLength(text);
    await writeFileAtomic(this.location, text);
  }
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

export function parseManifest(text: string, volume: string, service?: string): ManifestLoad {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { state: 'unusable', reason: l10n.t('not valid JSON ({0})', (error as Error).message) };
  }
  if (!isRecord(value) || (value.version !== 1 && value.version !== MANIFEST_VERSION) || !isRecord(value.files) || !Array.isArray(value.pendingDeletes)) {
    return { state: 'unusable', reason: l10n.t('not a version {0} sync manifest', MANIFEST_VERSION) };
  }
  if (value.volume !== volume) return { state: 'unusable', reason: l10n.t("it records volume '{0}', not '{1}'", String(value.volume), volume) };
  if (service && typeof value.service === 'string' && value.service !== service) {
    return { state: 'unusable', reason: l10n.t('it records the service {0}, not {1}', String(value.service), service) };
  }
  const files: Record<string, ManifestEntry> = {};
  for (const [rel, entry] of Object.entries(value.files)) {
    if (!isEntry(entry)) return { state: 'unusable', reason: l10n.t("the entry for '{0}' is malformed", rel) };
    files[rel] = { sha256: entry.sha256, size: entry.size, mtimeMs: entry.mtimeMs, uuid: entry.uuid, remoteName: volumeNameFor(rel) };
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
  const intents: Record<string, UploadIntent> = {};
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
