// Agent threads (D17), one JSON file per thread under threads/, written atomically.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeFileAtomic } from './atomicFs';

export interface Citation {
  file_id: string;
  filename: string;
  volume: string;
  chunk_index: number;
  score: number;
  snippet: string;
}

export interface Turn {
  messageId: string;
  query: string;
  answer: string;
  reasoning: string | null;
  citations: Citation[];
  /** context.tools as sent (D18). */
  tools: Record<string, unknown>[];
  created: number;
}

export interface Thread {
  id: string;
  agentId: string;
  userId: string;
  created: number;
  turns: Turn[];
}

const THREAD_ID = /^thr_[a-f0-9]{24}$/;

export class ThreadStore {
  private readonly cache = new Map<string, Thread>();

  constructor(private readonly dir: string) {}

  create(agentId: string, userId: string): Thread {
    const thread: Thread = { id: `thr_${randomBytes(12).toString('hex')}`, agentId, userId, created: Math.floor(Date.now() / 1000), turns: [] };
    this.cache.set(thread.id, thread);
    return thread;
  }

  async get(id: string): Promise<Thread | undefined> {
    if (!THREAD_ID.test(id)) return undefined; // also keeps ids out of file paths
    const cached = this.cache.get(id);
    if (cached) return cached;
    try {
      const thread = JSON.parse(await readFile(join(this.dir, `${id}.json`), 'utf8')) as Thread;
      this.cache.set(id, thread);
      return thread;
    } catch {
      return undefined;
    }
  }

  async save(thread: Thread): Promise<void> {
    await writeFileAtomic(join(this.dir, `${thread.id}.json`), JSON.stringify(thread));
  }
}
