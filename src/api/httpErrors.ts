// Maps what came back (or failed to come back) over HTTP to the error classes in errors.ts.
// Messages say what happened and what to do; everything taken from the answer (message,
// excerpt, header) passes the call's Redactor before it becomes part of an error.
import {
  AuthenticationError,
  BadResponseError,
  CancelledError,
  KsmError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitedError,
  ServerError,
  TimeoutError,
} from './errors';
import type { Redactor } from './redact';

const EXCERPT_CHARS = 200;

/** What the server said about an error, read tolerantly from the D2 body (or any body). */
export interface ServerErrorBody {
  message?: string;
  param?: string;
  type?: string;
}

/** Reads a D2 error body: `error.message`/`message`, `error.param`, `error.type`. */
export function readErrorBody(json: unknown): ServerErrorBody {
  if (!json || typeof json !== 'object') return {};
  const body = json as Record<string, unknown>;
  const inner = body.error && typeof body.error === 'object' ? (body.error as Record<string, unknown>) : {};
  const message = typeof inner.message === 'string' ? inner.message : typeof body.message === 'string' ? body.message : typeof body.error === 'string' ? body.error : undefined;
  const param = typeof inner.param === 'string' ? inner.param : typeof body.param === 'string' ? body.param : undefined;
  const type = typeof inner.type === 'string' ? inner.type : undefined;
  return { message, param, type };
}

/**
 * A short, readable, redacted sample of a body for messages and logs. HTML (a proxy's or
 * load balancer's error page) is reduced to its text: a regex strip is enough for a
 * 200-character excerpt, so no HTML parser is pulled into the extension bundle for it.
 */
export function excerptOf(text: string, redact: Redactor): string {
  // Redacted before and after shortening: an entity-encoded or cut key is caught whole.
  const plain = shorten(redact(text));
  return redact(plain);
}

function shorten(text: string): string {
  let plain = text;
  if (/<(html|body|head|title|div|p|h\d)\b/i.test(text)) {
    plain = text
      .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, (m, tag: string) => (tag.toLowerCase() === 'head' ? titleOf(m) : ' '))
      .replace(/<[^>]*>/g, ' ')
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

function titleOf(head: string): string {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(head);
  return match ? ` ${match[1]} ` : ' ';
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
  const fromBody = readErrorBody(parsed);
  const said = fromBody.message ? redact(fromBody.message) : parsed === undefined && bodyText ? excerptOf(bodyText, redact) : '';
  const saidPart = said ? `: ${said}` : '';
  const param = fromBody.param === undefined ? undefined : redact(fromBody.param);
  switch (true) {
    case status === 401:
      return new AuthenticationError(`${what} failed: the service did not accept the API key${saidPart}. Set your API key with 'KSM: Set API Key'.`, { status });
    case status === 403:
      return new PermissionError(`${what} failed: this API key may not access that resource${saidPart}. Check the volume name or ask for access.`, { status, param });
    case status === 404:
      return new NotFoundError(`${what} failed: not found${saidPart}.`, { status, param });
    case status === 429:
      return rateLimited(what, status, saidPart, headers, response.now);
    case status >= 500: {
      // D3: a 503 may say when to come back, as a 429 does.
      const retryAfterMs = status === 503 ? parseRetryAfter(headers['retry-after'], response.now) : undefined;
      const when = retryAfterMs === undefined ? 'Try again later' : `Wait ${waitSeconds(retryAfterMs)} s and try again`;
      return new ServerError(`${what} failed: the service had an error (HTTP ${status})${saidPart}. ${when}.`, { status, retryAfterMs });
    }
    case status >= 400:
      return new InvalidRequestError(`${what} was refused (HTTP ${status})${param ? ` (field '${param}')` : ''}${saidPart}.`, { status, param });
    default:
      return new BadResponseError(`${what}: unexpected answer (HTTP ${status})${saidPart}.`, { status, excerpt: excerptOf(bodyText, redact) });
  }
}

function waitSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function rateLimited(what: string, status: number, saidPart: string, headers: ErrorResponse['headers'], now?: number): RateLimitedError {
  const retryAfterMs = parseRetryAfter(headers['retry-after'], now);
  const wait = retryAfterMs === undefined ? 'Wait a moment' : `Wait ${waitSeconds(retryAfterMs)} s`;
  return new RateLimitedError(`${what} failed: the service is rate limiting requests${saidPart}. ${wait} and try again.`, { status, retryAfterMs });
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** The error for a call that failed without a usable answer: cancelled, timed out, or broken. */
export function errorFromFailure(error: unknown, what: string, signal: AbortSignal | undefined, redact: Redactor): KsmError {
  if (error instanceof KsmError) return error;
  if (signal?.aborted) return new CancelledError(`${what} was cancelled.`, { cause: error });
  const code = codeOf(error);
  const detail = redact(error instanceof Error ? error.message : String(error));
  if (code && TIMEOUT_CODES.has(code)) {
    return new TimeoutError(`${what} timed out (${detail}). Check the connection, or raise 'ksm.request.timeoutSeconds'.`, { cause: error });
  }
  return new NetworkError(`${what} failed: could not reach the service (${code ? `${code}: ` : ''}${detail}). Check 'ksm.baseUrl', the network and proxy settings.`, { cause: error });
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
