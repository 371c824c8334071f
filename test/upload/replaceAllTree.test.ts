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
import { ReplacementTracker } from '../../src/upload/core/pendingReplacements';
import { StatusPoller } from '../../src/volumes/core/statusPoller';
import { allFiles, memoryReplacementStorage, openListing, uploadAsTheFlowDoes, useVolumesFixture, writeVersions } from '../support/volumeFixtures';
import { freshVolume, writeTree } from '../volumes/volumesEmulator';

const FAST = { initialMs: 5, maxMs: 20, factor: 1.5, giveUpAfterMs: 60_000 };

describe('upload: Replace All leaves the tree with one row per file (issue 26, rough edge 1)', function () {
  const fixture = useVolumesFixture(5);
  const NAMES = ['a.md', 'b.md', 'c.md', 'd.md', 'e.md'];
  const replaceAll = async () => ({ choice: 'replace' as const, applyToAll: true });

  // What the user did: the volume was open in the tree (loaded) when the five files were
  // first uploaded, so the listing showed them as this session's uploads (its `recent`),
  // and nothing re-listed it before the Replace All. Each older copy is deleted, then the
  // volume re-listed; a copy deleted before the first re-list that completed was never seen
  // listed again, and the listing kept it as an upload "beyond the loaded pages": the ghost.
  for (const deleteLatencyMs of [0, 300]) {
    it(`five files first uploaded while the volume was shown, then replaced at once: no ghost row (delete latency ${deleteLatencyMs} ms)`, async () => {
      const fx = fixture();
      const volume = freshVolume('replace-shown');
      await fx.emulator.faults.clear();
      const seed = await writeTree(join(fx.workDir, `${volume}-seed`), { 'seed.md': '# Seed\nAlready there.\n' });
      await uploadAsTheFlowDoes(fx, volume, seed, { existing: [] });
      await fx.emulator.waitForIdle();
      const listing = await openListing(fx.client, volume, 50);
      assert.equal(listing.state.kind, 'loaded');

      // The first upload, shown as the upload flow shows it (watchUploaded → addUploaded).
      const first = await uploadAsTheFlowDoes(fx, volume, await writeVersions(fx, volume, NAMES, 'old'));
      listing.addUploaded(first.results.flatMap((r) => (r.outcome === 'uploaded' ? [r.info] : [])));
      await fx.emulator.waitForIdle();
      while (listing.pendingFiles.length > 0) await listing.pollPending();
      assert.equal(listing.visibleFiles.length, 6);

      // Replace All, then the tracker: each older copy deleted, then the volume re-listed.
      const summary = await uploadAsTheFlowDoes(fx, volume, await writeVersions(fx, volume, NAMES, 'new'), { onDuplicate: replaceAll });
      listing.addUploaded(summary.results.flatMap((r) => (r.outcome === 'uploaded' ? [r.info] : [])));
      await fx.emulator.waitForIdle();
      if (deleteLatencyMs) fx.emulator.faults.add({ kind: 'latency', ms: deleteLatencyMs, method: 'DELETE', times: Infinity });
      const tracker = new ReplacementTracker({ service: () => fx.client, storage: memoryReplacementStorage(), onSettled: () => void listing.reload(), pollMs: 5 });
      await tracker.add(summary.replacements);
      await tracker.idle();
      await listing.ensureLoaded();
      fx.emulator.faults.clear();

      const server = await allFiles(fx, volume);
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
      const fx = fixture();
      const volume = freshVolume('replace-all');
      const first = await uploadAsTheFlowDoes(fx, volume, await writeVersions(fx, volume, NAMES, 'old'), { existing: [] });
      assert.equal(first.uploaded, 5);
      await fx.emulator.waitForIdle();

      // The tree: a listing, and its poller watching whenever the listing has files not yet final.
      const listing = await openListing(fx.client, volume, pageSize, false);
      const poller = new StatusPoller((_volume, signal) => listing.pollPending(signal), FAST);
      listing.onDidChange(() => {
        if (listing.pendingFiles.length > 0 && !poller.isWatching(volume)) poller.watch(volume);
      });
      await listing.ensureLoaded();
      while (listing.hasMore) await listing.loadMore();
      assert.equal(listing.visibleFiles.length, 5);

      // The upload flow: list, Replace All, upload; then watchUploaded and the tracker.
      const summary = await uploadAsTheFlowDoes(fx, volume, await writeVersions(fx, volume, NAMES, 'new'), { onDuplicate: replaceAll });
      assert.equal(summary.replacements.length, 5);
      const uploaded = summary.results.flatMap((r) => (r.outcome === 'uploaded' ? [r.info] : []));
      if (listing.state.kind === 'loaded') listing.addUploaded(uploaded);
      else void listing.reload();
      poller.watch(volume);
      const tracker = new ReplacementTracker({ service: () => fx.client, storage: memoryReplacementStorage(), onSettled: () => void listing.reload().catch(() => undefined), pollMs: 5 });
      await tracker.add(summary.replacements);
      await tracker.idle();
      // Everything the tree started has finished: no poll, no reload under way.
      while (poller.watchedVolumes.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await listing.ensureLoaded();
      while (listing.hasMore) await listing.loadMore();

      const server = await allFiles(fx, volume);
      assert.equal(server.length, 5);
      assert.deepEqual(listing.visibleFiles.map((f) => f.uuid).sort(), server.map((f) => f.uuid).sort(), 'one row per file, no ghost');
      assert.equal(listing.total, 5, 'the header counts five files');
      poller.dispose();
    });
  }
});
