// A file of the synced folder replaced by a symbolic link (to a secret outside the folder)
// after the plan read it and before its upload, as a `git pull` or `git checkout` of a
// hostile branch can do while the editor's preview is open or a watch run plans: the apply
// must not send where the link points. The sync engine against the emulator over real HTTP.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { renameSync, symlinkSync } from 'node:fs';
import { rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applySync } from '../../src/sync/core/apply';
import { FileManifestStore, type ManifestStore } from '../../src/sync/core/manifest';
import { until } from '../support/until';
import { planSync } from '../../src/sync/core/plan';
import { expandSelection } from '../../src/common/core/folderExpansion';
import { planUploads } from '../../src/upload/core/duplicatePlanning';
import { runUpload } from '../../src/upload/core/uploadRun';
import { freshVolume, listedFiles, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

/** `store`, with `onAsk` told each path the plan looks up in the manifest it loaded, as it asks (the moment a test changes the folder). */
function askedAbout(store: FileManifestStore, onAsk: (rel: string | symbol) => void): ManifestStore {
  return {
    location: store.location,
    load: async (volume) => {
      const loaded = await store.load(volume);
      if (loaded.state !== 'ok') return loaded;
      const files = new Proxy(loaded.manifest.files, {
        get: (target, key) => {
          onAsk(key);
          return Reflect.get(target, key);
        },
      });
      return { ...loaded, manifest: { ...loaded.manifest, files } };
    },
    save: (manifest) => store.save(manifest),
    append: (manifest, changes, durable) => store.append(manifest, changes, durable),
    finish: (manifest) => store.finish(manifest),
  };
}

describe('sync engine: a file swapped for a symbolic link between plan and apply', function () {
  this.timeout(60_000);
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => fx.close());

  for (const keepSmallContent of [false, true]) {
    it(`sends none of the link's target (small and large files, ${keepSmallContent ? "ksm sync's rules: small files sent as read" : "the editor's rules: every file read again"}); the files fail, the rest is sent`, async () => {
      const name = `swap-${keepSmallContent}`;
      const folder = join(fx.workDir, name);
      const volume = freshVolume(name);
      const secret = join(fx.workDir, `${name}-id_rsa`);
      const secretText = 'PRIVATE KEY '.repeat(3000); // larger than the sniff: read again for its upload either way
      await writeFile(secret, secretText);
      await writeTree(folder, { 'small.md': 'small notes', 'large.md': 'large notes '.repeat(3000), 'other.md': 'other' });
      const store = new FileManifestStore(join(fx.workDir, `${name}.manifest.json`));
      const plan = await planSync({ folder, volume, service: fx.client, store, rules: { excludeGlobs: [], maxFileSizeBytes: 0, keepSmallContent }, deleteRemoved: false });
      assert.equal(plan.uploads.length, 3);
      for (const file of ['small.md', 'large.md']) {
        await rm(join(folder, file));
        await symlink(secret, join(folder, file));
      }
      const summary = await applySync(plan, { service: fx.client, store, embedding: 'emu-embed', doChunking: 0 });
      const listed = await listedFiles(fx, volume);
      assert.ok(!listed.some((f) => f.filesize === Buffer.byteLength(secretText)), `the secret was sent: ${JSON.stringify(listed.map((f) => [f.filename, f.filesize]))}`);
      assert.ok(listed.some((f) => f.filename === 'other.md'));
      // A small file kept as the scan read it goes as read (its bytes are the folder's, not the target's).
      const failed = summary.results
        .filter((r) => r.action === 'failed')
        .map((r) => r.rel)
        .sort();
      assert.deepEqual(failed, keepSmallContent ? ['large.md'] : ['large.md', 'small.md']);
    });
  }

  it('a folder upload (the editor, ksm upload) whose file is swapped for a link after the folder was read (while a duplicate question is open) sends none of the target', async () => {
    const folder = join(fx.workDir, 'upload-swap');
    const volume = freshVolume('upload-swap');
    const secret = join(fx.workDir, 'upload-swap-id_rsa');
    const secretText = 'PRIVATE KEY '.repeat(3000);
    await writeFile(secret, secretText);
    await writeTree(folder, { 'large.md': 'large notes '.repeat(3000), 'other.md': 'other' });
    const expansion = await expandSelection([folder], { excludeGlobs: [], maxFileSizeBytes: 0, workspaceRoots: [] });
    const plan = await planUploads(expansion.files, [], async () => ({ choice: 'keepBoth', applyToAll: true }));
    await rm(join(folder, 'large.md'));
    await symlink(secret, join(folder, 'large.md'));
    const summary = await runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: 0, plan });
    const listed = await listedFiles(fx, volume);
    assert.ok(!listed.some((f) => f.filesize === Buffer.byteLength(secretText)), `the secret was sent: ${JSON.stringify(listed.map((f) => [f.filename, f.filesize]))}`);
    assert.deepEqual(
      listed.map((f) => f.filename),
      ['other.md'],
    );
    assert.equal(summary.failed, 1);
  });
});

describe('sync engine: a file swapped for a FIFO between the scan and its hash', function () {
  this.timeout(60_000);
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => {
    fx.emulator.faults.clear();
    await fx.close();
  });

  it('the plan neither hangs on it (the hash opened the FIFO and waited forever) nor fails as a whole: the file is "not read", its copy kept even with deletion on; the rest is planned', async () => {
    const folder = join(fx.workDir, 'fifo');
    const volume = freshVolume('fifo');
    await writeTree(folder, { 'large.md': 'large notes '.repeat(3000), 'other.md': 'other' });
    const store = new FileManifestStore(join(fx.workDir, 'fifo.manifest.json'));
    const options = { folder, volume, service: fx.client, rules: { excludeGlobs: [], maxFileSizeBytes: 0 }, deleteRemoved: true };
    const first = await planSync({ ...options, store });
    await applySync(first, { service: fx.client, store, embedding: 'emu-embed', doChunking: 0 });
    await writeFile(join(folder, 'large.md'), 'large notes, edited '.repeat(3000)); // edited: sniffed and hashed again
    await writeFile(join(folder, 'other.md'), 'other, edited');
    // The scan asks the manifest about each file just before its sniff (which reads the 64 files of a slice in one go):
    // once it asked about other.md (after large.md in name order), large.md's sniff has read the regular file.
    let asked = false;
    const watching = askedAbout(store, (rel) => {
      if (rel === 'other.md') asked = true;
    });
    fx.emulator.faults.add({ kind: 'hold', path: '/ksm/rag/v5/files', method: 'GET' }); // the listing waits: the hash comes after it
    const planning = planSync({ ...options, store: watching });
    await until(() => asked && fx.emulator.faults.held === 1);
    await new Promise((resolve) => setImmediate(resolve)); // the sniff's slice ends in the same turn as the question
    await rm(join(folder, 'large.md'));
    execFileSync('mkfifo', [join(folder, 'large.md')]);
    fx.emulator.faults.clear(); // the listing goes on, then the hash
    const plan = await planning;
    assert.deepEqual(
      plan.uploads.map((u) => u.rel),
      ['other.md'],
    );
    assert.deepEqual(plan.deletes, []);
    const skipped = plan.skipped.find((s) => s.path.endsWith('large.md'));
    assert.ok(skipped?.unread, JSON.stringify(plan.skipped));
    assert.match(skipped.reason, /replaced by another file/);
  });

  it('a subfolder swapped for a link to a folder outside while the folder is read (after its parent listed it): nothing outside is planned or sent', async () => {
    const folder = join(fx.workDir, 'dirswap');
    const volume = freshVolume('dirswap');
    const outside = join(fx.workDir, 'dirswap-outside');
    await writeTree(outside, { 'credentials.md': 'aws_secret_access_key = hunter2' });
    await writeTree(folder, { 'a.md': 'a', 'sub/x.md': 'x' });
    const store = new FileManifestStore(join(fx.workDir, 'dirswap.manifest.json'));
    const options = { folder, volume, service: fx.client, rules: { excludeGlobs: [], maxFileSizeBytes: 0, keepSmallContent: true }, deleteRemoved: false };
    await applySync(await planSync({ ...options, store }), { service: fx.client, store, embedding: 'emu-embed', doChunking: 0 });
    await writeFile(join(folder, 'a.md'), 'a, edited');
    // The scan asks the manifest about a.md after the folder was listed (sub a folder then) and before it reads sub:
    // sub is swapped for a link to a folder outside right then, in the same turn.
    let swapped = false;
    const swapping = askedAbout(store, (rel) => {
      if (rel !== 'a.md' || swapped) return;
      swapped = true;
      renameSync(join(folder, 'sub'), join(fx.workDir, 'dirswap-sub-away'));
      symlinkSync(outside, join(folder, 'sub'));
    });
    const plan = await planSync({ ...options, store: swapping });
    assert.ok(swapped);
    assert.deepEqual(
      plan.uploads.map((u) => u.rel),
      ['a.md'],
      JSON.stringify(plan.uploads.map((u) => u.rel)),
    );
    await applySync(plan, { service: fx.client, store, embedding: 'emu-embed', doChunking: 0 });
    assert.ok(!(await listedFiles(fx, volume)).some((f) => f.filename.includes('credentials')));
  });
});
