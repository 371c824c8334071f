// Conversations on disk: one JSON file per conversation under `<root>/conversations/`, plus
// `index.json` listing them. The files are the truth; the index is a cache rebuilt from
// them when it is missing, stale or unreadable. A conversation file that cannot be read is
// moved to `<root>/corrupt/` and reported, never silently dropped (users lose trust in a
// chat that forgets). No `vscode` import: tested under plain mocha.
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './atomicWrite';
import {
  CONVERSATION_ID_PATTERN,
  CONVERSATION_SCHEMA,
  markInterruptedAnswers,
  summarize,
  type StoredConversation,
} from './conversationModel';
import type { ConversationSummary } from './conversationModel';

export interface StoreProblem {
  /** The conversation file that could not be read. */
  file: string;
  /** Where it was moved so nothing is lost. */
  keptAt?: string;
  reason: string;
}

export class ConversationStore {
  private readonly conversationsDir: string;
  private readonly corruptDir: string;
  private readonly indexPath: string;
  /** Writes of one file are chained so a later save never lands before an earlier one. */
  private readonly writes = new Map<string, Promise<void>>();
  private indexWrite: Promise<void> = Promise.resolve();

  constructor(
    readonly root: string,
    private readonly onProblem: (problem: StoreProblem) => void = () => undefined,
  ) {
    this.conversationsDir = join(root, 'conversations');
    this.corruptDir = join(root, 'corrupt');
    this.indexPath = join(root, 'index.json');
  }

  /** Summaries, most recently updated first. */
  async list(): Promise<ConversationSummary[]> {
    const ids = await this.storedIds();
    const index = await this.readIndex();
    const known = new Map(index.map((entry) => [entry.id, entry]));
    const summaries: ConversationSummary[] = [];
    let stale = index.length !== ids.length;
    for (const id of ids) {
      const cached = known.get(id);
      if (cached) {
        summaries.push(cached);
        continue;
      }
      stale = true;
      const conversation = await this.load(id);
      if (conversation) summaries.push(summarize(conversation));
    }
    summaries.sort((a, b) => b.updatedAt - a.updatedAt);
    if (stale) this.queueIndexWrite(summaries);
    return summaries;
  }

  /** Every readable conversation in full (for searching by content), newest first. */
  async loadAll(): Promise<StoredConversation[]> {
    const summaries = await this.list();
    const loaded = await Promise.all(summaries.map((s) => this.load(s.id)));
    return loaded.filter((c): c is StoredConversation => c !== undefined);
  }

  /** The conversation, or undefined when it does not exist or could not be read (reported). */
  async load(id: string): Promise<StoredConversation | undefined> {
    if (!CONVERSATION_ID_PATTERN.test(id)) return undefined;
    await this.writes.get(id);
    const file = this.fileOf(id);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      await this.keepAside(id, `not valid JSON (${(error as Error).message})`);
      return undefined;
    }
    const problem = describeInvalid(parsed, id);
    if (problem) {
      await this.keepAside(id, problem);
      return undefined;
    }
    const conversation = parsed as StoredConversation;
    if (conversation.pendingAttachments === undefined) conversation.pendingAttachments = [];
    markInterruptedAnswers(conversation);
    return conversation;
  }

  async save(conversation: StoredConversation): Promise<void> {
    if (!CONVERSATION_ID_PATTERN.test(conversation.id)) throw new Error(`Invalid conversation id: ${conversation.id}`);
    const data = JSON.stringify(conversation);
    const summary = summarize(conversation);
    await this.chain(conversation.id, () => writeFileAtomic(this.fileOf(conversation.id), data));
    await this.updateIndex((entries) => [summary, ...entries.filter((e) => e.id !== summary.id)]);
  }

  async delete(id: string): Promise<void> {
    if (!CONVERSATION_ID_PATTERN.test(id)) return;
    await this.chain(id, () => rm(this.fileOf(id), { force: true }));
    await this.updateIndex((entries) => entries.filter((e) => e.id !== id));
  }

  /** Resolves when every queued write has reached the disk. */
  async flush(): Promise<void> {
    await Promise.all([...this.writes.values(), this.indexWrite]);
  }

  private fileOf(id: string): string {
    return join(this.conversationsDir, `${id}.json`);
  }

  private async storedIds(): Promise<string[]> {
    try {
      const names = await readdir(this.conversationsDir);
      return names
        .filter((n) => n.endsWith('.json'))
        .map((n) => n.slice(0, -'.json'.length))
        .filter((id) => CONVERSATION_ID_PATTERN.test(id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  private async readIndex(): Promise<ConversationSummary[]> {
    await this.indexWrite;
    return this.readIndexUnchained();
  }

  private async updateIndex(change: (entries: ConversationSummary[]) => ConversationSummary[]): Promise<void> {
    const next = this.indexWrite.then(async () => {
      const entries = await this.readIndexUnchained();
      await writeFileAtomic(this.indexPath, JSON.stringify(change(entries)));
    });
    this.indexWrite = next.catch(() => undefined);
    await next;
  }

  private queueIndexWrite(summaries: ConversationSummary[]): void {
    void this.updateIndex(() => summaries).catch(() => undefined);
  }

  private async readIndexUnchained(): Promise<ConversationSummary[]> {
    try {
      const parsed: unknown = JSON.parse(await readFile(this.indexPath, 'utf8'));
      return Array.isArray(parsed) ? parsed.filter(isSummary) : [];
    } catch {
      // The index is only a cache: a missing or unreadable one is rebuilt from the files.
      return [];
    }
  }

  private async chain(id: string, write: () => Promise<void>): Promise<void> {
    const previous = this.writes.get(id) ?? Promise.resolve();
    const next = previous.then(write);
    const settled = next.catch(() => undefined);
    this.writes.set(id, settled);
    try {
      await next;
    } finally {
      if (this.writes.get(id) === settled) this.writes.delete(id);
    }
  }

  private async keepAside(id: string, reason: string): Promise<void> {
    const file = this.fileOf(id);
    const keptAt = join(this.corruptDir, `${id}.${Date.now()}.json`);
    try {
      await mkdir(this.corruptDir, { recursive: true });
      await rename(file, keptAt);
      await this.updateIndex((entries) => entries.filter((e) => e.id !== id));
      this.onProblem({ file, keptAt, reason });
    } catch (error) {
      this.onProblem({ file, reason: `${reason}; could not move it aside: ${(error as Error).message}` });
    }
  }
}

function isSummary(value: unknown): value is ConversationSummary {
  const v = value as ConversationSummary;
  return (
    typeof v === 'object' && v !== null && typeof v.id === 'string' && CONVERSATION_ID_PATTERN.test(v.id) &&
    typeof v.title === 'string' && (v.mode === 'chat' || v.mode === 'agent') && typeof v.updatedAt === 'number'
  );
}

/** Why a parsed file is not a conversation we can show, or undefined when it is one. */
function describeInvalid(value: unknown, id: string): string | undefined {
  const v = value as Partial<StoredConversation>;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  if (v.schema !== CONVERSATION_SCHEMA) return `unknown schema ${String(v.schema)}`;
  if (v.id !== id) return 'its id does not match its file name';
  if (typeof v.title !== 'string' || (v.mode !== 'chat' && v.mode !== 'agent') || typeof v.model !== 'string') {
    return 'title, mode or model missing';
  }
  if (typeof v.parameters !== 'object' || v.parameters === null) return 'parameters missing';
  if (!Array.isArray(v.turns)) return 'turns missing';
  for (const turn of v.turns) {
    if (typeof turn !== 'object' || turn === null || typeof turn.id !== 'string' || typeof turn.content !== 'string') {
      return 'a turn has no id or content';
    }
    if (turn.role !== 'user' && turn.role !== 'assistant') return `a turn has role ${String(turn.role)}`;
  }
  return undefined;
}
