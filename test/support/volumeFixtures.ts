// What the Volumes and Upload suites set up again and again, once: the emulator fixture's
// mocha hooks, a volume seeded with numbered files, a listing opened as the tree opens it,
// markdown files in an old and a new version, an upload as the upload flow runs it, and a
// replacement store in memory. Each works against the real emulator over HTTP
// (test/volumes/volumesEmulator.ts).
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import type { DoChunking, FileInfo } from '../../src/api/types';
import type { KsmService } from '../../src/api/service';
import { planUploads, type DuplicateDecider } from '../../src/upload/core/duplicatePlanning';
import type { PendingReplacement, ReplacementStorage } from '../../src/upload/core/pendingReplacements';
import { runUpload } from '../../src/upload/core/uploadRun';
import { VolumeListing } from '../../src/volumes/core/volumeListing';
import { startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

/** Starts an emulator fixture before the suite and closes it after; call the result inside a test. */
export function useVolumesFixture(stepMs = 5): () => EmulatorFixture {
  let fx: EmulatorFixture | undefined;
  before(async () => {
    fx = await startFixture(stepMs);
  });
  after(async () => fx?.close());
  return () => {
    assert.ok(fx, 'the fixture starts in the suite’s before hook');
    return fx;
  };
}

/** Uploads `count` tiny files named f0000.txt… and waits until processing settled. */
export async function seedVolume(fx: EmulatorFixture, volume: string, count: number, doChunking: 0 | 1 = 0): Promise<void> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`${volume}/f${String(i).padStart(4, '0')}.txt`] = `file ${i}`;
  const paths = await writeTree(fx.workDir, files);
  const results = await fx.client.uploadFiles({ volume, embedding: 'emu-embed', doChunking, files: paths.map((path) => ({ path })) }, { batch: { maxFiles: 500 } });
  assert.ok(
    results.every((r) => r.ok),
    'seeding upload failed',
  );
}

/** The listing of `volume` as the Volumes tree makes it (pages of `pageSize`), loaded once unless `load` is false. */
export async function openListing(client: KsmService, volume: string, pageSize: number, load = true): Promise<VolumeListing> {
  const listing = new VolumeListing(
    () => client,
    volume,
    () => pageSize,
  );
  if (load) await listing.ensureLoaded();
  return listing;
}

/** Markdown files `names` under `<workDir>/<volume>-<version>`, whose text says which version they are; their paths. */
export async function writeVersions(fx: EmulatorFixture, volume: string, names: readonly string[], version: 'old' | 'new'): Promise<string[]> {
  const text = (name: string) => (version === 'old' ? `# ${name}\nThe old text of ${name}.\n` : `# ${name}\nThe new, longer text of ${name}.\n`);
  return writeTree(join(fx.workDir, `${volume}-${version}`), Object.fromEntries(names.map((name) => [name, text(name)])));
}

/**
 * Uploads `paths` to `volume` as the upload flow does: plans against what the volume lists
 * (`existing`, the volume's files when omitted), answers a same-name question with
 * `onDuplicate` (none asked when omitted), then runs the upload (chunked unless `doChunking` says otherwise).
 */
export async function uploadAsTheFlowDoes(
  fx: EmulatorFixture,
  volume: string,
  paths: readonly string[],
  options: { existing?: FileInfo[]; onDuplicate?: DuplicateDecider; doChunking?: DoChunking } = {},
) {
  const existing = options.existing ?? (await allFiles(fx, volume));
  const plan = await planUploads(
    paths.map((path) => ({ path, size: 10, displayPath: path })),
    existing,
    options.onDuplicate ?? (async () => undefined),
  );
  return runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: options.doChunking ?? 1, plan });
}

/** Every file the volume lists, in the service's order. */
export async function allFiles(fx: EmulatorFixture, volume: string): Promise<FileInfo[]> {
  const files: FileInfo[] = [];
  for await (const f of fx.client.listAllFiles(volume)) files.push(f);
  return files;
}

/** Stands in for VS Code's globalState: pending replacements kept in memory. */
export function memoryReplacementStorage(): ReplacementStorage {
  let held: PendingReplacement[] = [];
  return { get: () => held, set: async (pending) => void (held = pending) };
}
