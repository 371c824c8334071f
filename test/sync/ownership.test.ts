// Issue 21's data-loss defects against the sync engine over real HTTP: a crafted manifest
// (foreign ids in pendingDeletes and in removed entries, a wrong name for a uuid, another
// volume's manifest) deletes nothing foreign; a symlinked manifest is neither read nor
// written; a colleague's same-name file survives --delete; two runs at once cannot both
// upload; a wrong embedding model stops the run; a dead service stops it too.
import { strict as assert } from 'node:assert';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isCancellation } from '../../src/api/errors';
import { applySync, SyncStoppedError } from '../../src/sync/core/apply';
import { acquireSyncLock, SyncBusyError } from '../../src/sync/core/lock';
import { FileManifestStore, ManifestRefusedError } from '../../src/sync/core/manifest';
import { exceedsDeleteGuard, needsOwnershipChoice, planSync, type PlanOptions } from '../../src/sync/core/plan';
import { freshVolume, listedFiles, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

const EMBEDDING = 'emu-embed';

describe('sync ownership: the listing is the truth, the manifest a hint', function () {
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => fx.close());

  const listed = (volume: string) => listedFiles(fx, volume);
  const names = async (volume: string) => (await listed(volume)).map((f) => f.filename);

  function setup(name: string) {
    const folder = join(fx.workDir, name);
    const volume = freshVolume(name);
    const store = new FileManifestStore(join(folder, '.ksm-sync.json'), fx.emulator.url);
    const options = (more: Partial<PlanOptions> = {}): PlanOptions => ({ folder, volume, service: fx.client, store, rules: { excludeGlobs: [], maxFileSizeBytes: 0 }, deleteRemoved: false, ...more });
    const sync = async (more: Partial<PlanOptions> = {}) => {
      const plan = await planSync(options(more));
      const summary = await applySync(plan, { service: fx.client, store, embedding: EMBEDDING, doChunking: 0 });
      return { plan, summary };
    };
    return { folder, volume, store, options, sync };
  }

  /** A colleague's files, uploaded with `ksm upload` (not from the folder). */
  async function colleagueUploads(volume: string, files: Record<string, string>): Promise<Map<string, string>> {
    const dir = join(fx.workDir, `colleague-${volume}`);
    const paths = await writeTree(dir, files);
    await fx.client.uploadFiles({ volume, embedding: EMBEDDING, files: paths.map((path, i) => ({ path, filename: Object.keys(files)[i] })) });
    return new Map((await listed(volume)).map((f) => [f.filename, f.uuid]));
  }

  it('a committed manifest with foreign ids in pendingDeletes and in removed entries deletes nothing foreign, with or without --delete', async () => {
    const { folder, volume, store, options, sync } = setup('crafted');
    await writeTree(folder, { 'notes.md': 'ours' });
    await sync();
    const uuids = await colleagueUploads(volume, { 'team-plan.md': 'theirs', 'budget.md': 'theirs too' });
    const manifest = JSON.parse(await readFile(store.location, 'utf8'));
    const ours = manifest.files['notes.md'];
    // A pull request edits the committed manifest:
    manifest.pendingDeletes = [
      { uuid: uuids.get('team-plan.md'), rel: 'team-plan.md' },
      { uuid: uuids.get('budget.md'), rel: 'notes.md' },
    ];
    manifest.files['gone.md'] = { ...ours, uuid: uuids.get('budget.md') }; // removed entry holding a foreign uuid
    manifest.files['ghost.md'] = { ...ours }; // notes.md's own uuid under another name
    await writeFile(store.location, JSON.stringify(manifest));
    for (const deleteRemoved of [false, true]) {
      const plan = await planSync(options({ deleteRemoved }));
      assert.deepEqual(plan.deletes, [], `nothing to delete (deleteRemoved ${deleteRemoved})`);
      assert.equal(plan.ignoredClaims.length, 4, plan.ignoredClaims.join('\n'));
      assert.equal(exceedsDeleteGuard(plan, 0.2, 0), false);
      await applySync(plan, { service: fx.client, store, embedding: EMBEDDING });
      assert.deepEqual(await names(volume), ['budget.md', 'notes.md', 'team-plan.md']);
      await writeFile(store.location, JSON.stringify(manifest));
    }
  });

  it("another volume's or another service's manifest is unusable: nothing deleted", async () => {
    const { folder, volume, store, options, sync } = setup('othervol');
    await writeTree(folder, { 'a.md': 'a' });
    await sync();
    const manifest = JSON.parse(await readFile(store.location, 'utf8'));
    await writeFile(store.location, JSON.stringify({ ...manifest, service: 'https://other.example.com' }));
    const plan = await planSync(options({ deleteRemoved: true }));
    assert.equal(plan.manifest.state, 'unusable');
    assert.match(plan.manifest.reason ?? '', /other\.example\.com/);
    assert.deepEqual(plan.deletes, []);
    await writeFile(store.location, JSON.stringify({ ...manifest, volume: 'someone-else' }));
    assert.equal((await planSync(options({ deleteRemoved: true }))).manifest.state, 'unusable');
    assert.deepEqual(await names(volume), ['a.md']);
  });

  it('a symlinked manifest is refused: its target is neither read nor overwritten', async () => {
    const { folder, store, options } = setup('symlink');
    await writeTree(folder, { 'a.md': 'a', '../bashrc': 'export PATH=/usr/bin\n' });
    const target = join(fx.workDir, 'bashrc');
    await symlink(target, store.location);
    await assert.rejects(planSync(options()), (e) => e instanceof ManifestRefusedError && /symbolic link/.test(e.message));
    await assert.rejects(store.save({ version: 2, volume: 'v', files: {}, pendingDeletes: [], intents: {} }), ManifestRefusedError);
    assert.equal(await readFile(target, 'utf8'), 'export PATH=/usr/bin\n');
  });

  it("a colleague's same-name, same-size file is not adopted and survives --delete after the local file is removed", async () => {
    const { folder, volume, options, sync } = setup('colleague');
    await writeTree(folder, { 'keep.md': 'keep' });
    await sync();
    const uuids = await colleagueUploads(volume, { 'guide.md': 'THEIRS' });
    await writeTree(folder, { 'guide.md': 'MINE!!' }); // same name, same size
    const first = await planSync(options());
    assert.equal(needsOwnershipChoice(first), false, 'a manifest exists: the unrecorded file is someone else’s');
    assert.deepEqual(
      first.uploads.map((u) => [u.rel, u.replaces]),
      [['guide.md', undefined]],
      'uploaded alongside, not adopted',
    );
    await sync();
    await rm(join(folder, 'guide.md'));
    const { summary } = await sync({ deleteRemoved: true });
    assert.equal(summary.deleted, 1, 'only our own guide.md');
    const left = await listed(volume);
    assert.deepEqual(
      left.map((f) => f.filename),
      ['guide.md', 'keep.md'],
    );
    assert.equal(left.find((f) => f.filename === 'guide.md')!.uuid, uuids.get('guide.md'), "the colleague's copy survived");
  });

  it('two syncs of one folder at once: the second waits, then stops with SyncBusyError; no duplicate', async () => {
    const { folder, volume, store, sync } = setup('concurrent');
    await writeTree(folder, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.md`, `file ${i}`])));
    const release = await acquireSyncLock(store.location, { what: 'first', waitMs: 0 });
    let waited = false;
    await assert.rejects(
      acquireSyncLock(store.location, { what: `${folder} → ${volume}`, waitMs: 200, onWaiting: () => (waited = true) }),
      (e) => e instanceof SyncBusyError && /Another sync/.test(e.message),
    );
    assert.equal(waited, true);
    await sync();
    await release();
    const second = await acquireSyncLock(store.location, { what: 'again', waitMs: 0 });
    await second();
    assert.equal((await listed(volume)).length, 30);
  });

  it('a run waiting for the lock stops when its signal aborts (its pairing removed, the window closing) and never takes the lock after', async () => {
    const { store } = setup('lockAbort');
    const release = await acquireSyncLock(store.location, { what: 'the other window', waitMs: 0 });
    const stop = new AbortController();
    let waiting!: () => void;
    const started = new Promise<void>((resolve) => (waiting = resolve));
    const second = acquireSyncLock(store.location, { what: 'a removed pairing', waitMs: 10 * 60_000, signal: stop.signal, onWaiting: () => waiting() }).then(
      (releaseSecond) => releaseSecond,
      (error: unknown) => error,
    );
    await started;
    stop.abort();
    await release(); // the other window is done
    const outcome = await second;
    if (typeof outcome === 'function') await outcome(); // the old code took the lock and would have synced
    assert.ok(isCancellation(outcome), `the wait ended as cancelled, the lock not taken (got ${typeof outcome === 'function' ? 'the lock' : String(outcome)})`);
    const next = await acquireSyncLock(store.location, { what: 'the next run', waitMs: 0 });
    await next();
  });

  it('a wrong embedding model stops the run after the first request (config), files not sent are not counted as failed uploads one by one', async () => {
    const { folder, options, store } = setup('badmodel');
    await writeTree(folder, Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}.md`, `file ${i}`])));
    const plan = await planSync(options());
    const before = fx.emulator.stats.requests;
    const summary = await applySync(plan, { service: fx.client, store, embedding: 'no-such-model', concurrency: 1 });
    assert.ok(summary.stopped instanceof SyncStoppedError);
    assert.equal(summary.stopped.stopKind, 'config');
    assert.match(summary.stopped.message, /embedding/);
    assert.equal(fx.emulator.stats.requests - before, 1, 'one upload request, then stop');
  });

  it('the service failing for a batch and its retry stops the run (service); the retry checks the listing first', async () => {
    const { folder, options, store } = setup('outage');
    await writeTree(folder, Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}.md`, `file ${i}`])));
    const plan = await planSync(options());
    fx.emulator.faults.add({ path: '/ksm/rag/v5/files', method: 'POST', kind: 'status', status: 503, times: 100 });
    try {
      const summary = await applySync(plan, { service: fx.client, store, embedding: EMBEDDING, concurrency: 1, retryDelayMs: 1 });
      assert.equal(summary.stopped?.stopKind, 'service');
      assert.equal(summary.uploaded, 0);
    } finally {
      fx.emulator.faults.clear();
    }
  });

  it('a duplicate left by an earlier accident is reported; dedupe deletes the extra same-size copy of our own file only', async () => {
    const { folder, volume, options, sync } = setup('dedupe');
    await writeTree(folder, { 'a.md': 'aaaa', 'b.md': 'bbbb' });
    await sync();
    const extra = await writeTree(join(fx.workDir, 'dedupe-extra'), { 'a.md': 'AAAA', 'b.md': 'a different size' });
    await fx.client.uploadFiles({ volume, embedding: EMBEDDING, files: extra.map((path) => ({ path })) });
    const plan = await planSync(options());
    assert.deepEqual(plan.duplicates.map((d) => [d.rel, d.sameSize]).sort(), [
      ['a.md', true],
      ['b.md', false],
    ]);
    assert.deepEqual(plan.deletes, [], 'reported, not deleted, without dedupe');
    const { summary } = await sync({ dedupe: true });
    assert.equal(summary.deleted, 1);
    assert.deepEqual(await names(volume), ['a.md', 'b.md', 'b.md']);
  });
});
