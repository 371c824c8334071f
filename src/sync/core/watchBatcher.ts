// Watch mode's core: file events in, one sync run out per quiet period. Events for paths
// the exclude rules drop (.gitignore, globs, the manifest itself) never start a run; a
// burst of saves (format on save, git checkout) becomes one run after `quietMs` without
// events, and changes that never stop still start one within WATCH_LIMITS.maxWaitMs; events
// during a run start one more run after it, never two at once; a failed run is tried again
// with backoff (events meanwhile wait for that try). The clock is injected so tests drive
// time instead of waiting. No `vscode` import.
import { lstat } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { globsMatcher } from '../../common/core/folderExpansion';
import { GitignoreCache } from '../../common/core/gitignore';
import { globCostProblem } from '../../common/core/globCost';
import { isManifestPath, toPosix } from './scan';

export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Watch mode's timing limits: WATCH_LIMITS, or a test's own (given to the batcher, the resend rule and the runner). */
export interface WatchLimits {
  readonly maxWaitMs: number;
  readonly firstRetryMs: number;
  readonly longestRetryMs: number;
  readonly fileIntervalMs: number;
}

/**
 * Watch mode's timing limits (their one home; docs/sync.md "Editor flow" states them). The
 * quiet period itself is the setting `ksm.sync.watchDelayMs`. Frozen: a test that wants
 * others passes its own `WatchLimits` instead of changing these for every test after it.
 */
export const WATCH_LIMITS: WatchLimits = Object.freeze({
  /**
   * However often changes come, a run starts at most this long after the first change it
   * takes (never sooner than the quiet period): a log appended every second in the folder
   * re-armed the quiet period forever, and nothing in the folder was synced at all.
   */
  maxWaitMs: 60_000,
  /** A run that failed (service down or refusing, another window's lock) is tried again after this… */
  firstRetryMs: 15_000,
  /** …twice as long after each further failure, up to this; a Retry-After asking for longer is honoured up to this too. */
  longestRetryMs: 10 * 60_000,
  /**
   * A watch run sends a file again at most this long after a watch run of this pairing (in
   * this window) sent its last copy; sooner, the file waits, what the volume holds of it
   * is kept, and a run comes by itself when the wait is over. A log appended every 3 s (slower
   * than the quiet period) was uploaded again, and its older copy deleted, at every append.
   * A first change is sent after the quiet period as before; a run the user starts takes
   * every file.
   */
  fileIntervalMs: 60_000,
} as const);

/**
 * A watch run's rule for files sent a moment ago (WATCH_LIMITS.fileIntervalMs), given to
 * the plan: `lastSent` is the pairing's memory across runs, when each path's copy was last
 * sent (`noteSent`).
 */
export interface ResendRule {
  nowMs: number;
  lastSent: Map<string, number>;
  /** WATCH_LIMITS.fileIntervalMs unless given. */
  intervalMs?: number;
}

/** Undefined when a watch run may send `rel` now; else how long until it may. */
export function resendWaitMs(rel: string, rule: ResendRule): number | undefined {
  const last = rule.lastSent.get(rel);
  if (last === undefined) return undefined;
  const intervalMs = rule.intervalMs ?? WATCH_LIMITS.fileIntervalMs;
  const wait = last + intervalMs - rule.nowMs;
  if (wait <= 0 || wait > intervalMs) {
    rule.lastSent.delete(rel); // due (or a clock set back): forgotten
    return undefined;
  }
  return wait;
}

/** Records the paths a run sent (uploaded or replaced) at `nowMs`, and forgets entries past the interval (the map stays the size of a minute's sends). */
export function noteSent(lastSent: Map<string, number>, results: ReadonlyArray<{ rel: string; action: string }>, nowMs: number, intervalMs = WATCH_LIMITS.fileIntervalMs): void {
  for (const [rel, at] of lastSent) if (nowMs - at >= intervalMs) lastSent.delete(rel);
  for (const r of results) if (r.action === 'uploaded' || r.action === 'replaced') lastSent.set(r.rel, nowMs);
}

/** What a run is told: how many runs in a row failed before it (0 for a first try), so a retry need not tell the user again. */
export interface WatchRunContext {
  failures: number;
}

/** What a run may answer: it left files out (sent a moment ago, WATCH_LIMITS.fileIntervalMs); the batcher runs again in `againInMs` with no new event. */
export interface WatchRunResult {
  againInMs?: number;
}

export class WatchBatcher {
  private timer: unknown;
  /** The latest moment the pending changes wait for (WATCH_LIMITS.maxWaitMs). */
  private deadline: unknown;
  /** Armed after a failed run: nothing starts before it fires, and then the changes held are tried again. */
  private backoff: unknown;
  /** Armed after a run that left files out (sent a moment ago): a run when they may be sent, with no event needed. */
  private recheck: unknown;
  /** The paths of the run that left files out, taken again by the next run. */
  private held: string[] = [];
  private failures = 0;
  private pending = new Set<string>();
  private running: Promise<void> | undefined;
  private disposed = false;

  constructor(
    private readonly run: (changed: string[], context: WatchRunContext) => Promise<WatchRunResult | void>,
    private readonly options: {
      quietMs: number;
      clock?: Clock;
      isRelevant?: (path: string) => Promise<boolean> | boolean;
      /** A run failed (it rejected): the next try is in `delayMs`. */
      onRetry?: (delayMs: number, error: unknown) => void;
      /** WATCH_LIMITS unless given (tests pass their own). */
      limits?: WatchLimits;
    },
  ) {}

  /** A file under the folder was created, changed or deleted. */
  async notify(path: string): Promise<void> {
    if (this.disposed) return;
    if (this.options.isRelevant && !(await this.options.isRelevant(path))) return;
    this.pending.add(path);
    this.arm();
  }

  /** Resolves when no run is in progress (for tests and shutdown). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  dispose(): void {
    this.disposed = true;
    for (const handle of [this.timer, this.deadline, this.backoff, this.recheck]) if (handle !== undefined) this.clock.clearTimeout(handle);
    this.timer = this.deadline = this.backoff = this.recheck = undefined;
  }

  private get clock(): Clock {
    return this.options.clock ?? realClock;
  }

  private get limits(): WatchLimits {
    return this.options.limits ?? WATCH_LIMITS;
  }

  private arm(): void {
    if (this.backoff !== undefined) return; // a failed run's retry is due: it takes these changes too
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.fire();
    }, this.options.quietMs);
    this.deadline ??= this.clock.setTimeout(
      () => {
        this.deadline = undefined;
        void this.fire();
      },
      Math.max(this.limits.maxWaitMs, this.options.quietMs),
    );
  }

  private async fire(): Promise<void> {
    if (this.disposed || this.pending.size === 0 || this.backoff !== undefined) return;
    if (this.running) return; // the run in progress re-arms when it ends
    for (const handle of [this.timer, this.deadline, this.recheck]) if (handle !== undefined) this.clock.clearTimeout(handle);
    this.timer = this.deadline = this.recheck = undefined;
    const changed = [...new Set([...this.held, ...this.pending])];
    this.pending.clear();
    this.held = [];
    this.running = this.run(changed, { failures: this.failures })
      .then(
        (result) => {
          this.failures = 0;
          const againInMs = result ? result.againInMs : undefined;
          if (againInMs === undefined || this.disposed) return;
          // Files sent a moment ago were left out: one run when they may be sent again (not one per quiet period meanwhile).
          this.held = changed;
          this.recheck = this.clock.setTimeout(
            () => {
              this.recheck = undefined;
              for (const path of this.held) this.pending.add(path);
              this.held = [];
              void this.fire();
            },
            Math.max(this.options.quietMs, againInMs),
          );
        },
        (error: unknown) => {
          if (this.disposed) return;
          // Nothing is lost: the changes wait for the retry, and every event meanwhile joins them instead of starting a run of its own.
          for (const path of changed) this.pending.add(path);
          this.failures++;
          const delayMs = retryDelayMs(this.failures, error, this.options.quietMs, this.limits);
          this.options.onRetry?.(delayMs, error);
          this.backoff = this.clock.setTimeout(() => {
            this.backoff = undefined;
            void this.fire();
          }, delayMs);
        },
      )
      .finally(() => {
        this.running = undefined;
        if (this.pending.size && !this.disposed) this.arm();
      });
    await this.running;
  }
}

/** The wait before retry number `failures` (1 for the first): doubling from `firstRetryMs`, longer when the service asked (Retry-After), never past `longestRetryMs`. */
function retryDelayMs(failures: number, error: unknown, quietMs: number, limits: WatchLimits): number {
  const doubled = limits.firstRetryMs * 2 ** Math.min(failures - 1, 30);
  return Math.min(limits.longestRetryMs, Math.max(quietMs, doubled, askedWait(error) ?? 0));
}

/** The Retry-After (ms) of an error or of its cause (a stopped run's), when it names a usable one. */
function askedWait(error: unknown): number | undefined {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const ms = (e as { retryAfterMs?: unknown }).retryAfterMs;
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return ms;
  }
  return undefined;
}

/**
 * Whether an event path matters to a sync of `folder`: inside it, not the manifest, not
 * excluded by a glob or by a `.gitignore` between the root and the file. The same rules as
 * the scan, applied to one path. The `.gitignore` files are read through one `GitignoreCache`
 * (common/core/gitignore.ts, the reader the scan uses too): from the root down, one read of
 * each folder's file at a time shared by the events meanwhile, and an edit applies at once.
 * `wasFile` says whether a path (relative to `folder`, `/`-separated) was a file the last sync
 * recorded: the one thing known of a path gone by the time its event is looked at.
 */
export function eventFilter(folder: string, rules: { excludeGlobs: string[]; root?: string; wasFile?: (rel: string) => boolean | Promise<boolean> }): (path: string) => Promise<boolean> {
  const base = resolve(folder);
  const root = rules.root ? resolve(rules.root) : base;
  // The scan's matcher, on the globs the budget (globCost.ts) lets through: one it refuses
  // held the extension host for minutes on each event of a long name (the watch filter
  // compiled every exclude with picomatch); the run it lets start refuses it by name.
  const usable = rules.excludeGlobs.filter((glob) => globCostProblem(glob) === undefined);
  const isExcluded = usable.length ? globsMatcher(usable) : () => false;
  const gitignores = new GitignoreCache();
  return async (path) => {
    const full = resolve(path);
    if (!full.startsWith(base + sep)) return false;
    const rel = toPosix(relative(base, full));
    if (isManifestPath(rel)) return false;
    const fromRoot = toPosix(relative(root, full));
    const parts = fromRoot.split('/');
    for (let i = 1; i <= parts.length; i++) if (isExcluded(parts.slice(0, i).join('/'))) return false;
    // A `dir/` line leaves out folders only, so the event's path is looked at: a folder made or
    // removed that git leaves out starts no run. A path gone by now (a folder deleted with
    // everything in it) is left out when git would leave it out as a file or as a folder,
    // unless the last sync recorded it as a file: then `dir/` lines never applied to it, and
    // its deletion starts a run (a file `build` under `build/` was synced, but its deletion
    // waited for some other change).
    const kind = await lstat(full).then(
      (info) => (info.isDirectory() ? 'dir' : 'file'),
      () => 'gone',
    );
    if (kind !== 'gone') return !(await gitignores.ignores(full, root, kind === 'dir'));
    if (await gitignores.ignores(full, root, false)) return false;
    return !(await gitignores.ignores(full, root, true)) || (await (rules.wasFile?.(rel) ?? false));
  };
}
