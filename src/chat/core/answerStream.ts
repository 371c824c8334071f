// The engine's single-request entry point: one request to either endpoint in, typed answer
// events out. It holds no conversation, batches nothing and knows no front end, so the
// panel (through ChatEngine), VS Code's own Chat and a command line consume the same
// stream. Every run ends in exactly one `finished` event and never throws: a stop, a cut
// connection or a service error become `finished` with the reason and, for failures, the
// user-facing sentence of answerErrors.ts (never the API key).
import * as l10n from '@vscode/l10n';
import { BadResponseError } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { AgentEvent, AgentRequest, ChatCompletionChunk, ChatCompletionRequest, Citation, Usage } from '../../api/types';
import { errorFix, type ErrorFix } from '../../common/core/errorFixes';
import { describeAnswerFailure } from './answerErrors';
import { CitationNumbering } from './citations';
import type { AnswerState, SourceCitation, TokenUsage } from './conversationModel';

// Other features may import only this file of chat/core (PUBLIC_CORE), so the types its
// events carry are exported from here too.
export type { ErrorFix } from '../../common/core/errorFixes';
export type { SourceCitation, TokenUsage } from './conversationModel';

/** The wire request of one answer: chat mode sends the history, agent mode the question and thread (D17). */
export type AnswerRequest = { kind: 'chat'; body: ChatCompletionRequest } | { kind: 'agent'; body: AgentRequest };

/** How an answer ended: `length` hit max tokens, `cut-off` lost the connection, `stopped` was aborted. */
export type AnswerEndReason = Exclude<AnswerState, 'streaming'>;

export interface AnswerError {
  /** One short sentence for the user, with what to do; safe to show (no key, no stack). */
  message: string;
  /** The one-click fix (Set API Key, Open Settings) from the one source, errorFixes.ts. */
  fix?: ErrorFix;
  /** Asking again unchanged may succeed. */
  retryable: boolean;
  /** The error behind it, for the log and for a front end's own handling. */
  cause?: unknown;
}

/** What one answer reports, in order. Text and reasoning arrive as unbatched deltas. */
export type AnswerEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  /** Passages the agent retrieved, only those this answer has not reported yet. */
  /** New passages, each with its marker numbers; a repeat of a passage comes again with only its new number (merge with `mergeCitations`). */
  | { type: 'citations'; citations: SourceCitation[] }
  /** The agent thread this answer belongs to, once, from the first event that names it. */
  | { type: 'thread'; threadId: string }
  | { type: 'usage'; usage: TokenUsage }
  /** A whole tool call (D15), reported when the stream ends; `arguments` is the JSON text as sent. */
  | { type: 'toolCall'; callId: string; name: string; arguments: string }
  /** Always last. `finishReason` is the service's (`stop`, `length`, `tool_calls`…) when it sent one. */
  | { type: 'finished'; reason: AnswerEndReason; finishReason?: string; error?: AnswerError };

/**
 * Streams one answer. Aborting `signal` closes the request on the wire and ends the stream
 * with `finished{reason: 'stopped'}`; a consumer that stops iterating early closes it too.
 */
export async function* ask(service: KsmService, request: AnswerRequest, signal: AbortSignal): AsyncGenerator<AnswerEvent, void, undefined> {
  const run = new RunState();
  try {
    if (request.kind === 'chat') {
      for await (const chunk of service.streamChatCompletion(request.body, { signal })) for (const event of run.chunkEvents(chunk)) yield run.counted(event);
      yield* run.toolCalls();
    } else {
      for await (const event of service.streamAgentMessage(request.body, { signal })) for (const shown of run.agentEvents(event)) yield run.counted(shown);
    }
  } catch (error) {
    const failure = describeAnswerFailure(error);
    if (failure.state === 'stopped') {
      yield run.finished('stopped');
      return;
    }
    const message = failure.message ?? run.serviceError ?? l10n.t('The answer stopped.');
    yield run.finished(failure.state, answerError(message, failure.retryable, error));
    return;
  }
  if (signal.aborted) yield run.finished('stopped');
  else if (run.serviceError) yield run.finished('error', { message: run.serviceError, retryable: true });
  else yield run.finished(run.finishReason === 'length' ? 'length' : 'done');
}

/**
 * One answer's text, reasoning, tool call arguments and citations hold at most this many
 * characters: no model writes that much in one answer, and a stream of small events that
 * never ends (a hostile or broken server, each event keeping the idle timeout away) would
 * otherwise grow the panel's conversation, an MCP answer or a terminal's without bound.
 */
export const MAX_ANSWER_CHARS = 8_000_000;

/** What one stream has shown so far, so citations are not repeated and the end is judged once. */
class RunState {
  /** Characters of the answer so far (MAX_ANSWER_CHARS). */
  private size = 0;
  finishReason: string | undefined;
  /** An error the service reported inside the stream (agent `error` event, `finish_reason: "error"`). */
  serviceError: string | undefined;
  private threadId: string | undefined;
  private readonly citationNumbers = new CitationNumbering();
  private readonly calls = new Map<number, { callId: string; name: string; arguments: string }>();

  /** `event` as it goes out, counted against MAX_ANSWER_CHARS. */
  counted(event: AnswerEvent): AnswerEvent {
    if (event.type === 'text' || event.type === 'reasoning') this.grow(event.text.length);
    else if (event.type === 'citations') for (const citation of event.citations) this.grow(64 + (citation.snippet?.length ?? 0));
    return event;
  }

  private grow(chars: number): void {
    this.size += chars;
    if (this.size > MAX_ANSWER_CHARS) {
      throw new BadResponseError(
        l10n.t('The answer grew beyond {0} million characters, so it was stopped: no answer is that long, so the service (or a proxy before it) is misbehaving.', MAX_ANSWER_CHARS / 1_000_000),
      );
    }
  }

  finished(reason: AnswerEndReason, error?: AnswerError): AnswerEvent {
    return { type: 'finished', reason, ...(this.finishReason ? { finishReason: this.finishReason } : {}), ...(error ? { error } : {}) };
  }

  *chunkEvents(chunk: ChatCompletionChunk): Generator<AnswerEvent> {
    const choice = chunk.choices[0];
    if (choice) {
      if (choice.finish_reason === 'error') {
        // The error text rides in delta.content (D14); it is not answer text. Clients normally
        // throw StreamError for this; this covers one that yields the chunk as well.
        this.serviceError = l10n.t('The service stopped with an error: {0}', choice.delta.content ?? l10n.t('no detail'));
        this.finishReason = 'error';
      } else {
        if (choice.delta.reasoning_content) yield { type: 'reasoning', text: choice.delta.reasoning_content };
        if (choice.delta.content) yield { type: 'text', text: choice.delta.content };
        for (const piece of choice.delta.tool_calls ?? []) this.addToolCallPiece(piece);
        if (choice.finish_reason) this.finishReason = choice.finish_reason;
      }
    }
    if (chunk.citations?.length) {
      // File citations of a Responses stream's annotations (D16), numbered as the agent's.
      const fresh = this.citationNumbers.add(chunk.citations.map(sourceCitation));
      if (fresh.length > 0) yield { type: 'citations', citations: fresh };
    }
    if (chunk.usage) yield { type: 'usage', usage: tokenUsage(chunk.usage) };
  }

  *agentEvents(event: AgentEvent): Generator<AnswerEvent> {
    const eventThread = 'threadId' in event ? event.threadId : undefined;
    if (eventThread && !this.threadId) {
      this.threadId = eventThread;
      yield { type: 'thread', threadId: eventThread };
    }
    switch (event.kind) {
      case 'retrieval': {
        const fresh = this.citationNumbers.add(event.citations.map(sourceCitation));
        if (fresh.length > 0) yield { type: 'citations', citations: fresh };
        return;
      }
      case 'reasoning':
        if (event.delta) yield { type: 'reasoning', text: event.delta };
        return;
      case 'message':
        if (event.delta) yield { type: 'text', text: event.delta };
        return;
      case 'error':
        this.serviceError = event.code ? l10n.t('The service stopped with an error: {0} (code {1})', event.message, event.code) : l10n.t('The service stopped with an error: {0}', event.message);
        return;
      case 'done':
        this.finishReason = event.status;
        if (event.usage) yield { type: 'usage', usage: tokenUsage(event.usage) };
        if (event.status === 'error') this.serviceError ??= l10n.t('The service stopped with an error.');
        return;
      default:
        // `thread` carries only the id (handled above); unknown events are ignored by contract (D19).
        return;
    }
  }

  /** D15: the first piece of an index carries id and name, later pieces append to `arguments`. */
  private addToolCallPiece(piece: NonNullable<ChatCompletionChunk['choices'][number]['delta']['tool_calls']>[number]): void {
    this.grow((piece.function?.name?.length ?? 0) + (piece.function?.arguments?.length ?? 0));
    const call = this.calls.get(piece.index) ?? { callId: '', name: '', arguments: '' };
    if (piece.id) call.callId = piece.id;
    if (piece.function?.name) call.name += piece.function.name;
    if (piece.function?.arguments) call.arguments += piece.function.arguments;
    this.calls.set(piece.index, call);
  }

  *toolCalls(): Generator<AnswerEvent> {
    for (const [index, call] of [...this.calls.entries()].sort(([a], [b]) => a - b)) {
      yield { type: 'toolCall', callId: call.callId || `call_${index}`, name: call.name, arguments: call.arguments };
    }
  }
}

/** A failure as the events carry it; `fix` only when one click repairs it. */
export function answerError(message: string, retryable: boolean, cause: unknown): AnswerError {
  const fix = errorFix(cause);
  return { message, retryable, cause, ...(fix ? { fix } : {}) };
}

function tokenUsage(usage: Usage): TokenUsage {
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    reasoningTokens: usage.reasoning_tokens ?? null,
    totalTokens: usage.total_tokens,
  };
}

function sourceCitation(c: Citation): SourceCitation {
  return { fileId: c.file_id, filename: c.filename, volume: c.volume, snippet: c.snippet, score: c.score, ...(c.chunk_index !== undefined ? { chunkIndex: c.chunk_index } : {}) };
}

/** Which citation an answer's marker [n] points at (VS Code's `@ksm` links its markers too). */
export { citationByMarker } from './citations';
