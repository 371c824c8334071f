// The manifest's journal (src/sync/core/journal.ts) against the engine and the emulator over
// real HTTP, as an attacker would try it: a journal that is a symlink, a corrupt or torn
// line, a journal of another volume or service, a stale one, a journal naming foreign
// uuids; none may cause a deletion the listing does not justify. Then what it is for: a
// small re-sync of a large folder appends a few lines instead of rewriting the manifest,
// the editor's store folds it in once it has grown, the CLI's after every run, and the
// bytes it writes are counted with the manifest's.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { lstat, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applySync } from '../../src/sync/core/apply';
import { JournalRefusedError, parseJournal } from '../../src/sync/core/journal';
import type { ManifestStore } from '../../src/sync/core/manifest';
import type { ManifestChange } from '../../src/sync/core/journal';
import { planSync } from '../../src/sync/core/plan';
import { SYNC_EMBEDDING, syncPairing } from './syncPairing';
import { freshVolume, listedFiles, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

const EMBEDDING = SYNC_EMBEDDING;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('sync manifest journal', function () {
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => fx.close());

  const names = async (volume: string) => (await listedFiles(fx, volume)).map((f) => f.filename);

  function setup(name: string, compactEveryRun = true) {
    const folder = join(fx.workDir, name);
    const volume = freshVolume(name);
    const manifestPath = join(fx.workDir, `${name}.manifest.json`);
    const { newStore, options, sync } = syncPairing(fx, { folder, volume, manifestPath, compactEveryRun });
    /** A journal bound to the manifest as it is now on disk. */
    const writeJournal = async (lines: object[], header: Record<string, unknown> = {}) => {
      const manifest = await readFile(manifestPath, 'utf8');
      const head = { journal: 1, service: fx.emulator.url, volume, base: sha(manifest), ...header };
      await writeFile(`${manifestPath}.journal`, [head, ...lines].map((l) => JSON.stringify(l)).join('\n') + '\n');
    };
    return { folder, volume, manifestPath, journalPath: `${manifestPath}.journal`, newStore, options, sync, writeJournal };
  }

  /** A colleague's file, uploaded with `ksm upload` (not from the folder). */
  async function colleague(volume: string, name: string, text: string): Promise<string> {
    const [path] = await writeTree(join(fx.workDir, `colleague-${volume}-${name}`), { [name]: text });
    await fx.client.uploadFiles({ volume, embedding: EMBEDDING, files: [{ path, filename: name }] });
    return (await listedFiles(fx, volume)).find((f) => f.filename === name && f.filesize === Buffer.byteLength(text))!.uuid;
  }

  it('a journal that is a symbolic link is neither read nor written: the run stops, the target is untouched', async () => {
    const { folder, volume, journalPath, options, sync } = setup('journal-link');
    await writeTree(folder, { 'a.md': 'a' });
    await sync();
    const target = join(fx.workDir, 'journal-link-target.txt');
    await writeFile(target, 'precious\n');
    await symlink(target, journalPath);
    await writeFile(join(folder, 'a.md'), 'edited');
    await assert.rejects(planSync(options()), JournalRefusedError);
    assert.equal(await readFile(target, 'utf8'), 'precious\n');
    // A dangling link (where a run would create the journal) is refused too, and nothing is created through it.
    await rm(journalPath);
    await rm(target);
    await symlink(target, journalPath);
    await assert.rejects(planSync(options()), JournalRefusedError);
    await assert.rejects(lstat(target), /ENOENT/);
    assert.deepEqual(await names(volume), ['a.md']);
  });

  it('a link put in place of the journal between the plan and the appends is not written through', async () => {
    const { folder, journalPath, options } = setup('journal-link-late');
    await writeTree(folder, { 'a.md': 'a' });
    const opts = options();
    const plan = await planSync(opts);
    const target = join(fx.workDir, 'journal-link-late-target.txt');
    await writeFile(target, 'precious\n');
    await symlink(target, journalPath);
    await assert.rejects(applySync(plan, { service: fx.client, store: opts.store, embedding: EMBEDDING }), JournalRefusedError);
    assert.equal(await readFile(target, 'utf8'), 'precious\n');
  });

  it('a journal naming foreign uuids (a ghost path, a removed path, a pending deletion) deletes nothing the listing does not justify', async () => {
    const { folder, volume, options, sync, writeJournal } = setup('journal-foreign');
    await writeTree(folder, { 'notes.md': 'ours' });
    const first = await sync();
    const notesUuid = (await listedFiles(fx, volume))[0].uuid;
    const theirs = await colleague(volume, 'team.md', 'theirs');
    const budget = await colleague(volume, 'budget.md', 'theirs too');
    const hash = first.plan.uploads[0].sha256;
    await writeJournal([
      { f: 'ghost.md', h: hash, s: 4, m: 1, u: notesUuid }, // notes.md's uuid under another path
      { f: 'old.md', h: hash, s: 4, m: 1, u: theirs }, // a removed path holding a colleague's uuid
      { p: budget, r: 'notes.md' }, // a colleague's file as an "older copy" of ours
      { p: theirs, r: 'team.md' },
    ]);
    const plan = await planSync(options());
    assert.equal(plan.manifest.state, 'ok');
    assert.deepEqual(plan.deletes, []);
    assert.equal(plan.ignoredClaims.length, 4, plan.ignoredClaims.join('\n'));
    await applySync(plan, { service: fx.client, store: (await options()).store, embedding: EMBEDDING });
    await sync();
    assert.deepEqual(await names(volume), ['budget.md', 'notes.md', 'team.md']);
  });

  it('a corrupt line makes the manifest unusable (nothing deleted, same-name files need a choice); a torn last line is dropped', async () => {
    const { folder, volume, journalPath, options, sync, writeJournal } = setup('journal-corrupt');
    await writeTree(folder, { 'a.md': 'a', 'b.md': 'b' });
    await sync();
    await rm(join(folder, 'b.md'));
    await writeJournal([{ n: 'x.md' }, { nonsense: true }, { n: 'y.md' }]);
    const corrupt = await planSync(options());
    assert.equal(corrupt.manifest.state, 'unusable');
    assert.match(corrupt.manifest.reason ?? '', /line 3 of its journal is malformed/);
    assert.deepEqual(corrupt.deletes, [], 'nothing deleted without a usable record');
    assert.deepEqual(
      corrupt.conflicts.map((c) => c.rel),
      ['a.md'],
    );

    // A crash mid-append: the last line has no newline. It never counted; the rest is replayed.
    await writeJournal([]);
    await writeFile(journalPath, (await readFile(journalPath, 'utf8')) + '{"n":"a.m');
    const torn = await planSync(options());
    assert.equal(torn.manifest.state, 'ok');
    assert.deepEqual(
      torn.deletes.map((d) => d.remoteName),
      ['b.md'],
    );
    assert.deepEqual(await names(volume), ['a.md', 'b.md']);
  });

  it("another volume's or service's journal makes the manifest unusable; a stale one (the manifest changed since) is ignored", async () => {
    const { folder, volume, manifestPath, options, sync, writeJournal } = setup('journal-other');
    await writeTree(folder, { 'a.md': 'a' });
    await sync();
    const aUuid = (await listedFiles(fx, volume))[0].uuid;
    await rm(join(folder, 'a.md'));
    await writeJournal([], { volume: 'someone-elses' });
    assert.match((await planSync(options())).manifest.reason ?? '', /journal records volume 'someone-elses'/);
    await writeJournal([], { service: 'https://other.example.com' });
    const other = await planSync(options());
    assert.equal(other.manifest.state, 'unusable');
    assert.deepEqual(other.deletes, []);

    // Bound to other bytes of the manifest: its changes were folded in already (or the manifest was replaced): ignored.
    await writeJournal([{ d: [[aUuid, 'a.md']] }], { base: sha('an older manifest') });
    const stale = await planSync(options());
    assert.equal(stale.manifest.state, 'ok');
    assert.deepEqual(
      stale.deletes.map((d) => d.remoteName),
      ['a.md'],
      'the manifest alone decides (its entry for the removed a.md)',
    );
    assert.ok((await readFile(manifestPath, 'utf8')).includes(aUuid));
  });

  it('paths named like Object properties (toString, constructor, __proto__) are entries like any other, in the manifest and in the journal', async () => {
    for (const compactEveryRun of [true, false]) {
      const { folder, volume, sync } = setup(`journal-proto-${compactEveryRun}`, compactEveryRun);
      await writeTree(folder, { toString: 'a', constructor: 'bb', ['__proto__']: 'ccc', 'hasOwnProperty.md': 'dddd' }); // computed: a literal __proto__ key would set the prototype
      const first = await sync();
      assert.equal(first.summary.uploaded, 4);
      const again = await sync();
      assert.deepEqual([again.plan.uploads.length, again.plan.deletes.length, again.plan.unchanged], [0, 0, 4], 'in sync: nothing taken for a recorded copy');
      await writeFile(join(folder, 'constructor'), 'bb, edited');
      const edited = await sync();
      assert.deepEqual(
        edited.plan.uploads.map((u) => [u.rel, u.replaces?.length]),
        [['constructor', 1]],
      );
      assert.equal(edited.summary.failed, 0);
      const settled = await sync();
      assert.deepEqual([settled.plan.uploads.length, settled.plan.deletes.length, settled.plan.unchanged], [0, 0, 4]);
      assert.deepEqual((await listedFiles(fx, volume)).map((f) => `${f.filename}:${f.filesize}`).sort(), ['__proto__:3', 'constructor:10', 'hasOwnProperty.md:4', 'toString:1']);
    }
  });

  it("the editor's store appends a small re-sync to the journal and folds it in once it has grown; the CLI's folds it in after every run", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`doc-${i}.md`] = `document ${i}`;
    for (const compactEveryRun of [false, true]) {
      const { folder, volume, manifestPath, journalPath, newStore, sync } = setup(`journal-policy-${compactEveryRun}`, compactEveryRun);
      await writeTree(folder, files);
      const first = await sync();
      await assert.rejects(lstat(journalPath), /ENOENT/, 'a first sync ends with the manifest whole');
      const manifestAfterFirst = await readFile(manifestPath, 'utf8');
      const written = first.store.bytesWritten;
      assert.ok(written >= Buffer.byteLength(manifestAfterFirst) && written <= 3 * Buffer.byteLength(manifestAfterFirst), `bytes written ${written} count the journal and the manifest`);

      await writeFile(join(folder, 'doc-1.md'), 'document 1, edited');
      const edited = await sync();
      assert.equal(edited.summary.replaced, 1);
      if (compactEveryRun) {
        await assert.rejects(lstat(journalPath), /ENOENT/);
        assert.notEqual(await readFile(manifestPath, 'utf8'), manifestAfterFirst);
      } else {
        assert.equal(await readFile(manifestPath, 'utf8'), manifestAfterFirst, 'the manifest is not rewritten for one file');
        const journal = await readFile(journalPath, 'utf8');
        assert.equal(journal.trim().split('\n').length, 5, journal); // header, intent, recorded, older copy, its deletion
        assert.ok(edited.store.bytesWritten < 1000);
      }
      const loaded = await newStore().load(volume);
      assert.equal(loaded.state, 'ok');
      if (loaded.state === 'ok') assert.equal(loaded.manifest.files['doc-1.md'].size, Buffer.byteLength('document 1, edited'));
      const after = await sync();
      assert.equal(after.plan.uploads.length + after.plan.deletes.length, 0, 'in sync after the replay');

      // Edits until the journal is half the manifest: then it is folded in.
      for (let round = 0; round < 8 && (await lstat(journalPath).catch(() => undefined)); round++) {
        for (let i = 0; i < 40; i += 4) await writeFile(join(folder, `doc-${i + (round % 4)}.md`), `document, round ${round}`);
        await sync();
      }
      await assert.rejects(lstat(journalPath), /ENOENT/, 'folded in once grown');
      assert.equal(parseJournal('', { base: null, volume }).state, 'stale');
      assert.deepEqual((await names(volume)).length, 40, 'one copy of each file');
    }
  });

  it('answers are appended without fdatasync, everything the next run cannot rebuild with it; answers lost to a crash are rebuilt from the intents', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`doc-${i}.md`] = `document ${i}`;
    const { folder, volume, journalPath, newStore, options, sync } = setup('journal-durability', false);
    await writeTree(folder, files);
    await sync();

    // A re-sync with new files (answers only) and an edited one (an older copy to delete), a request per file.
    for (let i = 30; i < 42; i++) await writeFile(join(folder, `new-${i}.md`), `new document ${i}`);
    await writeFile(join(folder, 'doc-3.md'), 'document 3, edited');
    const appends: Array<{ kinds: string[]; durable: boolean }> = [];
    const real = newStore();
    const spying: ManifestStore = {
      location: real.location,
      load: (v) => real.load(v),
      save: (m) => real.save(m),
      append: (m, changes: ManifestChange[], durable = true) => {
        appends.push({ kinds: changes.map((c) => c.kind), durable });
        return real.append(m, changes, durable);
      },
      finish: (m) => real.finish(m),
    };
    const plan1 = await planSync(options({ store: spying }));
    const run1 = await applySync(plan1, { service: fx.client, store: spying, embedding: EMBEDDING, doChunking: 0, batchFiles: 1 });
    assert.equal(run1.uploaded + run1.replaced, 13);
    assert.deepEqual(appends[0], { kinds: Array(13).fill('intent'), durable: true }, "the intents first, fdatasync'ed");
    for (const a of appends) if (a.kinds.some((k) => k !== 'recorded' && k !== 'notSent')) assert.ok(a.durable, `durable: ${a.kinds.join(',')}`);
    const answersOnly = appends.slice(0, -1).filter((a) => a.kinds.every((k) => k === 'recorded' || k === 'notSent'));
    assert.ok(answersOnly.length > 0 && answersOnly.every((a) => !a.durable), "answers alone are not fdatasync'ed");
    assert.ok(appends.at(-1)!.durable, "the run's end fdatasyncs what was written lightly");
    const inSync = await planSync(options());
    assert.equal(inSync.uploads.length + inSync.deletes.length, 0, 'the journal replays to the run');

    // A crash that loses every answer written without fdatasync: the next run finds the copies from the intents.
    for (let i = 42; i < 50; i++) await writeFile(join(folder, `new-${i}.md`), `new document ${i}`);
    const lossy = newStore();
    const losing: ManifestStore = {
      location: lossy.location,
      load: (v) => lossy.load(v),
      save: (m) => lossy.save(m),
      append: (m, changes, durable = true) => (durable ? lossy.append(m, changes, durable) : Promise.resolve()),
      finish: () => lossy.close(), // dies before folding anything in
    };
    const plan2 = await planSync(options({ store: losing }));
    assert.equal((await applySync(plan2, { service: fx.client, store: losing, embedding: EMBEDDING, doChunking: 0, batchFiles: 1 })).uploaded, 8);
    const journal = await readFile(journalPath, 'utf8');
    assert.ok(journal.includes('{"i":"new-49.md"'), 'the intents are in the journal');
    assert.ok(!journal.includes('{"f":"new-49.md"'), 'its answer was lost');
    const after = await planSync(options());
    assert.equal(after.uploads.length, 0, 'no file is sent twice');
    const remote = await names(volume);
    assert.equal(remote.length, 50, 'one copy of each file');
    assert.equal(new Set(remote).size, 50);
  });
});
