// Dialects: the other forms a real service may use where the reference says "not shown"
// (docs/service-contract.md, "What the client accepts beyond our decisions"). Off by
// default (our decisions, D2/D19/D20). With a dialect the emulator serves the same answers
// in another form, so every tolerant path of the client is tested over real HTTP: the
// agent event kind in a field instead of the `event:` name, the text under another field,
// the thread id under another name or one level down, `message_end`/`end` instead of
// `done`, error bodies in other shapes, and other SSE line endings (also a stream that
// closes without its final blank line).
import type { ServerResponse } from 'node:http';
import { badRequest, errorType } from './httpErrors';

export interface Dialect {
  /** Where an agent event's kind goes: the SSE `event:` name (D19), or an `event`/`type` field with no event name. */
  kind?: 'event-name' | 'event-field' | 'type-field';
  /** Where answer and reasoning text go in agent events and the plain agent answer. */
  text?: 'delta' | 'content' | 'answer' | 'text' | 'choices';
  /** Where the thread id goes. */
  thread?: 'thread_id' | 'threadId' | 'conversation_id' | 'data.thread_id' | 'metadata.thread_id';
  /** What ends an agent stream: `done` (D19), or `message_end`/`end` and then the connection closes. */
  end?: 'done' | 'message_end' | 'end';
  /** The body of every non-success answer. */
  errors?: 'd2' | 'code-message' | 'openai' | 'detail' | 'text' | 'html';
  /** SSE line ending, and whether the stream's last event keeps its final blank line. */
  eol?: 'lf' | 'crlf' | 'cr';
  finalNewline?: boolean;
}

const CHOICES: { [K in keyof Required<Dialect>]: ReadonlyArray<Required<Dialect>[K]> } = {
  kind: ['event-name', 'event-field', 'type-field'],
  text: ['delta', 'content', 'answer', 'text', 'choices'],
  thread: ['thread_id', 'threadId', 'conversation_id', 'data.thread_id', 'metadata.thread_id'],
  end: ['done', 'message_end', 'end'],
  errors: ['d2', 'code-message', 'openai', 'detail', 'text', 'html'],
  eol: ['lf', 'crlf', 'cr'],
  finalNewline: [true, false],
};

/** Named mixes of the forms, as platforms combine them. */
export const DIALECT_PRESETS: Record<string, Dialect> = {
  default: {},
  // Dify-like: kind in an `event` field, text under `answer`, `conversation_id`, `message_end`.
  dify: { kind: 'event-field', text: 'answer', thread: 'conversation_id', end: 'message_end', errors: 'code-message' },
  // OpenAI-like: a `type` field, choices[0].delta.content, nested thread id, OpenAI errors, CRLF.
  openai: { kind: 'type-field', text: 'choices', thread: 'metadata.thread_id', errors: 'openai', eol: 'crlf' },
  // A FastAPI-like service: `content`, `threadId`, `end`, `{detail}`, CR line ends, no final newline.
  fastapi: { text: 'content', thread: 'threadId', end: 'end', errors: 'detail', eol: 'cr', finalNewline: false },
  // Nested thread id, `text`, plain-text errors.
  plain: { kind: 'type-field', text: 'text', thread: 'data.thread_id', errors: 'text', finalNewline: false },
  // An HTML error page from a proxy in front of the service.
  proxy: { errors: 'html' },
};

/**
 * Reads a dialect: a preset name, `key=value` pairs separated by commas (for the CLI flag),
 * or an object (for the test control). Unknown keys or values are a 400 naming them.
 */
export function parseDialect(spec: unknown): Dialect {
  if (spec === undefined || spec === null || spec === '' || spec === 'default' || spec === 'off') return {};
  if (typeof spec === 'string' && Object.hasOwn(DIALECT_PRESETS, spec)) return { ...DIALECT_PRESETS[spec] };
  let entries: Array<[string, unknown]>;
  if (typeof spec === 'string') {
    entries = spec.split(',').map((pair) => {
      const [key, value = ''] = pair.split('=').map((part) => part.trim());
      return [key, key === 'finalNewline' ? value !== 'false' : value];
    });
  } else if (typeof spec === 'object' && !Array.isArray(spec)) {
    entries = Object.entries(spec as Record<string, unknown>);
  } else {
    throw badRequest(`dialect must be a preset (${Object.keys(DIALECT_PRESETS).join(', ')}), key=value pairs or an object`, 'dialect');
  }
  const dialect: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    const allowed = (CHOICES as Record<string, ReadonlyArray<unknown>>)[key];
    if (!allowed) throw badRequest(`unknown dialect key '${key}' (one of ${Object.keys(CHOICES).join(', ')}, or a preset: ${Object.keys(DIALECT_PRESETS).join(', ')})`, 'dialect');
    if (!allowed.includes(value)) throw badRequest(`dialect ${key} must be one of ${allowed.join(', ')}`, `dialect.${key}`);
    dialect[key] = value;
  }
  return dialect as Dialect;
}

const EVENT_NAMES_FOR_END = { done: 'done', message_end: 'message_end', end: 'end' } as const;

/**
 * An agent event (D19 name and data) in the dialect. `done` becomes the dialect's end
 * event; text moves from `delta` to the dialect's field; the thread id moves.
 */
export function agentEvent(dialect: Dialect, name: string, threadId: string, data: Record<string, unknown>): { event?: string; data: string } {
  const eventName = name === 'done' ? EVENT_NAMES_FOR_END[dialect.end ?? 'done'] : name;
  let body: Record<string, unknown> = { ...data };
  if (typeof body.delta === 'string') body = moveText(dialect, body, 'delta');
  body = placeThread(dialect, body, threadId);
  const kind = dialect.kind ?? 'event-name';
  if (kind === 'event-name') return { event: eventName, data: JSON.stringify(body) };
  const field = kind === 'event-field' ? 'event' : 'type';
  return { data: JSON.stringify({ [field]: eventName, ...body }) };
}

/** The plain agent answer (D20) in the dialect: text and thread id where the dialect puts them. */
export function agentMessageBody(dialect: Dialect, body: Record<string, unknown>): Record<string, unknown> {
  const { thread_id: threadId, ...rest } = body;
  let out = typeof rest.content === 'string' ? moveText(dialect, rest, 'content', true) : rest;
  out = placeThread(dialect, out, String(threadId));
  return out;
}

function moveText(dialect: Dialect, body: Record<string, unknown>, from: 'delta' | 'content', whole = false): Record<string, unknown> {
  const target = dialect.text ?? (whole ? 'content' : 'delta');
  const { [from]: text, ...rest } = body;
  if (target === 'choices') return { ...rest, choices: [{ index: 0, [whole ? 'message' : 'delta']: { content: text } }] };
  return { ...rest, [target === 'delta' && whole ? 'content' : target]: text };
}

function placeThread(dialect: Dialect, body: Record<string, unknown>, threadId: string): Record<string, unknown> {
  const place = dialect.thread ?? 'thread_id';
  if (place === 'data.thread_id') return { data: { thread_id: threadId }, ...body };
  if (place === 'metadata.thread_id') return { metadata: { thread_id: threadId }, ...body };
  return { [place]: threadId, ...body };
}

/** One SSE event as text in the dialect's line ending; `last` drops the final blank line when the dialect says so. */
export function formatSseEvent(dialect: Dialect, event: { event?: string; data: string }, last = false): string {
  const eol = dialect.eol === 'crlf' ? '\r\n' : dialect.eol === 'cr' ? '\r' : '\n';
  const lines = [...(event.event ? [`event: ${event.event}`] : []), ...event.data.split('\n').map((line) => `data: ${line}`)];
  const text = lines.join(eol);
  return last && dialect.finalNewline === false ? text : `${text}${eol}${eol}`;
}

/**
 * Writes an error answer in the dialect: our D2 body, `{code, message}`, OpenAI's
 * `{error: {message, type, param}}`, `{detail}`, plain text, or a proxy's HTML page.
 */
export function sendDialectError(
  res: ServerResponse,
  dialect: Dialect,
  error: { status: number; message: string; param: string | null; extra: Record<string, unknown>; headers: Record<string, string> },
): void {
  const { status, message, param, extra, headers } = error;
  let type = 'application/json; charset=utf-8';
  let text: string;
  switch (dialect.errors ?? 'd2') {
    case 'code-message':
      text = JSON.stringify({ code: status, message, ...extra });
      break;
    case 'openai':
      text = JSON.stringify({ error: { message, type: errorType(status), param, code: null }, ...extra });
      break;
    case 'detail':
      text = JSON.stringify({ detail: message, ...extra });
      break;
    case 'text':
      type = 'text/plain; charset=utf-8';
      text = message;
      break;
    case 'html':
      type = 'text/html; charset=utf-8';
      text = `<!DOCTYPE html><html><head><title>${status} Error</title><style>body{font-family:sans-serif}</style></head><body><h1>${status}</h1><p>${escapeHtml(message)}</p><hr><address>proxy</address></body></html>`;
      break;
    default:
      text = JSON.stringify({ code: status, message, error: { type: errorType(status), param, message }, ...extra });
  }
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
