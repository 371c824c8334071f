// The status poller's schedule on a virtual clock, polling real listings of a real emulator:
// the interval grows while nothing changes, drops back to the first interval when a file
// changes, and every tick costs one request per volume.
import { strict as assert } from 'node:assert';
import { StatusPoller, type PollTimers } from '../../src/volumes/core/statusPoller';
import { VolumeListing } from '../../src/volumes/core/volumeListing';
import { freshVolume, startFixture, writeTree, type EmulatorFixture } from './volumesEmulator';
import { until } from '../support/until';

/** Timers that fire only when the test steps the clock. */
class VirtualClock implements PollTimers {
  now = 0;
  private nextId = 1;
  private readonly due = new Map<number, { at: number; callback: () => void }>();

  set(callback: () => void, delayMs: number): unknown {
    const id = this.nextId++;
    this.due.set(id, { at: this.now + delayMs, callback });
    return id;
  }

  clear(handle: unknown): void {
    this.due.delete(handle as number);
  }

  get armed(): number {
    return this.due.size;
  }

  /** Moves to the earliest timer and fires every timer due then; returns how many fired. */
  step(): number {
    const at = Math.min(...[...this.due.values()].map((t) => t.at));
    assert.ok(Number.isFinite(at), 'no timer is armed');
    this.now = at;
    const firing = [...this.due].filter(([, t]) => t.at === at);
    for (const [id, t] of firing) {
      this.due.delete(id);
      t.callback();
    }
    return firing.length;
  }
}

/** Waits (in real time, bounded by mocha's timeout) for the polls of a tick to come back. */
describe('volumes: status poller schedule (virtual clock, real emulator)', function () {
  let fx: EmulatorFixture;
  before(async () => {
    // Processing steps of ten minutes: nothing settles on its own while the test runs,
    // so every change the poller sees is one the test made.
    fx = await startFixture(600_000);
  });
  after(async () => fx.close());

  async function pendingListing(volume: string, names: string[]): Promise<VolumeListing> {
    const paths = await writeTree(fx.workDir, Object.fromEntries(names.map((n) => [`${volume}/${n}`, `text of ${n}`])));
    const results = await fx.client.uploadFiles({ volume, embedding: 'emu-embed', doChunking: 1, files: paths.map((path) => ({ path })) });
    assert.ok(results.every((r) => r.ok));
    const listing = new VolumeListing(
      () => fx.client,
      volume,
      () => 10,
    );
    await listing.ensureLoaded();
    assert.equal(listing.pendingFiles.length, names.length, 'the uploads are not final yet');
    return listing;
  }

  it('backs off while nothing changes, resets on a change, one request per volume per tick', async () => {
    const first = freshVolume();
    const second = freshVolume();
    const listings = new Map([
      [first, await pendingListing(first, ['a.md', 'b.md'])],
      [second, await pendingListing(second, ['c.md'])],
    ]);
    const clock = new VirtualClock();
    const pollTimes = new Map<string, number[]>([
      [first, []],
      [second, []],
    ]);
    const poller = new StatusPoller(
      (volume, signal) => {
        pollTimes.get(volume)!.push(clock.now);
        return listings.get(volume)!.pollPending(signal);
      },
      { initialMs: 1000, maxMs: 5000, factor: 2, giveUpAfterMs: 3_600_000 },
      (volume, error) => assert.fail(`poll of ${volume} failed: ${(error as Error).message}`),
      () => clock.now,
      clock,
    );
    const gaps = (volume: string) => pollTimes.get(volume)!.map((t, i, all) => t - (all[i - 1] ?? 0));
    /** One step of the clock; returns the requests the emulator received for it. */
    const tick = async () => {
      const before = fx.emulator.stats.requests;
      const fired = clock.step();
      await until(() => clock.armed === poller.watchedVolumes.length, 2);
      return { fired, requests: fx.emulator.stats.requests - before };
    };

    try {
      poller.watch(first);
      poller.watch(second);
      for (let i = 0; i < 5; i++) {
        const { fired, requests } = await tick();
        assert.equal(fired, 2, 'both volumes share the schedule while neither changes');
        assert.equal(requests, 2, `tick ${i + 1}: one request per volume`);
      }
      assert.deepEqual(gaps(first), [1000, 2000, 4000, 5000, 5000], 'grows by the factor up to the longest interval');
      assert.deepEqual(gaps(second), [1000, 2000, 4000, 5000, 5000]);

      // A file of the first volume changes (it is deleted elsewhere): its next poll sees it.
      const gone = listings.get(first)!.visibleFiles[0]!;
      await fx.client.deleteFiles({ volume: first, uuids: [gone.uuid] });
      await tick(); // both poll at 22 s; the first one notices the change
      assert.equal(listings.get(first)!.find(gone.uuid), undefined, 'the listing dropped the deleted file');
      await tick(); // 23 s: only the first volume, at the first interval again
      await tick(); // 25 s: the first volume, 2 s later
      const { fired, requests } = await tick(); // 27 s: the second volume, still 5 s apart
      assert.deepEqual({ fired, requests }, { fired: 1, requests: 1 });
      assert.deepEqual(gaps(first), [1000, 2000, 4000, 5000, 5000, 5000, 1000, 2000], 'the first interval again after the change, then growing');
      assert.deepEqual(gaps(second), [1000, 2000, 4000, 5000, 5000, 5000, 5000], 'a change in another volume does not reset this one');
      assert.equal(poller.isWatching(first), true, 'the other file is still pending');
    } finally {
      poller.dispose();
    }
  });
});
