// Turns SSE events into typed chat chunks (D13, D14) and agent events (D19), and enforces
// the stream rules: a terminator must arrive ([DONE] / `done`), otherwise the stream was
// cut off; malformed JSON is a BadResponseError after what arrived before was yielded.
import { BadResponseError, StreamError } from './errors';
import { decodeCitations, decodeUsage, isObject, toNumber } from './decode';
import { excerptOf } from './httpErrors';
import type { Redactor } from './redact';
import type { ServerSentEvent } from './sse';
import type { AgentEvent, ChatCompletionChunk, ClientLogger } from './types';

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
    throw new BadResponseError(`${what}: the service sent data that is not valid JSON.`, { excerpt: excerptOf(data, redact), cause: error });
  }
}

/** Reads `{"code":503,"message":"…"}`, `"503: upstream unavailable"` or a bare message (D14). */
export function parseStreamError(content: unknown): { code?: number; message: string } {
  const text = typeof content === 'string' ? content.trim() : '';
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const message = typeof parsed.message === 'string' ? parsed.message : isObject(parsed.error) && typeof parsed.error.message === 'string' ? parsed.error.message : text;
      return { code: toNumber(parsed.code), message };
    } catch {
      // Not JSON after all: fall through to the plain-string forms.
    }
  }
  const coded = /^(\d{3,})\s*[:-]\s*(.*)$/s.exec(text);
  if (coded) return { code: Number(coded[1]), message: coded[2] || text };
  return { message: text || 'the service reported an error without details' };
}

/** Decodes one event; returns undefined for events that yield nothing (the terminator). */
export type EventDecoder<T> = (event: ServerSentEvent) => T | undefined;

export function chatChunkDecoder(state: StreamState, redact: Redactor): EventDecoder<ChatCompletionChunk> {
  const what = 'Chat stream';
  return (event) => {
    const data = event.data;
    if (data === '[DONE]') {
      state.finished = true;
      return undefined;
    }
    const chunk = parseJson(data, what, redact) as ChatCompletionChunk;
    const choices = (chunk as { choices?: unknown })?.choices;
    if (!Array.isArray(choices)) throw new BadResponseError(`${what}: a chunk had no choices.`, { excerpt: excerptOf(data, redact) });
    for (let i = 0; i < choices.length; i++) {
      const choice = choices[i];
      if (choice && choice.finish_reason === 'error') {
        const { code, message } = parseStreamError(choice.delta?.content);
        throw new StreamError(`The service reported an error during the answer${code === undefined ? '' : ` (${code})`}: ${excerptOf(message, redact)}`, { code });
      }
    }
    state.receivedAny = true;
    return chunk;
  };
}

export function agentEventDecoder(state: StreamState, redact: Redactor, logger?: ClientLogger): EventDecoder<AgentEvent> {
  const what = 'Agent stream';
  return (event) => {
    const name = event.event ?? 'message';
    state.receivedAny = true;
    if (!KNOWN_AGENT_EVENTS.has(name)) {
      // Passed on to whoever shows or stores it: redacted here, once, like an error.
      const shownName = redact(name);
      logger?.debug(`agent stream: passing on unknown event '${excerptOf(shownName, redact)}'`);
      return { kind: 'unknown', event: shownName, data: redact(event.data) };
    }
    const data = parseJson(event.data, what, redact);
    if (!isObject(data)) throw new BadResponseError(`${what}: event '${excerptOf(name, redact)}' did not carry a JSON object.`, { excerpt: excerptOf(event.data, redact) });
    const typed = toAgentEvent(name, data, redact);
    if (typed.kind === 'done') state.finished = true;
    return typed;
  };
}

const KNOWN_AGENT_EVENTS = new Set(['thread', 'retrieval', 'reasoning', 'message', 'error', 'done']);

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function toAgentEvent(name: string, data: Record<string, unknown>, redact: Redactor): AgentEvent {
  const threadId = str(data.thread_id);
  switch (name) {
    case 'thread':
      return { kind: 'thread', threadId: threadId ?? '', agentId: str(data.agent_id), messageId: str(data.message_id) };
    case 'retrieval':
      return { kind: 'retrieval', threadId, citations: decodeCitations(data.citations) };
    case 'reasoning':
      return { kind: 'reasoning', threadId, delta: str(data.delta) ?? '' };
    case 'message':
      return { kind: 'message', threadId, messageId: str(data.message_id), delta: str(data.delta) ?? '' };
    case 'error':
      // An upstream may echo the request (Authorization included) in its error message.
      return { kind: 'error', threadId, code: toNumber(data.code) ?? 0, message: redact(str(data.message) ?? 'the agent reported an error') };
    default:
      return { kind: 'done', threadId, messageId: str(data.message_id), status: str(data.status) ?? 'stop', usage: decodeUsage(data.usage) };
  }
}
