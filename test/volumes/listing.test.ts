// The Volumes view's listing model, status poller, delete and filter against a real
// emulator over HTTP.
import { strict as assert } from 'node:assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { KsmClient } from '../../src/api/client';
import { AuthenticationError } from '../../src/api/errors';
import { deleteSelectedFiles } from '../../src/volumes/core/fileDeletion';
import { VolumeSearch } from '../../src/volumes/core/fileSearch';
import { StatusPoller } from '../../src/volumes/core/statusPoller';
import { VolumeListing, type ListingChange } from '../../src/volumes/core/volumeListing';
import type { FileInfo } from '../../src/api/types';
import type { KsmService } from '../../src/api/service';
import { openListing, seedVolume } from '../support/volumeFixtures';
import { freshVolume, startFixture, writeTree, type EmulatorFixture } from './volumesEmulator';

describe('volumes: listing model against the emulator', function () {
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => fx.close());

  it('loads one page, then "load more" appends the next until total is reached', async () => {
    const volume = freshVolume();
    await seedVolume(fx, volume, 25);
    const listing = await openListing(fx.client, volume, 10, false);
    const before = fx.emulator.stats.requests;
    await listing.ensureLoaded();
    assert.equal(fx.emulator.stats.requests - before, 1, 'opening a volume makes one request');
    assert.equal(listing.total, 25);
    assert.deepEqual(
      listing.visibleFiles.map((f) => f.filename),
      Array.from({ length: 10 }, (_, i) => `f${String(i).padStart(4, '0')}.txt`),
    );
    assert.ok(listing.hasMore);
    await listing.loadMore();
    await listing.loadMore();
    assert.equal(listing.visibleFiles.length, 25);
    assert.equal(new Set(listing.visibleFiles.map((f) => f.uuid)).size, 25, 'no file listed twice');
    assert.equal(listing.hasMore, false);
    assert.equal(listing.visibleFiles.at(-1)!.filename, 'f0024.txt');
  });

  it('reload keeps every loaded page, so the user keeps their place', async () => {
    const volume = freshVolume();
    await seedVolume(fx, volume, 12);
    const listing = await openListing(fx.client, volume, 5);
    await listing.loadMore();
    await listing.reload();
    assert.equal(listing.visibleFiles.length, 10);
    assert.ok(listing.hasMore);
  });

  it('ensureLoaded waits for a load already under way instead of showing an empty list', async () => {
    const volume = freshVolume();
    await seedVolume(fx, volume, 4);
    const listing = await openListing(fx.client, volume, 10, false);
    const started = listing.reload();
    await listing.ensureLoaded();
    assert.equal(listing.state.kind, 'loaded');
    assert.equal(listing.visibleFiles.length, 4);
    await started;
  });

  it('a named volume never written shows as missing (D6), an empty personal volume as empty', async () => {
    const missing = await openListing(fx.client, freshVolume('never'), 10);
    assert.equal(missing.state.kind, 'missing');
    const personal = await openListing(fx.client, `{${fx.emulator.userId}}`, 10);
    assert.equal(personal.state.kind, 'loaded');
    assert.equal(personal.visibleFiles.length, 0);
  });

  it('a 404 that names no volume (a web server at a wrong address, not the API) is an error, not "no files yet"; searching it is not "complete"', async () => {
    const web = createServer((_request, response) => response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    await new Promise<void>((listening) => web.listen(0, '127.0.0.1', listening));
    try {
      const wrong = new KsmClient({ baseUrl: `http://127.0.0.1:${(web.address() as AddressInfo).port}`, apiKey: async () => 'k', retry: { retries: 0 } });
      const listing = await openListing(wrong, freshVolume('wrong-address'), 10);
      assert.equal(listing.state.kind, 'error');
      const search = new VolumeSearch(wrong, 'v', 'a');
      await assert.rejects(search.findMore(100));
      assert.equal(search.complete, false);
    } finally {
      web.close();
    }
  });

  it("a JSON 404 whose own message speaks of the volume is 'no files yet' even without param (the reference leaves error bodies open); FastAPI's bare 'Not Found' is the address's", async () => {
    let body = '';
    const api = createServer((_request, response) => response.writeHead(404, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((listening) => api.listen(0, '127.0.0.1', listening));
    try {
      const client = new KsmClient({ baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`, apiKey: async () => 'k', retry: { retries: 0 } });
      body = JSON.stringify({ detail: "Volume 'team-docs' was not found" });
      const unwritten = await openListing(client, 'team-docs', 10);
      assert.notEqual(unwritten.state.kind, 'error', JSON.stringify(unwritten.state));
      assert.equal(unwritten.visibleFiles.length, 0);
      body = JSON.stringify({ detail: 'Not Found' });
      assert.equal((await openListing(client, 'team-docs', 10)).state.kind, 'error');
    } finally {
      api.close();
    }
  });

  it('a wrong API key ends in an error state carrying an AuthenticationError, not an empty list', async () => {
    const wrongKey = new KsmClient({ baseUrl: fx.emulator.url, apiKey: async () => 'not-the-key', retry: { retries: 0 } });
    const listing = await openListing(wrongKey, freshVolume(), 10);
    assert.equal(listing.state.kind, 'error');
    assert.ok(listing.state.kind === 'error' && listing.state.error instanceof AuthenticationError);
    assert.ok(listing.state.kind === 'error' && !listing.state.error.message.includes('not-the-key'), 'the key never appears in the message');
  });

  describe("this session's uploads beyond the loaded pages (issue 26, rough edge 1)", () => {
    async function uploaded(volume: string, names: string[]) {
      const paths = await writeTree(join(fx.workDir, `${volume}-${names[0]}`), Object.fromEntries(names.map((n) => [n, `${n} text`])));
      const results = await fx.client.uploadFiles({ volume, embedding: 'emu-embed', doChunking: 0, files: paths.map((path) => ({ path })) });
      return results.flatMap((r) => (r.ok ? [r.info] : []));
    }

    it('a re-list that reached the end drops an upload it no longer lists (deleted meanwhile), and the header counts the volume', async () => {
      const volume = freshVolume();
      await seedVolume(fx, volume, 2);
      const listing = await openListing(fx.client, volume, 50);
      const infos = await uploaded(volume, ['a.md', 'b.md']);
      listing.addUploaded(infos);
      assert.equal(listing.visibleFiles.length, 4);
      await fx.client.deleteFiles({ volume, uuids: [infos[0].uuid] });
      await listing.reload();
      assert.deepEqual(
        listing.visibleFiles.map((f) => f.filename),
        ['f0000.txt', 'f0001.txt', 'b.md'],
      );
      assert.equal(listing.total, 3);
      assert.equal(listing.hasMore, false);
    });

    it('an upload added while a re-list is in flight stays shown and counted: the listing was asked for before it', async () => {
      const volume = freshVolume();
      await seedVolume(fx, volume, 2);
      const listing = await openListing(fx.client, volume, 50);
      fx.emulator.faults.add({ kind: 'latency', ms: 300, method: 'GET', times: 1 });
      const reload = listing.reload();
      // Sent while the GET waits: the listing will not have it.
      const infos = await uploaded(volume, ['late.md']);
      listing.addUploaded(infos);
      await reload;
      fx.emulator.faults.clear();
      assert.deepEqual(
        listing.visibleFiles.map((f) => f.filename),
        ['f0000.txt', 'f0001.txt', 'late.md'],
      );
      assert.equal(listing.total, 3, 'the upload is counted');
      await listing.reload();
      assert.equal(listing.visibleFiles.length, 3, 'listed now, shown once');
    });

    it('a re-list of the first pages keeps the uploads that fit in the unloaded tail', async () => {
      const volume = freshVolume();
      await seedVolume(fx, volume, 5);
      const listing = await openListing(fx.client, volume, 3);
      const infos = await uploaded(volume, ['x.md', 'y.md']);
      listing.addUploaded(infos);
      await listing.reload();
      // 3 loaded of 7: the two uploads are the volume's tail, still shown; "Load more" reaches the rest.
      assert.deepEqual(
        listing.visibleFiles.map((f) => f.filename),
        ['f0000.txt', 'f0001.txt', 'f0002.txt', 'x.md', 'y.md'],
      );
      assert.equal(listing.total, 7);
      assert.ok(listing.hasMore);
      await fx.client.deleteFiles({ volume, uuids: [infos[0].uuid] });
      await listing.reload();
      // 6 files, 3 loaded: room for three in the tail, so y.md (and the vanished x.md) cannot be told apart yet...
      await listing.loadMore();
      assert.deepEqual(
        listing.visibleFiles.map((f) => f.filename),
        ['f0000.txt', 'f0001.txt', 'f0002.txt', 'f0003.txt', 'f0004.txt', 'y.md'],
        '...until a page reaches the end',
      );
      assert.equal(listing.hasMore, false);
    });
  });

  it('polling updates files in place until all are final, then stops', async () => {
    // Its own emulator at a pace far above one request's round trip: at the suite's 5 ms a
    // file could be final before the first listing on a busy machine, and then neither
    // "not final yet" nor "intermediate states were seen" could hold.
    const fx = await startFixture(100);
    try {
      await pollUntilFinal(fx);
    } finally {
      await fx.close();
    }
  });

  async function pollUntilFinal(fx: EmulatorFixture): Promise<void> {
    const volume = freshVolume();
    const [path] = await writeTree(fx.workDir, { [`${volume}/a.md`]: '# A\n\nsome text to chunk and embed', [`${volume}/b.bin`]: Buffer.from([0, 1, 2, 255]) });
    const uploaded = await fx.client.uploadFiles({
      volume,
      embedding: 'emu-embed',
      doChunking: 1,
      files: [{ path: path! }, { path: join(fx.workDir, volume, 'b.bin') }],
    });
    const listing = await openListing(fx.client, volume, 10);
    assert.ok(listing.pendingFiles.length > 0, 'fresh uploads are not final yet');
    const updates: ListingChange[] = [];
    listing.onDidChange((c) => updates.push(c));
    const seenStatuses = new Set<string>();
    let polls = 0;
    let resolveStopped!: () => void;
    const stopped = new Promise<void>((r) => (resolveStopped = r));
    const poller = new StatusPoller(
      async (_volume, signal) => {
        polls++;
        const outcome = await listing.pollPending(signal);
        for (const f of listing.visibleFiles) seenStatuses.add(f.status);
        if (outcome.pending === 0) setImmediate(resolveStopped);
        return outcome;
      },
      { initialMs: 5, maxMs: 20, factor: 1.5, giveUpAfterMs: 60_000 },
    );
    poller.watch(volume);
    await stopped;
    await new Promise((r) => setTimeout(r, 60));
    const pollsAtStop = polls;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(polls, pollsAtStop, 'no poll after every file is final');
    assert.equal(poller.isWatching(volume), false);
    const byName = new Map(listing.visibleFiles.map((f) => [f.filename, f]));
    assert.equal(byName.get('a.md')!.status, 'done');
    assert.equal(byName.get('b.bin')!.status, 'na');
    assert.ok(byName.get('b.bin')!.statusDetail, 'an unreadable file says why it ended na');
    assert.ok(seenStatuses.size > 2, `intermediate states were seen: ${[...seenStatuses]}`);
    assert.ok(
      updates.some((u) => !u.structure && u.updated.length > 0),
      'status changes are reported per file, not as a full redraw',
    );
    assert.equal(uploaded.length, 2);
    poller.dispose();
  }

  it('a poller stops after its cap even when files never settle, and a hidden view does not poll', async () => {
    let polls = 0;
    let now = 0;
    const poller = new StatusPoller(
      async () => {
        polls++;
        now += 1000;
        return { pending: 1, changed: 0 };
      },
      { initialMs: 2, maxMs: 4, factor: 2, giveUpAfterMs: 5000 },
      undefined,
      () => now,
    );
    poller.watch('stuck');
    while (poller.isWatching('stuck')) await new Promise((r) => setTimeout(r, 5));
    assert.equal(polls, 5, 'stops once 5 s of (virtual) time passed without a change');

    polls = 0;
    poller.setVisible(false);
    poller.watch('hidden');
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(polls, 0, 'hidden: no polling');
    poller.setVisible(true);
    while (polls === 0) await new Promise((r) => setTimeout(r, 2));
    poller.dispose();
  });

  it('deletes several files where one is already gone: per-file outcomes, listing updated', async () => {
    const volume = freshVolume();
    await seedVolume(fx, volume, 4);
    const listing = await openListing(fx.client, volume, 10);
    const [a, b, c] = listing.visibleFiles;
    await fx.client.deleteFiles({ volume, uuids: [c!.uuid] }); // deleted elsewhere meanwhile
    const outcomes = await deleteSelectedFiles(
      fx.client,
      [a!, b!, c!].map((f) => ({ volume, uuid: f.uuid, filename: f.filename })),
    );
    assert.deepEqual(
      outcomes.map((o) => [o.filename, o.outcome]),
      [
        [a!.filename, 'deleted'],
        [b!.filename, 'deleted'],
        [c!.filename, 'already gone'],
      ],
    );
    listing.removeFiles(outcomes.map((o) => o.uuid));
    assert.deepEqual(
      listing.visibleFiles.map((f) => f.filename),
      ['f0003.txt'],
    );
    await listing.reload();
    assert.deepEqual(
      listing.visibleFiles.map((f) => f.filename),
      ['f0003.txt'],
      'the service agrees',
    );

    const allGone = await deleteSelectedFiles(fx.client, [{ volume, uuid: a!.uuid, filename: a!.filename }]);
    assert.equal(allGone[0]!.outcome, 'already gone', 'a 404 with every id missing is "already gone" too');
  });

  it('filter pages lazily through a large volume until enough matches, and can continue', async () => {
    const volume = freshVolume();
    await seedVolume(fx, volume, 300);
    const requestsBefore = fx.emulator.stats.requests;
    const search = new VolumeSearch(fx.client, volume, 'f00?5.*', 50);
    const first = await search.findMore(3);
    assert.equal(fx.emulator.stats.requests - requestsBefore, 1, 'the first page of 50 held three matches');
    assert.deepEqual(
      first.map((f) => f.filename),
      ['f0005.txt', 'f0015.txt', 'f0025.txt'],
    );
    assert.equal(search.complete, false);
    assert.ok(search.scanned < 300, 'stopped reading once it had enough');
    const rest = await search.findMore(100);
    assert.equal(rest.length, 7, 'f0035 … f0095');
    assert.equal(search.complete, true);
    assert.equal(fx.emulator.stats.requests - requestsBefore, 300 / 50, 'one lazy walk, resumed: every page read once');

    const aborted = new AbortController();
    aborted.abort();
    const cancelled = new VolumeSearch(fx.client, volume, 'f01', 50);
    await assert.rejects(cancelled.findMore(10, aborted.signal));
    assert.equal((await cancelled.findMore(200)).length, 100, 'a cancelled search can run again');
  });
});

describe('volumes: a hostile listing', () => {
  it('a page of 200,000 files still processing is polled in time linear in its length', async () => {
    // Each pending file's offset was searched for in all loaded files, and the offsets
    // spread into Math.min: a listing page of a million files hung the status poll.
    const count = 200_000;
    const files = (status: string): FileInfo[] => Array.from({ length: count }, (_, i) => ({ uuid: `u${i}`, filename: `f${i}.md`, status, filesize: 1, date: '20260101000000', isdir: 0 }));
    const asked: Array<{ offset?: number; limit?: number }> = [];
    let status = 'chunking';
    const service = {
      listFiles: async (request: { offset?: number; limit?: number }) => {
        asked.push(request);
        // Far more than asked for: the server decides.
        return { total: count, offset: request.offset ?? 0, files: files(status) };
      },
    } as unknown as KsmService;
    const listing = new VolumeListing(
      () => service,
      'team',
      () => 100,
    );
    await listing.ensureLoaded();
    assert.equal(listing.pendingFiles.length, count);
    status = 'done';
    const outcome = await listing.pollPending();
    assert.deepEqual(asked.at(-1), { volume: 'team', offset: 0, limit: 1000 });
    assert.equal(outcome.pending, 0);
    assert.equal(outcome.changed, count);
  });
});
