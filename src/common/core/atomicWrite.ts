// Crash-safe writes (conversation files, the sync manifest): a reload after a crash or a power cut sees the
// old file or the new one, never a torn or empty one. write-file-atomic does the well-known
// part (temp file beside the target, fsync, rename, the temp file removed when anything
// fails or the process exits, concurrent writes to one path queued); it does not fsync the
// folder, so the rename itself could be lost on power failure and the old file come back.
// That one step is added here. The folder must exist: a write never recreates a folder
// that was deleted meanwhile (the store creates its folders when it saves).
// write-file-atomic writes where a symbolic link at the path leads (it resolves the path
// first): a link at the path is refused here instead, so no write lands outside the folder.
import * as l10n from '@vscode/l10n';
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const dir = dirname(path);
  const existing = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing?.isSymbolicLink()) throw new Error(l10n.t('{0} is a symbolic link; it is never written through one. Remove the link.', path));
  // Loaded on the first write, not at activation (it installs exit handlers when loaded).
  const { default: writeFileAtomicLibrary } = await import('write-file-atomic');
  await writeFileAtomicLibrary(path, data, { encoding: 'utf8', fsync: true });
  await fsyncFolder(dir);
}

/**
 * Makes the rename durable. Best effort: Windows cannot open a folder for fsync (EISDIR,
 * EPERM) and needs none (NTFS journals the rename), and a failure here cannot undo a write
 * that already happened.
 */
export async function fsyncFolder(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // See above: the file is written either way.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** A symbolic link (or a folder, a FIFO, a device) where a file of ours should be: never read through. */
export class NotARegularFileError extends Error {
  constructor(
    readonly path: string,
    readonly link: boolean,
  ) {
    super(link ? `${path} is a symbolic link; it is never read through one` : `${path} is not a regular file`);
  }
}

/** O_NOFOLLOW where the platform has it (not Windows: the lstat before stands alone there); O_NONBLOCK so a FIFO cannot hang open(2). */
const NO_FOLLOW_READ = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * The read that matches writeFileAtomic's refusal: a file of ours (a conversation, the
 * index) is read only when the path itself is a regular file. A symbolic link planted at
 * the path is not followed (lstat, then O_NOFOLLOW and a check that a regular file was opened), so
 * nothing it leads to is read, parsed or quoted in an error. Rejects with
 * NotARegularFileError for a link or a non-file, with the system's error otherwise (ENOENT).
 */
export async function readFileNoFollow(path: string): Promise<string> {
  const before = await lstat(path);
  if (before.isSymbolicLink()) throw new NotARegularFileError(path, true);
  if (!before.isFile()) throw new NotARegularFileError(path, false);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, NO_FOLLOW_READ);
  } catch (error) {
    // A link put there after the lstat: O_NOFOLLOW refuses it (ELOOP; EMLINK on FreeBSD).
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw new NotARegularFileError(path, true);
    throw error;
  }
  try {
    // Not compared with the lstat's inode: another window's atomic rename of a new version in between is an ordinary, whole file.
    if (!(await handle.stat()).isFile()) throw new NotARegularFileError(path, false);
    // Without O_NOFOLLOW (Windows) a link put there after the lstat was opened through: looked at again.
    if (!constants.O_NOFOLLOW && (await lstat(path)).isSymbolicLink()) throw new NotARegularFileError(path, true);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
