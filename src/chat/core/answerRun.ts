// Drives one answer: consumes the stream of either endpoint, accumulates text, reasoning,
// usage, citations and the agent thread id into the answer turn (mutated in place, so a
// re-shown view or a checkpoint always sees the latest), and ends in exactly one state.
// Partial text is never thrown away: stopped, cut-off and error answers keep what arrived.
import type { KsmService } from '../../api/service';
import type { AgentEvent, AgentRequest, ChatCompletionChunk, ChatCompletionRequest, Citation, Usage } from '../../api/types';
import { describeAnswerFailure } from './answerErrors';
import { DeltaBatcher, type DeltaBatch } from './deltaBatcher';
import type { CitationView, TurnView, UsageView } from '../protocol';

export type AnswerRequest = { kind: 'chat'; body: ChatCompletionRequest } | { kind: 'agent'; body: AgentRequest };

export interface AnswerListener {
  /** Batched text for the webview. */
  onDelta(batch: DeltaBatch): void;
  /** Anything else that changed on the answer (state, usage, citations, error). */
  onPatch(patch: Partial<Omit<TurnView, 'id' | 'role' | 'content'>>): void;
  /** The agent thread id, from the first event that carries one. */
  onThread?(threadId: string): void;
  /** Something arrived; the caller may checkpoint to disk. */
  onProgress?(): void;
}

export interface AnswerRunOptions {
  service: KsmService;
  request: AnswerRequest;
  answer: TurnView;
  signal: AbortSignal;
  listener: AnswerListener;
  flushIntervalMs?: number;
}

export interface AnswerOutcome {
  state: NonNullable<TurnView['state']>;
  threadId?: string;
  /** The error behind a non-normal end, for logging and notifications. */
  error?: unknown;
}

export async function runAnswer(options: AnswerRunOptions): Promise<AnswerOutcome> {
  const { answer, listener } = options;
  // Text joins the turn when its batch is posted, so the turn always equals what the
  // webview was sent: a full `conversation` post never duplicates a pending delta.
  const batcher = new DeltaBatcher((batch) => {
    if (batch.content) answer.content += batch.content;
    if (batch.reasoning) answer.reasoning = (answer.reasoning ?? '') + batch.reasoning;
    listener.onDelta(batch);
    listener.onProgress?.();
  }, options.flushIntervalMs);
  const append = (delta: Partial<DeltaBatch>) => batcher.add(delta);
  const finish = (outcome: AnswerOutcome): AnswerOutcome => {
    batcher.flush();
    answer.state = outcome.state;
    listener.onPatch({ state: answer.state, error: answer.error, finishReason: answer.finishReason, usage: answer.usage, citations: answer.citations });
    return outcome;
  };

  answer.state = 'streaming';
  let threadId: string | undefined;
  try {
    if (options.request.kind === 'chat') {
      const stream = options.service.streamChatCompletion(options.request.body, { signal: options.signal });
      for await (const chunk of stream) {
        const ended = applyChunk(chunk, answer, append);
        if (ended) listener.onPatch({ finishReason: answer.finishReason, usage: answer.usage });
      }
    } else {
      const stream = options.service.streamAgentMessage(options.request.body, { signal: options.signal });
      for await (const event of stream) {
        const eventThread = 'threadId' in event ? event.threadId : undefined;
        if (eventThread && !threadId) {
          threadId = eventThread;
          listener.onThread?.(eventThread);
        }
        applyAgentEvent(event, answer, append, listener);
      }
    }
  } catch (error) {
    const failure = describeAnswerFailure(error);
    if (failure.message) answer.error = failure.message;
    return finish({ state: failure.state, threadId, error: failure.state === 'stopped' ? undefined : error });
  }
  if (options.signal.aborted) return finish({ state: 'stopped', threadId });
  if (answer.error) return finish({ state: 'error', threadId });
  return finish({ state: answer.finishReason === 'length' ? 'length' : 'done', threadId });
}

/** Returns true when the chunk carried the finish reason. */
function applyChunk(chunk: ChatCompletionChunk, answer: TurnView, append: (d: Partial<DeltaBatch>) => void): boolean {
  if (chunk.usage) answer.usage = usageView(chunk.usage);
  const choice = chunk.choices[0];
  if (!choice) return false;
  if (choice.finish_reason === 'error') {
    // The error text rides in delta.content (D14); it is not answer text. Clients normally
    // throw StreamError for this; this covers one that yields the chunk as well.
    answer.error = `The service stopped with an error: ${choice.delta.content ?? 'no detail'}`;
    answer.finishReason = 'error';
    return true;
  }
  if (choice.delta.reasoning_content) append({ reasoning: choice.delta.reasoning_content });
  if (choice.delta.content) append({ content: choice.delta.content });
  if (choice.finish_reason) {
    answer.finishReason = choice.finish_reason;
    return true;
  }
  return false;
}

function applyAgentEvent(
  event: AgentEvent,
  answer: TurnView,
  append: (d: Partial<DeltaBatch>) => void,
  listener: AnswerListener,
): void {
  switch (event.kind) {
    case 'retrieval':
      answer.citations = mergeCitations(answer.citations ?? [], event.citations);
      listener.onPatch({ citations: answer.citations });
      return;
    case 'reasoning':
      append({ reasoning: event.delta });
      return;
    case 'message':
      append({ content: event.delta });
      return;
    case 'error':
      answer.error = `The service stopped with an error: ${event.message}${event.code ? ` (code ${event.code})` : ''}`;
      return;
    case 'done':
      answer.finishReason = event.status;
      if (event.usage) answer.usage = usageView(event.usage);
      if (event.status === 'error' && !answer.error) answer.error = 'The service stopped with an error.';
      return;
    default:
      // `thread` is handled by the caller; unknown events are ignored by contract (D19).
      return;
  }
}

function usageView(usage: Usage): UsageView {
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    reasoningTokens: usage.reasoning_tokens ?? null,
    totalTokens: usage.total_tokens,
  };
}

function mergeCitations(existing: CitationView[], incoming: Citation[]): CitationView[] {
  const out = [...existing];
  for (const c of incoming) {
    if (out.some((e) => e.fileId === c.file_id && e.volume === c.volume && e.snippet === c.snippet)) continue;
    out.push({ fileId: c.file_id, filename: c.filename, volume: c.volume, snippet: c.snippet, score: c.score });
  }
  return out;
}
