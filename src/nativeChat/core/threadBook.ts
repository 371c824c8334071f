// Agent threads (D17) for front ends that do not keep them for us. VS Code hands a model
// provider the whole conversation each time and no conversation id, while the agent keeps
// the history itself and wants only the new question plus `thread_id`. So the book maps
// "the conversation so far" (its user and assistant texts, hashed) to the thread that
// answered it; the next request looks up everything before its new question.
// The participant has it easier: the thread id rides in its result metadata (see
// threadIdFromHistory).
import { createHash } from 'node:crypto';
import { textOf, type NeutralMessage } from './messageMapping';

const DEFAULT_CAPACITY = 500;

export class ThreadBook {
  private readonly threads = new Map<string, string>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** The thread that answered exactly these messages, if this window saw it. */
  lookup(conversation: readonly NeutralMessage[]): string | undefined {
    const key = conversationKey(conversation);
    const thread = key === undefined ? undefined : this.threads.get(key);
    if (thread !== undefined && key !== undefined) {
      // Most recently used last, so the oldest is dropped first.
      this.threads.delete(key);
      this.threads.set(key, thread);
    }
    return thread;
  }

  /** Records that `threadId` holds this conversation (ending with the agent's answer). */
  remember(conversation: readonly NeutralMessage[], threadId: string): void {
    const key = conversationKey(conversation);
    if (key === undefined) return;
    this.threads.delete(key);
    this.threads.set(key, threadId);
    while (this.threads.size > this.capacity) this.threads.delete(this.threads.keys().next().value as string);
  }

  forget(threadId: string): void {
    for (const [key, value] of this.threads) if (value === threadId) this.threads.delete(key);
  }
}

/**
 * User and assistant texts only: system prompts and tool traffic may be rebuilt by the
 * caller between requests, the turns themselves are not. Undefined for an empty history.
 */
function conversationKey(conversation: readonly NeutralMessage[]): string | undefined {
  const turns = conversation
    .filter((m) => m.role !== 'system')
    .map((m) => [m.role, textOf(m).trim()])
    .filter(([, text]) => text !== '');
  if (turns.length === 0) return undefined;
  return createHash('sha256').update(JSON.stringify(turns)).digest('hex');
}

/** What a participant stores in its result metadata. */
export interface ParticipantMetadata {
  threadId?: string;
  command?: string;
}

/**
 * The agent thread of the latest earlier answer of this participant in the same VS Code
 * chat, read from the result metadata VS Code hands back with the history. Metadata is
 * untrusted data: only a plausible id string counts.
 */
export function threadIdFromHistory(results: ReadonlyArray<{ metadata?: unknown } | undefined>): string | undefined {
  for (let i = results.length - 1; i >= 0; i--) {
    const metadata = results[i]?.metadata as ParticipantMetadata | undefined;
    const id = metadata && typeof metadata === 'object' ? metadata.threadId : undefined;
    if (typeof id === 'string' && /^[\w.:-]{1,200}$/.test(id)) return id;
  }
  return undefined;
}
