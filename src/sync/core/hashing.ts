// Content hashes for the plan: sha256 streamed from disk (never a whole-file buffer), and
// skipped when size and mtime equal what the manifest recorded at the last hash (the
// cheap check `aws s3 sync` relies on; here it only saves work, the decision is by hash).
import * as l10n from '@vscode/l10n';
import { createHash, hash as oneShotHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { ManifestEntry } from './manifest';

/** Below this, one readFile beats a stream (measured: the stream's set-up dominated 5,000 files of 1–4 KB). */
const SMALL_FILE = 256 * 1024;

/**
 * The sha256 of the file at `path`: of the file the scan found (`expected`, device and inode)
 * or of nothing. Opened non-blocking and checked before it is read, so a path replaced since
 * the scan (by a FIFO, which made the plan wait forever; by a link to `/dev/zero` or to a
 * secret) is refused with `FileReplacedError`, never read through.
 */
export async function sha256OfFile(path: string, signal?: AbortSignal, size?: number, expected?: { dev: number; ino: number }): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const info = await handle.stat();
    if (!info.isFile() || (expected && (info.dev !== expected.dev || info.ino !== expected.ino))) throw new FileReplacedError(path);
    if (size !== undefined && size <= SMALL_FILE) {
      signal?.throwIfAborted();
      return oneShotHash('sha256', await handle.readFile(), 'hex');
    }
    const hash = createHash('sha256');
    await pipeline(handle.createReadStream({ highWaterMark: 256 * 1024, autoClose: false }), hash, { signal });
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

/** The path no longer leads to the regular file the scan found. */
export class FileReplacedError extends Error {
  constructor(readonly path: string) {
    super(l10n.t('it was replaced by another file since it was checked'));
    this.name = 'FileReplacedError';
  }
}

/**
 * Why a file the scan found could not be hashed (replaced, removed or unreadable since), as a
 * skip reason; undefined for a cancel, which ends the plan as before.
 */
export function hashFailureReason(error: unknown, signal?: AbortSignal): string | undefined {
  if (signal?.aborted || (error as Error | undefined)?.name === 'AbortError') return undefined;
  if (error instanceof FileReplacedError) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return l10n.t('cannot be read ({0})', typeof code === 'string' ? code : String((error as Error | undefined)?.message ?? error));
}

export interface HashStats {
  hashed: number;
  hashedBytes: number;
  skipped: number;
}

/** The manifest's sha256 when size and mtime are unchanged (counted as skipped), else undefined. */
export function knownHash(file: { size: number; mtimeMs: number }, known: ManifestEntry | undefined, stats: HashStats): string | undefined {
  if (!known || known.size !== file.size || known.mtimeMs !== file.mtimeMs) return undefined;
  stats.skipped++;
  return known.sha256;
}

/** The hash the scan's readable-files sniff worked out (the file was read whole): no promise, no second read. */
export function scannedHash(file: { size: number; sha256?: string }, stats: HashStats): string | undefined {
  if (!file.sha256) return undefined;
  stats.hashed++;
  stats.hashedBytes += file.size;
  return file.sha256;
}

/** The file's sha256, reusing the manifest's when size and mtime are unchanged. */
export async function contentHash(
  file: { path: string; size: number; mtimeMs: number; sha256?: string; identity?: { dev: number; ino: number } },
  known: ManifestEntry | undefined,
  stats: HashStats,
  signal?: AbortSignal,
): Promise<string> {
  const reused = knownHash(file, known, stats);
  if (reused !== undefined) return reused;
  stats.hashed++;
  stats.hashedBytes += file.size;
  if (file.sha256) return file.sha256; // read whole by the scan's readable-files sniff
  return sha256OfFile(file.path, signal, file.size, file.identity);
}
