// Shared plumbing of the emulator contract tests: a fresh emulator per suite on its own temp
// data folder, and small HTTP helpers (global fetch = undici) that keep the raw answer.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { request } from 'undici';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/server';

export interface Suite {
  emu: RunningEmulator;
  dir: string;
  options: EmulatorOptions;
}

/** before/after hooks for the calling describe(): one emulator, one temp folder. */
export function useFreshEmulator(options: EmulatorOptions = {}): Suite {
  const suite = { options } as Suite;
  before(async () => {
    suite.dir = mkdtempSync(join(tmpdir(), 'ksm-emu-test-'));
    suite.options = { port: 0, dataDir: join(suite.dir, 'data'), stepMs: 5, tokenDelayMs: 0, testControls: true, ...options };
    suite.emu = await startEmulator(suite.options);
  });
  afterEach(() => suite.emu.faults.clear());
  after(async () => {
    await suite.emu?.close();
    rmSync(suite.dir, { recursive: true, force: true });
  });
  return suite;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, any>;
}

export async function call(emu: RunningEmulator, method: string, path: string, body?: unknown, init: { key?: string | null; headers?: Record<string, string> } = {}): Promise<Answer> {
  const key = init.key === undefined ? emu.apiKey : init.key;
  const headers: Record<string, string> = { ...(key ? { Authorization: `Bearer ${key}` } : {}) };
  let payload: string | Buffer | undefined;
  if (body instanceof FormData) {
    // undici.request (unlike fetch) sends a body with GET, which the listing needs; encode the form with Response.
    const encoded = new Response(body);
    headers['Content-Type'] = encoded.headers.get('content-type')!;
    payload = Buffer.from(await encoded.arrayBuffer());
  } else if (typeof body === 'string') payload = body;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['Content-Type'] = 'application/json';
  }
  const response = await request(`${emu.url}${path}`, { method: method as 'GET', headers: { ...headers, ...init.headers }, body: payload });
  const text = await response.body.text();
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
  let json: Record<string, any> = {};
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON: tests that care look at text */
  }
  return { status: response.statusCode, headers: responseHeaders, text, json };
}

/** Asserts the one D2 error body shape. */
export function assertErrorBody(answer: Answer, status: number, param?: string | null): void {
  assert.equal(answer.status, status, `expected HTTP ${status}, got ${answer.status}: ${answer.text.slice(0, 300)}`);
  assert.match(answer.headers.get('content-type') ?? '', /application\/json/);
  const { code, message, error } = answer.json;
  assert.equal(code, status);
  assert.equal(typeof message, 'string');
  assert.ok(message.length > 0);
  assert.equal(typeof error, 'object');
  assert.equal(error.message, message);
  const types: Record<number, string> = {
    400: 'invalid_request',
    401: 'authentication',
    403: 'permission',
    404: 'not_found',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    429: 'rate_limited',
    500: 'server_error',
    503: 'unavailable',
  };
  if (types[status]) assert.equal(error.type, types[status]);
  assert.ok('param' in error, 'error.param is present (null or a field name)');
  if (param !== undefined) assert.equal(error.param, param);
}

export interface UploadPart {
  name: string;
  content: string | Uint8Array;
}

export function uploadForm(fields: Record<string, string>, files: UploadPart[], fieldsFirst = true): FormData {
  const form = new FormData();
  const addFields = () => Object.entries(fields).forEach(([k, v]) => form.append(k, v));
  if (fieldsFirst) addFields();
  for (const file of files) form.append('file', new Blob([file.content]), file.name);
  if (!fieldsFirst) addFields();
  return form;
}

export async function upload(emu: RunningEmulator, volume: string, files: UploadPart[], doChunking = 1): Promise<Array<Record<string, any>>> {
  const answer = await call(emu, 'POST', '/ksm/rag/v5/files', uploadForm({ volume, embedding: 'emu-embed', do_chunking: String(doChunking) }, files));
  assert.equal(answer.status, 200, answer.text);
  return answer.json.infoz;
}

export async function list(emu: RunningEmulator, volume: string, offset = 0, limit = 1000): Promise<Answer> {
  return call(emu, 'GET', '/ksm/rag/v5/files', { volume, offset, limit });
}

export interface SseMessage {
  event?: string;
  data: string;
}

/** Reads an SSE answer to its end with eventsource-parser; `ended` says how it ended. */
export async function readSse(emu: RunningEmulator, path: string, body: unknown): Promise<{ status: number; messages: SseMessage[]; error?: Error }> {
  const response = await fetch(`${emu.url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${emu.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const messages: SseMessage[] = [];
  if (!response.body) return { status: response.status, messages };
  const stream = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  try {
    for await (const message of stream as unknown as AsyncIterable<SseMessage>) messages.push({ event: message.event, data: message.data });
  } catch (error) {
    return { status: response.status, messages, error: error as Error };
  }
  return { status: response.status, messages };
}

export async function waitForStatus(emu: RunningEmulator, volume: string, uuid: string, wanted: string[]): Promise<Record<string, any>> {
  for (;;) {
    const { json } = await list(emu, volume);
    const info = json.infoz.find((f: Record<string, any>) => f.uuid === uuid);
    if (info && wanted.includes(info.status)) return info;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
