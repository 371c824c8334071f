// Starts one answer for a conversation and owns everything around the stream: saving the
// question before the request, checkpoints while text arrives (a crash loses at most a
// second), posting to the webview only while that conversation is the one shown, and the
// final save however the stream ended.
import type { KsmService } from '../../api/service';
import type { ClientLogger } from '../../api/types';
import { runAnswer, type AnswerOutcome } from './answerRun';
import { newTurnId, type StoredConversation } from './conversationModel';
import type { ConversationStore } from './conversationStore';
import type { HostToWebview, ModelOptions, TurnView } from '../protocol';
import { buildAgentRequest, buildChatRequest } from './requestBuilder';

export interface ChatSessionHost {
  getService(): KsmService;
  getOptions(): ModelOptions;
  /** Named volumes the agent searches besides the personal one (`ksm.volumes.list`). */
  getVolumes(): string[];
  post(message: HostToWebview): void;
  log: ClientLogger;
  /** An answer ended in error; the host may offer a fix (for example "Set API Key"). */
  onAnswerFailed?(error: unknown): void;
}

export interface ChatSessionTuning {
  flushIntervalMs?: number;
  /** How often a streaming answer is written to disk, so a crash loses at most this much. */
  checkpointMs?: number;
}

export interface RunningAnswer {
  conversation: StoredConversation;
  answer: TurnView;
  controller: AbortController;
  done: Promise<AnswerOutcome>;
}

export interface LaunchOptions {
  conversation: StoredConversation;
  question: TurnView;
  store: ConversationStore;
  host: ChatSessionHost;
  tuning: ChatSessionTuning;
  isVisible(): boolean;
  postConversation(): Promise<void>;
  onSettled(): void;
}

export function launchAnswer(options: LaunchOptions): RunningAnswer {
  const { conversation, question, store, host, isVisible } = options;
  const answer: TurnView = { id: newTurnId(), role: 'assistant', content: '', state: 'streaming', createdAt: Date.now() };
  const request =
    conversation.mode === 'agent'
      ? ({ kind: 'agent', body: buildAgentRequest(conversation, question, host.getVolumes()) } as const)
      : ({ kind: 'chat', body: buildChatRequest(conversation, host.getOptions().reasoningModels) } as const);
  conversation.turns.push(answer);
  conversation.updatedAt = Date.now();
  const controller = new AbortController();
  const checkpoint = new Checkpoint(() => store.save(conversation), options.tuning.checkpointMs ?? 1000, host.log);

  const stream = async (): Promise<AnswerOutcome> => {
    await store.save(conversation);
    await options.postConversation();
    if (!conversation.model.trim()) {
      answer.error = 'No model is set. Type a model id in the model picker, or set ksm.chat.models / ksm.agent.model.';
      return { state: 'error' };
    }
    return runAnswer({
      service: host.getService(),
      request,
      answer,
      signal: controller.signal,
      flushIntervalMs: options.tuning.flushIntervalMs,
      listener: {
        onDelta: (batch) => isVisible() && host.post({ type: 'delta', turnId: answer.id, ...nonEmpty(batch) }),
        onPatch: (patch) => isVisible() && host.post({ type: 'answerUpdate', turnId: answer.id, patch }),
        onThread: (threadId) => void (conversation.threadId ||= threadId),
        onProgress: () => checkpoint.schedule(),
      },
    });
  };

  const done = stream()
    .catch((error: unknown): AnswerOutcome => {
      // Failures before the stream started: no client configured, disk full…
      answer.error = error instanceof Error ? error.message : String(error);
      return { state: 'error', error };
    })
    .then(async (outcome) => {
      answer.state = outcome.state;
      if (outcome.error !== undefined) {
        host.log.error(`[chat] answer ended in ${outcome.state}: ${describe(outcome.error)}`);
        host.onAnswerFailed?.(outcome.error);
      }
      checkpoint.cancel();
      options.onSettled();
      conversation.updatedAt = Date.now();
      await store.save(conversation).catch((error: unknown) => host.log.error(`[chat] could not save the conversation: ${describe(error)}`));
      if (isVisible()) {
        host.post({ type: 'answerUpdate', turnId: answer.id, patch: { state: answer.state, error: answer.error } });
        host.post({ type: 'busy', busy: false });
      }
      return outcome;
    });
  return { conversation, answer, controller, done };
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
      void this.save().catch((error: unknown) => this.log.warn(`[chat] checkpoint failed: ${describe(error)}`));
    }, this.delayMs);
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function nonEmpty(batch: { content: string; reasoning: string }): { content?: string; reasoning?: string } {
  return { ...(batch.content ? { content: batch.content } : {}), ...(batch.reasoning ? { reasoning: batch.reasoning } : {}) };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
