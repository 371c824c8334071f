// The plan walks and stats the folder while the manifest is still being read (a no-op
// re-sync of 5,000 files waited for the manifest before its scan began): what the manifest
// records must still decide which files skip the readable-files sniff and the hash, however
// late it arrives; a manifest that cannot be read still fails the plan, with its own error.
// Against the emulator over HTTP.
import { strict as assert } from 'node:assert';
import { stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applySync } from '../../src/sync/core/apply';
import { FileManifestStore, type ManifestStore } from '../../src/sync/core/manifest';
import { planCounts, planSync } from '../../src/sync/core/plan';
import { freshVolume, listedFiles, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

/** A store whose load answers only once `open()` is called (the folder's walk runs meanwhile). */
function gatedStore(inner: ManifestStore): ManifestStore & { open(): void; loads: number } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const store = {
    location: inner.location,
    loads: 0,
    open,
    async load(volume: string) {
      store.loads++;
      await gate;
      return inner.load(volume);
    },
    save: (m: Parameters<ManifestStore['save']>[0]) => inner.save(m),
    append: (m: Parameters<ManifestStore['append']>[0], c: Parameters<ManifestStore['append']>[1]) => inner.append(m, c),
    finish: (m: Parameters<ManifestStore['finish']>[0]) => inner.finish(m),
  };
  return store;
}

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('sync plan: the folder walked while the manifest is read', function () {
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => fx.close());

  it('a manifest that arrives after the walk still spares its unchanged files the sniff and the hash', async () => {
    const folder = join(fx.workDir, 'late-manifest');
    const volume = freshVolume('late-manifest');
    const inner = new FileManifestStore(join(fx.workDir, 'late-manifest.json'));
    const rules = { excludeGlobs: [], maxFileSizeBytes: 0 };
    await writeTree(folder, { 'a.md': '# A, text the sniff accepts\n', 'b.md': '# B\n', 'sub/c.md': '# C\n' });
    const first = await planSync({ folder, volume, service: fx.client, store: inner, rules, deleteRemoved: true });
    const stored = await applySync(first, { service: fx.client, store: inner, embedding: 'emu-embed', doChunking: 0 });
    assert.equal(stored.uploaded, 3);

    // Same size and mtime as recorded, but bytes the readable-files sniff would refuse: only the manifest's word keeps it.
    const a = join(folder, 'a.md');
    const before = await stat(a);
    await writeFile(a, Buffer.alloc(before.size, 0));
    await utimes(a, before.atime, before.mtime);
    // The manifest records the mtime the file now has (a filesystem's sub-millisecond part cannot always be set back).
    const mtimeMs = (await stat(a)).mtimeMs;
    const recorded = await inner.load(volume);
    assert.equal(recorded.state, 'ok');
    if (recorded.state === 'ok')
      await inner.save({ ...recorded.manifest, files: Object.assign(Object.create(null), recorded.manifest.files, { 'a.md': { ...recorded.manifest.files['a.md'], mtimeMs } }) });

    const store = gatedStore(inner);
    const planning = planSync({ folder, volume, service: fx.client, store, rules, deleteRemoved: true });
    await turns(20); // the walk, the stats and the listing go ahead while the manifest is held
    assert.equal(store.loads, 1);
    store.open();
    const plan = await planning;
    assert.deepEqual(planCounts(plan), { upload: 0, replace: 0, delete: 0, unchanged: 3 }, 'nothing sent, nothing deleted');
    assert.deepEqual(plan.skipped, [], 'a.md was not sniffed again (the manifest vouches for it)');
    assert.equal(plan.hashing.skipped, 3, 'every file reused its recorded hash');
    assert.equal((await listedFiles(fx, volume)).length, 3);

    // Without the manifest the same file is sniffed, refused and (deletion on) its copy planned for deletion: the test above can fail.
    const blind = await planSync({ folder, volume, service: fx.client, store: new FileManifestStore(join(fx.workDir, 'none.json')), rules, deleteRemoved: true, ownership: 'keepOthers' });
    assert.ok(
      blind.skipped.some((s) => s.path === a),
      'with no manifest, the zeroed file is refused by the sniff',
    );
  });

  it('a manifest that cannot be read fails the plan with its own error, the walk started meanwhile leaves nothing unhandled', async () => {
    const folder = join(fx.workDir, 'broken-manifest');
    await writeTree(folder, { 'x.md': 'x\n' });
    const refusal = new Error('the manifest store refused');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const store: ManifestStore = {
        location: 'broken',
        load: async () => {
          await turns(5);
          throw refusal;
        },
        save: async () => undefined,
        append: async () => undefined,
        finish: async () => undefined,
      };
      await assert.rejects(planSync({ folder, volume: freshVolume('broken-manifest'), service: fx.client, store, rules: { excludeGlobs: [], maxFileSizeBytes: 0 }, deleteRemoved: true }), refusal);
      await turns(20);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
