// Durability of the bytes kept outside the database: an upload's files are fsynced before
// they are moved into content/, and the folder after the moves, so a record committed in
// SQLite (store.ts) never points at bytes that a power cut took back.
import { open } from 'node:fs/promises';

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
