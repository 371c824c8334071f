// A first sync into an empty volume sends while the folder is read (src/sync/core/firstSync.ts,
// the streamed uploads of src/sync/core/apply.ts), and small files go as the scan read them
// (one read each), against the emulator over real HTTP: the same outcome as a planned first
// sync; anything that is not a first sync into an empty volume is left to the plan, untouched;
// batches go before the stream ends, each after its intents are on disk, as full as a whole
// plan's; a configuration-class answer stops the stream being read; the bytes sent are the
// bytes hashed, even when the file changed after the scan.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applySync, type SyncFileResult } from '../../src/sync/core/apply';
import { firstSyncStreamed } from '../../src/sync/core/firstSync';
import { parseJournal } from '../../src/sync/core/journal';
import { FileManifestStore } from '../../src/sync/core/manifest';
import { planSync, type PlannedUpload, type PlanOptions } from '../../src/sync/core/plan';
import { remoteNameFor } from '../../src/sync/core/scan';
import { freshVolume, listedFiles, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

const EMBEDDING = 'emu-embed';
const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe('sync: a first sync into an empty volume, sent while the folder is read', function () {
  this.timeout(60_000);
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => fx.close());

  function setup(name: string) {
    const folder = join(fx.workDir, name);
    const volume = freshVolume(name);
    const store = new FileManifestStore(join(fx.workDir, `${name}.manifest.json`));
    const options: PlanOptions = { folder, volume, service: fx.client, store, rules: { excludeGlobs: ['**/*.tmp'], maxFileSizeBytes: 0 }, deleteRemoved: true };
    return { folder, volume, store, options };
  }
  const uploadRequests = () => fx.emulator.stats.requests;

  /** The planned uploads of files written with `writeTree(folder, contents)` (`paths` in the same order). */
  const plannedUploads = (contents: Record<string, string>, paths: string[]): PlannedUpload[] =>
    Object.entries(contents).map(([rel, text], i) => ({ rel, path: paths[i], size: Buffer.byteLength(text), mtimeMs: 1, sha256: sha(text), remoteName: remoteNameFor(rel) }));

  /** The bytes the emulator stored for a file (volumes/<dir>/content/<uuid>). */
  function storedBytes(uuid: string): Buffer {
    const volumes = join(fx.emulator.dataDir, 'volumes');
    for (const dir of readdirSync(volumes)) {
      const path = join(volumes, dir, 'content', uuid);
      if (existsSync(path)) return readFileSync(path);
    }
    throw new Error(`no stored content for ${uuid}`);
  }

  const tree: Record<string, string | Buffer> = {
    '.gitignore': 'secret.txt\n',
    'a.md': '# A\n',
    'a__x.md': 'clashes with a/x.md once named',
    'a/x.md': 'x in a',
    'b/c/deep.md': 'deep',
    'b/empty.md': '',
    'big.md': 'large '.repeat(4000), // past the sniff's whole read: hashed on its own
    'image.bin': Buffer.from([0, 1, 2, 3]),
    'secret.txt': 'ignored by .gitignore',
    'scratch.tmp': 'excluded',
    ...Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`many/n${i}.md`, `note ${i}\n`])),
  };

  it('ends as a planned first sync does: the same files under the same names, the same manifest, the same skips', async () => {
    const streamedRun = setup('stream-same');
    const plannedRun = setup('plan-same');
    await writeTree(streamedRun.folder, tree);
    await writeTree(plannedRun.folder, tree);

    const streamed = await firstSyncStreamed(streamedRun.options, { embedding: EMBEDDING, doChunking: 0 });
    assert.ok(streamed, 'an empty volume and no manifest: streamed');
    const plan = await planSync(plannedRun.options);
    const planned = await applySync(plan, { service: fx.client, store: plannedRun.store, embedding: EMBEDDING, doChunking: 0 });

    assert.equal(streamed.summary.uploaded, planned.uploaded);
    assert.equal(streamed.summary.failed, 0);
    const shape = async (volume: string) => (await listedFiles(fx, volume)).map((f) => [f.filename, f.filesize]);
    assert.deepEqual(await shape(streamedRun.volume), await shape(plannedRun.volume));
    assert.ok(!(await shape(streamedRun.volume)).some(([name]) => name === '.gitignore' || name === 'secret.txt' || name === 'image.bin'));
    const manifest = async (path: string) => {
      const m = JSON.parse(await readFile(path, 'utf8'));
      return Object.entries(m.files as Record<string, { sha256: string; size: number; remoteName: string }>)
        .map(([rel, e]) => [rel, e.sha256, e.size, e.remoteName])
        .sort();
    };
    assert.deepEqual(await manifest(streamedRun.store.location), await manifest(plannedRun.store.location));
    assert.equal((await manifest(streamedRun.store.location)).length, streamed.summary.uploaded);
    const reasons = (skipped: Array<{ path: string; reason: string }>, root: string) => skipped.map((s) => [s.path.slice(root.length), s.reason]).sort();
    assert.deepEqual(reasons(streamed.plan.skipped, streamedRun.folder), reasons(plan.skipped, plannedRun.folder));
    assert.ok(
      streamed.plan.skipped.some((s) => /same name as 'a\/x\.md'|same name as 'a__x\.md'/.test(s.reason)),
      'the name clash is skipped as the plan skips it',
    );

    // The next run plans (a manifest now exists) and finds nothing to do.
    assert.equal(await firstSyncStreamed(streamedRun.options, { embedding: EMBEDDING }), undefined);
    const again = await planSync(streamedRun.options);
    assert.equal(again.uploads.length, 0);
    assert.equal(again.deletes.length, 0);
  });

  it('leaves a volume that lists a file, or a folder with a manifest, to the plan: nothing sent or written (what was read while the listing came is dropped)', async () => {
    const { folder, volume, store, options } = setup('stream-not-empty');
    await writeTree(folder, { 'mine.md': 'mine' });
    const colleague = await writeTree(join(fx.workDir, 'stream-colleague'), { 'mine.md': 'theirs' });
    await fx.client.uploadFiles({ volume, embedding: EMBEDDING, files: [{ path: colleague[0], filename: 'mine.md' }] });
    const before = uploadRequests();
    assert.equal(await firstSyncStreamed(options, { embedding: EMBEDDING }), undefined);
    assert.equal(uploadRequests() - before, 1, 'one listing request, no upload');
    assert.equal(existsSync(store.location), false, 'no manifest written');
    assert.deepEqual(
      (await listedFiles(fx, volume)).map((f) => f.filename),
      ['mine.md'],
    );
    // Same-name files the folder never recorded still stop a planned run for a choice.
    const plan = await planSync(options);
    assert.equal(plan.conflicts.length, 1);
  });

  it("sends a group's batches before the stream ends, each after its intents are on disk, and keeps requests as full as a whole plan's", async () => {
    const { folder, volume, store, options } = setup('stream-order');
    const contents = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${String(i).padStart(2, '0')}.md`, `file ${i}\n`]));
    const paths = await writeTree(folder, contents);
    await mkdir(join(fx.workDir, 'stream-order-empty'));
    const planned = await planSync({ ...options, folder: join(fx.workDir, 'stream-order-empty') }); // an empty plan for this volume: the uploads come from the stream
    const uploads = plannedUploads(contents, paths);
    let firstAnswer!: () => void;
    const answered = new Promise<void>((resolve) => (firstAnswer = resolve));
    let journalAtFirstAnswer = '';
    const before = uploadRequests();
    async function* stream() {
      yield uploads.slice(0, 25);
      await answered; // the first batch went and came back while the "folder" is still being read
      yield uploads.slice(25);
    }
    const results: SyncFileResult[] = [];
    const summary = await applySync(
      planned,
      {
        service: fx.client,
        store,
        embedding: EMBEDDING,
        doChunking: 0,
        onResult: (r) => {
          results.push(r);
          if (results.length === 1) {
            journalAtFirstAnswer = readFileSync(`${store.location}.journal`, 'utf8');
            firstAnswer();
          }
        },
      },
      stream(),
    );
    assert.equal(summary.uploaded, 50);
    assert.equal(uploadRequests() - before, 3, 'three requests of 20, 20 and 10 files (the 5 left of the first group waited for the next)');
    const intents = journalAtFirstAnswer
      .split('\n')
      .filter((line) => line.startsWith('{"i":'))
      .map((line) => JSON.parse(line).i as string);
    assert.deepEqual(intents, Object.keys(contents).slice(0, 20), 'the first batch: its intents (and no later file) on disk before it was sent');
    assert.deepEqual(
      (await listedFiles(fx, volume)).map((f) => f.filename),
      Object.keys(contents),
    );
    const manifest = JSON.parse(await readFile(store.location, 'utf8'));
    assert.equal(Object.keys(manifest.files).length, 50);
    assert.deepEqual(manifest.intents, {});
  });

  it('creates its journal while the first group is read (header on disk before any intent), so the first intents wait for one fdatasync; a crash right then leaves a journal the next run reads', async () => {
    const { folder, store, options } = setup('stream-journal-early');
    const contents = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.md`, `file ${i}\n`]));
    const paths = await writeTree(folder, contents);
    await mkdir(join(fx.workDir, 'stream-journal-early-empty'));
    const planned = await planSync({ ...options, folder: join(fx.workDir, 'stream-journal-early-empty') });
    const journalPath = `${store.location}.journal`;
    let before = '';
    async function* stream() {
      // The "folder" is still being read: the journal appears meanwhile (a bounded wait on the condition, not on a clock).
      for (let turn = 0; !existsSync(journalPath) || !readFileSync(journalPath, 'utf8').endsWith('\n'); turn++) {
        assert.ok(turn < 100_000, 'the journal was not created before the first group was handed over');
        await new Promise((resolve) => setImmediate(resolve));
      }
      before = readFileSync(journalPath, 'utf8');
      yield plannedUploads(contents, paths);
    }
    const summary = await applySync(planned, { service: fx.client, store, embedding: EMBEDDING, doChunking: 0 }, stream());
    assert.equal(summary.uploaded, 30);
    assert.deepEqual(parseJournal(before, { base: null, volume: planned.volume }), { state: 'ok', changes: [], service: undefined, bytes: Buffer.byteLength(before) }, 'a header, no change yet');
    // A run that dies right after that leaves the header alone: the next load reads it as a first sync that did not finish.
    const crashed = setup('stream-journal-early-crash');
    await writeFile(`${crashed.store.location}.journal`, before.replace(planned.volume, crashed.volume));
    const loaded = await crashed.store.load(crashed.volume);
    assert.equal(loaded.state, 'ok');
    assert.deepEqual(loaded.state === 'ok' && Object.keys(loaded.manifest.files), []);
  });

  it('a configuration-class answer stops a streamed run: the stream is asked for nothing more and nothing is sent after it', async () => {
    const { folder, store, options } = setup('stream-config');
    const contents = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}.md`, `file ${i}\n`]));
    const paths = await writeTree(folder, contents);
    await mkdir(join(fx.workDir, 'stream-config-empty'));
    const planned = await planSync({ ...options, folder: join(fx.workDir, 'stream-config-empty') });
    const uploads = plannedUploads(contents, paths);
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let pulled = 0;
    let closed = false;
    async function* stream() {
      try {
        for (let i = 0; i < uploads.length; i += 20) {
          pulled++;
          yield uploads.slice(i, i + 20);
          await answered; // the "folder" is still being read when the first answer comes
        }
      } finally {
        closed = true;
      }
    }
    const before = uploadRequests();
    const results: SyncFileResult[] = [];
    const summary = await applySync(
      planned,
      {
        service: fx.client,
        store,
        embedding: 'no-such-model',
        doChunking: 0,
        concurrency: 1,
        onResult: (r) => {
          results.push(r);
          answer();
        },
      },
      stream(),
    );
    assert.equal(summary.stopped?.stopKind, 'config');
    assert.equal(uploadRequests() - before, 1, 'one upload request, none after its answer');
    assert.ok(closed, "the stream's return was called (the scan ends)");
    assert.ok(pulled <= 2, `the stream was asked for nothing after the answer (groups read: ${pulled} of 3)`);
    assert.equal(summary.uploaded, 0);
    assert.equal(summary.failed, pulled * 20, 'every file read is reported failed: not sent');
    assert.ok(results.every((r) => r.action === 'failed'));
  });

  it('sends the bytes the scan read and hashed, not what the file holds by the time its batch goes (one read per small file)', async () => {
    const { folder, volume, store, options } = setup('stream-once');
    await writeTree(folder, { 'same.md': 'planned bytes\n', 'other.md': 'stays\n' });
    const plan = await planSync({ ...options, rules: { ...options.rules, keepSmallContent: true } }); // as the CLI plans
    assert.equal(plan.uploads.length, 2);
    await writeFile(join(folder, 'same.md'), 'CHANGED bytes\n'); // same size, other bytes, after the scan
    const summary = await applySync(plan, { service: fx.client, store, embedding: EMBEDDING, doChunking: 0 });
    assert.equal(summary.uploaded, 2);
    const stored = (await listedFiles(fx, volume)).find((f) => f.filename === 'same.md')!;
    assert.equal(storedBytes(stored.uuid).toString(), 'planned bytes\n');
    const manifest = JSON.parse(await readFile(store.location, 'utf8'));
    assert.equal(manifest.files['same.md'].sha256, sha('planned bytes\n'), 'the manifest records the hash of what was sent');
    // The edit made after the scan is seen by the next run (its mtime is not the recorded one) and sent then.
    const next = await planSync(options);
    assert.ok(
      next.uploads.every((u) => u.content === undefined),
      "the editor's plan (no keepSmallContent) keeps no bytes: a preview left open reads the file again when applied",
    );
    assert.deepEqual(
      next.uploads.map((u) => u.rel),
      ['same.md'],
    );
  });
});
