// Shared set-up for the Volumes and Upload suites: a fresh emulator on loopback with its
// own data folder, and a real KsmClient talking to it over HTTP.
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KsmClient } from '../../src/api/client';
import { NotFoundError } from '../../src/api/errors';
import type { FileInfo } from '../../src/api/types';
import { startEmulator, type RunningEmulator } from '../../emulator/server';

export interface EmulatorFixture {
  emulator: RunningEmulator;
  client: KsmClient;
  /** A scratch folder for files to upload; removed with the fixture. */
  workDir: string;
  close(): Promise<void>;
}

export async function startFixture(stepMs = 10): Promise<EmulatorFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), 'ksm-volumes-emu-'));
  const workDir = await mkdtemp(join(tmpdir(), 'ksm-volumes-work-'));
  const emulator = await startEmulator({ port: 0, dataDir, testControls: true, stepMs });
  const client = new KsmClient({ baseUrl: emulator.url, apiKey: async () => emulator.apiKey, retry: { retries: 0 } });
  return {
    emulator,
    client,
    workDir,
    async close() {
      await emulator.close();
      await rm(dataDir, { recursive: true, force: true });
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

/** Writes files (relative path → content) under `root`; returns their absolute paths. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<string[]> {
  const paths: string[] = [];
  for (const [relative, content] of Object.entries(files)) {
    const path = join(root, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    paths.push(path);
  }
  return paths;
}

let volumeCounter = 0;
/** A fresh named volume per test, so tests never see each other's files. */
export function freshVolume(prefix = 'vol'): string {
  return `${prefix}-${process.pid}-${++volumeCounter}`;
}

/** Every file the volume lists, by name: what the service holds, whatever a manifest claims. */
/** A volume's files by name; a volume the service does not know yet (nothing uploaded) lists as empty. */
export async function listedFiles(fx: EmulatorFixture, volume: string): Promise<FileInfo[]> {
  const files: FileInfo[] = [];
  try {
    for await (const f of fx.client.listAllFiles(volume)) files.push(f);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  return files.sort((a, b) => a.filename.localeCompare(b.filename));
}
