// A small pool of processing workers (worker_threads) that runs one file per worker at a
// time. Hand-rolled rather than piscina: what we need beyond a queue is exactly the part a
// generic pool hides — end a worker that runs past the file's timeout or dies of its heap
// cap, answer that file with the reason, and start a fresh worker for the next file — and
// that is a few lines over worker_threads with resourceLimits.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { WORKER_HEAP_MB } from './limits';
import type { FileJob, JobResult } from './processWorker';

interface Pending {
  job: FileJob;
  resolve: (result: JobResult) => void;
}

interface Slot {
  worker: Worker;
  /** Resolves when the worker has loaded (the file's time limit starts then, not at spawn). */
  ready: Promise<void>;
  busy?: { pending: Pending; timer: NodeJS.Timeout; settle: (result: JobResult) => void };
}

export const DEFAULT_WORKERS = Math.max(1, Math.min(4, availableParallelism() - 1));

export class WorkerPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly timeoutMs: number,
  ) {}

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
    // The worker is TypeScript like the rest of the emulator: a tiny CommonJS bootstrap
    // registers tsx's require hook in the worker, then loads it (the --import hooks of the
    // parent do not reach worker threads on Node 20).
    const bootstrap = `require('tsx/cjs/api').register(); require(${JSON.stringify(join(__dirname, 'processWorker.ts'))});`;
    const worker = new Worker(bootstrap, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    let markReady!: () => void;
    const slot: Slot = { worker, ready: new Promise((resolve) => (markReady = resolve)) };
    worker.on('message', (message: JobResult | 'ready') => (message === 'ready' ? markReady() : slot.busy?.settle(message)));
    worker.on('error', (error: Error & { code?: string }) => {
      const reason =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `processing ran out of memory (the worker's ${WORKER_HEAP_MB} MB heap cap); the file is too large or too expanding to index`
          : `the processing worker crashed: ${error.message}`;
      void this.retire(slot, { ok: false, reason });
    });
    worker.on('exit', () => void this.retire(slot, { ok: false, reason: 'the processing worker exited unexpectedly' }));
    this.slots.add(slot);
    return slot;
  }

  private start(slot: Slot, pending: Pending): void {
    const busy: NonNullable<Slot['busy']> = {
      pending,
      timer: undefined as unknown as NodeJS.Timeout,
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
        void this.retire(slot, { ok: false, reason: `processing took longer than ${this.timeoutMs >= 1000 ? `${Math.round(this.timeoutMs / 1000)} s` : `${this.timeoutMs} ms`}, the emulator's limit per file` });
      }, this.timeoutMs);
      slot.worker.postMessage(pending.job);
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
    await slot.worker.terminate();
    this.dispatch();
  }
}
