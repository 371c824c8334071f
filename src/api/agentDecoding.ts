// Tolerant reading of the agent's answers, streamed (D19) and whole (D20). The reference
// does not show the event kinds, where `thread_id` sits, the plain answer's body or how a
// stream ends, so besides our decisions the client accepts the forms agent and chat
// platforms commonly use (docs/service-contract.md, "What the client accepts beyond our
// decisions"). Every event reports how it was read to a ShapeObserver; an event or field
// shape that fits no known form is yielded as far as it could be read and reported as
// unknown (never dropped silently).
import * as l10n from '@vscode/l10n';
import { BadResponseError } from './errors';
import { badShape, decodeCitations, decodeUsage, isObject, toNumber } from './decode';
import { excerptOf, readErrorMessage } from './httpErrors';
import type { Redactor } from './redact';
import { describeShape, describeText, type ShapeObserver } from './shapes';
import type { ServerSentEvent } from './sse';
import type { AgentEvent, AgentMessage, Citation, Usage } from './types';

type Json = Record<string, unknown>;
type Kind = Exclude<AgentEvent['kind'], 'unknown'> | 'end';

/**
 * Event names (from `event:` or an `event`/`type` field) and the kind each stands for.
 * `end` names (message_end, end…) finish the answer only when no `done` follows before the
 * connection closes cleanly.
 */
const KIND_BY_NAME: Record<string, Kind> = {
  thread: 'thread',
  thread_created: 'thread',
  conversation: 'thread',
  message_start: 'thread',
  retrieval: 'retrieval',
  citations: 'retrieval',
  retriever_resources: 'retrieval',
  sources: 'retrieval',
  reasoning: 'reasoning',
  thinking: 'reasoning',
  reasoning_delta: 'reasoning',
  agent_thought: 'reasoning',
  message: 'message',
  agent_message: 'message',
  message_delta: 'message',
  answer: 'message',
  text: 'message',
  delta: 'message',
  error: 'error',
  done: 'done',
  message_end: 'end',
  end: 'end',
  message_stop: 'end',
  completed: 'end',
  finish: 'end',
  finished: 'end',
};

const THREAD_FIELDS = ['thread_id', 'threadId', 'conversation_id', 'conversationId'];
const NESTS = ['data', 'metadata', 'thread', 'message'];
const TEXT_FIELDS = ['delta', 'content', 'answer', 'text'];
const WRAPPER_FIELDS = new Set(['event', 'type', 'data', 'id', 'created', 'created_at', ...THREAD_FIELDS]);

export interface ThreadIdRead {
  value: string;
  path: string;
}

/** `thread_id`, `threadId` or `conversation_id`, at the top or one level down (`data.…`, `metadata.…`, `thread.id`). */
export function readThreadId(data: Json): ThreadIdRead | undefined {
  for (const field of THREAD_FIELDS) {
    if (typeof data[field] === 'string' && data[field]) return { value: data[field] as string, path: field };
  }
  for (const nest of NESTS) {
    const inner = data[nest];
    if (!isObject(inner)) continue;
    for (const field of THREAD_FIELDS) {
      if (typeof inner[field] === 'string' && inner[field]) return { value: inner[field] as string, path: `${nest}.${field}` };
    }
    if (nest === 'thread' && typeof inner.id === 'string') return { value: inner.id, path: 'thread.id' };
  }
  return undefined;
}

/** Answer or reasoning text under `delta`, `content`, `answer`, `text`, `delta.text`, or `choices[0].delta.content`. */
export function readText(data: Json, reasoning = false): { value: string; path: string } | undefined {
  for (const field of TEXT_FIELDS) {
    const value = data[field];
    if (typeof value === 'string') return { value, path: field };
    // `delta: {text}` / `delta: {content}` (Anthropic- and OpenAI-like deltas).
    if (isObject(value)) {
      for (const innerField of ['text', 'content']) {
        if (typeof value[innerField] === 'string') return { value: value[innerField] as string, path: `${field}.${innerField}` };
      }
    }
  }
  const choices = data.choices;
  if (Array.isArray(choices) && isObject(choices[0])) {
    const delta = isObject(choices[0].delta) ? choices[0].delta : isObject(choices[0].message) ? choices[0].message : undefined;
    const source = isObject(choices[0].delta) ? 'delta' : 'message';
    if (delta) {
      const fields = reasoning ? ['reasoning_content', 'content'] : ['content'];
      for (const field of fields) {
        if (typeof delta[field] === 'string') return { value: delta[field] as string, path: `choices[0].${source}.${field}` };
      }
    }
  }
  return undefined;
}

function readCitations(data: Json): { value: Citation[]; path: string } | undefined {
  for (const field of ['citations', 'retriever_resources', 'sources']) {
    if (Array.isArray(data[field])) return { value: decodeCitations(data[field]), path: field };
  }
  if (isObject(data.metadata)) {
    for (const field of ['citations', 'retriever_resources']) {
      if (Array.isArray(data.metadata[field])) return { value: decodeCitations(data.metadata[field]), path: `metadata.${field}` };
    }
  }
  return undefined;
}

function readUsage(data: Json): { value: Usage; path: string } | undefined {
  const direct = decodeUsage(data.usage);
  if (direct) return { value: direct, path: 'usage' };
  const nested = isObject(data.metadata) ? decodeUsage(data.metadata.usage) : undefined;
  return nested ? { value: nested, path: 'metadata.usage' } : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export interface AgentStreamState {
  finished: boolean;
  receivedAny: boolean;
}

export interface AgentStreamDecoder {
  decode(event: ServerSentEvent): AgentEvent | undefined;
  /** At a clean close without `done`: the end an earlier end event announced, if any. */
  atCleanEnd(): AgentEvent | undefined;
}

/**
 * Decodes agent events. The kind comes from the SSE `event:` name, or, when the stream has
 * none (or only the default `message`), from an `event` or `type` field in the data.
 * Each distinct way of reading is reported once per stream to `shapes`.
 */
export function agentStreamDecoder(state: AgentStreamState, redact: Redactor, shapes?: ShapeObserver): AgentStreamDecoder {
  const what = l10n.t('Agent stream');
  const reported = new Set<string>();
  let pendingEnd: Extract<AgentEvent, { kind: 'done' }> | undefined;
  let lastThreadId: string | undefined;

  const report = (event: string | undefined, shape: () => string, paths: string[], unknown?: string) => {
    if (!shapes) return;
    const key = `${event}|${paths.join(',')}|${unknown ?? ''}`;
    if (reported.has(key)) return;
    reported.add(key);
    // Event names come from the service: redacted like everything else it sends.
    shapes.observe({ source: 'agent stream', event: event === undefined ? undefined : redact(event), shape: shape(), paths, unknown });
  };

  const decode = (event: ServerSentEvent): AgentEvent | undefined => {
    state.receivedAny = true;
    const sseName = event.event;
    const raw = event.data;
    if (raw.trim() === '[DONE]') {
      report(sseName, () => '[DONE]', ['end from data: [DONE]']);
      return finish(pendingEnd ?? { kind: 'done', threadId: lastThreadId, status: 'stop' });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      // The last event of a stream that closed without a blank line may be cut mid-way:
      // that is a cut-off answer, not a bad one.
      if (event.unterminated) return undefined;
      const known = sseName === undefined || KIND_BY_NAME[sseName] !== undefined;
      if (!known) {
        report(sseName, () => describeText(raw, redact), [], 'an event name this version does not know, with data that is not JSON');
        // Passed on to whoever shows or stores it: redacted here, once, like an error.
        return { kind: 'unknown', event: redact(sseName ?? 'message'), data: redact(raw) };
      }
      throw new BadResponseError(l10n.t('{0}: the service sent data that is not valid JSON.', what), { excerpt: excerptOf(raw, redact), cause: error });
    }
    if (!isObject(parsed)) {
      if (event.unterminated) return undefined;
      throw new BadResponseError(l10n.t("{0}: event '{1}' did not carry a JSON object.", what, excerptOf(sseName ?? 'message', redact)), { excerpt: excerptOf(raw, redact) });
    }

    const paths: string[] = [];
    let name = sseName;
    const fieldName = str(parsed.event) ?? str(parsed.type);
    const fieldUsed = (sseName === undefined || sseName === 'message') && fieldName !== undefined && (KIND_BY_NAME[fieldName] !== undefined || sseName === undefined);
    if (fieldUsed) {
      name = fieldName;
      paths.push(`kind from the '${typeof parsed.event === 'string' ? 'event' : 'type'}' field`);
    } else if (sseName !== undefined) {
      paths.push('kind from the event: name');
    } else {
      name = 'message';
      paths.push('kind: no event name or type field, read as message');
    }
    const kind = KIND_BY_NAME[name!];
    // A payload wrapped one level down (`{event, data: {...}}`, nothing else beside it) is read where it is.
    const wrapped = fieldUsed && isObject(parsed.data) && Object.keys(parsed).every((key) => WRAPPER_FIELDS.has(key));
    const payload = wrapped ? (paths.push('fields under data'), parsed.data as Json) : parsed;
    const thread = readThreadId(payload) ?? readThreadId(parsed);
    if (thread) {
      lastThreadId = thread.value;
      if (thread.path !== 'thread_id') paths.push(`thread id from '${thread.path}'`);
    }
    const threadId = thread?.value;
    const shape = () => describeShape(parsed, redact);

    if (kind === undefined) {
      report(name, shape, paths, 'an event name this version does not know');
      return { kind: 'unknown', event: redact(name ?? 'message'), data: redact(raw) };
    }
    switch (kind) {
      case 'thread':
        report(name, shape, paths, threadId ? undefined : 'no thread id in any known field');
        return { kind: 'thread', threadId: threadId ?? '', agentId: str(payload.agent_id), messageId: str(payload.message_id ?? payload.id) };
      case 'retrieval': {
        const citations = readCitations(payload);
        if (citations && citations.path !== 'citations') paths.push(`citations from '${citations.path}'`);
        report(name, shape, paths, citations ? undefined : 'no citations in any known field');
        return { kind: 'retrieval', threadId, citations: citations?.value ?? [] };
      }
      case 'reasoning':
      case 'message': {
        const text = readText(payload, kind === 'reasoning');
        if (text && text.path !== 'delta') paths.push(`text from '${text.path}'`);
        // Some platforms put citations on the message events themselves.
        report(name, shape, paths, text ? undefined : 'no text in any known field (delta, content, answer, text, choices[0].delta.content)');
        const delta = text?.value ?? '';
        return kind === 'reasoning' ? { kind, threadId, delta } : { kind, threadId, messageId: str(payload.message_id ?? payload.id), delta };
      }
      case 'error': {
        // An upstream may echo the request (Authorization included) in its error message.
        const message = redact(readErrorMessage(payload) ?? l10n.t('the agent reported an error'));
        report(name, shape, paths);
        return { kind: 'error', threadId, code: toNumber(payload.code ?? payload.status) ?? 0, message };
      }
      case 'done':
      case 'end': {
        const usage = readUsage(payload);
        if (usage && usage.path !== 'usage') paths.push(`usage from '${usage.path}'`);
        const ending: Extract<AgentEvent, { kind: 'done' }> = {
          kind: 'done',
          threadId: threadId ?? lastThreadId,
          messageId: str(payload.message_id ?? payload.id) ?? pendingEnd?.messageId,
          status: str(payload.status) ?? str(payload.finish_reason) ?? pendingEnd?.status ?? 'stop',
          usage: usage?.value ?? pendingEnd?.usage,
        };
        if (kind === 'end') {
          paths.push(`'${name}' ends the answer when the connection then closes without 'done'`);
          report(name, shape, paths);
          pendingEnd = ending;
          return undefined;
        }
        report(name, shape, paths);
        return finish(ending);
      }
    }
  };

  const finish = (event: Extract<AgentEvent, { kind: 'done' }>): AgentEvent => {
    state.finished = true;
    return event;
  };

  return {
    decode,
    atCleanEnd: () => (pendingEnd ? finish(pendingEnd) : undefined),
  };
}

/** The non-streaming answer (D20), read as tolerantly as the stream. */
export function decodeAgentMessage(body: unknown, redact: Redactor, shapes?: ShapeObserver): AgentMessage {
  if (!isObject(body)) throw badShape(l10n.t('Agent message'), body, redact);
  const paths: string[] = [];
  const thread = readThreadId(body);
  if (thread === undefined) {
    shapes?.observe({ source: 'agent answer', shape: describeShape(body, redact), paths, unknown: 'no thread id in any known field' });
    throw badShape(l10n.t('Agent message (no thread id)'), body, redact);
  }
  if (thread.path !== 'thread_id') paths.push(`thread id from '${thread.path}'`);
  const payload = isObject(body.data) && !readText(body) ? body.data : body;
  const text = typeof payload.content === 'string' ? { value: payload.content, path: 'content' } : readText(payload);
  if (text && text.path !== 'content') paths.push(`text from '${text.path}'`);
  const citations = readCitations(payload);
  if (citations && citations.path !== 'citations') paths.push(`citations from '${citations.path}'`);
  const usage = readUsage(payload);
  if (usage && usage.path !== 'usage') paths.push(`usage from '${usage.path}'`);
  shapes?.observe({ source: 'agent answer', shape: describeShape(body, redact), paths, unknown: text ? undefined : 'no answer text in any known field' });
  return {
    id: str(payload.id ?? payload.message_id) ?? '',
    threadId: thread.value,
    agentId: str(payload.agent_id) ?? '',
    content: text?.value ?? '',
    reasoningContent: str(payload.reasoning_content) ?? str(payload.reasoning) ?? null,
    citations: citations?.value ?? [],
    status: str(payload.status) ?? str(payload.finish_reason) ?? 'stop',
    usage: usage?.value,
  };
}
