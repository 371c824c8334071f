// Watch mode's core with an injected clock: a burst of saves becomes one run, events during
// a run make exactly one more, and excluded paths (globs, .gitignore, the manifest) never start one.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventFilter, WATCH_LIMITS, WatchBatcher, type Clock } from '../../src/sync/core/watchBatcher';

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

  it('a storm of events in an ignored folder shares one read of each .gitignore, and an edited .gitignore still applies at once', async () => {
    // The module object every `import { readFile } from 'node:fs/promises'` reads its function from.
    const fsp = createRequire(__filename)('node:fs/promises') as { readFile: (...args: unknown[]) => Promise<unknown> };
    const original = fsp.readFile;
    let open = 0;
    let peak = 0;
    fsp.readFile = async (...args: unknown[]) => {
      const counted = String(args[0]).endsWith('.gitignore');
      if (counted) peak = Math.max(peak, ++open);
      try {
        return await original(...args);
      } finally {
        if (counted) open--;
      }
    };
    const folder = join(dir, 'docs');
    const isRelevant = eventFilter(folder, { excludeGlobs: [], root: dir });
    try {
      // `npm run build` writing 3,000 files into the ignored docs/build/ at once.
      const verdicts = await Promise.all(Array.from({ length: 3000 }, (_, i) => isRelevant(join(dir, `docs/build/chunk/${i % 7}/f${i}.js`))));
      assert.equal(verdicts.filter(Boolean).length, 0, 'no file of the ignored folder counts as a change');
      // One read per folder at a time (was one per event and level: 3,000 × 5 files open at once).
      assert.ok(peak <= 5, `at most one read of each folder's .gitignore at once (peak ${peak})`);
    } finally {
      fsp.readFile = original;
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
});
