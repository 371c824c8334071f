// Background processing of uploaded files through the D9 states, one state per `stepMs`.
// The work (filter, chunk, embed, store chunks) runs in a processing worker (workerPool.ts)
// when a file leaves `waiting`, so listing and streaming never wait for it. Each new status
// is persisted, so a restart resumes where the file was; a file whose processing was started
// MAX_PROCESSING_ATTEMPTS times without finishing (it killed the emulator, or kept being
// interrupted) ends `na` instead of crash-looping.
import { chunkText } from './chunker';
import { extractFileText } from './filters';
import { MAX_PROCESSING_ATTEMPTS } from './limits';
import { isFinal, type FileRecord, type FileStatus } from './records';
import type { Store } from './store';
import type { WorkerPool } from './workerPool';

interface Job {
  record: FileRecord;
  /** Set when the file cannot be indexed: the next step ends it in `na` with this reason. */
  unreadable?: string;
}

/** Filter + chunk in this thread: what the ingest benchmark compares the server path with. */
export async function extractAndChunk(path: string, filename: string): Promise<{ chunks: string[] } | { unreadable: string }> {
  const extracted = await extractFileText(path, filename);
  if (!extracted.ok) return { unreadable: extracted.reason };
  return { chunks: chunkText(extracted.text) };
}

/**
 * Files moving through their states at once; the others wait in a queue of records, so a
 * 40,000-file upload holds 64 jobs (timers, promises), not 40,000. A real service queues too.
 */
const ACTIVE_JOBS = 64;

export class Processor {
  private readonly jobs = new Map<string, Job>();
  private readonly queued: FileRecord[] = [];
  private readonly queuedIds = new Set<string>();
  private readonly idleWaiters: Array<() => void> = [];
  /**
   * Wakers of the jobs waiting out a step; stop() ends every wait at once. (Not one shared
   * AbortSignal: each waiting job would add an abort listener to it, so a many-file upload
   * tripped MaxListenersExceededWarning.)
   */
  private readonly stepWaits = new Set<(proceed: boolean) => void>();
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly pool: WorkerPool,
    private readonly stepMs: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Starts (or, after a restart, resumes) processing of a file. */
  enqueue(record: FileRecord): void {
    if (isFinal(record.status) || this.jobs.has(record.uuid) || this.queuedIds.has(record.uuid) || this.stopped) return;
    this.pool.warm(); // loads a worker while the file waits out its first steps
    if (this.jobs.size >= ACTIVE_JOBS) {
      this.queued.push(record);
      this.queuedIds.add(record.uuid);
      return;
    }
    this.start(record);
  }

  private start(record: FileRecord): void {
    const job: Job = { record };
    this.jobs.set(record.uuid, job);
    void this.run(job).finally(() => {
      this.jobs.delete(record.uuid);
      const next = this.stopped ? undefined : this.queued.shift();
      if (next) {
        this.queuedIds.delete(next.uuid);
        this.start(next);
      }
      if (this.jobs.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
    });
  }

  get busy(): number {
    return this.jobs.size + this.queued.length;
  }

  waitForIdle(): Promise<void> {
    if (this.jobs.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops after the step in progress (workers are ended); the persisted status lets the next start resume. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queued.splice(0); // still `uploaded` in the store: the next start queues them again
    this.queuedIds.clear();
    for (const wake of [...this.stepWaits]) wake(false);
    await this.pool.close();
    await this.waitForIdle();
  }

  /** Resolves true after one step, or false as soon as the processor stops. */
  private waitOneStep(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = (proceed: boolean) => {
        clearTimeout(timer);
        this.stepWaits.delete(wake);
        resolve(proceed);
      };
      const timer = setTimeout(() => wake(true), this.stepMs);
      this.stepWaits.add(wake);
    });
  }

  private async run(job: Job): Promise<void> {
    const record = job.record;
    while (!isFinal(record.status)) {
      if (!(await this.waitOneStep())) return; // shutting down; the persisted status lets the next start resume
      try {
        const { status, detail } = await this.advance(job);
        if (this.stopped) return;
        record.status = status;
        if (!this.store.setStatus(record.uuid, status, detail)) return; // deleted meanwhile
      } catch (error) {
        if (this.stopped) return;
        this.log(`processing ${record.uuid} failed: ${(error as Error).message}`);
        record.status = 'na';
        this.store.setStatus(record.uuid, 'na', `processing failed: ${(error as Error).message}`);
      }
    }
  }

  private async advance(job: Job): Promise<{ status: FileStatus; detail?: string }> {
    const { record } = job;
    switch (record.status) {
      case 'uploaded':
        return { status: 'waiting' };
      case 'waiting':
        if (record.doChunking === 0) return { status: 'na', detail: 'stored as is (do_chunking=0): not chunked, not searchable' };
        await this.ensureChunks(job);
        return { status: 'chunking' };
      case 'chunking':
        await this.ensureChunks(job);
        if (job.unreadable) return { status: 'na', detail: job.unreadable };
        return { status: record.doChunking === 2 ? 'indexing' : 'embedding' };
      case 'embedding':
        await this.ensureChunks(job);
        if (job.unreadable) return { status: 'na', detail: job.unreadable };
        return { status: 'indexing' };
      case 'indexing':
        await this.ensureChunks(job);
        if (job.unreadable) return { status: 'na', detail: job.unreadable };
        if (record.doChunking === 2) return { status: 'na', detail: 'chunked only (do_chunking=2): chunks kept, not searchable' };
        return { status: 'done' };
      default:
        return { status: record.status };
    }
  }

  /** Runs the file through a worker unless its chunks are already stored (a resumed file). */
  private async ensureChunks(job: Job): Promise<void> {
    const { record } = job;
    if (job.unreadable || (record.chunkCount !== null && record.chunkCount !== undefined)) return;
    const attempts = this.store.beginAttempt(record.uuid);
    if (attempts > MAX_PROCESSING_ATTEMPTS) {
      job.unreadable = `processing was started ${attempts - 1} times without finishing (the emulator stopped or crashed each time); given up`;
      return;
    }
    const result = await this.pool.run({
      dbPath: this.store.path,
      uuid: record.uuid,
      contentPath: this.store.contentPath(record),
      filename: record.filename,
      withVectors: record.doChunking === 1,
    });
    if (this.stopped) {
      this.store.undoAttempt(record.uuid); // not the file's fault
      throw new Error('stopping');
    }
    if (result.ok) record.chunkCount = result.chunks;
    else {
      job.unreadable = result.reason;
      this.store.dropChunks(record.uuid);
    }
  }
}
