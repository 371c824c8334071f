// The Responses interface format (`output_parser: "responses"`, D16): its streamed events
// and its plain `Response` object, read into the chat format's own types
// (ChatCompletionChunk, ChatCompletion), so every consumer of the chat stream (the chat
// engine's answer events, VS Code's Chat, the tools, the CLI) reads either format with no
// second path. The accepted events follow OpenAI's published Responses streaming events
// (docs/service-contract.md, D16); what a real server may also do is tolerated: events
// named only by the `type` of their data, unknown events (ignored), `[DONE]` or none, an
// error mid-stream (StreamError), and a stream cut before its terminal event (the client's
// StreamCutOffError: a broken answer, never a finished one). A server that ignored
// `output_parser` and answers in the chat format is read as the chat format.
import * as l10n from '@vscode/l10n';
import { BadResponseError, StreamError } from './errors';
import { decodeChatCompletion, decodeUsage, isObject, toNumber, toStringValue } from './decode';
import { excerptOf } from './httpErrors';
import type { Redactor } from './redact';
import { describeShape, type ShapeObserver } from './shapes';
import type { ServerSentEvent } from './sse';
import { answerError, chatChunkDecoder, isJson, type EventDecoder, type StreamState } from './streams';
import type { ChatCompletion, ChatCompletionChunk, Citation, FinishReason, ToolCall, Usage } from './types';

type Delta = ChatCompletionChunk['choices'][number]['delta'];
type Raw = Record<string, unknown>;

/** The events that end a Responses stream; anything after them is not read. */
const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/** Responses usage (`input_tokens`, `output_tokens`, `output_tokens_details.reasoning_tokens`) as the chat format's. */
export function responsesUsage(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined;
  if (value.input_tokens === undefined && value.output_tokens === undefined) return decodeUsage(value);
  const prompt = toNumber(value.input_tokens) ?? 0;
  const completion = toNumber(value.output_tokens) ?? 0;
  const details = isObject(value.output_tokens_details) ? value.output_tokens_details : {};
  // The Responses format always counts reasoning tokens, 0 without reasoning; the chat format
  // says null then, and the answer events must not differ by format (D16).
  const reasoning = toNumber(details.reasoning_tokens) || null;
  return { prompt_tokens: prompt, completion_tokens: completion, reasoning_tokens: reasoning, total_tokens: toNumber(value.total_tokens) ?? prompt + completion };
}

/**
 * A file citation annotation (`file_citation`, `container_file_citation`, `file_path`) as the
 * agent's citation; `url_citation` names no volume file, so it is not a source the panel
 * can open and is left out.
 */
export function annotationCitation(annotation: unknown): Citation | undefined {
  if (!isObject(annotation)) return undefined;
  const type = toStringValue(annotation.type);
  if (type !== 'file_citation' && type !== 'container_file_citation' && type !== 'file_path') return undefined;
  const fileId = toStringValue(annotation.file_id);
  if (!fileId) return undefined;
  const citation: Citation = { file_id: fileId, filename: toStringValue(annotation.filename) ?? fileId };
  const volume = toStringValue(annotation.volume);
  if (volume) citation.volume = volume;
  const snippet = toStringValue(annotation.quote ?? annotation.snippet);
  if (snippet) citation.snippet = snippet;
  return citation;
}

/** `incomplete_details.reason` as a chat finish reason: `max_output_tokens` is `length`. */
function incompleteReason(response: unknown): FinishReason {
  const details = isObject(response) && isObject(response.incomplete_details) ? response.incomplete_details : {};
  const reason = toStringValue(details.reason);
  return reason === undefined || reason === 'max_output_tokens' || reason === 'max_tokens' ? 'length' : reason;
}

function failureOf(payload: unknown): { code?: number; message: string } {
  const source = isObject(payload) && isObject(payload.response) && isObject(payload.response.error) ? payload.response.error : isObject(payload) && isObject(payload.error) ? payload.error : payload;
  const raw = isObject(source) ? source : {};
  const message = toStringValue(raw.message) ?? l10n.t('the service reported an error without details');
  const code = toNumber(raw.code ?? raw.status);
  return { ...(code === undefined ? {} : { code }), message };
}

function streamError(payload: unknown, redact: Redactor): StreamError {
  const { code, message } = failureOf(payload);
  return new StreamError(answerError(code, excerptOf(message, redact)), { code });
}

function parseData(data: string, redact: Redactor): Raw {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch (error) {
    throw new BadResponseError(l10n.t('{0}: the service sent data that is not valid JSON.', l10n.t('Responses stream')), { excerpt: excerptOf(data, redact), cause: error });
  }
  if (!isObject(parsed)) throw new BadResponseError(l10n.t('{0}: an event was not a JSON object.', l10n.t('Responses stream')), { excerpt: excerptOf(data, redact) });
  return parsed;
}

/** One function call of the stream: its tool-call index, and how much of its arguments was passed on. */
interface CallState {
  index: number;
  argumentsSent: number;
  announced: boolean;
}

/**
 * Decodes a Responses stream into chat chunks. `state.finished` is set by a terminal event
 * (`response.completed`, `response.incomplete`; `response.failed` and `error` throw).
 */
export function responsesStreamDecoder(state: StreamState, redact: Redactor, shapes?: ShapeObserver): EventDecoder<ChatCompletionChunk> {
  let chat: EventDecoder<ChatCompletionChunk> | undefined;
  let id = '';
  let model = '';
  let created = 0;
  let firstSeen = false;
  const calls = new Map<string, CallState>();
  /** Per reasoning item, which text kind it streams: a server sending both a summary and the full text is shown one. */
  const reasoningKind = new Map<string, string>();

  const chunk = (delta: Delta, extra?: Partial<ChatCompletionChunk>, finishReason: FinishReason | null = null): ChatCompletionChunk => {
    state.receivedAny = true;
    const out: ChatCompletionChunk = { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] };
    return extra ? Object.assign(out, extra) : out;
  };
  const callOf = (key: string): CallState => {
    let call = calls.get(key);
    if (!call) {
      call = { index: calls.size, argumentsSent: 0, announced: false };
      calls.set(key, call);
    }
    return call;
  };
  const keyOf = (payload: Raw, item?: Raw): string => toStringValue(item?.id ?? payload.item_id) ?? `#${toNumber(payload.output_index) ?? 0}`;
  /** The start of a function call (id and name), or its whole self when nothing was announced. */
  const announce = (payload: Raw, item: Raw): ChatCompletionChunk | undefined => {
    const call = callOf(keyOf(payload, item));
    if (call.announced) return undefined;
    call.announced = true;
    const args = toStringValue(item.arguments) ?? '';
    call.argumentsSent = args.length;
    const callId = toStringValue(item.call_id ?? item.id) ?? `call_${call.index}`;
    return chunk({ tool_calls: [{ index: call.index, id: callId, type: 'function', function: { name: toStringValue(item.name) ?? '', arguments: args } }] });
  };
  const ended = (response: unknown, finishReason: FinishReason): ChatCompletionChunk => {
    state.finished = true;
    const usage = isObject(response) ? responsesUsage(response.usage) : undefined;
    const reason = finishReason === 'stop' && [...calls.values()].some((c) => c.announced) ? 'tool_calls' : finishReason;
    return chunk({}, { usage: usage ?? null }, reason);
  };

  const decode = (event: ServerSentEvent): ChatCompletionChunk | undefined => {
    if (chat) return chat.decode(event);
    const data = event.data;
    // `[DONE]` is not a Responses end: only a terminal event finishes the answer.
    if (data === '[DONE]') return undefined;
    if (event.unterminated && !isJson(data)) return undefined;
    const payload = parseData(data, redact);
    // A server that ignored output_parser answers in the chat format: read it as such.
    if (!firstSeen && (Array.isArray(payload.choices) || payload.object === 'chat.completion.chunk')) {
      chat = chatChunkDecoder(state, redact, shapes);
      return chat.decode(event);
    }
    const type = (event.event && event.event !== 'message' ? event.event : undefined) ?? toStringValue(payload.type) ?? '';
    // The hot path (most events of a stream): a text delta, nothing else to look at.
    if (firstSeen && type === 'response.output_text.delta') {
      const delta = payload.delta;
      return typeof delta === 'string' && delta ? chunk({ content: delta }) : undefined;
    }
    if (!firstSeen || TERMINAL_EVENTS.has(type)) {
      firstSeen = true;
      shapes?.observe({ source: 'responses stream', event: redact(type), shape: describeShape(payload, redact), paths: [] });
    }
    const response = isObject(payload.response) ? payload.response : undefined;
    if (response) {
      id = toStringValue(response.id) ?? id;
      model = toStringValue(response.model) ?? model;
      created = toNumber(response.created_at) ?? created;
    }
    switch (type) {
      case 'response.output_text.delta': {
        const delta = toStringValue(payload.delta);
        return delta ? chunk({ content: delta }) : undefined;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const delta = toStringValue(payload.delta);
        const item = toStringValue(payload.item_id) ?? '';
        const kind = reasoningKind.get(item) ?? type;
        reasoningKind.set(item, kind);
        return delta && kind === type ? chunk({ reasoning_content: delta }) : undefined;
      }
      case 'response.output_text.annotation.added': {
        const citation = annotationCitation(payload.annotation);
        return citation ? chunk({}, { citations: [citation] }) : undefined;
      }
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const item = isObject(payload.item) ? payload.item : undefined;
        if (!item || item.type !== 'function_call') return undefined;
        const start = announce(payload, item);
        if (start || type === 'response.output_item.added') return start;
        return rest(payload, toStringValue(item.arguments));
      }
      case 'response.function_call_arguments.delta': {
        const call = callOf(keyOf(payload));
        const delta = toStringValue(payload.delta);
        if (!delta) return undefined;
        call.argumentsSent += delta.length;
        return chunk({ tool_calls: [{ index: call.index, function: { arguments: delta } }] });
      }
      case 'response.function_call_arguments.done':
        return rest(payload, toStringValue(payload.arguments));
      case 'response.completed':
        return ended(response, 'stop');
      case 'response.incomplete':
        return ended(response, incompleteReason(response));
      case 'response.failed':
      case 'error':
        state.finished = true;
        throw streamError(payload, redact);
      default:
        // response.created, .in_progress, .content_part.*, .output_text.done and events this
        // client does not know: nothing to show (D16).
        return undefined;
    }
  };

  /** The part of a call's arguments not passed on yet (a server that sent them only whole, at `done`). */
  function rest(payload: Raw, whole: string | undefined): ChatCompletionChunk | undefined {
    const call = calls.get(keyOf(payload, isObject(payload.item) ? payload.item : undefined));
    if (!call || whole === undefined || whole.length <= call.argumentsSent) return undefined;
    const missing = whole.slice(call.argumentsSent);
    call.argumentsSent = whole.length;
    return chunk({ tool_calls: [{ index: call.index, function: { arguments: missing } }] });
  }

  /** Two chunks that carry only text (or only reasoning) become one: the same deltas in one item. */
  const merge = (previous: ChatCompletionChunk, next: ChatCompletionChunk): ChatCompletionChunk | undefined => {
    if (chat || previous.citations || next.citations || previous.usage || next.usage) return undefined;
    const [a, b] = [previous.choices[0], next.choices[0]];
    if (!a || !b || a.finish_reason || b.finish_reason || a.delta.tool_calls || b.delta.tool_calls) return undefined;
    if (typeof a.delta.content === 'string' && typeof b.delta.content === 'string' && a.delta.reasoning_content === undefined && b.delta.reasoning_content === undefined) {
      a.delta.content += b.delta.content;
      return previous;
    }
    if (typeof a.delta.reasoning_content === 'string' && typeof b.delta.reasoning_content === 'string' && a.delta.content === undefined && b.delta.content === undefined) {
      a.delta.reasoning_content += b.delta.reasoning_content;
      return previous;
    }
    return undefined;
  };

  return { decode, merge };
}

/** A plain `Response` object as a chat completion; a chat completion (output_parser ignored) as itself. */
export function decodeResponsesObject(body: unknown, redact: Redactor): ChatCompletion {
  if (isObject(body) && Array.isArray(body.choices)) return { ...decodeChatCompletion(body, redact), outputFormat: 'chat' };
  if (!isObject(body) || !Array.isArray(body.output)) {
    throw new BadResponseError(l10n.t('Response: the service sent an answer without `output`.'), { excerpt: excerptOf(JSON.stringify(body) ?? '', redact) });
  }
  const status = toStringValue(body.status);
  if (status === 'failed') throw streamError(body.error ? { error: body.error } : {}, redact);
  let content = '';
  let reasoning = '';
  const citations: Citation[] = [];
  const toolCalls: ToolCall[] = [];
  for (const item of body.output) {
    if (!isObject(item)) continue;
    if (item.type === 'message') {
      for (const part of Array.isArray(item.content) ? item.content : []) {
        if (!isObject(part) || part.type !== 'output_text') continue;
        content += toStringValue(part.text) ?? '';
        for (const annotation of Array.isArray(part.annotations) ? part.annotations : []) {
          const citation = annotationCitation(annotation);
          if (citation) citations.push(citation);
        }
      }
    } else if (item.type === 'reasoning') {
      const full = textsOf(item.content);
      reasoning += full || textsOf(item.summary);
    } else if (item.type === 'function_call') {
      toolCalls.push({
        id: toStringValue(item.call_id ?? item.id) ?? `call_${toolCalls.length}`,
        type: 'function',
        function: { name: toStringValue(item.name) ?? '', arguments: toStringValue(item.arguments) ?? '' },
      });
    }
  }
  const finishReason = status === 'incomplete' ? incompleteReason(body) : toolCalls.length ? 'tool_calls' : 'stop';
  return {
    id: toStringValue(body.id) ?? '',
    object: 'chat.completion',
    created: toNumber(body.created_at) ?? 0,
    model: toStringValue(body.model) ?? '',
    choices: [
      {
        index: 0,
        finish_reason: finishReason,
        message: { role: 'assistant', content, reasoning_content: reasoning || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}), ...(citations.length ? { citations } : {}) },
      },
    ],
    usage: responsesUsage(body.usage) ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    outputFormat: 'responses',
  };
}

function textsOf(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts.map((part) => (isObject(part) ? (toStringValue(part.text) ?? '') : '')).join('');
}
