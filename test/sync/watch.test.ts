// Watch mode's core with an injected clock: a burst of saves becomes one run, events during
// a run make exactly one more, and excluded paths (globs, .gitignore, the manifest) never start one.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RateLimitedError, ServerError } from '../../src/api/errors';
import { SyncStoppedError } from '../../src/sync/core/apply';
import { eventFilter, noteSent, resendWaitMs, WATCH_LIMITS, WatchBatcher, type Clock } from '../../src/sync/core/watchBatcher';

class ManualClock implements Clock {
  now = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.timers.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  advance(ms: number): void {
    this.now += ms;
    for (const [id, timer] of [...this.timers]) {
      if (timer.at <= this.now) {
        this.timers.delete(id);
        timer.fn();
      }
    }
  }
  get armed(): number {
    return this.timers.size;
  }
}

describe('sync watch batcher', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-sync-watch-'));
    mkdirSync(join(dir, 'docs/build'), { recursive: true });
    mkdirSync(join(dir, 'docs/node_modules/x'), { recursive: true });
    writeFileSync(join(dir, '.gitignore'), 'build/\n*.log\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('debounces a burst of saves into one run with every changed path', async () => {
    const clock = new ManualClock();
    const runs: string[][] = [];
    const batcher = new WatchBatcher(async (changed) => void runs.push(changed.sort()), { quietMs: 500, clock });
    for (let i = 0; i < 20; i++) {
      await batcher.notify(join(dir, `docs/f${i % 5}.md`));
      clock.advance(100); // each save comes before the quiet period ends
    }
    assert.equal(runs.length, 0, 'no run while saves keep coming');
    clock.advance(500);
    await batcher.settled();
    assert.equal(runs.length, 1);
    assert.deepEqual(
      runs[0],
      [0, 1, 2, 3, 4].map((i) => join(dir, `docs/f${i}.md`)),
    );
    batcher.dispose();
  });

  it('events during a run start exactly one more run after it, never two at once', async () => {
    const clock = new ManualClock();
    let release!: () => void;
    let active = 0;
    let maxActive = 0;
    const runs: string[][] = [];
    const batcher = new WatchBatcher(
      async (changed) => {
        active++;
        maxActive = Math.max(maxActive, active);
        runs.push(changed);
        if (runs.length === 1) await new Promise<void>((r) => (release = r));
        active--;
      },
      { quietMs: 10, clock },
    );
    await batcher.notify(join(dir, 'docs/a.md'));
    clock.advance(10);
    await batcher.notify(join(dir, 'docs/b.md'));
    await batcher.notify(join(dir, 'docs/c.md'));
    clock.advance(10); // fires while the first run is busy: waits
    assert.equal(runs.length, 1);
    release();
    await new Promise((r) => setImmediate(r));
    clock.advance(10);
    await batcher.settled();
    assert.equal(runs.length, 2);
    assert.deepEqual(runs[1].sort(), [join(dir, 'docs/b.md'), join(dir, 'docs/c.md')]);
    assert.equal(maxActive, 1);
    batcher.dispose();
  });

  it('ignores events for excluded paths, .gitignore-d paths, the manifest and paths outside the folder', async () => {
    const clock = new ManualClock();
    const runs: string[][] = [];
    const folder = join(dir, 'docs');
    const batcher = new WatchBatcher(async (changed) => void runs.push(changed), {
      quietMs: 10,
      clock,
      isRelevant: eventFilter(folder, { excludeGlobs: ['**/node_modules', '**/*.tmp'], root: dir }),
    });
    for (const path of ['docs/build/out.js', 'docs/debug.log', 'docs/node_modules/x/i.js', 'docs/a.tmp', 'docs/.ksm-sync.json', 'docs/.ksm-sync.json.journal', 'other/readme.md']) {
      await batcher.notify(join(dir, path));
    }
    assert.equal(clock.armed, 0, 'no excluded event arms the timer');
    clock.advance(100);
    await batcher.settled();
    assert.equal(runs.length, 0);
    await batcher.notify(join(dir, 'docs/guide.md'));
    clock.advance(10);
    await batcher.settled();
    assert.deepEqual(runs, [[join(dir, 'docs/guide.md')]]);
    batcher.dispose();
  });

  it('a folder a `dir/` line of .gitignore leaves out starts no run when it is made or deleted; a file of that name, and a folder re-included deeper, still do', async () => {
    const root = join(dir, 'dirs');
    mkdirSync(join(root, 'sub', 'cache'), { recursive: true });
    mkdirSync(join(root, 'build'), { recursive: true });
    mkdirSync(join(root, 'other'), { recursive: true });
    writeFileSync(join(root, '.gitignore'), 'build/\ncache/\n');
    writeFileSync(join(root, 'other', 'build'), 'a file, not a folder\n');
    mkdirSync(join(root, 'keep', 'cache'), { recursive: true });
    writeFileSync(join(root, 'keep', '.gitignore'), '!cache/\n');
    const isRelevant = eventFilter(root, { excludeGlobs: [] });
    assert.equal(await isRelevant(join(root, 'build')), false, 'a folder made: build/');
    assert.equal(await isRelevant(join(root, 'sub', 'cache')), false, 'cache/ at any depth');
    rmSync(join(root, 'build'), { recursive: true });
    assert.equal(await isRelevant(join(root, 'build')), false, 'a folder deleted with its files: nothing of it was synced');
    assert.equal(await isRelevant(join(root, 'other', 'build')), true, 'a file named build: `build/` is for folders only');
    assert.equal(await isRelevant(join(root, 'keep', 'cache')), true, 'keep/.gitignore re-includes its cache/');
  });

  it('a deleted file whose name a `dir/` line matches starts a run when the last sync recorded it as a file; an unknown gone path keeps the cautious answer', async () => {
    const root = join(dir, 'gone-files');
    mkdirSync(join(root, 'other'), { recursive: true });
    writeFileSync(join(root, '.gitignore'), 'build/\n*.log\n');
    writeFileSync(join(root, 'build'), 'a file, synced\n');
    writeFileSync(join(root, 'other', 'build'), 'a file, synced\n');
    const asked: string[] = [];
    const recorded = new Set(['build', 'other/build', 'old.log']);
    const isRelevant = eventFilter(root, { excludeGlobs: [], wasFile: (rel) => (asked.push(rel), recorded.has(rel)) });
    const cautious = eventFilter(root, { excludeGlobs: [] });
    assert.equal(await isRelevant(join(root, 'build')), true, 'made: a file, `build/` does not apply');
    rmSync(join(root, 'build'));
    rmSync(join(root, 'other', 'build'));
    assert.equal(await isRelevant(join(root, 'build')), true, 'deleted: it was a synced file');
    assert.equal(await isRelevant(join(root, 'other', 'build')), true, 'deleted deeper: it was a synced file');
    assert.equal(await isRelevant(join(root, 'cache', 'build')), false, 'gone and never recorded: maybe a folder `build/` left out');
    assert.equal(await isRelevant(join(root, 'old.log')), false, 'a path git leaves out as a file is left out whatever was recorded');
    assert.equal(await cautious(join(root, 'build')), false, 'without a record: the cautious answer');
    assert.deepEqual(asked, ['build', 'other/build', 'cache/build'], 'the record is asked only about a gone path a `dir/` line matches');
  });

  it("an exclude glob too costly to match (a workspace's files.exclude) is not applied to events: each is answered at once, and the run refuses the glob", async () => {
    // `**/*a*a*a*a*b` against a 255-character name took minutes per event in picomatch; the scan refuses it (globCost.ts).
    const isRelevant = eventFilter(dir, { excludeGlobs: ['**/*a*a*a*a*b', 'x+(a*)b', '**/*.tmp'], root: dir });
    assert.equal(await isRelevant(join(dir, 'docs', 'a'.repeat(250))), true);
    assert.equal(await isRelevant(join(dir, `x${'a'.repeat(60)}`)), true, 'x+(a*)b: 2^60 steps in picomatch');
    assert.equal(await isRelevant(join(dir, 'docs', 'draft.tmp')), false, 'the usable globs still apply');
  });

  it('a storm of events in an ignored folder shares one read of each .gitignore, and an edited .gitignore still applies at once', async () => {
    // The module object every `import { open } from 'node:fs/promises'` reads its function from: a .gitignore counts as open until its handle is closed.
    type Handle = { close: () => Promise<void> };
    const fsp = createRequire(__filename)('node:fs/promises') as { open: (...args: unknown[]) => Promise<Handle> };
    const original = fsp.open;
    let open = 0;
    let peak = 0;
    fsp.open = async (...args: unknown[]) => {
      if (!String(args[0]).endsWith('.gitignore')) return original(...args);
      peak = Math.max(peak, ++open);
      const handle = await original(...args).catch((error: unknown) => {
        open--;
        throw error;
      });
      const close = handle.close.bind(handle);
      handle.close = () => close().finally(() => open--);
      return handle;
    };
    const folder = join(dir, 'docs');
    const isRelevant = eventFilter(folder, { excludeGlobs: [], root: dir });
    try {
      // `npm run build` writing 3,000 files into the ignored docs/build/ at once.
      const verdicts = await Promise.all(Array.from({ length: 3000 }, (_, i) => isRelevant(join(dir, `docs/build/chunk/${i % 7}/f${i}.js`))));
      assert.equal(verdicts.filter(Boolean).length, 0, 'no file of the ignored folder counts as a change');
      // One read per folder at a time (was one per event and level: 3,000 × 5 files open at once).
      assert.ok(peak >= 1, 'the reads of .gitignore were counted');
      assert.ok(peak <= 5, `at most one read of each folder's .gitignore at once (peak ${peak})`);
    } finally {
      fsp.open = original;
    }
    assert.equal(await isRelevant(join(dir, 'docs/notes.md')), true);
    writeFileSync(join(folder, '.gitignore'), '*.md\n');
    assert.equal(await isRelevant(join(dir, 'docs/notes.md')), false, 'an edited .gitignore applies to the next event');
    rmSync(join(folder, '.gitignore'));
    assert.equal(await isRelevant(join(dir, 'docs/notes.md')), true, 'and a removed one stops applying');
  });

  it('changes that never stop (a log appended every 100 ms) still start a run within the longest wait, and then one per longest wait', async () => {
    const clock = new ManualClock();
    const runs: number[] = [];
    const batcher = new WatchBatcher(async () => void runs.push(clock.now), { quietMs: 500, clock });
    const until = 2 * WATCH_LIMITS.maxWaitMs + 1000;
    while (clock.now < until) {
      await batcher.notify(join(dir, 'docs/server.txt'));
      clock.advance(100);
      await batcher.settled();
    }
    assert.ok(runs.length >= 2, `a run at least once per longest wait (${runs.length} runs)`);
    assert.ok(runs[0] <= WATCH_LIMITS.maxWaitMs, `the first run ${runs[0]} ms after the first change`);
    assert.ok(runs.length <= Math.ceil(until / WATCH_LIMITS.maxWaitMs), 'no more than one per longest wait');
    batcher.dispose();
  });

  it('a run that left files out (sent a moment ago) is followed by one run when they may be sent, with no new event and none per quiet period meanwhile', async () => {
    const clock = new ManualClock();
    const runs: Array<{ changed: string[]; at: number }> = [];
    let answer: { againInMs?: number } | undefined = { againInMs: 40_000 };
    const batcher = new WatchBatcher(
      async (changed) => {
        runs.push({ changed, at: clock.now });
        const given = answer;
        answer = undefined;
        return given;
      },
      { quietMs: 500, clock },
    );
    await batcher.notify(join(dir, 'docs/server.txt'));
    clock.advance(500);
    await batcher.settled();
    assert.equal(runs.length, 1);
    for (let t = 0; t < 39_000; t += 1000) {
      clock.advance(1000);
      await batcher.settled();
    }
    assert.equal(runs.length, 1, 'no run before the files may be sent');
    clock.advance(1000);
    await batcher.settled();
    assert.equal(runs.length, 2, 'one run when they may be sent, with no new event');
    assert.deepEqual(runs[1].changed, [join(dir, 'docs/server.txt')]);
    clock.advance(10 * WATCH_LIMITS.fileIntervalMs);
    await batcher.settled();
    assert.equal(runs.length, 2, 'and none after a run that left nothing out');
    batcher.dispose();
  });

  it('a file a watch run sent waits WATCH_LIMITS.fileIntervalMs before it is sent again; other files and a clock set back do not wait', () => {
    const lastSent = new Map<string, number>();
    noteSent(
      lastSent,
      [
        { rel: 'server.log', action: 'replaced' },
        { rel: 'gone.md', action: 'deleted' },
        { rel: 'bad.md', action: 'failed' },
      ],
      1_000_000,
    );
    assert.deepEqual([...lastSent.keys()], ['server.log'], 'only copies sent are noted');
    assert.equal(resendWaitMs('server.log', { nowMs: 1_000_000 + 3_000, lastSent }), WATCH_LIMITS.fileIntervalMs - 3_000);
    assert.equal(resendWaitMs('other.md', { nowMs: 1_000_000 + 3_000, lastSent }), undefined);
    assert.equal(resendWaitMs('server.log', { nowMs: 1_000_000 - 5_000, lastSent }), undefined, 'a clock set back never holds a file longer than the interval');
    noteSent(lastSent, [{ rel: 'server.log', action: 'replaced' }], 2_000_000);
    assert.equal(resendWaitMs('server.log', { nowMs: 2_000_000 + WATCH_LIMITS.fileIntervalMs, lastSent }), undefined, 'due once the interval is over');
    noteSent(lastSent, [{ rel: 'a.md', action: 'uploaded' }], 3_000_000);
    assert.deepEqual([...lastSent.keys()], ['a.md'], 'entries past the interval are forgotten');
  });

  it('a failed run is tried again with doubling backoff, events meanwhile wait for that try, and each run is told how many failed before it', async () => {
    const clock = new ManualClock();
    const runs: Array<{ changed: string[]; failures: number; at: number }> = [];
    const retries: number[] = [];
    let failing = 3;
    const batcher = new WatchBatcher(
      async (changed, context) => {
        runs.push({ changed: [...changed].sort(), failures: context.failures, at: clock.now });
        if (failing-- > 0) throw new ServerError('503', { status: 503 });
      },
      { quietMs: 500, clock, onRetry: (ms) => retries.push(ms) },
    );
    const step = async (ms: number) => {
      clock.advance(ms);
      await batcher.settled();
    };
    await batcher.notify(join(dir, 'docs/a.md'));
    await step(500);
    assert.equal(runs.length, 1);
    // The service is down: saves during the wait start no run of their own (was one request per save).
    for (let i = 0; i < 20; i++) {
      await batcher.notify(join(dir, `docs/b${i % 2}.md`));
      await step(600);
    }
    assert.equal(runs.length, 1, 'no run before the retry is due');
    await step(WATCH_LIMITS.firstRetryMs);
    assert.equal(runs.length, 2, 'tried again by itself, no new save needed');
    assert.deepEqual(
      runs[1].changed,
      ['a.md', 'b0.md', 'b1.md'].map((f) => join(dir, 'docs', f)),
      "the failed run's changes and those made meanwhile",
    );
    for (let i = 0; i < 12 && runs.length < 4; i++) await step(WATCH_LIMITS.firstRetryMs);
    assert.equal(runs.length, 4);
    assert.deepEqual(
      runs.map((r) => r.failures),
      [0, 1, 2, 3],
    );
    assert.deepEqual(
      retries,
      [1, 2, 4].map((n) => n * WATCH_LIMITS.firstRetryMs),
    );
    assert.equal(runs[3].at - runs[2].at, 4 * WATCH_LIMITS.firstRetryMs);
    // Back: the next change is a first try again, after the quiet period only.
    await batcher.notify(join(dir, 'docs/c.md'));
    await step(500);
    assert.equal(runs.length, 5);
    assert.equal(runs[4].failures, 0);
    batcher.dispose();
  });

  it('a retry waits what the service asked (Retry-After, also behind a stopped run), never longer than the longest retry, and a disposed batcher never retries', async () => {
    const clock = new ManualClock();
    const errors: unknown[] = [
      new SyncStoppedError('stopped', 'service', { cause: new RateLimitedError('429', { status: 429, retryAfterMs: 5 * WATCH_LIMITS.firstRetryMs }) }),
      new ServerError('503', { status: 503, retryAfterMs: 10 * 365 * 24 * 3600_000 }),
      ...Array.from({ length: 20 }, () => new Error('refused')),
    ];
    const retries: number[] = [];
    let runs = 0;
    const batcher = new WatchBatcher(
      async () => {
        runs++;
        const error = errors.shift();
        if (error) throw error;
      },
      { quietMs: 500, clock, onRetry: (ms) => retries.push(ms) },
    );
    await batcher.notify(join(dir, 'docs/a.md'));
    clock.advance(500);
    await batcher.settled();
    for (let i = 0; i < 30; i++) {
      clock.advance(WATCH_LIMITS.longestRetryMs);
      await batcher.settled();
    }
    assert.equal(retries[0], 5 * WATCH_LIMITS.firstRetryMs, "the Retry-After of the stopped run's cause");
    assert.equal(retries[1], WATCH_LIMITS.longestRetryMs, 'a Retry-After of ten years waits the longest retry');
    assert.ok(
      retries.every((ms) => ms <= WATCH_LIMITS.longestRetryMs),
      'never past the longest retry',
    );
    assert.equal(retries[retries.length - 1], WATCH_LIMITS.longestRetryMs);
    const before = runs;
    await batcher.notify(join(dir, 'docs/b.md'));
    batcher.dispose();
    clock.advance(10 * WATCH_LIMITS.longestRetryMs);
    await batcher.settled();
    assert.equal(runs, before, 'no run after dispose');
    assert.equal(clock.armed, 0, 'no timer left');
  });

  it('WATCH_LIMITS cannot be changed: a test passes its own limits to the batcher and the resend rule instead', async () => {
    assert.ok(Object.isFrozen(WATCH_LIMITS));
    assert.throws(() => {
      (WATCH_LIMITS as { firstRetryMs: number }).firstRetryMs = 1;
    }, TypeError);
    assert.equal(WATCH_LIMITS.firstRetryMs, 15_000);
    const limits = { maxWaitMs: 700, firstRetryMs: 40, longestRetryMs: 100, fileIntervalMs: 300 };
    const clock = new ManualClock();
    const runs: number[] = [];
    const retries: number[] = [];
    const batcher = new WatchBatcher(
      async () => {
        runs.push(clock.now);
        throw new ServerError('down', { status: 503 });
      },
      { quietMs: 10, clock, limits, onRetry: (ms) => retries.push(ms) },
    );
    await batcher.notify(join(dir, 'docs/a.md'));
    for (let i = 0; i < 100 && retries.length < 4; i++) {
      clock.advance(10);
      await batcher.settled();
    }
    assert.deepEqual(retries, [40, 80, 100, 100], 'doubling from its firstRetryMs up to its longestRetryMs');
    batcher.dispose();
    // Changes that never stop: a run within its maxWaitMs.
    const steady = new WatchBatcher(async () => void runs.push(-clock.now), { quietMs: 50, clock, limits });
    const start = clock.now;
    while (!runs.some((at) => at < 0)) {
      await steady.notify(join(dir, 'docs/log.md'));
      clock.advance(20);
      await steady.settled();
    }
    assert.ok(-runs.find((at) => at < 0)! - start <= 700, 'the first run within its maxWaitMs');
    steady.dispose();
    const lastSent = new Map([['a.md', 1_000]]);
    assert.equal(resendWaitMs('a.md', { nowMs: 1_100, lastSent, intervalMs: 300 }), 200);
    noteSent(lastSent, [], 1_300, 300);
    assert.equal(lastSent.size, 0, 'forgotten once its interval is over');
  });
});
