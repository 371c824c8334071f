// What this workspace uploaded, by content (issue 26, rough edge 10): the SHA-256 and size of
// each file the extension uploaded, by the id the service gave it. A re-upload of a file whose
// name clashes with one of those, byte for byte the same, is skipped as "already there,
// identical" instead of asking Skip / Keep Both / Replace. Kept in workspaceState, which
// another version of the extension may have written: read back checked, never trusted.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { FileInfo } from '../../api/types';
import { storedList } from '../../common/core/storedState';

/** How many uploaded files are remembered (newest kept): a few hundred kilobytes at most. */
export const UPLOADED_CONTENTS_KEPT = 2000;

export interface UploadedContent {
  uuid: string;
  volume: string;
  sha256: string;
  size: number;
}

export class UploadedContents {
  /** Each known entry as stored (a later version's extra fields kept through a save). */
  private readonly byUuid = new Map<string, UploadedContent>();
  /** Entries this version does not read (a later version's): saved unchanged, before the others. Undefined: the stored value is not a list, and is never written over. */
  private readonly unknown: unknown[] | undefined;

  /**
   * `stored`: what workspaceState held, read as storedState.ts says: the entries this version
   * reads are used, the others written back unchanged by `persist`; a value that is not a list
   * is not used and never written over (what is uploaded meanwhile is known for this session).
   */
  constructor(
    stored: unknown,
    private readonly persist: (entries: unknown[]) => void = () => undefined,
  ) {
    const list = storedList(stored, isEntry);
    this.unknown = list?.unknown;
    for (const entry of list?.known.slice(-UPLOADED_CONTENTS_KEPT) ?? []) this.byUuid.set(entry.uuid, entry);
  }

  remember(entries: readonly UploadedContent[]): void {
    if (entries.length === 0) return;
    for (const entry of entries) {
      this.byUuid.delete(entry.uuid);
      this.byUuid.set(entry.uuid, entry);
    }
    while (this.byUuid.size > UPLOADED_CONTENTS_KEPT) this.byUuid.delete(this.byUuid.keys().next().value!);
    if (this.unknown) this.persist([...this.unknown, ...this.byUuid.values()]);
  }

  /** Whether any file of `volume` this workspace uploaded is among `clash` (so hashing the local file can tell). */
  knowsAny(volume: string, clash: readonly FileInfo[]): boolean {
    return clash.some((file) => this.byUuid.get(file.uuid)?.volume === volume);
  }

  /** The copy in `clash` this workspace uploaded with exactly this content (same hash; listed at the size it was uploaded with), if any. */
  identical(volume: string, clash: readonly FileInfo[], sha256: string): FileInfo | undefined {
    return clash.find((file) => {
      const known = this.byUuid.get(file.uuid);
      return known?.volume === volume && known.sha256 === sha256 && known.size === file.filesize;
    });
  }
}

/** SHA-256 of a file's bytes, read as a stream (hex). */
export function sha256OfFile(path: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    const stream = createReadStream(path, { signal });
    stream.on('data', (chunk) => hash.update(chunk));
    stream.on('error', reject);
    stream.on('end', () => resolve(hash.digest('hex')));
  });
}

function isEntry(value: unknown): value is UploadedContent {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry.uuid === 'string' &&
    entry.uuid.length > 0 &&
    entry.uuid.length <= 200 &&
    typeof entry.volume === 'string' &&
    entry.volume.length <= 200 &&
    typeof entry.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(entry.sha256) &&
    typeof entry.size === 'number' &&
    Number.isSafeInteger(entry.size) &&
    entry.size >= 0
  );
}
