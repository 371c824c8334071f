// Runs one answer inside a conversation: saves the question before the request, applies
// each answer event to the answer turn (so a re-shown view or a checkpoint always sees the
// latest), checkpoints while text arrives (a crash loses at most a second), and saves once
// more however the stream ended before reporting `finished`. Partial text is never thrown
// away: stopped, cut-off and error answers keep what arrived.
import * as l10n from '@vscode/l10n';
import { CitationMerge } from './citations';
import type { KsmService } from '../../api/service';
import type { ClientLogger } from '../../api/types';
import { NotConnectedError } from '../../common/core/errorFixes';
import { describeAnswerFailure } from './answerErrors';
import { answerError, ask, type AnswerEndReason, type AnswerError, type AnswerEvent, type AnswerRequest } from './answerStream';
import { newTurnId, type StoredConversation, type TokenUsage, type Turn } from './conversationModel';
import type { ConversationStore } from './conversationStore';
import { errorMessage } from '../../api/errors';

export interface AnswerOutcome {
  state: AnswerEndReason;
  threadId?: string;
  error?: AnswerError;
}

export interface RunningAnswer {
  conversation: StoredConversation;
  answer: Turn;
  controller: AbortController;
  done: Promise<AnswerOutcome>;
}

export interface LaunchOptions {
  conversation: StoredConversation;
  question: Turn;
  request: (conversation: StoredConversation, question: Turn) => AnswerRequest;
  /**
   * Continue: the cut-short answer (the last turn) that this request's text extends in place,
   * instead of a new answer turn. Its text, reasoning and citations are kept; usage adds up.
   */
  resume?: Turn;
  service: () => KsmService;
  /** False when no service is set up (no address or no key): the answer then says "not connected", not a missing model. */
  connected?: () => Promise<boolean>;
  store: ConversationStore;
  log: ClientLogger;
  /** How often a streaming answer is written to disk. */
  checkpointMs: number;
  /** The question and its empty answer (or the resumed answer, streaming again) are saved; the answer's events follow. */
  onStarted(answer: Turn): void;
  /** An event, after it was applied to the answer turn (`finished` after the final save). */
  onEvent(event: AnswerEvent, answer: Turn): void;
  /** The answer ended and was saved; called before `finished` is reported. */
  onSettled(): void;
}

export function launchAnswer(options: LaunchOptions): RunningAnswer {
  const { conversation, question, store, log, resume } = options;
  // Built before the resumed answer turns `streaming`: its text so far is part of the request.
  const request = options.request(conversation, question);
  const answer: Turn = resume ?? { id: newTurnId(), role: 'assistant', content: '', state: 'streaming', createdAt: Date.now() };
  const earlierUsage = resume?.usage;
  if (resume) {
    resume.state = 'streaming';
    delete resume.error;
    delete resume.finishReason;
  } else {
    conversation.turns.push(answer);
  }
  const maxTokens = request.kind === 'chat' ? request.body.max_completion_tokens : undefined;
  if (maxTokens !== undefined && maxTokens !== null) answer.maxTokens = maxTokens;
  else delete answer.maxTokens;
  conversation.updatedAt = Date.now();
  const controller = new AbortController();
  // Grown in place, event by event: a copy of all citations so far per event was quadratic.
  const citations = new CitationMerge(answer.citations ?? []);
  const checkpoint = new Checkpoint(() => store.save(conversation), options.checkpointMs, log);

  const stream = async (): Promise<Extract<AnswerEvent, { type: 'finished' }>> => {
    try {
      await store.save(conversation);
    } finally {
      // Reported even when the save failed: the failure then ends the answer as `finished`.
      options.onStarted(answer);
    }
    if (options.connected && !(await options.connected())) throw new NotConnectedError();
    if (!conversation.model.trim()) {
      const message = l10n.t('No model is set. Type a model id in the model picker, or set ksm.chat.models / ksm.agent.model.');
      return { type: 'finished', reason: 'error', error: { message, retryable: false } };
    }
    for await (const event of ask(options.service(), request, controller.signal)) {
      if (event.type === 'finished') return event;
      applyEvent(conversation, answer, event, citations, earlierUsage);
      options.onEvent(event, answer);
      checkpoint.schedule();
    }
    throw new Error(l10n.t('The answer stream ended without a finished event.'));
  };

  const done = stream()
    .catch((error: unknown): Extract<AnswerEvent, { type: 'finished' }> => {
      // Failures before the stream started: no client configured, disk full…
      const message = errorMessage(error);
      return { type: 'finished', reason: 'error', error: answerError(message, describeAnswerFailure(error).retryable, error) };
    })
    .then(async (finished): Promise<AnswerOutcome> => {
      checkpoint.cancel();
      answer.state = finished.reason;
      if (finished.finishReason) answer.finishReason = finished.finishReason;
      if (finished.error) answer.error = finished.error.message;
      if (finished.error?.cause !== undefined) log.error(`answer ended in ${finished.reason}: ${describe(finished.error.cause)}`);
      conversation.updatedAt = Date.now();
      await store.save(conversation).catch((error: unknown) => log.error(`could not save the conversation: ${describe(error)}`));
      options.onSettled();
      options.onEvent(finished, answer);
      const threadId = conversation.threadId ?? undefined;
      return { state: finished.reason, ...(threadId ? { threadId } : {}), ...(finished.error ? { error: finished.error } : {}) };
    });
  return { conversation, answer, controller, done };
}

/** Folds one streamed event into the answer turn and the conversation (thread continuity). */
function applyEvent(conversation: StoredConversation, answer: Turn, event: Exclude<AnswerEvent, { type: 'finished' }>, citations: CitationMerge, earlierUsage?: TokenUsage): void {
  switch (event.type) {
    case 'text':
      answer.content += event.text;
      return;
    case 'reasoning':
      answer.reasoning = (answer.reasoning ?? '') + event.text;
      return;
    case 'citations':
      answer.citations = citations.add(event.citations);
      return;
    case 'thread':
      conversation.threadId ||= event.threadId;
      // The thread that holds this answer holds its question too: a retry does not resend it (D17).
      answer.threadId = event.threadId;
      return;
    case 'usage':
      // A continued answer cost both requests.
      answer.usage = earlierUsage ? addUsage(earlierUsage, event.usage) : event.usage;
      return;
    case 'toolCall':
      // Panel conversations offer no tools, so a call has nothing to run; consumers that
      // offer tools (VS Code's Chat) use `ask` directly.
      return;
  }
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const reasoning = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    ...(a.reasoningTokens != null || b.reasoningTokens != null ? { reasoningTokens: reasoning } : {}),
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

class Checkpoint {
  private timer: ReturnType<typeof setTimeout> | undefined;
  constructor(
    private readonly save: () => Promise<void>,
    private readonly delayMs: number,
    private readonly log: ClientLogger,
  ) {}

  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.save().catch((error: unknown) => this.log.warn(`checkpoint failed: ${describe(error)}`));
    }, this.delayMs);
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
