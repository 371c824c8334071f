// The older copies of a re-sync's replaced files are deleted while later upload batches are
// still to be answered (issue 21, the apply of a small re-sync), against a real emulator
// over HTTP: an upload batch is held in the emulator until the test sees, in the
// emulator's request log, the delete of the first batch's older copies. Every delete
// request goes only after the journal holds the new copies and the older ones as pending;
// a run stopped between the batches deletes only older copies whose new copies are stored.
import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KsmClient } from '../../src/api/client';
import type { FileInfo } from '../../src/api/types';
import { applySync, type ApplyOptions, type SyncFileResult } from '../../src/sync/core/apply';
import { FileManifestStore } from '../../src/sync/core/manifest';
import { planSync, type SyncPlan } from '../../src/sync/core/plan';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { until } from '../support/until';
import { writeTree } from '../volumes/volumesEmulator';

const FILES_PATH = '/ksm/rag/v5/files';
const NAMES = ['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'f.md'];

describe('sync: older copies deleted while later batches are on the wire (emulator)', function () {
  let emulator: RunningEmulator;
  let client: KsmClient;
  let dir: string;
  /** The emulator's log: one line per answered request, in the order they were answered. */
  const log: string[] = [];
  let volumeCount = 0;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ksm-delpipe-'));
    emulator = await startEmulator({ port: 0, dataDir: join(dir, 'data'), testControls: true, stepMs: 10, log: (line) => log.push(line) });
    client = new KsmClient({ baseUrl: emulator.url, apiKey: async () => emulator.apiKey, retry: { retries: 0 } });
  });
  afterEach(() => emulator.faults.clear()); // also lets a held request go
  after(async () => {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function listed(volume: string): Promise<FileInfo[]> {
    const files: FileInfo[] = [];
    for await (const f of client.listAllFiles(volume)) files.push(f);
    return files;
  }

  /** A folder of six files synced once, then every file edited (longer): the next run replaces six, in three batches of two. */
  async function syncedThenEdited(name: string) {
    const folder = join(dir, name);
    const volume = `${name}-${++volumeCount}`;
    const store = new FileManifestStore(join(dir, `${name}.manifest.json`));
    const options = () => ({ folder, volume, service: client, store, rules: { excludeGlobs: [], maxFileSizeBytes: 0 }, deleteRemoved: true });
    await writeTree(folder, Object.fromEntries(NAMES.map((n) => [n, `old ${n}`])));
    const first = await applySync(await planSync(options()), { service: client, store, embedding: 'emu-embed', doChunking: 0 });
    assert.equal(first.uploaded, NAMES.length);
    const older = new Map((await listed(volume)).map((f) => [f.uuid, f.filename]));
    for (const n of NAMES) await writeFile(join(folder, n), `new ${n}, edited`);
    return { folder, volume, store, options, older };
  }

  /** Applies `plan` one batch of two files at a time, one request in flight (a test acts between the batches). */
  function applyTwoAtATime(plan: SyncPlan, store: FileManifestStore, extra: Partial<ApplyOptions> = {}) {
    return applySync(plan, { service: client, store, embedding: 'emu-embed', doChunking: 0, concurrency: 1, batchFiles: 2, ...extra });
  }

  it("sends the first batch's older copies to delete while a later batch is held unanswered, each only once the journal records its new copy", async () => {
    const { volume, store, options, older } = await syncedThenEdited('held');
    const plan = await planSync(options());
    assert.equal(plan.uploads.filter((u) => u.replaces).length, NAMES.length);
    const journalPath = join(dir, 'held.manifest.json.journal');
    const unrecorded: string[] = [];
    let held = false;
    const onResult = (result: SyncFileResult) => {
      if (held || result.action !== 'replaced') return;
      held = true; // the first batch's answer: the next upload request (the second batch) waits in the emulator
      emulator.faults.add({ kind: 'hold', path: FILES_PATH, method: 'POST' });
    };
    const run = applyTwoAtATime(plan, store, {
      onResult,
      beforeDeleting: async (uuids) => {
        // What a crash right now would leave: the journal must hold each older copy as pending and its path's new copy.
        const lines = (await readFile(journalPath, 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        for (const uuid of uuids) {
          const pending = lines.find((l) => l.p === uuid);
          if (!pending || !lines.some((l) => l.f === pending.r && typeof l.u === 'string' && !older.has(l.u as string))) unrecorded.push(uuid);
        }
      },
    });
    await until(() => emulator.faults.held === 1); // the second batch held in the emulator
    await until(() => log.some((l) => l.startsWith(`DELETE ${FILES_PATH} 200`))); // a delete answered meanwhile (the first batch's older copies)
    assert.equal(emulator.faults.held, 1, 'the second batch is still held');
    const listingWhileHeld = new Set((await listed(volume)).map((f) => f.uuid));
    const goneWhileHeld = [...older.keys()]
      .filter((uuid) => !listingWhileHeld.has(uuid))
      .map((uuid) => older.get(uuid))
      .sort();
    assert.deepEqual(goneWhileHeld, ['a.md', 'b.md'], "only the first batch's older copies are gone while the second batch is held");
    emulator.faults.release();
    const summary = await run;
    assert.deepEqual(unrecorded, [], 'every delete request named only older copies whose new copies the journal recorded');
    assert.equal(summary.replaced, NAMES.length);
    assert.equal(summary.failed + summary.cancelled + summary.deleted, 0);
    const after = await listed(volume);
    assertOneEditedCopyEach(after);
    assert.ok(
      after.every((f) => !older.has(f.uuid)),
      'no older copy left',
    );
  });

  it('a run cancelled between the batches deletes no older copy whose new copy was not stored; the next run finishes with one copy of each', async () => {
    const { volume, store, options, older } = await syncedThenEdited('cancelled');
    const controller = new AbortController();
    const summary = await applyTwoAtATime(await planSync(options()), store, {
      signal: controller.signal,
      onResult: () => controller.abort(), // during the first batch's answer: nothing more is sent or deleted
    });
    assert.equal(summary.wasCancelled, true);
    const files = await listed(volume);
    assertOlderGoneOnlyWithItsNewCopy(files, older);
    assertEveryNameKept(files);
    const again = await applySync(await planSync(options()), { service: client, store, embedding: 'emu-embed', doChunking: 0 });
    assert.equal(again.failed, 0);
    assertOneEditedCopyEach(await listed(volume));
  });

  it('a run stopped between the batches deletes only older copies whose new copies are stored; the next run finishes with one copy of each', async () => {
    const { volume, store, options, older } = await syncedThenEdited('stopped');
    let armed = false;
    const summary = await applyTwoAtATime(await planSync(options()), store, {
      onResult: () => {
        if (armed) return;
        armed = true; // after the first batch: the next upload gets a configuration-class answer and the run stops
        emulator.faults.add({ kind: 'status', status: 400, path: FILES_PATH, method: 'POST' });
      },
    });
    assert.equal(summary.stopped?.stopKind, 'config');
    assert.equal(summary.replaced, 2);
    const files = await listed(volume);
    const newer = files.filter((f) => !older.has(f.uuid));
    assert.deepEqual(newer.map((f) => f.filename).sort(), ['a.md', 'b.md'], 'the first batch stored, the others not');
    assertEveryNameKept(files);
    assertOlderGoneOnlyWithItsNewCopy(files, older);
    assert.deepEqual(
      files
        .filter((f) => older.has(f.uuid))
        .map((f) => f.filename)
        .sort(),
      ['c.md', 'd.md', 'e.md', 'f.md'].concat(files.some((f) => older.get(f.uuid) === 'a.md') ? ['a.md', 'b.md'] : []).sort(),
    );

    emulator.faults.clear();
    const again = await applyTwoAtATime(await planSync(options()), store);
    assert.equal(again.failed, 0);
    assertOneEditedCopyEach(await listed(volume));
  });
});

/** The volume ends with exactly one copy of each file, the edited one. */
function assertOneEditedCopyEach(files: FileInfo[]): void {
  assert.deepEqual(
    files.map((f) => `${f.filename}:${f.filesize}`).sort(),
    NAMES.map((n) => `${n}:${`new ${n}, edited`.length}`),
  );
}

/** An older copy (uuid → name) is gone from the listing only where a new copy of its name is listed. */
function assertOlderGoneOnlyWithItsNewCopy(files: FileInfo[], older: Map<string, string>): void {
  for (const [uuid, name] of older) {
    if (files.some((f) => f.uuid === uuid)) continue;
    assert.ok(
      files.some((f) => f.filename === name && !older.has(f.uuid)),
      `the older copy of ${name} was deleted only with its new copy stored`,
    );
  }
}

/** No file lost every copy. */
function assertEveryNameKept(files: FileInfo[]): void {
  for (const name of NAMES)
    assert.ok(
      files.some((f) => f.filename === name),
      `${name} still has a copy`,
    );
}
