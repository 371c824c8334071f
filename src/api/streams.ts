// Turns SSE events into typed chat chunks (D13, D14) and enforces the stream rules: a
// terminator must arrive ([DONE]), otherwise the stream was cut off; malformed JSON is a
// BadResponseError after what arrived before was yielded. Agent events: agentDecoding.ts.
import * as l10n from '@vscode/l10n';
import { BadResponseError, StreamError } from './errors';
import { argumentsText, decodeUsage, isObject, toNumber, toStringValue } from './decode';
import { excerptOf, readErrorMessage } from './httpErrors';
import type { Redactor } from './redact';
import { describeShape, type ShapeObserver } from './shapes';
import type { ServerSentEvent } from './sse';
import type { ChatCompletionChunk } from './types';

export interface StreamState {
  /** Set when the terminator arrived. */
  finished: boolean;
  /** Set when at least one event was yielded. */
  receivedAny: boolean;
}

function parseJson(data: string, what: string, redact: Redactor): unknown {
  try {
    return JSON.parse(data);
  } catch (error) {
    throw new BadResponseError(l10n.t('{0}: the service sent data that is not valid JSON.', what), { excerpt: excerptOf(data, redact), cause: error });
  }
}

/** Reads `{"code":503,"message":"…"}`, `"503: upstream unavailable"` or a bare message (D14). */
/** The message of an error the service reported inside an answer's stream (chat or Responses). */
export function answerError(code: number | undefined, said: string): string {
  return code === undefined ? l10n.t('The service reported an error during the answer: {0}', said) : l10n.t('The service reported an error during the answer ({0}): {1}', code, said);
}

export function parseStreamError(content: unknown): { code?: number; message: string } {
  const text = typeof content === 'string' ? content.trim() : '';
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const message = (isObject(parsed) && readErrorMessage(parsed)) || text;
      return { code: isObject(parsed) ? toNumber(parsed.code ?? parsed.status) : undefined, message };
    } catch {
      // Not JSON after all: fall through to the plain-string forms.
    }
  }
  const coded = /^(\d{3,})\s*[:-]\s*(.*)$/s.exec(text);
  if (coded) return { code: Number(coded[1]), message: coded[2] || text };
  return { message: text || l10n.t('the service reported an error without details') };
}

export interface EventDecoder<T> {
  /** Decodes one event; undefined for events that yield nothing (the terminator). */
  decode(event: ServerSentEvent): T | undefined;
  /** At a clean close before the terminator: a last item that ends the stream after all, if any. */
  atCleanEnd?(): T | undefined;
  /** `next` folded into `previous` when the two may go as one item (consecutive text deltas), else undefined. */
  merge?(previous: T, next: T): T | undefined;
}

export function chatChunkDecoder(state: StreamState, redact: Redactor, shapes?: ShapeObserver): EventDecoder<ChatCompletionChunk> {
  const what = l10n.t('Chat stream');
  let firstSeen = false;
  const decode = (event: ServerSentEvent): ChatCompletionChunk | undefined => {
    const data = event.data;
    if (data === '[DONE]') {
      state.finished = true;
      if (event.unterminated) shapes?.observe({ source: 'chat stream', shape: '[DONE]', paths: ['[DONE] without a final blank line, read at the clean close'] });
      return undefined;
    }
    // The last event of a stream that closed without a blank line may be cut mid-way.
    if (event.unterminated && !isJson(data)) return undefined;
    const chunk = parseJson(data, what, redact) as ChatCompletionChunk;
    // Only the first chunk and the finishing one are described: this path runs per token.
    if (shapes && (!firstSeen || (chunk as { usage?: unknown })?.usage)) {
      firstSeen = true;
      shapes.observe({ source: 'chat stream', event: event.event === undefined ? undefined : redact(event.event), shape: describeShape(chunk, redact), paths: [] });
    }
    const choices = (chunk as { choices?: unknown })?.choices;
    if (!Array.isArray(choices)) throw new BadResponseError(l10n.t('{0}: a chunk had no choices.', what), { excerpt: excerptOf(data, redact) });
    for (let i = 0; i < choices.length; i++) {
      const choice: unknown = choices[i];
      if (!isObject(choice)) throw new BadResponseError(l10n.t('{0}: a chunk had a choice that is not an object.', what), { excerpt: excerptOf(data, redact) });
      if (choice.finish_reason === 'error') {
        const { code, message } = parseStreamError(isObject(choice.delta) ? choice.delta.content : undefined);
        throw new StreamError(answerError(code, excerptOf(message, redact)), { code });
      }
      normaliseChoice(choice, i);
    }
    // `citations` and a decoded `usage` are ours (a Responses stream's); the wire's are not believed as they are.
    if ('citations' in chunk) delete (chunk as { citations?: unknown }).citations;
    if (chunk.usage !== undefined && chunk.usage !== null) chunk.usage = decodeUsage(chunk.usage) ?? null;
    state.receivedAny = true;
    return chunk;
  };
  return { decode };
}

const DELTA_TEXT_FIELDS = ['content', 'reasoning_content', 'role'] as const;

/**
 * A chat chunk's choice in the shape its readers count on (D8): a delta object, text fields
 * as strings (a number is its text; anything else is dropped), tool call pieces as objects
 * with a numeric index and string name and arguments (an object of arguments is its JSON).
 * A choice without a delta (a last one carrying only `finish_reason`) is an empty delta.
 */
function normaliseChoice(choice: Record<string, unknown>, position: number): void {
  choice.index = toNumber(choice.index) ?? position;
  if (choice.finish_reason !== undefined && choice.finish_reason !== null) choice.finish_reason = toStringValue(choice.finish_reason) ?? null;
  if (!isObject(choice.delta)) choice.delta = {};
  const delta = choice.delta as Record<string, unknown>;
  for (const field of DELTA_TEXT_FIELDS) {
    const value = delta[field];
    if (value === undefined || value === null || typeof value === 'string') continue;
    const text = toStringValue(value);
    if (text === undefined) delete delta[field];
    else delta[field] = text;
  }
  if (delta.tool_calls === undefined || delta.tool_calls === null) return;
  if (!Array.isArray(delta.tool_calls)) {
    delete delta.tool_calls;
    return;
  }
  delta.tool_calls = delta.tool_calls.filter(isObject).map((call, i) => {
    const fn = isObject(call.function) ? call.function : undefined;
    const name = fn ? toStringValue(fn.name) : undefined;
    const args = fn ? argumentsText(fn.arguments) : undefined;
    return {
      index: toNumber(call.index) ?? i,
      ...(toStringValue(call.id) !== undefined ? { id: toStringValue(call.id) } : {}),
      ...(call.type === 'function' ? { type: 'function' } : {}),
      ...(fn ? { function: { ...(name !== undefined ? { name } : {}), ...(args !== undefined ? { arguments: args } : {}) } } : {}),
    };
  });
}

/** Whether an event's data is complete JSON (a stream cut mid-event leaves it unterminated and partial). */
export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
