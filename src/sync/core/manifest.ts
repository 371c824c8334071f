// What the last sync stored, per pairing: relative path → content hash, size, mtime and the
// remote copy (uuid, name). The service keeps no hash and has no atomic replace, so this
// file is the only memory of "what is already there". It is written atomically
// (write-file-atomic: temp file + rename), so a crash leaves the old or the new version,
// never half of one. No `vscode` import.
import { readFile } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

export const MANIFEST_VERSION = 1;

export interface ManifestEntry {
  sha256: string;
  size: number;
  /** Local mtime when hashed: with `size`, lets an unchanged file skip hashing. */
  mtimeMs: number;
  uuid: string;
  remoteName: string;
}

/** A remote copy that must go once its replacement is stored (replace = upload, then delete). */
export interface PendingDelete {
  uuid: string;
  remoteName: string;
}

export interface Manifest {
  version: typeof MANIFEST_VERSION;
  volume: string;
  files: Record<string, ManifestEntry>;
  pendingDeletes: PendingDelete[];
}

export type ManifestLoad =
  | { state: 'ok'; manifest: Manifest }
  | { state: 'missing' }
  /** Unreadable, not JSON, wrong shape or another volume's: treated like missing (full compare), never as "everything was deleted". */
  | { state: 'unusable'; reason: string };

export interface ManifestStore {
  /** Where it lives, for messages. */
  readonly location: string;
  load(volume: string): Promise<ManifestLoad>;
  save(manifest: Manifest): Promise<void>;
}

export function emptyManifest(volume: string): Manifest {
  return { version: MANIFEST_VERSION, volume, files: {}, pendingDeletes: [] };
}

export class FileManifestStore implements ManifestStore {
  constructor(readonly location: string) {}

  async load(volume: string): Promise<ManifestLoad> {
    let text: string;
    try {
      text = await readFile(this.location, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
      return { state: 'unusable', reason: `could not read ${this.location}: ${(error as Error).message}` };
    }
    return parseManifest(text, volume);
  }

  async save(manifest: Manifest): Promise<void> {
    await mkdir(dirname(this.location), { recursive: true });
    // Loaded on the first write, not at activation (it installs exit handlers when loaded).
    const { default: writeFileAtomic } = await import('write-file-atomic');
    await writeFileAtomic(this.location, JSON.stringify(manifest, null, 1) + '\n', { encoding: 'utf8' });
  }
}

export function parseManifest(text: string, volume: string): ManifestLoad {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { state: 'unusable', reason: `not valid JSON (${(error as Error).message})` };
  }
  if (!isRecord(value) || value.version !== MANIFEST_VERSION || !isRecord(value.files) || !Array.isArray(value.pendingDeletes)) {
    return { state: 'unusable', reason: `not a version ${MANIFEST_VERSION} sync manifest` };
  }
  if (value.volume !== volume) return { state: 'unusable', reason: `it records volume '${String(value.volume)}', not '${volume}'` };
  const files: Record<string, ManifestEntry> = {};
  for (const [rel, entry] of Object.entries(value.files)) {
    if (!isEntry(entry)) return { state: 'unusable', reason: `the entry for '${rel}' is malformed` };
    files[rel] = { sha256: entry.sha256, size: entry.size, mtimeMs: entry.mtimeMs, uuid: entry.uuid, remoteName: entry.remoteName };
  }
  const pendingDeletes: PendingDelete[] = [];
  for (const pending of value.pendingDeletes) {
    if (!isRecord(pending) || typeof pending.uuid !== 'string' || typeof pending.remoteName !== 'string') {
      return { state: 'unusable', reason: 'a pending deletion is malformed' };
    }
    pendingDeletes.push({ uuid: pending.uuid, remoteName: pending.remoteName });
  }
  return { state: 'ok', manifest: { version: MANIFEST_VERSION, volume, files, pendingDeletes } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEntry(value: unknown): value is ManifestEntry {
  return (
    isRecord(value) &&
    typeof value.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(value.sha256) &&
    Number.isFinite(value.size) &&
    Number.isFinite(value.mtimeMs) &&
    typeof value.uuid === 'string' &&
    typeof value.remoteName === 'string'
  );
}
