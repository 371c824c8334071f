// The sync engine against a real emulator over HTTP: plan + apply for new, changed,
// renamed, deleted and excluded files; a crash between upload and delete, then a resume;
// a corrupt manifest; the delete guard.
import { strict as assert } from 'node:assert';
import { readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applySync } from '../../src/sync/core/apply';
import { FileManifestStore, type ManifestStore } from '../../src/sync/core/manifest';
import { exceedsDeleteGuard, needsOwnershipChoice, planCounts, planSync, type PlanOptions } from '../../src/sync/core/plan';
import { freshVolume, listedFiles, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

const EMBEDDING = 'emu-embed';

describe('sync engine against the emulator', function () {
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => fx.close());

  const listed = (volume: string) => listedFiles(fx, volume);
  const names = async (volume: string) => (await listed(volume)).map((f) => f.filename);

  function setup(name: string, deleteRemoved = true) {
    const folder = join(fx.workDir, name);
    const volume = freshVolume(name);
    const store = new FileManifestStore(join(fx.workDir, `${name}.manifest.json`));
    const options = (more: Partial<PlanOptions> = {}): PlanOptions => ({
      folder,
      volume,
      service: fx.client,
      store,
      rules: { excludeGlobs: ['**/*.tmp'], maxFileSizeBytes: 0 },
      deleteRemoved,
      ...more,
    });
    const sync = async (more: Partial<PlanOptions> = {}) => {
      const plan = await planSync(options(more));
      const summary = await applySync(plan, { service: fx.client, store, embedding: EMBEDDING, doChunking: 0 });
      return { plan, summary };
    };
    return { folder, volume, store, options, sync };
  }

  it("a deeper .gitignore's `!` brings back what a higher one leaves out, as git does; nothing below a folder git leaves out comes back", async () => {
    const { folder, volume, sync } = setup('reinclude');
    await writeTree(folder, {
      '.gitignore': '*.log\nbuild/\n',
      'a.log': 'left out\n',
      'sub/.gitignore': '!keep.log\n',
      'sub/keep.log': 'kept by sub/.gitignore\n',
      'sub/other.log': 'still left out\n',
      'build/.gitignore': '!out.md\n',
      'build/out.md': 'in a folder git does not enter\n',
      'notes.md': '# notes\n',
    });
    const { plan } = await sync();
    assert.deepEqual(await names(volume), ['notes.md', 'sub__keep.log']);
    const skipped = plan.skipped.map((s) => s.path.slice(folder.length + 1)).sort();
    assert.deepEqual(skipped, ['.gitignore', 'a.log', 'build', 'sub/.gitignore', 'sub/other.log']);
  });

  it('uploads new files, replaces changed ones, re-uploads a rename and deletes removed and newly excluded ones; an unchanged folder plans nothing', async () => {
    const { folder, volume, options, sync } = setup('lifecycle');
    await writeTree(folder, {
      '.gitignore': 'secret.txt\n',
      'a.md': '# A\n',
      'docs/b.md': '# B\n',
      'docs/c.md': '# C\n',
      'old-name.md': 'renamed later\n',
      'secret.txt': 'ignored by .gitignore',
      'scratch.tmp': 'excluded by a glob',
      'image.bin': Buffer.from([0, 1, 2, 3]),
    });
    const first = await sync();
    assert.deepEqual(planCounts(first.plan), { upload: 4, replace: 0, delete: 0, unchanged: 0 });
    assert.equal(first.summary.uploaded, 4);
    assert.deepEqual(await names(volume), ['a.md', 'docs__b.md', 'docs__c.md', 'old-name.md'], '.gitignore is applied, never uploaded (as a folder upload)');
    const skipped = first.plan.skipped.map((s) => s.path.slice(folder.length + 1)).sort();
    assert.deepEqual(skipped, ['.gitignore', 'image.bin', 'scratch.tmp', 'secret.txt']);

    const again = await planSync(options());
    assert.deepEqual(planCounts(again), { upload: 0, replace: 0, delete: 0, unchanged: 4 });
    assert.equal(again.hashing.hashed, 0, 'unchanged size+mtime: nothing re-hashed');

    const before = new Map((await listed(volume)).map((f) => [f.filename, f.uuid]));
    await writeFile(join(folder, 'a.md'), '# A, edited\n');
    await rename(join(folder, 'old-name.md'), join(folder, 'new-name.md'));
    await rm(join(folder, 'docs/c.md'));
    await writeFile(join(folder, '.gitignore'), 'secret.txt\ndocs/b.md\n');
    const second = await sync();
    assert.deepEqual(planCounts(second.plan), { upload: 1, replace: 1, delete: 3, unchanged: 0 });
    assert.equal(second.plan.uploads.find((u) => u.rel === 'new-name.md')?.renamedFrom, 'old-name.md');
    assert.deepEqual(second.plan.deletes.map((d) => d.rel).sort(), ['docs/b.md', 'docs/c.md', 'old-name.md']);
    assert.equal(second.summary.failed, 0);
    const after = await listed(volume);
    assert.deepEqual(
      after.map((f) => f.filename),
      ['a.md', 'new-name.md'],
    );
    assert.notEqual(after.find((f) => f.filename === 'a.md')!.uuid, before.get('a.md'), 'a.md was replaced by a new copy');
    assert.equal(after.find((f) => f.filename === 'a.md')!.filesize, '# A, edited\n'.length);

    // A touched but unedited file is not re-uploaded (compare by content, not by time).
    await utimes(join(folder, 'new-name.md'), new Date(), new Date(Date.now() + 5000));
    const touched = await planSync(options());
    assert.deepEqual(planCounts(touched), { upload: 0, replace: 0, delete: 0, unchanged: 2 });
    assert.equal(touched.hashing.hashed, 1);
  });

  it('keeps remote copies of removed files when deletion is off, and reports them', async () => {
    const { folder, volume, sync } = setup('keep', false);
    await writeTree(folder, { 'x.md': 'x', 'y.md': 'y' });
    await sync();
    await rm(join(folder, 'y.md'));
    const { plan, summary } = await sync();
    assert.deepEqual(plan.keptRemote, ['y.md']);
    assert.equal(summary.deleted, 0);
    assert.deepEqual(await names(volume), ['x.md', 'y.md']);
  });

  it('a crash between the upload and the delete of a replace resumes with nothing lost and no duplicate', async () => {
    const { folder, volume, store, options } = setup('crash');
    await writeTree(folder, { 'doc.md': 'version 1', 'other.md': 'stays' });
    await applySync(await planSync(options()), { service: fx.client, store, embedding: EMBEDDING });
    await writeFile(join(folder, 'doc.md'), 'version 2, longer');
    const crash = new Error('simulated crash');
    await assert.rejects(
      applySync(await planSync(options()), {
        service: fx.client,
        store,
        embedding: EMBEDDING,
        beforeDeleting: async () => {
          throw crash;
        },
      }),
      (e) => e === crash,
    );
    assert.deepEqual(await names(volume), ['doc.md', 'doc.md', 'other.md'], 'both copies exist after the crash');

    const resume = await planSync(options());
    assert.deepEqual(planCounts(resume), { upload: 0, replace: 0, delete: 1, unchanged: 2 });
    assert.equal(resume.deletes[0].reason, 'replaced');
    await applySync(resume, { service: fx.client, store, embedding: EMBEDDING });
    const after = await listed(volume);
    assert.deepEqual(
      after.map((f) => `${f.filename}:${f.filesize}`),
      ['doc.md:17', 'other.md:5'],
    );
    assert.deepEqual(planCounts(await planSync(options())), { upload: 0, replace: 0, delete: 0, unchanged: 2 });
  });

  it('a crash after the upload was stored but before it was recorded recognises the copy from the intent instead of uploading it twice', async () => {
    const { folder, volume, store, options } = setup('unrecorded');
    await writeTree(folder, { 'doc.md': 'version 1' });
    await applySync(await planSync(options()), { service: fx.client, store, embedding: EMBEDDING });
    await writeFile(join(folder, 'doc.md'), 'version 2!');
    // The intents reach the journal, the upload reaches the service, then the process dies before recording it:
    // nothing after the intents reaches the disk (no journal line, no fold into the manifest).
    const manifestBefore = await readFile(store.location, 'utf8');
    const crash = () => Promise.reject(new Error('simulated crash'));
    const crashing: ManifestStore = {
      location: store.location,
      load: (v) => store.load(v),
      save: crash,
      append: (m, changes) => (changes.every((c) => c.kind === 'intent') ? store.append(m, changes) : crash()),
      finish: () => store.close(), // the process is gone: the journal stays as it is
    };
    await assert.rejects(applySync(await planSync({ ...options(), store: crashing }), { service: fx.client, store: crashing, embedding: EMBEDDING }), /simulated crash/);
    assert.deepEqual((await listed(volume)).map((f) => `${f.filename}:${f.filesize}`).sort(), ['doc.md:10', 'doc.md:9']);
    assert.equal(await readFile(store.location, 'utf8'), manifestBefore, 'the manifest itself was not rewritten');
    assert.match(await readFile(store.journalLocation, 'utf8'), /"i":"doc\.md".*"s":10/, 'the intent is in the journal beside it');
    const restarted = new FileManifestStore(store.location); // a new process
    const resume = await planSync({ ...options(), store: restarted });
    assert.equal(resume.uploads.length, 0);
    assert.deepEqual(
      resume.adopted.map((a) => a.rel),
      ['doc.md'],
    );
    assert.deepEqual(
      resume.deletes.map((d) => d.reason),
      ['replaced'],
    );
    await applySync(resume, { service: fx.client, store: restarted, embedding: EMBEDDING });
    assert.deepEqual(
      (await listed(volume)).map((f) => `${f.filename}:${f.filesize}`),
      ['doc.md:10'],
    );
  });

  it('a corrupt or missing manifest deletes nothing and stops for a choice on same-name files; keepOthers uploads alongside, adopt replaces', async () => {
    const { folder, volume, store, sync, options } = setup('corrupt');
    await writeTree(folder, { 'same.md': 'same', 'edited.md': 'before', 'gone.md': 'removed locally' });
    await sync();
    await writeFile(store.location, '{"version":1,"volume":'); // torn write of an older tool
    await writeFile(join(folder, 'edited.md'), 'BEFORE'); // same size: only the content tells
    await rm(join(folder, 'gone.md'));
    const plan = await planSync(options());
    assert.equal(plan.manifest.state, 'unusable');
    assert.equal(plan.deletes.length, 0, 'nothing deleted without a manifest');
    assert.deepEqual(
      plan.conflicts.map((c) => c.rel),
      ['edited.md', 'same.md'],
    );
    assert.equal(needsOwnershipChoice(plan), true, 'same-name files are never adopted silently');
    assert.deepEqual(plan.adopted, []);

    const kept = await planSync(options({ ownership: 'keepOthers' }));
    assert.equal(needsOwnershipChoice(kept), false);
    assert.deepEqual(
      kept.uploads.map((u) => u.rel),
      ['edited.md', 'same.md'],
      'the same-size edit is uploaded, never skipped',
    );
    assert.deepEqual(kept.deletes, []);

    const adopt = await planSync(options({ ownership: 'adopt' }));
    assert.deepEqual(
      adopt.uploads.map((u) => [u.rel, u.replaces?.length]),
      [
        ['edited.md', 1],
        ['same.md', 1],
      ],
    );
    const summary = await applySync(adopt, { service: fx.client, store, embedding: EMBEDDING });
    assert.equal(summary.failed, 0);
    assert.deepEqual(await names(volume), ['edited.md', 'gone.md', 'same.md'], 'older copies replaced; gone.md (not recorded) left alone');
    const next = await planSync(options());
    assert.equal(next.manifest.state, 'ok');
    assert.deepEqual(planCounts(next), { upload: 0, replace: 0, delete: 0, unchanged: 2 });

    await rm(store.location);
    const missing = await planSync(options());
    assert.equal(missing.manifest.state, 'missing');
    assert.equal(missing.deletes.length, 0);
    assert.equal(needsOwnershipChoice(missing), true);
  });

  it('the delete guard trips when more than the allowed share of the volume would be deleted', async () => {
    const { folder, options, sync } = setup('guard');
    await writeTree(folder, Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}.md`, `file ${i}`])));
    await sync();
    for (let i = 0; i < 3; i++) await rm(join(folder, `f${i}.md`));
    const plan = await planSync(options());
    assert.equal(plan.deletes.length, 3);
    assert.equal(exceedsDeleteGuard(plan, 0.25), true, '3 of 10 is over 25%');
    assert.equal(exceedsDeleteGuard(plan, 0.5), false);
    await rm(join(folder, 'f3.md'));
    const one = await planSync(options({ deleteRemoved: true }));
    assert.equal(exceedsDeleteGuard({ ...one, deletes: one.deletes.slice(0, 1) }, 0.01), false, 'a single deletion never trips the guard');
  });

  it('cancelling mid-sync records what was stored and the next run finishes the rest', async () => {
    const { folder, volume, store, options } = setup('cancel');
    await writeTree(folder, Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`n${String(i).padStart(2, '0')}.md`, `note ${i}`])));
    const controller = new AbortController();
    let results = 0;
    const summary = await applySync(await planSync(options()), {
      service: fx.client,
      store,
      embedding: EMBEDDING,
      concurrency: 1,
      signal: controller.signal,
      onResult: () => {
        if (++results === 20) controller.abort();
      },
    });
    assert.equal(summary.wasCancelled, true);
    assert.equal(summary.uploaded, 20);
    assert.equal(summary.cancelled, 25);
    const resume = await planSync(options());
    assert.deepEqual(planCounts(resume), { upload: 25, replace: 0, delete: 0, unchanged: 20 });
    await applySync(resume, { service: fx.client, store, embedding: EMBEDDING });
    assert.equal((await listed(volume)).length, 45, 'every file once');
  });

  it('a volume of several listing pages is read whole in three requests, and a manifest that predicts more files than are listed (pages asked ahead come back empty) still plans from the listing', async function () {
    this.timeout(120_000);
    const { folder, volume, sync, options } = setup('pages');
    const tree: Record<string, string> = {};
    for (let i = 0; i < 2100; i++) tree[`part-${i % 3}/n-${i}.md`] = `n${i}`;
    await writeTree(folder, tree);
    const first = await sync();
    assert.equal(first.summary.uploaded, 2100);

    const before = fx.emulator.stats.requests;
    const noop = await planSync(options());
    assert.equal(fx.emulator.stats.requests - before, 3, 'three pages of 1,000, no more');
    assert.deepEqual(planCounts(noop), { upload: 0, replace: 0, delete: 0, unchanged: 2100 });
    assert.equal(noop.remoteCount, 2100);

    // 1,500 copies deleted behind the folder's back: the manifest still records 2,100, the listing holds 600.
    const gone = (await listed(volume)).slice(0, 1500).map((f) => f.uuid);
    for (let i = 0; i < gone.length; i += 100) await fx.client.deleteFiles({ volume, uuids: gone.slice(i, i + 100) });
    const after = await planSync(options());
    assert.equal(after.remoteCount, 600);
    assert.deepEqual(planCounts(after), { upload: 1500, replace: 0, delete: 0, unchanged: 600 }, 'the copies the listing lacks are uploaded again');
  });
});
