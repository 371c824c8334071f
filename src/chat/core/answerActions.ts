// What a user can do to an answer that already ended: ask again in its place (Retry,
// Regenerate), have it continue in place (Continue), edit the question before it and resend,
// and copy its Markdown. Each action only decides which question is asked, in which agent
// thread and which answer it extends; the engine (chatEngine.ts) streams and saves it.
import type { ClientLogger } from '../../api/types';
import type { AnswerOutcome } from './answerLauncher';
import { lastTurn, newTurnId, titleFromQuestion, type StoredConversation, type Turn } from './conversationModel';
import { CONTINUE_PROMPT, REGENERATE_IN_THREAD_PROMPT, RETRY_IN_THREAD_PROMPT, type AskInThread } from './requestBuilder';

type AnswerState = NonNullable<Turn['state']>;
/** Answers Retry may replace: they ended badly. */
const RETRYABLE: readonly AnswerState[] = ['stopped', 'error', 'cut-off', 'length'];
/** Answers Regenerate may replace: any that ended. */
const REGENERABLE: readonly AnswerState[] = ['done', ...RETRYABLE];
/** Answers Continue may extend: cut short with their text usable. */
const CONTINUABLE: readonly AnswerState[] = ['length', 'stopped', 'cut-off'];

/** What the actions need of the engine that owns the conversations. */
export interface AnswerActionsEngine {
  /** The open conversation when no answer is streaming or starting, else undefined. */
  idleConversation(): Promise<StoredConversation | undefined>;
  /** The open conversation if it was loaded already (no disk access). */
  openConversation(): StoredConversation | undefined;
  /** Streams an answer to `question` (extending `resume` when given); resolves once it ended and was saved. */
  answer(conversation: StoredConversation, question: Turn, inThread?: AskInThread, resume?: Turn): Promise<AnswerOutcome>;
  log(): ClientLogger;
}

export class AnswerActions {
  constructor(private readonly engine: AnswerActionsEngine) {}

  /** Asks the last question again in place of the last answer, if that answer did not finish normally. */
  retry(turnId: string): Promise<AnswerOutcome | undefined> {
    return this.reanswer(turnId, RETRYABLE, 'retry');
  }

  /** Regenerate: asks the last question again in place of the last answer, however it ended. */
  regenerate(turnId: string): Promise<AnswerOutcome | undefined> {
    return this.reanswer(turnId, REGENERABLE, 'regenerate');
  }

  /**
   * Continue: asks for the rest of the last answer when it was cut short (max tokens,
   * stopped, cut off). The new text extends that same answer in place; the continuation
   * request is sent, never added to the transcript as a question.
   */
  async continueAnswer(turnId: string): Promise<AnswerOutcome | undefined> {
    const conversation = await this.engine.idleConversation();
    const last = conversation && lastTurn(conversation);
    const question = conversation?.turns.findLast((t) => t.role === 'user');
    if (!conversation || !last || !question || last.id !== turnId || last.role !== 'assistant' || !CONTINUABLE.includes(last.state ?? 'done')) {
      this.engine.log().warn(`continue of turn ${turnId} refused (not the last cut-short answer)`);
      return undefined;
    }
    // The agent's thread holds the cut answer: ask it there for the rest.
    const threadId = last.threadId ?? conversation.threadId ?? undefined;
    const inThread = conversation.mode === 'agent' && threadId ? { threadId, query: CONTINUE_PROMPT } : undefined;
    if (conversation.mode === 'agent' && !inThread) {
      this.engine.log().warn(`continue of turn ${turnId} refused (the agent never started a thread for it)`);
      return undefined;
    }
    return this.engine.answer(conversation, question, inThread, last);
  }

  /**
   * Edit and resend: replaces the last question (and its answer) with `text` and asks it.
   * Older turns stay. In agent mode the thread keeps the earlier exchange (the reference
   * has no way to remove a turn from a thread), except for a first question, which starts
   * a new thread.
   */
  async editLastQuestion(turnId: string, text: string): Promise<AnswerOutcome | undefined> {
    const conversation = await this.engine.idleConversation();
    const index = conversation ? conversation.turns.findLastIndex((t) => t.role === 'user') : -1;
    if (!conversation || index < 0 || conversation.turns[index].id !== turnId) {
      this.engine.log().warn(`edit of turn ${turnId} refused (not the last question)`);
      return undefined;
    }
    const old = conversation.turns[index];
    const first = !conversation.turns.slice(0, index).some((t) => t.role === 'user');
    conversation.turns.splice(index);
    if (first) {
      // A title the user did not choose follows the question it came from.
      if (conversation.title === titleFromQuestion(old.content)) conversation.title = titleFromQuestion(text);
      if (conversation.mode === 'agent') conversation.threadId = null;
    }
    // The question's files and code chips stay with it: only its words were edited.
    const question: Turn = {
      id: newTurnId(),
      role: 'user',
      content: text,
      createdAt: Date.now(),
      ...(old.attachments ? { attachments: old.attachments } : {}),
      ...(old.code ? { code: old.code } : {}),
    };
    conversation.turns.push(question);
    return this.engine.answer(conversation, question);
  }

  /** The Markdown source of an answer (or question) of the open conversation, for Copy. */
  turnMarkdown(turnId: string): string | undefined {
    return this.engine.openConversation()?.turns.find((t) => t.id === turnId)?.content;
  }

  /**
   * Replaces the last answer with a new answer to the same question. An agent thread that
   * began the old answer already holds the question, so it is asked again there (D17).
   */
  private async reanswer(turnId: string, allowed: readonly AnswerState[], action: string): Promise<AnswerOutcome | undefined> {
    const conversation = await this.engine.idleConversation();
    const last = conversation && lastTurn(conversation);
    if (!conversation || !last || last.id !== turnId || last.role !== 'assistant' || !allowed.includes(last.state ?? 'done')) {
      this.engine.log().warn(`${action} of turn ${turnId} refused (not the last answer, or not in a state to ${action})`);
      return undefined;
    }
    const question = conversation.turns.at(-2);
    if (question?.role !== 'user') return undefined;
    conversation.turns.pop();
    const query = last.state === 'done' || last.state === 'length' ? REGENERATE_IN_THREAD_PROMPT : RETRY_IN_THREAD_PROMPT;
    const inThread = conversation.mode === 'agent' && last.threadId ? { threadId: last.threadId, query } : undefined;
    return this.engine.answer(conversation, question, inThread);
  }
}
