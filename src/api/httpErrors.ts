// Maps what came back (or failed to come back) over HTTP to the error classes in errors.ts.
// Messages say what happened and what to do; everything taken from the answer (message,
// excerpt, header) passes the call's Redactor before it becomes part of an error.
import * as l10n from '@vscode/l10n';
import {
  AuthenticationError,
  BadResponseError,
  CancelledError,
  errorMessage,
  InvalidRequestError,
  KsmError,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitedError,
  ServerError,
  TimeoutError,
} from './errors';
import { LONGEST_QUOTED_RETRY_AFTER_MS } from './retry';
import { describeShape, describeText, type ShapeObserver } from './shapes';
import type { Redactor } from './redact';

const EXCERPT_CHARS = 200;

/** What the server said about an error, read tolerantly from the D2 body (or any body). */
export interface ServerErrorBody {
  message?: string;
  param?: string;
  type?: string;
  /** Where the message was read, for Check Connection's report. */
  path?: string;
}

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads an error body: D2 `{code, message, error:{…}}`, `{code, message}`, OpenAI's
 * `{error: {message, type, param}}`, `{error: "…"}`, `{detail: "…"}` and FastAPI's
 * `{detail: [{loc, msg}]}`, `{error_description}`, `{msg}`.
 */
export function readErrorBody(json: unknown): ServerErrorBody {
  if (!isJson(json)) return {};
  const inner = isJson(json.error) ? json.error : {};
  const read = readErrorMessageWithPath(json);
  const detail0 = Array.isArray(json.detail) && isJson(json.detail[0]) ? json.detail[0] : undefined;
  const loc = detail0 && Array.isArray(detail0.loc) ? detail0.loc.filter((part) => part !== 'body').join('.') : undefined;
  const param = typeof inner.param === 'string' ? inner.param : typeof json.param === 'string' ? json.param : loc || undefined;
  const type = typeof inner.type === 'string' ? inner.type : typeof json.type === 'string' ? json.type : undefined;
  return { message: read?.message, param, type, path: read?.path };
}

/** One clear sentence from whatever an error event or body carries. */
export function readErrorMessage(data: Json): string | undefined {
  return readErrorMessageWithPath(data)?.message;
}

function readErrorMessageWithPath(data: Json): { message: string; path: string } | undefined {
  const inner = isJson(data.error) ? data.error : undefined;
  const candidates: Array<[unknown, string]> = [
    [data.message, 'message'],
    [inner?.message, 'error.message'],
    [data.error, 'error'],
    [data.detail, 'detail'],
    [data.error_description, 'error_description'],
    [data.msg, 'msg'],
  ];
  for (const [candidate, path] of candidates) {
    if (typeof candidate === 'string' && candidate.trim()) return { message: oneSentence(candidate), path };
  }
  if (Array.isArray(data.detail) && isJson(data.detail[0]) && typeof data.detail[0].msg === 'string') {
    const loc = Array.isArray(data.detail[0].loc) ? data.detail[0].loc.join('.') : '';
    return { message: oneSentence(loc ? `${loc}: ${data.detail[0].msg}` : data.detail[0].msg), path: 'detail[0].msg' };
  }
  return undefined;
}

/** Whitespace collapsed to one line, at most 300 characters. */
export function oneSentence(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 297)}…` : line;
}

/**
 * A short, readable, redacted sample of a body for messages and logs. HTML (a proxy's or
 * load balancer's error page) is reduced to its text: a one-pass strip is enough for a
 * 200-character excerpt, so no HTML parser is pulled into the extension bundle for it.
 */
export function excerptOf(text: string, redact: Redactor): string {
  // Redacted before and after shortening: an entity-encoded or cut key is caught whole.
  const plain = shorten(redact(text));
  return redact(plain);
}

/**
 * How much of a body is reduced to text for an excerpt of EXCERPT_CHARS: a proxy's page puts
 * its title and message first. Cut after redaction, so the cut cannot split a key.
 */
const EXCERPT_SOURCE_CHARS = 64 * 1024;

function shorten(text: string): string {
  let plain = text.length > EXCERPT_SOURCE_CHARS ? text.slice(0, EXCERPT_SOURCE_CHARS) : text;
  if (/<(html|body|head|title|div|p|h\d)\b/i.test(plain)) {
    plain = withoutHiddenElements(plain)
      // A tag ends at the next '<' too, so an unclosed '<' is read once, not from every '<' after it.
      .replace(/<[^<>]*>/g, ' ')
      .replace(/&nbsp;/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  }
  plain = plain.replace(/\s+/g, ' ').trim();
  if (plain.length > EXCERPT_CHARS) plain = `${plain.slice(0, EXCERPT_CHARS)}…`;
  return plain;
}

/** Each hidden element's closing tag (`lastIndex` set before each search). */
const CLOSING_TAGS: Readonly<Record<string, RegExp>> = { script: /<\/script\s*>/gi, style: /<\/style\s*>/gi, head: /<\/head\s*>/gi };

/**
 * The page without its `<script>`, `<style>` and `<head>` elements (the head leaves its
 * title), in one pass: each closing tag is looked for once, and a tag found unclosed is not
 * looked for again. The regex it replaces (`<(script|style|head)\b[\s\S]*?<\/\1\s*>`) read
 * to the end from every unclosed opening tag, so a hostile 64 KiB error page of
 * `<script<script…` blocked the caller for seconds.
 */
function withoutHiddenElements(html: string): string {
  const opening = /<(script|style|head)\b/gi;
  const unclosed = new Set<string>();
  let text = '';
  let copied = 0;
  for (let open = opening.exec(html); open; open = opening.exec(html)) {
    const tag = open[1]!.toLowerCase();
    if (unclosed.has(tag)) continue;
    const closing = CLOSING_TAGS[tag]!;
    closing.lastIndex = opening.lastIndex;
    const close = closing.exec(html);
    if (!close) {
      unclosed.add(tag); // left as text, as the page sent it
      continue;
    }
    text += html.slice(copied, open.index) + (tag === 'head' ? titleOf(html.slice(open.index, closing.lastIndex)) : ' ');
    copied = opening.lastIndex = closing.lastIndex;
  }
  return text + html.slice(copied);
}

function titleOf(head: string): string {
  const open = /<title\b[^<>]*>/i.exec(head);
  if (!open) return ' ';
  const from = open.index + open[0].length;
  const close = /<\/title\s*>/gi;
  close.lastIndex = from;
  const end = close.exec(head);
  return end ? ` ${head.slice(from, end.index)} ` : ' ';
}

/** Parses `Retry-After` (seconds or an HTTP date) into milliseconds from now. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  const trimmed = raw.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

export interface ErrorResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bodyText: string;
  /** What the call was, for the message ("Listing files of volume docs"). */
  what: string;
  redact: Redactor;
  /** The clock `Retry-After` dates are read against (tests inject one). */
  now?: number;
  shapes?: ShapeObserver;
}

/** The error for a non-success answer (HTTP ≥ 400, or a JSON `code` ≠ 200 under HTTP 200). */
export function errorFromResponse(response: ErrorResponse, codeInBody?: number): KsmError {
  const { headers, bodyText, what, redact } = response;
  const status = codeInBody ?? response.status;
  let parsed: unknown;
  try {
    parsed = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    parsed = undefined;
  }
  const fromBody = typeof parsed === 'string' ? { message: oneSentence(parsed), path: 'a JSON string' } : readErrorBody(parsed);
  const said = fromBody.message ? redact(fromBody.message) : parsed === undefined && bodyText ? excerptOf(bodyText, redact) : '';
  response.shapes?.observe({
    source: 'error body',
    event: `HTTP ${response.status}`,
    shape: parsed === undefined ? describeText(bodyText, redact) : describeShape(parsed, redact),
    // `message` is our own decision (D2); every other place is a tolerant reading.
    paths: fromBody.path ? (fromBody.path === 'message' ? [] : [`error message from '${fromBody.path}'`]) : parsed === undefined && bodyText ? ['plain text or HTML, shown as a short excerpt'] : [],
    unknown: parsed !== undefined && !fromBody.message ? 'no message in any known field' : undefined,
  });
  const saidPart = said ? `: ${said}` : '';
  const param = fromBody.param === undefined ? undefined : redact(fromBody.param);
  switch (true) {
    case status === 401:
      return new AuthenticationError(l10n.t("{0} failed: the service did not accept the API key{1}. Set your API key with 'KSM: Set API Key'.", what, saidPart), { status });
    case status === 403:
      return new PermissionError(l10n.t('{0} failed: this API key may not access that resource{1}. Check the volume name or ask for access.', what, saidPart), { status, param });
    case status === 404:
      return new NotFoundError(l10n.t('{0} failed: not found{1}.', what, saidPart), { status, param, said: fromBody.message ? said : undefined });
    case status === 429:
      return rateLimited(what, status, saidPart, headers, response.now);
    case status >= 500: {
      // D3: a 503 may say when to come back, as a 429 does.
      const retryAfterMs = status === 503 ? parseRetryAfter(headers['retry-after'], response.now) : undefined;
      const message = !quotable(retryAfterMs)
        ? l10n.t('{0} failed: the service had an error (HTTP {1}){2}. Try again later.', what, status, saidPart)
        : l10n.t('{0} failed: the service had an error (HTTP {1}){2}. Wait {3} s and try again.', what, status, saidPart, waitSeconds(retryAfterMs));
      return new ServerError(message, { status, retryAfterMs });
    }
    case status >= 400:
      return new InvalidRequestError(param ? l10n.t("{0} was refused (HTTP {1}) (field '{2}'){3}.", what, status, param, saidPart) : l10n.t('{0} was refused (HTTP {1}){2}.', what, status, saidPart), {
        status,
        param,
      });
    default:
      return new BadResponseError(l10n.t('{0}: unexpected answer (HTTP {1}){2}.', what, status, saidPart), { status, excerpt: excerptOf(bodyText, redact) });
  }
}

/** Whether a Retry-After is worth quoting as a wait (a hostile or broken one may name the year 9999). */
function quotable(ms: number | undefined): ms is number {
  return ms !== undefined && ms <= LONGEST_QUOTED_RETRY_AFTER_MS;
}

function waitSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function rateLimited(what: string, status: number, saidPart: string, headers: ErrorResponse['headers'], now?: number): RateLimitedError {
  const retryAfterMs = parseRetryAfter(headers['retry-after'], now);
  const message = !quotable(retryAfterMs)
    ? l10n.t('{0} failed: the service is rate limiting requests{1}. Wait a moment and try again.', what, saidPart)
    : l10n.t('{0} failed: the service is rate limiting requests{1}. Wait {2} s and try again.', what, saidPart, waitSeconds(retryAfterMs));
  return new RateLimitedError(message, { status, retryAfterMs });
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** The error for a call that failed without a usable answer: cancelled, timed out, or broken. */
export function errorFromFailure(error: unknown, what: string, signal: AbortSignal | undefined, redact: Redactor): KsmError {
  if (error instanceof KsmError) return error;
  if (signal?.aborted) return new CancelledError(l10n.t('{0} was cancelled.', what), { cause: error });
  const code = codeOf(error);
  const detail = redact(errorMessage(error));
  if (code && TIMEOUT_CODES.has(code)) {
    return new TimeoutError(l10n.t("{0} timed out ({1}). Check the connection, or raise 'ksm.request.timeoutSeconds'.", what, detail), { cause: error });
  }
  // Node's own text usually names the code already ("connect ECONNREFUSED 127.0.0.1:8787"): say it once.
  const said = code && !detail.includes(code) ? `${code}: ${detail}` : detail;
  // Refused: nothing listens at the address. What to do about it (start the service, check the
  // address, Check Connection) is worded once, by src/common/core/errorFixes.ts.
  if (code === 'ECONNREFUSED') return new NetworkError(l10n.t('{0} failed: nothing accepted the connection ({1}).', what, said), { code, cause: error });
  return new NetworkError(l10n.t("{0} failed: could not reach the service ({1}). Check 'ksm.baseUrl', the network and proxy settings.", what, said), { ...(code ? { code } : {}), cause: error });
}

export function codeOf(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
