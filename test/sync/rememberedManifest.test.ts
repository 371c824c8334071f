// The manifest a store remembers between runs in one process (src/sync/core/manifest.ts:
// the editor re-syncs a pairing many times in one extension host, and a no-op re-sync of a
// large folder spent a good part of its time parsing a manifest it had itself written). Over
// real HTTP against the emulator, as an attacker would try it: what is remembered is used only
// while the files hold exactly the bytes it came from (an edit of the same size with the
// timestamps set back is still read), it never hides what the listing says, it cannot be
// changed through what a load hands out, and what a run leaves in memory is what a fresh read
// of the files gives. And what it is for: a no-op re-sync writes nothing at all.
import { strict as assert } from 'node:assert';
import { lstat, mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { forgetRememberedManifests, type Manifest } from '../../src/sync/core/manifest';
import { isInSync, type PlanOptions } from '../../src/sync/core/plan';
import { syncPairing } from './syncPairing';
import { freshVolume, listedFiles, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

describe('sync: the manifest remembered between runs in one process', function () {
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => {
    forgetRememberedManifests();
    await fx.close();
  });

  function setup(name: string, compactEveryRun = false) {
    const folder = join(fx.workDir, name);
    const volume = freshVolume(name);
    const storeDir = join(fx.workDir, `${name}-store`);
    const manifestPath = join(storeDir, 'manifest.json');
    const pairing = syncPairing(fx, { folder, volume, manifestPath, compactEveryRun });
    const newStore = pairing.newStore;
    const sync = async (more: Partial<PlanOptions> = {}) => {
      const run = await pairing.sync(more);
      assert.equal(run.summary.failed, 0);
      return run;
    };
    return { folder, volume, storeDir, manifestPath, journalPath: `${manifestPath}.journal`, newStore, sync };
  }

  const tree = (n: number, prefix = 'doc') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}-${i}.md`, `document ${i}`]));
  /** Plain data, whatever the object's prototype or frozenness. */
  const plain = (manifest: Manifest) => JSON.parse(JSON.stringify({ ...manifest, files: { ...manifest.files }, intents: { ...manifest.intents } })) as unknown;
  const fileState = async (path: string) => {
    const info = await stat(path, { bigint: true }).catch(() => undefined);
    return info && { ino: info.ino, size: info.size, mtimeNs: info.mtimeNs, ctimeNs: info.ctimeNs };
  };

  it('a no-op re-sync writes nothing (manifest and journal keep inode, times and bytes, no file appears) and still notices a copy deleted remotely', async () => {
    const { folder, volume, storeDir, manifestPath, journalPath, sync } = setup('remembered-noop');
    await mkdir(storeDir, { recursive: true });
    await writeTree(folder, tree(30));
    await sync();
    await writeFile(join(folder, 'doc-3.md'), 'document 3, edited');
    const edited = await sync();
    assert.equal(edited.summary.replaced, 1);
    assert.ok(await lstat(journalPath), 'the edit went to the journal');

    const before = { manifest: await fileState(manifestPath), journal: await fileState(journalPath), files: await readdir(storeDir), bytes: await readFile(manifestPath) };
    for (let run = 0; run < 2; run++) {
      const noop = await sync();
      assert.ok(isInSync(noop.plan) && !noop.plan.baseChanged, 'nothing to do');
      assert.equal(noop.plan.unchanged, 30);
      assert.deepEqual(await fileState(manifestPath), before.manifest, 'the manifest was not written');
      assert.deepEqual(await fileState(journalPath), before.journal, 'the journal was not written');
      assert.deepEqual(await readdir(storeDir), before.files, 'no file created (no temp file, no lock left)');
      assert.deepEqual(await readFile(manifestPath), before.bytes);
    }

    // The listing stays the truth: a copy deleted in the Volumes view meanwhile is uploaded again.
    const gone = (await listedFiles(fx, volume)).find((f) => f.filename === 'doc-7.md')!;
    await fx.client.deleteFiles({ volume, uuids: [gone.uuid] });
    const again = await sync();
    assert.deepEqual(
      again.plan.uploads.map((u) => u.rel),
      ['doc-7.md'],
    );
    assert.equal(again.summary.uploaded, 1);
    const listed = await listedFiles(fx, volume);
    assert.equal(listed.length, 30);
    assert.ok(listed.some((f) => f.filename === 'doc-7.md' && f.uuid !== gone.uuid));
  });

  it('a manifest or journal changed on disk between two runs is read again: a same-size edit with its times set back, a crafted journal line', async () => {
    const { folder, volume, manifestPath, journalPath, newStore, sync } = setup('remembered-changed');
    await writeTree(folder, tree(10));
    await sync();
    await writeFile(join(folder, 'doc-1.md'), 'document 1, edited');
    await sync();
    const loaded = await newStore().load(volume);
    assert.equal(loaded.state, 'ok');

    // Another volume's manifest of exactly the same size, with the original times put back: not taken from memory.
    const original = await readFile(manifestPath, 'utf8');
    const times = await stat(manifestPath);
    const other = volume.slice(0, -1) + (volume.endsWith('x') ? 'y' : 'x');
    const crafted = original.replace(JSON.stringify(volume), JSON.stringify(other));
    assert.equal(Buffer.byteLength(crafted), Buffer.byteLength(original));
    await writeFile(manifestPath, crafted);
    await utimes(manifestPath, times.atime, times.mtime);
    const reread = await newStore().load(volume);
    assert.equal(reread.state, 'unusable', 'the edited bytes were read');
    await writeFile(manifestPath, original);

    // A line appended to the journal by someone else is read (and, naming a foreign uuid, deletes nothing).
    const listed = await listedFiles(fx, volume);
    const foreign = listed.find((f) => f.filename === 'doc-5.md')!;
    await writeFile(journalPath, (await readFile(journalPath, 'utf8')) + JSON.stringify({ p: foreign.uuid, r: 'doc-4.md' }) + '\n');
    const next = await sync();
    assert.equal(next.plan.deletes.length, 0);
    assert.ok(
      next.plan.ignoredClaims.some((c) => c.includes(foreign.uuid)),
      next.plan.ignoredClaims.join('\n'),
    );
    assert.equal((await listedFiles(fx, volume)).length, 10, 'nothing deleted');
  });

  it('what a run leaves in memory is what a fresh read of the files gives (both stores), and what a load hands out cannot be changed', async () => {
    for (const compactEveryRun of [false, true]) {
      const { folder, volume, newStore, sync } = setup(`remembered-same-${compactEveryRun}`, compactEveryRun);
      await writeTree(folder, { ...tree(20), 'sub/inner.md': 'inner' });
      const steps: Array<() => Promise<unknown>> = [
        async () => undefined,
        () => writeFile(join(folder, 'doc-2.md'), 'document 2, edited'),
        () => writeTree(folder, { 'doc-new.md': 'new', 'sub/more.md': 'more' }),
        async () => {
          await writeFile(join(folder, 'doc-4.md'), 'four');
          await utimes(join(folder, 'doc-5.md'), new Date(2020, 1, 1), new Date(2020, 1, 1)); // touched, not edited
        },
      ];
      for (const step of steps) {
        await step();
        await sync();
        const remembered = await newStore().load(volume);
        forgetRememberedManifests();
        const fresh = await newStore().load(volume);
        assert.equal(remembered.state, 'ok');
        assert.equal(fresh.state, 'ok');
        if (remembered.state === 'ok' && fresh.state === 'ok') assert.deepEqual(plain(remembered.manifest), plain(fresh.manifest));
      }
      const loaded = await newStore().load(volume);
      assert.equal(loaded.state, 'ok');
      if (loaded.state !== 'ok') return;
      assert.throws(() => {
        loaded.manifest.files['doc-1.md'].uuid = 'someone-else';
      }, TypeError);
      assert.throws(() => {
        (loaded.manifest.files as Record<string, unknown>)['ghost.md'] = loaded.manifest.files['doc-1.md'];
      }, TypeError);
      assert.throws(() => loaded.manifest.pendingDeletes.push({ uuid: 'x', remoteName: 'x', rel: 'doc-1.md' }), TypeError);
      const again = await newStore().load(volume);
      assert.ok(again.state === 'ok' && again.manifest.files['ghost.md'] === undefined);
      assert.equal((await sync()).plan.uploads.length, 0);
    }
  });
});
