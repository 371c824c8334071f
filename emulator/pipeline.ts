// Background processing of uploaded files through the D9 states, one state per `stepMs`.
// The work of a state (extract+chunk, embed, store chunks) is done when the file enters it,
// and each new status is persisted, so a restart resumes where the file was.
import { chunkText } from './chunker';
import { embed } from './embedder';
import { extractFileText } from './filters';
import { isFinal, type FileRecord, type FileStatus } from './records';
import type { Store } from './store';

interface Job {
  record: FileRecord;
  chunks?: string[];
  vectors?: Float32Array[];
  /** Set when no filter could read the file: the next step ends it in `na` (D9 last row). */
  unreadable?: string;
}

/**
 * At most this many files are read and parsed at once, so a thousand-file upload does not
 * hold a thousand texts in memory. (A counter and a queue: p-limit is only a transitive
 * dependency here, not worth a direct one for ten lines.)
 */
const PARALLEL_EXTRACTIONS = 2;
let extracting = 0;
const extractionQueue: Array<() => void> = [];

async function withExtractionSlot<T>(work: () => Promise<T>): Promise<T> {
  // A freed slot is handed straight to the next waiter, so the count never overshoots.
  if (extracting >= PARALLEL_EXTRACTIONS) await new Promise<void>((resolve) => extractionQueue.push(resolve));
  else extracting += 1;
  try {
    return await work();
  } finally {
    const next = extractionQueue.shift();
    if (next) next();
    else extracting -= 1;
  }
}

/** Filter + chunk + embed in one call; also what the ingest benchmark measures. */
export async function extractAndChunk(path: string, filename: string): Promise<{ chunks: string[] } | { unreadable: string }> {
  const extracted = await extractFileText(path, filename);
  if (!extracted.ok) return { unreadable: extracted.reason };
  return { chunks: chunkText(extracted.text) };
}

export class Processor {
  private readonly jobs = new Map<string, Job>();
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
    private readonly stepMs: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Starts (or, after a restart, resumes) processing of a file. */
  enqueue(record: FileRecord): void {
    if (isFinal(record.status) || this.jobs.has(record.uuid)) return;
    const job: Job = { record };
    this.jobs.set(record.uuid, job);
    void this.run(job).finally(() => {
      this.jobs.delete(record.uuid);
      if (this.jobs.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
    });
  }

  get busy(): number {
    return this.jobs.size;
  }

  waitForIdle(): Promise<void> {
    if (this.jobs.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops after the step in progress; the persisted status lets the next start resume. */
  stop(): Promise<void> {
    this.stopped = true;
    for (const wake of [...this.stepWaits]) wake(false);
    return this.waitForIdle();
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
      if (this.store.findRecord(record.uuid) !== record) return; // deleted meanwhile
      try {
        const { status, detail } = await this.advance(job);
        if (this.stopped) return;
        record.status = status;
        if (detail) record.statusDetail = detail;
        await this.store.updateRecord(record);
      } catch (error) {
        this.log(`processing ${record.uuid} failed: ${(error as Error).message}`);
        record.status = 'na';
        record.statusDetail = `processing failed: ${(error as Error).message}`;
        await this.store.updateRecord(record).catch(() => undefined);
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
        if (record.doChunking === 2) {
          await this.store.saveChunks(record, { texts: job.chunks!, vectors: null });
          return { status: 'indexing' };
        }
        job.vectors = job.chunks!.map((chunk) => embed(chunk));
        return { status: 'embedding' };
      case 'embedding':
        await this.ensureChunks(job);
        job.vectors ??= job.chunks!.map((chunk) => embed(chunk));
        await this.store.saveChunks(record, { texts: job.chunks!, vectors: job.vectors });
        return { status: 'indexing' };
      case 'indexing':
        if (record.doChunking === 2) return { status: 'na', detail: 'chunked only (do_chunking=2): chunks kept, not searchable' };
        return { status: 'done' };
      default:
        return { status: record.status };
    }
  }

  private async ensureChunks(job: Job): Promise<void> {
    if (job.chunks || job.unreadable) return;
    const result = await withExtractionSlot(() => extractAndChunk(this.store.contentPath(job.record), job.record.filename));
    if ('unreadable' in result) job.unreadable = result.unreadable;
    else job.chunks = result.chunks;
  }
}
