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
