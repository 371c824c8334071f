// Agent threads (D17) in the store's SQLite database: a thread row, and one row per turn
// written in its own transaction, so a turn is on disk before the `done` that announces it.
import { randomBytes } from 'node:crypto';
import type { Db } from './database';

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
  constructor(private readonly db: Db) {}

  /** A new thread; it is stored with its first turn. */
  create(agentId: string, userId: string): Thread {
    return { id: `thr_${randomBytes(12).toString('hex')}`, agentId, userId, created: Math.floor(Date.now() / 1000), turns: [] };
  }

  async get(id: string): Promise<Thread | undefined> {
    if (!THREAD_ID.test(id)) return undefined;
    const row = this.db.prepare('SELECT id, agent_id, user_id, created FROM threads WHERE id = ?').get(id) as { id: string; agent_id: string; user_id: string; created: number } | undefined;
    if (!row) return undefined;
    const turns = (this.db.prepare('SELECT body FROM turns WHERE thread_id = ? ORDER BY n').all(id) as Array<{ body: string }>).map((turn) => JSON.parse(turn.body) as Turn);
    return { id: row.id, agentId: row.agent_id, userId: row.user_id, created: row.created, turns };
  }

  /** Every stored thread, oldest first (for tests and tools that check what was saved). */
  async all(): Promise<Thread[]> {
    const ids = (this.db.prepare('SELECT id FROM threads ORDER BY created, id').all() as Array<{ id: string }>).map((row) => row.id);
    const threads = await Promise.all(ids.map((id) => this.get(id)));
    return threads.filter((thread): thread is Thread => thread !== undefined);
  }

  /** Commits the thread's newest turn (and the thread itself on its first turn). */
  saveLastTurn(thread: Thread): void {
    const turn = thread.turns[thread.turns.length - 1];
    if (!turn) return;
    this.db.transaction(() => {
      this.db.prepare('INSERT OR IGNORE INTO threads (id, agent_id, user_id, created) VALUES (?, ?, ?, ?)').run(thread.id, thread.agentId, thread.userId, thread.created);
      // Appended after whatever is stored: two windows answering in one thread both keep their turn.
      this.db.prepare('INSERT INTO turns (thread_id, n, body) VALUES (?, (SELECT coalesce(max(n) + 1, 0) FROM turns WHERE thread_id = ?), ?)').run(thread.id, thread.id, JSON.stringify(turn));
    })();
  }
}
