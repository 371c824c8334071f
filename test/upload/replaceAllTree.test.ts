// Issue 26, rough edge 1: after Replace All on a re-upload the Volumes tree showed a ghost
// row (six rows for five files) until a manual refresh. The cause: files uploaded while the
// volume was shown are kept as this session's uploads beyond the loaded pages until a page
// lists them, and an older copy deleted before any re-list completed was never listed again,
// so it stayed (volumeListing.ts, dropRecentNowListed). The tree's own pieces, wired as the
// extension wires them (the listing and its status poller as VolumesTreeProvider does, the
// upload flow's watchUploaded then ReplacementTracker.add, onSettled → refreshVolume), over
// real HTTP against the emulator.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import type { FileInfo } from '../../src/api/types';
import { planUploads } from '../../src/upload/core/duplicatePlanning';
import { ReplacementTracker, type PendingReplacement, type ReplacementStorage } from '../../src/upload/core/pendingReplacements';
import { runUpload } from '../../src/upload/core/uploadRun';
import { StatusPoller } from '../../src/volumes/core/statusPoller';
import { VolumeListing } from '../../src/volumes/core/volumeListing';
import { freshVolume, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

function memoryStorage(): ReplacementStorage {
  let held: PendingReplacement[] = [];
  return { get: () => held, set: async (pending) => void (held = pending) };
}

const FAST = { initialMs: 5, maxMs: 20, factor: 1.5, giveUpAfterMs: 60_000 };

describe('upload: Replace All leaves the tree with one row per file (issue 26, rough edge 1)', function () {
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => fx.close());

  async function listAll(volume: string): Promise<FileInfo[]> {
    const files: FileInfo[] = [];
    for await (const f of fx.client.listAllFiles(volume)) files.push(f);
    return files;
  }

  // What the user did: the volume was open in the tree (loaded) when the five files were
  // first uploaded, so the listing showed them as this session's uploads (its `recent`),
  // and nothing re-listed it before the Replace All. Each older copy is deleted, then the
  // volume re-listed; a copy deleted before the first re-list that completed was never seen
  // listed again, and the listing kept it as an upload "beyond the loaded pages": the ghost.
  for (const deleteLatencyMs of [0, 300]) {
    it(`five files first uploaded while the volume was shown, then replaced at once: no ghost row (delete latency ${deleteLatencyMs} ms)`, async () => {
      const volume = freshVolume('replace-shown');
      await fx.emulator.faults.clear();
      const [seed] = await writeTree(join(fx.workDir, `${volume}-seed`), { 'seed.md': '# Seed\nAlready there.\n' });
      await runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: 1, plan: await planUploads([{ path: seed, size: 10, displayPath: seed }], [], async () => undefined) });
      await fx.emulator.waitForIdle();
      const listing = new VolumeListing(
        () => fx.client,
        volume,
        () => 50,
      );
      await listing.ensureLoaded();
      assert.equal(listing.state.kind, 'loaded');

      // The first upload, shown as the upload flow shows it (watchUploaded → addUploaded).
      const names = ['a.md', 'b.md', 'c.md', 'd.md', 'e.md'];
      const oldPaths = await writeTree(join(fx.workDir, `${volume}-old`), Object.fromEntries(names.map((n) => [n, `# ${n}\nThe old text of ${n}.\n`])));
      const first = await runUpload({
        service: fx.client,
        volume,
        embedding: 'emu-embed',
        doChunking: 1,
        plan: await planUploads(
          oldPaths.map((p) => ({ path: p, size: 10, displayPath: p })),
          await listAll(volume),
          async () => undefined,
        ),
      });
      listing.addUploaded(first.results.flatMap((r) => (r.outcome === 'uploaded' ? [r.info] : [])));
      await fx.emulator.waitForIdle();
      while (listing.pendingFiles.length > 0) await listing.pollPending();
      assert.equal(listing.visibleFiles.length, 6);

      // Replace All, then the tracker: each older copy deleted, then the volume re-listed.
      const newPaths = await writeTree(join(fx.workDir, `${volume}-new`), Object.fromEntries(names.map((n) => [n, `# ${n}\nThe new, longer text of ${n}.\n`])));
      const plan = await planUploads(
        newPaths.map((p) => ({ path: p, size: 10, displayPath: p })),
        await listAll(volume),
        async () => ({ choice: 'replace', applyToAll: true }),
      );
      const summary = await runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: 1, plan });
      listing.addUploaded(summary.results.flatMap((r) => (r.outcome === 'uploaded' ? [r.info] : [])));
      await fx.emulator.waitForIdle();
      if (deleteLatencyMs) fx.emulator.faults.add({ kind: 'latency', ms: deleteLatencyMs, method: 'DELETE', times: Infinity });
      const tracker = new ReplacementTracker({ service: () => fx.client, storage: memoryStorage(), onSettled: () => void listing.reload(), pollMs: 5 });
      await tracker.add(summary.replacements);
      await tracker.idle();
      await listing.ensureLoaded();
      fx.emulator.faults.clear();

      const server = await listAll(volume);
      assert.equal(server.length, 6);
      assert.deepEqual(listing.visibleFiles.map((f) => `${f.filename} ${f.uuid}`).sort(), server.map((f) => `${f.filename} ${f.uuid}`).sort(), 'one row per file of the volume, no replaced copy left');
      assert.equal(listing.total, 6, 'the header counts six files');
      assert.equal(
        listing.visibleFiles.reduce((sum, f) => sum + f.filesize, 0),
        server.reduce((sum, f) => sum + f.filesize, 0),
        "the header's size is the volume's",
      );
    });
  }

  for (const pageSize of [50, 3]) {
    it(`five files replaced at once: the listing ends equal to the volume (page size ${pageSize})`, async () => {
      const volume = freshVolume('replace-all');
      const names = ['a.md', 'b.md', 'c.md', 'd.md', 'e.md'];
      const oldPaths = await writeTree(join(fx.workDir, `${volume}-old`), Object.fromEntries(names.map((n) => [n, `# ${n}\nThe old text of ${n}.\n`])));
      const first = await runUpload({
        service: fx.client,
        volume,
        embedding: 'emu-embed',
        doChunking: 1,
        plan: await planUploads(
          oldPaths.map((p) => ({ path: p, size: 10, displayPath: p })),
          [],
          async () => undefined,
        ),
      });
      assert.equal(first.uploaded, 5);
      await fx.emulator.waitForIdle();

      // The tree: a listing, and its poller watching whenever the listing has files not yet final.
      const listing = new VolumeListing(
        () => fx.client,
        volume,
        () => pageSize,
      );
      const poller = new StatusPoller((_volume, signal) => listing.pollPending(signal), FAST);
      listing.onDidChange(() => {
        if (listing.pendingFiles.length > 0 && !poller.isWatching(volume)) poller.watch(volume);
      });
      await listing.ensureLoaded();
      while (listing.hasMore) await listing.loadMore();
      assert.equal(listing.visibleFiles.length, 5);

      // The upload flow: list, Replace All, upload; then watchUploaded and the tracker.
      const newPaths = await writeTree(join(fx.workDir, `${volume}-new`), Object.fromEntries(names.map((n) => [n, `# ${n}\nThe new, longer text of ${n}.\n`])));
      const plan = await planUploads(
        newPaths.map((p) => ({ path: p, size: 10, displayPath: p })),
        await listAll(volume),
        async () => ({ choice: 'replace', applyToAll: true }),
      );
      const summary = await runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: 1, plan });
      assert.equal(summary.replacements.length, 5);
      const uploaded = summary.results.flatMap((r) => (r.outcome === 'uploaded' ? [r.info] : []));
      if (listing.state.kind === 'loaded') listing.addUploaded(uploaded);
      else void listing.reload();
      poller.watch(volume);
      const tracker = new ReplacementTracker({ service: () => fx.client, storage: memoryStorage(), onSettled: () => void listing.reload().catch(() => undefined), pollMs: 5 });
      await tracker.add(summary.replacements);
      await tracker.idle();
      // Everything the tree started has finished: no poll, no reload under way.
      while (poller.watchedVolumes.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await listing.ensureLoaded();
      while (listing.hasMore) await listing.loadMore();

      const server = await listAll(volume);
      assert.equal(server.length, 5);
      assert.deepEqual(listing.visibleFiles.map((f) => f.uuid).sort(), server.map((f) => f.uuid).sort(), 'one row per file, no ghost');
      assert.equal(listing.total, 5, 'the header counts five files');
      poller.dispose();
    });
  }
});
