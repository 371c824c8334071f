// The small set of error classes the UI acts on. Every message says what happened and
// what to do, and never contains the API key (see redact.ts).
import * as l10n from '@vscode/l10n';

export type KsmErrorKind =
  'auth' | 'permission' | 'not-found' | 'invalid-request' | 'rate-limited' | 'server' | 'network' | 'timeout' | 'cancelled' | 'bad-response' | 'stream-error' | 'cut-off' | 'config';

export abstract class KsmError extends Error {
  abstract readonly kind: KsmErrorKind;
  /** HTTP status, when an answer arrived. */
  readonly status?: number;
  /** The field the server blamed (D2 `error.param`), when it said. */
  readonly param?: string;
  /** The server's own message (redacted), when its answer had one. */
  readonly said?: string;

  constructor(message: string, options?: { status?: number; param?: string; said?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options?.status;
    this.param = options?.param;
    this.said = options?.said;
  }
}

/** 401: the key is missing or wrong. The fix is to set the API key. */
export class AuthenticationError extends KsmError {
  readonly kind = 'auth' as const;
}

/** 403: the key works but may not touch this resource. */
export class PermissionError extends KsmError {
  readonly kind = 'permission' as const;
}

export class NotFoundError extends KsmError {
  readonly kind = 'not-found' as const;
}

/**
 * A listing's 404 that means "this volume has no files yet" (D6: `not_found` with `param: "volume"`,
 * or, as the reference leaves error bodies open, a message of the service's own that speaks of
 * the volume, such as `{"detail": "Volume 'x' not found"}`). A 404 that blames nothing (an HTML
 * page, FastAPI's bare `Not Found`) is the address's, not the API's (Check Connection's reading
 * too): a web server at a wrong KSM_BASE_URL would otherwise list every volume as empty and exit 0.
 */
export function isUnwrittenVolume(error: unknown): boolean {
  return error instanceof NotFoundError && (error.param === 'volume' || (error.said !== undefined && /\bvolume\b/i.test(error.said)));
}

/** A 400 from the server, or a value the client refused to send (`status` undefined). */
export class InvalidRequestError extends KsmError {
  readonly kind = 'invalid-request' as const;
}

/** An answer that may say when to try again (`Retry-After` on a 429 or a 503). */
abstract class RetryAfterError extends KsmError {
  /** Milliseconds the server asked us to wait, when it said. */
  readonly retryAfterMs?: number;
  constructor(message: string, options?: { status?: number; retryAfterMs?: number; cause?: unknown }) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs;
  }
}

export class RateLimitedError extends RetryAfterError {
  readonly kind = 'rate-limited' as const;
}

/** 5xx. */
export class ServerError extends RetryAfterError {
  readonly kind = 'server' as const;
}

/** The connection failed or broke (DNS, refused, reset, TLS, proxy). */
export class NetworkError extends KsmError {
  readonly kind = 'network' as const;
  /** The system's error code when there was one (ECONNREFUSED, ENOTFOUND…): the fix depends on it. */
  readonly code?: string;
  constructor(message: string, options?: { code?: string; cause?: unknown }) {
    super(message, options);
    this.code = options?.code;
  }
}

export class TimeoutError extends KsmError {
  readonly kind = 'timeout' as const;
}

/**
 * An answer every later request would get too (a refused key, an unknown model, agent or
 * volume, a path that is not the API, a 400 other than "too large"): a run stops at the first
 * one, and the command line exits 3.
 */
export function isConfigurationAnswer(error: unknown): boolean {
  if (!(error instanceof KsmError)) return false;
  if (error.kind === 'auth' || error.kind === 'permission' || error.kind === 'config' || error.kind === 'not-found') return true;
  return error.kind === 'invalid-request' && error.status !== undefined && error.status !== 413;
}

/** The caller aborted. UIs stay silent on this one. */
export class CancelledError extends KsmError {
  readonly kind = 'cancelled' as const;
}

/** The answer was not what the contract says; `excerpt` is a short, redacted sample of it. */
export class BadResponseError extends KsmError {
  readonly kind = 'bad-response' as const;
  readonly excerpt?: string;
  constructor(message: string, options?: { status?: number; excerpt?: string; cause?: unknown }) {
    super(message, options);
    this.excerpt = options?.excerpt;
  }
}

/** The server reported an error inside a stream (`finish_reason: "error"`, or an agent `error` event). */
export class StreamError extends KsmError {
  readonly kind = 'stream-error' as const;
  /** The service's own error code from the stream. */
  readonly code?: number;
  constructor(message: string, options?: { code?: number; cause?: unknown }) {
    super(message, options);
    this.code = options?.code;
  }
}

/**
 * The stream ended before its terminator (`[DONE]` / `done`). Whatever arrived before was
 * already yielded; `receivedAny` tells "no data at all" from "cut off mid-answer".
 */
export class StreamCutOffError extends KsmError {
  readonly kind = 'cut-off' as const;
  readonly receivedAny: boolean;
  constructor(message: string, options: { receivedAny: boolean; cause?: unknown }) {
    super(message, options);
    this.receivedAny = options.receivedAny;
  }
}

/** The extension is not set up to make the call (no base URL, no key, bad CA file). */
export class ConfigurationError extends KsmError {
  readonly kind = 'config' as const;
}

/**
 * No API key is stored. Here, not in transport.ts, so the error → fix table
 * (src/common/core/errorFixes.ts, loaded at activation) can tell it by its class without
 * loading the HTTP stack: importing transport.ts pulls undici in, which costs activation ~400 ms.
 */
export class NoApiKeyError extends ConfigurationError {
  constructor() {
    super(l10n.t("No API key is set. Set your API key with 'KSM: Set API Key'."));
  }
}

export function isKsmError(error: unknown): error is KsmError {
  return error instanceof KsmError;
}

export function isCancellation(error: unknown): boolean {
  return error instanceof CancelledError || (error instanceof Error && error.name === 'AbortError');
}

// The key's redaction lives in redact.ts; re-exported for the callers that import it from here.
export { redactSecrets } from './redact';

/** What went wrong, as text: an error's message, or anything else thrown as a string. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The first line of what went wrong: the sentence a notification, a tool result or a report
 * shows. src/api writes every error as "what went wrong. What to do." on its first line, with
 * detail (the shapes, the cause) on later lines for the log.
 */
export function errorFirstLine(error: unknown): string {
  return (errorMessage(error).split('\n')[0] ?? '').trim();
}
