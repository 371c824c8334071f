// Crash-safe file writes: a reader (or a restart) sees the old file or the new one, never a
// torn one. Write to a temp name, fsync, rename over, fsync the folder so the rename itself
// survives a power cut.
import { open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await fsyncDir(dirname(path));
}

/** Moves an already-fsynced temp file into place atomically. */
export async function moveIntoPlace(from: string, to: string): Promise<void> {
  await rename(from, to);
  await fsyncDir(dirname(to));
}
