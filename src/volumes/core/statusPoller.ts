// Live status: polls each volume that has files not yet final, one request per volume per
// tick, backing off while nothing changes and stopping when all are final or after a cap.
// Paused while the view is hidden. No `vscode` import; timers and clock are injectable.
import { isCancellation } from '../../api/errors';

export interface PollSchedule {
  /** First interval, and the interval again after a poll that saw a change. */
  initialMs: number;
  /** Longest interval the back-off reaches. */
  maxMs: number;
  /** Interval growth after a poll where nothing changed. */
  factor: number;
  /** A volume stops being polled this long after its last change. */
  giveUpAfterMs: number;
}

export const DEFAULT_POLL_SCHEDULE: PollSchedule = { initialMs: 1000, maxMs: 15_000, factor: 1.6, giveUpAfterMs: 10 * 60_000 };

/** What one poll of a volume reports. */
export interface PollOutcome {
  pending: number;
  changed: number;
}

/** How the poller waits; tests pass a virtual clock's timers to step through the schedule. */
export interface PollTimers {
  set(callback: () => void, delayMs: number): unknown;
  clear(handle: unknown): void;
}

const REAL_TIMERS: PollTimers = {
  set: (callback, delayMs) => setTimeout(callback, delayMs),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout> | undefined),
};

interface VolumeTimer {
  interval: number;
  lastChangeAt: number;
  timer?: unknown;
  running?: AbortController;
}

export class StatusPoller {
  private readonly volumes = new Map<string, VolumeTimer>();
  private visible = true;
  private disposed = false;

  constructor(
    private readonly pollVolume: (volume: string, signal: AbortSignal) => Promise<PollOutcome>,
    private readonly schedule: PollSchedule = DEFAULT_POLL_SCHEDULE,
    private readonly onError: (volume: string, error: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
    private readonly timers: PollTimers = REAL_TIMERS,
  ) {}

  /** Starts (or restarts at the fast interval) polling a volume. */
  watch(volume: string): void {
    if (this.disposed) return;
    const existing = this.volumes.get(volume);
    const entry: VolumeTimer = existing ?? { interval: this.schedule.initialMs, lastChangeAt: this.now() };
    entry.interval = this.schedule.initialMs;
    entry.lastChangeAt = this.now();
    this.volumes.set(volume, entry);
    if (!entry.running) this.arm(volume, entry);
  }

  /** Stops polling a volume (removed from the view, or it failed). */
  unwatch(volume: string): void {
    const entry = this.volumes.get(volume);
    if (!entry) return;
    this.clearTimer(entry);
    entry.running?.abort();
    this.volumes.delete(volume);
  }

  isWatching(volume: string): boolean {
    return this.volumes.has(volume);
  }

  get watchedVolumes(): string[] {
    return [...this.volumes.keys()];
  }

  /** Hidden: timers stop; shown again: every watched volume polls at once. */
  setVisible(visible: boolean): void {
    if (visible === this.visible) return;
    this.visible = visible;
    for (const [volume, entry] of this.volumes) {
      this.clearTimer(entry);
      if (visible && !entry.running) {
        entry.interval = this.schedule.initialMs;
        this.arm(volume, entry, 0);
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const volume of [...this.volumes.keys()]) this.unwatch(volume);
  }

  private arm(volume: string, entry: VolumeTimer, delay = entry.interval): void {
    this.clearTimer(entry);
    if (!this.visible || this.disposed) return;
    entry.timer = this.timers.set(() => void this.tick(volume, entry), delay);
  }

  private clearTimer(entry: VolumeTimer): void {
    if (entry.timer !== undefined) this.timers.clear(entry.timer);
    entry.timer = undefined;
  }

  private async tick(volume: string, entry: VolumeTimer): Promise<void> {
    entry.timer = undefined;
    if (this.volumes.get(volume) !== entry) return;
    const controller = new AbortController();
    entry.running = controller;
    let outcome: PollOutcome | undefined;
    try {
      outcome = await this.pollVolume(volume, controller.signal);
    } catch (error) {
      if (!isCancellation(error)) this.onError(volume, error);
    } finally {
      entry.running = undefined;
    }
    if (this.volumes.get(volume) !== entry) return;
    // A failed poll or nothing left to wait for ends the watch; the listing shows the error.
    if (!outcome || outcome.pending === 0) {
      this.volumes.delete(volume);
      return;
    }
    if (outcome.changed > 0) {
      entry.lastChangeAt = this.now();
      entry.interval = this.schedule.initialMs;
    } else {
      if (this.now() - entry.lastChangeAt >= this.schedule.giveUpAfterMs) {
        this.volumes.delete(volume);
        return;
      }
      entry.interval = Math.min(this.schedule.maxMs, entry.interval * this.schedule.factor);
    }
    this.arm(volume, entry);
  }
}
