// The one HTTP path of the client: auth header, timeouts, cancellation, retries (D3),
// error mapping (D2) and the debug curl log. Built on undici's `request`, because the file
// list is a GET with a JSON body, which `fetch` refuses to send.
import * as l10n from '@vscode/l10n';
import type { Readable } from 'node:stream';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { BadResponseError, ConfigurationError, KsmError, NoApiKeyError, TimeoutError } from './errors';
import { toCurl, type CurlRequest } from './curl';
import { isObject, toNumber } from './decode';
import { errorFromFailure, errorFromResponse, excerptOf } from './httpErrors';
import { redactorFor, type Redactor } from './redact';
import { retryDelay, sleep as realSleep, type RetryPolicy, type Sleep } from './retry';
import type { ShapeObserver } from './shapes';
import type { ClientLogger } from './types';

/** Error bodies are read up to this size: enough for any message, bounded for a hostile one. */
const ERROR_BODY_LIMIT = 64 * 1024;
/**
 * A JSON answer (a listing page, a whole completion, an agent's answer) is read up to this
 * size: far above any real one, and a larger one (a gateway's download, a hostile body) is
 * refused instead of buffered into memory whole.
 */
export const ANSWER_BODY_LIMIT = 32 * 1024 * 1024;
/** A stream may be quiet for this long (a model thinking) before it counts as stalled. */
export const MIN_STREAM_IDLE_MS = 5 * 60_000;

export interface TransportOptions {
  baseUrl: string;
  apiKey: () => Promise<string | undefined>;
  timeoutMs: number;
  /** How long a stream may stay silent once it started. */
  streamIdleTimeoutMs: number;
  userAgent: string;
  dispatcher?: Dispatcher;
  logger?: ClientLogger;
  logRequests: boolean;
  retry: RetryPolicy;
  /** Told how error bodies were read (tolerant decoding, Check Connection). */
  shapes?: ShapeObserver;
  /** How retries wait; default a real timer. */
  sleep?: Sleep;
  /** The clock `Retry-After` dates are read against; default Date.now. */
  now?: () => number;
}

export interface MultipartBody {
  contentType: string;
  length: number;
  /** Creates the body afresh (a body is consumed once): pieces, or the whole body at once. */
  open: () => AsyncIterable<Uint8Array> | Uint8Array;
  curlForm: NonNullable<CurlRequest['form']>;
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** For messages: "Listing files of volume 'docs'". */
  what: string;
  json?: unknown;
  multipart?: MultipartBody;
  accept: 'application/json' | 'text/event-stream';
  signal?: AbortSignal;
  /** D3: only idempotent listing is retried. */
  retry?: boolean;
  /** 404 bodies the caller reads itself (D11 delete) instead of an error. */
  passStatus?: number;
}

export interface OpenResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
  /** Redacts the key of this call from anything the service sent. */
  redact: Redactor;
  /** The key of this call, for the answer's own redaction (answerRedaction.ts); never shown. */
  secrets: readonly string[];
}

/** What an HTTP header value may hold (Node's and undici's own check). */
const HEADER_SAFE = /^[\t\x20-\x7e\x80-\xff]*$/;

export class Transport {
  constructor(private readonly options: TransportOptions) {}

  get logger(): ClientLogger | undefined {
    return this.options.logger;
  }

  /** Sends the call and resolves once headers of a success answer arrived. */
  async open(call: HttpCall): Promise<OpenResponse> {
    const key = await this.options.apiKey();
    if (!key) throw new NoApiKeyError();
    // A pasted key with a line break, a control character or a character beyond Latin-1 cannot go in a header:
    // undici refused it as a network failure ("check the address, the network and proxy settings"), which it is not.
    if (!HEADER_SAFE.test(key))
      throw new ConfigurationError(
        l10n.t(
          "The API key holds a character a request header cannot carry (a line break, a control character or a letter outside Latin-1), so nothing was sent. Set your API key again with 'KSM: Set API Key'.",
        ),
      );
    const secrets = [key];
    const redact = redactorFor(secrets);
    const url = `${this.options.baseUrl}${call.path}`;
    const jsonText = call.json === undefined ? undefined : JSON.stringify(call.json);
    const headers: Record<string, string> = {
      authorization: `Bearer ${key}`,
      accept: call.accept,
      'user-agent': this.options.userAgent,
    };
    if (jsonText !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    if (call.multipart) {
      headers['content-type'] = call.multipart.contentType;
      headers['content-length'] = String(call.multipart.length);
    }
    if (this.options.logRequests) {
      this.options.logger?.info(toCurl({ method: call.method, url, headers, json: jsonText, form: call.multipart?.curlForm }, secrets));
    }
    const stream = call.accept === 'text/event-stream';
    for (let attempt = 0; ; attempt++) {
      let failure: KsmError;
      try {
        const response = await undiciRequest(url, {
          method: call.method,
          headers,
          // undici writes async iterables with backpressure (its typings omit them).
          body: (jsonText ?? call.multipart?.open()) as string | Readable | undefined,
          dispatcher: this.options.dispatcher,
          // The file list (GET) and deletion (DELETE) carry a JSON body, and undici closes the
          // connection after such a request unless told otherwise (it distrusts servers that
          // ignore those bodies). The body is framed by its content-length, so the connection
          // stays usable: a new one per listing page cost every re-sync its handshakes.
          reset: false,
          signal: call.signal,
          headersTimeout: this.options.timeoutMs,
          bodyTimeout: stream ? this.options.streamIdleTimeoutMs : this.options.timeoutMs,
        });
        const ok = response.statusCode < 300 || response.statusCode === call.passStatus;
        if (ok) return { status: response.statusCode, headers: response.headers, body: response.body, redact, secrets };
        if (response.statusCode < 400) throw redirected(call.what, response.statusCode, response.headers.location, response.body, redact);
        const bodyText = await readLimited(response.body, ERROR_BODY_LIMIT);
        failure = errorFromResponse({ status: response.statusCode, headers: response.headers, bodyText, what: call.what, redact, now: this.now(), shapes: this.options.shapes });
      } catch (error) {
        failure = errorFromFailure(error, call.what, call.signal, redact);
      }
      const delay = call.retry ? retryDelay(failure, attempt, this.options.retry) : undefined;
      if (delay === undefined) throw failure;
      this.options.logger?.debug(`${call.what}: ${failure.message} Retrying in ${delay} ms (attempt ${attempt + 2}).`);
      await (this.options.sleep ?? realSleep)(delay, call.signal);
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Sends the call and decodes a JSON answer; a `code` other than 200 in the body is an error (D2). */
  async json(call: HttpCall): Promise<{ status: number; body: unknown; text: string; redact: Redactor; secrets: readonly string[] }> {
    const response = await this.open(call);
    const text = await readAnswer(response, call, this.options.timeoutMs);
    if (response.status === call.passStatus) return { status: response.status, body: tryParse(text), text, redact: response.redact, secrets: response.secrets };
    const body = parseJsonBody(text, call.what, response.status, response.redact);
    checkBodyCode(body, text, response, call.what, this.now());
    return { status: response.status, body, text, redact: response.redact, secrets: response.secrets };
  }

  /** Sends the call and checks that a stream (not a JSON error under 200) came back. */
  async stream(call: HttpCall): Promise<OpenResponse> {
    const response = await this.open(call);
    const type = String(response.headers['content-type'] ?? '');
    if (type.includes('text/event-stream')) return response;
    const text = await readLimited(response.body, ERROR_BODY_LIMIT).catch(() => '');
    const body = parseJsonBody(text, call.what, response.status, response.redact);
    checkBodyCode(body, text, response, call.what, this.now());
    throw new BadResponseError(
      type
        ? l10n.t("{0}: expected a stream but the service answered '{1}'.", call.what, excerptOf(type, response.redact))
        : l10n.t('{0}: expected a stream but the service answered with no content type.', call.what),
      {
        status: response.status,
        excerpt: excerptOf(text, response.redact),
      },
    );
  }
}

/** Redirects are not followed: the key must not be sent on to another address unasked. */
function redirected(what: string, status: number, location: string | string[] | undefined, body: { dump(): Promise<void> }, redact: Redactor): BadResponseError {
  void body.dump().catch(() => undefined);
  const target = Array.isArray(location) ? location[0] : location;
  return new BadResponseError(
    target
      ? l10n.t("{0}: the service redirected (HTTP {1}) to '{2}'. Set 'ksm.baseUrl' to the final address (for example https:// instead of http://).", what, status, excerptOf(target, redact))
      : l10n.t("{0}: the service redirected (HTTP {1}). Set 'ksm.baseUrl' to the final address (for example https:// instead of http://).", what, status),
    { status },
  );
}

function parseJsonBody(text: string, what: string, status: number, redact: Redactor): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadResponseError(l10n.t("{0}: the service's answer was not valid JSON (HTTP {1}).", what, status), { status, excerpt: excerptOf(text, redact), cause: error });
  }
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function checkBodyCode(body: unknown, text: string, response: OpenResponse, what: string, now: number): void {
  if (!isObject(body) || body.code === undefined) return;
  const code = toNumber(body.code);
  if (code === 200 || code === 0) return;
  throw errorFromResponse({ status: response.status, headers: response.headers, bodyText: text, what, redact: response.redact, now }, code ?? 500);
}

/**
 * Reads a JSON answer's body as text: at most ANSWER_BODY_LIMIT bytes, and whole within
 * `timeoutMs` of its headers (undici's body timeout is per read, so a body dribbled one byte
 * at a time never tripped it). A BOM is dropped, as undici's `text()` did.
 */
async function readAnswer(response: OpenResponse, call: HttpCall, timeoutMs: number): Promise<string> {
  const { body } = response;
  const tooLarge = () =>
    new BadResponseError(l10n.t("{0}: the service's answer is larger than {1} MiB, so it was not read.", call.what, ANSWER_BODY_LIMIT / (1024 * 1024)), { status: response.status });
  const declared = Number(response.headers['content-length']);
  if (declared > ANSWER_BODY_LIMIT) {
    body.destroy();
    throw tooLarge();
  }
  const pieces: Buffer[] = [];
  let size = 0;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    body.destroy();
  }, timeoutMs);
  const timeout = (cause?: unknown) =>
    new TimeoutError(l10n.t("{0} timed out: the answer did not arrive whole within {1} s. Check the connection, or raise 'ksm.request.timeoutSeconds'.", call.what, Math.ceil(timeoutMs / 1000)), {
      cause,
    });
  try {
    for await (const piece of body) {
      size += piece.length;
      if (size > ANSWER_BODY_LIMIT) throw tooLarge();
      pieces.push(piece);
    }
  } catch (error) {
    body.destroy();
    if (timedOut && !call.signal?.aborted) throw timeout(error);
    throw errorFromFailure(error, call.what, call.signal, response.redact);
  } finally {
    clearTimeout(timer);
  }
  // A body destroyed by the deadline may end without an error: what arrived is not the answer.
  if (timedOut) throw timeout();
  return UTF8.decode(pieces.length === 1 ? pieces[0] : Buffer.concat(pieces));
}

/** Decodes whole bodies (no `stream` option, so it keeps no state between calls); drops a BOM as undici's `text()` did. */
const UTF8 = new TextDecoder('utf-8');

/** Reads at most `limit` bytes as text, then drops the rest of the body. */
async function readLimited(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<string> {
  const pieces: Buffer[] = [];
  let size = 0;
  for await (const piece of body) {
    pieces.push(piece);
    size += piece.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(pieces).subarray(0, limit).toString('utf8');
}
