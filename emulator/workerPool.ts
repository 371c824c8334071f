// A small pool of processing workers that runs one file per worker at a time. Workers are
// child processes (fork), not worker_threads: V8 may abort the whole process when a worker
// thread's heap cap is overshot by one large allocation (tried: a 40 MB string in a thread
// capped at 24 MB took the emulator down), and a hostile file must never do that. A child
// that dies takes only its file with it.
//
// Hand-rolled rather than piscina (threads only) or a process pool package: what we need
// beyond a queue is the part a generic pool hides — end a worker that runs past the file's
// time limit or dies of its heap cap, answer that file with the reason, start a fresh worker
// for the next file — and that is a few lines over child_process.fork.
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism, setPriority } from 'node:os';
import { join } from 'node:path';
import { WORKER_HEAP_MB } from './limits';
import type { FileJob, JobResult } from './processWorker';

interface Pending {
  job: FileJob;
  resolve: (result: JobResult) => void;
}

interface Slot {
  child: ChildProcess;
  /** Resolves when the worker has loaded (the file's time limit starts then, not at spawn). */
  ready: Promise<void>;
  /** The end of the worker's stderr, to tell an out-of-memory death from another crash. */
  stderrTail: string;
  busy?: { pending: Pending; timer?: NodeJS.Timeout; settle: (result: JobResult) => void };
}

export const DEFAULT_WORKERS = Math.max(1, Math.min(4, availableParallelism() - 1));

export class WorkerPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly timeoutMs: number,
    private readonly heapMb: number = WORKER_HEAP_MB,
  ) {}

  /** Starts one worker ahead of need, so the first file does not wait for a worker to load. */
  warm(): void {
    if (this.slots.size === 0 && !this.closed) this.spawn();
  }

  run(job: FileJob): Promise<JobResult> {
    if (this.closed) return Promise.resolve({ ok: false, reason: 'the emulator is stopping' });
    return new Promise((resolve) => {
      this.queue.push({ job, resolve });
      this.dispatch();
    });
  }

  /** Ends every worker; jobs in flight or queued answer "stopping" (their files resume at the next start). */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.resolve({ ok: false, reason: 'the emulator is stopping' });
    await Promise.all([...this.slots].map((slot) => this.retire(slot, { ok: false, reason: 'the emulator is stopping' })));
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      let slot = [...this.slots].find((candidate) => !candidate.busy);
      if (!slot && this.slots.size < this.size) slot = this.spawn();
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
  }

  private spawn(): Slot {
    // The worker is TypeScript like the rest of the emulator: tsx's require hook loads it.
    const child = fork(join(__dirname, 'processWorker.ts'), [], {
      execArgv: ['--require', require.resolve('tsx/cjs'), `--max-old-space-size=${this.heapMb}`],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    try {
      // Requests first: on a busy machine the worker gets the CPU the server leaves.
      if (child.pid) setPriority(child.pid, 10);
    } catch {
      // not permitted here: the worker runs at normal priority
    }
    let markReady!: () => void;
    const slot: Slot = { child, stderrTail: '', ready: new Promise((resolve) => (markReady = resolve)) };
    child.stderr?.on('data', (chunk: Buffer) => (slot.stderrTail = (slot.stderrTail + chunk.toString()).slice(-4000)));
    child.on('message', (message: JobResult | 'ready') => (message === 'ready' ? markReady() : slot.busy?.settle(message)));
    child.on('error', (error) => void this.retire(slot, { ok: false, reason: `the processing worker failed: ${error.message}` }));
    child.on('exit', (code, signal) => {
      const outOfMemory = /heap out of memory|Reached heap limit/i.test(slot.stderrTail);
      const reason = outOfMemory
        ? `processing ran out of memory (the worker's ${this.heapMb} MB heap cap): the file is too large or expands too much to index`
        : `the processing worker crashed (${signal ?? `exit code ${code}`})`;
      void this.retire(slot, { ok: false, reason });
    });
    // Idle workers must not keep a process alive that is otherwise done.
    child.unref();
    (child.channel as unknown as { unref?: () => void } | undefined)?.unref?.();
    this.slots.add(slot);
    return slot;
  }

  private start(slot: Slot, pending: Pending): void {
    const busy: NonNullable<Slot['busy']> = {
      pending,
      settle: (result) => {
        clearTimeout(busy.timer);
        slot.busy = undefined;
        pending.resolve(result);
        this.dispatch();
      },
    };
    slot.busy = busy;
    void slot.ready.then(() => {
      if (slot.busy !== busy) return; // retired while loading
      busy.timer = setTimeout(() => {
        const limit = this.timeoutMs >= 1000 ? `${Math.round(this.timeoutMs / 1000)} s` : `${this.timeoutMs} ms`;
        void this.retire(slot, { ok: false, reason: `processing took longer than ${limit}, the emulator's limit per file` });
      }, this.timeoutMs);
      slot.child.send(pending.job);
    });
  }

  /** Answers the slot's job with `result`, ends the worker, and lets a fresh one take the queue. */
  private async retire(slot: Slot, result: JobResult): Promise<void> {
    if (!this.slots.delete(slot)) return;
    const busy = slot.busy;
    slot.busy = undefined;
    if (busy) {
      clearTimeout(busy.timer);
      busy.pending.resolve(result);
    }
    if (slot.child.exitCode === null && slot.child.signalCode === null) {
      const exited = new Promise((resolve) => slot.child.once('exit', resolve));
      slot.child.ref(); // keeps this process alive until the worker is really gone
      slot.child.kill('SIGKILL');
      await exited;
    }
    this.dispatch();
  }
}
