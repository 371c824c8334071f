// The one error body (D2) for every non-success answer, and small JSON response helpers.
import type { IncomingMessage, ServerResponse } from 'node:http';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request',
  401: 'authentication',
  403: 'permission',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  421: 'misdirected_request',
  429: 'rate_limited',
  500: 'server_error',
  502: 'server_error',
  503: 'unavailable',
};

export function errorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request');
}

/** Thrown anywhere in a handler; the router turns it into a D2 answer. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    /** Extra top-level fields (for example `not_found` on a delete, D11). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, param: string | null = null) => new HttpError(400, message, param);

/** A JSON value's type as a person would name it, for "must be a string, got number". */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/**
 * A required non-empty string field: absent or empty is "X is required", any other type is
 * "X must be a string, got number" (so `model: 5` is not answered "model is required").
 */
export function requiredString(value: unknown, param: string, what = 'a string'): string {
  if (value === undefined || value === null || value === '') throw badRequest(`${param} is required`, param);
  if (typeof value !== 'string') throw badRequest(`${param} must be ${what}, got ${jsonTypeName(value)}`, param);
  return value;
}
export const notFound = (message: string, param: string | null = null) => new HttpError(404, message, param);

export function errorBody(status: number, message: string, param: string | null, extra: Record<string, unknown> = {}) {
  return { code: status, message, error: { type: errorType(status), param, message }, ...extra };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: HttpError): void {
  sendJson(res, error.status, errorBody(error.status, error.message, error.param, error.extra), error.headers);
}

/** Used by the 5xx fault: some gateways answer with an HTML page, and clients must cope. */
export function sendHtmlError(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  const html = `<!DOCTYPE html><html><head><title>${status} Error</title></head><body><h1>${status}</h1><p>The gateway could not reach the service.</p></body></html>`;
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(html), ...headers });
  res.end(html);
}

const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Reads a JSON request body (D4). An empty body without a content type counts as `{}` so a
 * GET with no body gets the precise "volume is required" answer rather than a 415.
 */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_JSON_BODY_BYTES) throw new HttpError(413, `request body is larger than ${MAX_JSON_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const contentType = (req.headers['content-type'] ?? '').toLowerCase();
  if (size === 0 && !contentType) return {};
  // The media type exactly (parameters such as charset aside): `\bjson` alone would also
  // take application/json-patch+json, whose body means something else (D4: 415).
  const mediaType = contentType.split(';')[0].trim();
  if (mediaType !== 'application/json') {
    throw new HttpError(415, `expected Content-Type application/json, got ${contentType.slice(0, 100) || 'none'}`);
  }
  if (size === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw badRequest('request body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest('request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}
