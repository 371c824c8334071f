// How an upload reaches its files on disk (issue 21: many small files). A promise
// `open`/`stat`/`read`/`close` per file costs a thread-pool round trip each, several times
// the syscalls themselves, and left the single-threaded service idle between our requests.
// So small files are read whole, synchronously, in slices with the event loop free between
// slices (as the folder scan does), and a batch's body is ready before its request starts;
// large files are opened as handles and streamed through the encoder's buffer ring.
import * as l10n from '@vscode/l10n';
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** Files up to this size are read whole before their request starts; larger ones stream. */
export const SMALL_FILE_BYTES = 256 * 1024;
/** Bytes (or files) read synchronously before the event loop gets a turn. */
const READ_SLICE_BYTES = 1024 * 1024;
const READ_SLICE_FILES = 64;
const STAT_SLICE = 256;

export type OpenedFile = { content: Uint8Array; size: number } | { handle: FileHandle; size: number } | { error: unknown };

/**
 * The stats of many paths (an error per path that cannot be stat'ed), synchronously in
 * slices of STAT_SLICE with the event loop free between slices.
 */
export async function statAll(paths: string[]): Promise<Array<{ info: Stats } | { error: unknown }>> {
  const out: Array<{ info: Stats } | { error: unknown }> = [];
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % STAT_SLICE === 0) await yieldToLoop();
    try {
      out.push({ info: statSync(paths[i]) });
    } catch (error) {
      out.push({ error });
    }
  }
  return out;
}

/**
 * Opens a batch's files, each on its own: one that vanished, became a folder or cannot be
 * read gets its error and the others go on. A file of at most SMALL_FILE_BYTES (as it is
 * now, not as it was planned) comes back read whole, its size what was read; a larger one
 * as an open handle and the size it has now (the caller closes it).
 */
export async function openBatchFiles(paths: string[], identities: ReadonlyArray<FileIdentity | undefined> = []): Promise<OpenedFile[]> {
  const out = new Array<OpenedFile>(paths.length);
  const large: Array<Promise<void>> = [];
  let sliceBytes = 0;
  let sliceFiles = 0;
  for (let i = 0; i < paths.length; i++) {
    if (sliceBytes >= READ_SLICE_BYTES || sliceFiles >= READ_SLICE_FILES) {
      await yieldToLoop();
      sliceBytes = sliceFiles = 0;
    }
    const got = readSmall(paths[i], identities[i]);
    sliceFiles++;
    if (got === LARGE) {
      large.push(openLarge(paths[i], identities[i]).then((opened) => void (out[i] = opened)));
      continue;
    }
    out[i] = got;
    if ('content' in got) sliceBytes += got.size;
  }
  await Promise.all(large);
  return out;
}

const LARGE = Symbol('large');
/** O_NONBLOCK: a path swapped for a FIFO since it was listed must not block the event loop in open(2). */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** A file's device and inode (UploadSource.identity). */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** Why the open file is not the regular file expected, or undefined. */
function notExpected(info: Stats, expected: FileIdentity | undefined): Error | undefined {
  if (!info.isFile()) return notAFile(info);
  if (expected && (info.dev !== expected.dev || info.ino !== expected.ino)) return new Error(l10n.t('it was replaced by another file since it was checked'));
  return undefined;
}

/** Reads a regular file of at most SMALL_FILE_BYTES whole; LARGE for a larger one. */
function readSmall(path: string, expected?: FileIdentity): OpenedFile | typeof LARGE {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    return { error };
  }
  try {
    const info = fstatSync(fd);
    const wrong = notExpected(info, expected);
    if (wrong) return { error: wrong };
    if (info.size > SMALL_FILE_BYTES) return LARGE;
    const content = Buffer.allocUnsafe(info.size);
    let read = 0;
    while (read < content.length) {
      const n = readSync(fd, content, read, content.length - read, read);
      if (n === 0) break; // shorter than a moment ago: what is there now is what goes
      read += n;
    }
    return { content: read === content.length ? content : content.subarray(0, read), size: read };
  } catch (error) {
    return { error };
  } finally {
    closeSync(fd);
  }
}

function notAFile(info: Stats): Error {
  return info.isDirectory() ? Object.assign(new Error(l10n.t('a folder')), { code: 'EISDIR' }) : new Error(l10n.t('not a regular file'));
}

async function openLarge(path: string, expected?: FileIdentity): Promise<OpenedFile> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, READ_FLAGS);
    const info = await handle.stat();
    const wrong = notExpected(info, expected);
    if (wrong) throw wrong;
    return { handle, size: info.size };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    return { error };
  }
}
