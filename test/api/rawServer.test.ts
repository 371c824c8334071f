// The client against a hand-written server, for what the emulator never sends: SSE framing
// written in odd pieces, unknown agent events, tolerant decoding (D8), `code` ≠ 200 under
// HTTP 200 (D2), hang-ups before any answer (retried only for listing, D3), and timeouts.
import { strict as assert } from 'node:assert';
import { setTimeout as wait } from 'node:timers/promises';
import { KsmClient } from '../../src/api/client';
import { BadResponseError, InvalidRequestError, NetworkError, ServerError, TimeoutError } from '../../src/api/errors';
import type { AgentEvent, ChatCompletionChunk } from '../../src/api/types';
import { drain, recordingLogger } from './harness';
import { sseHead, startRawServer, type RawServer } from './rawServer';

const KEY = 'raw-secret-key-123';
const chunk = (content: string) => JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const ask = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('api: client against a raw server', () => {
  let server: RawServer | undefined;
  const lines: string[] = [];
  const client = (overrides: Partial<ConstructorParameters<typeof KsmClient>[0]> = {}) =>
    new KsmClient({ baseUrl: server!.url, apiKey: async () => KEY, logger: recordingLogger(lines), retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...overrides });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    lines.length = 0;
  });

  it('parses a chat stream written with a BOM, CRLF, CR and comments, in 7-byte pieces', async () => {
    const bytes = Buffer.from(`\uFEFF: hello\r\ndata: ${chunk('a')}\r\n\r\ndata: ${chunk('b')}\r\r: ping\n\ndata: [DONE]\n\n`);
    server = await startRawServer(async (_req, res) => {
      sseHead(res);
      for (let i = 0; i < bytes.length; i += 7) {
        res.write(bytes.subarray(i, i + 7));
        await wait(1);
      }
      res.end();
    });
    const { items, error } = await drain(client().streamChatCompletion(ask));
    assert.equal(error, undefined);
    assert.deepEqual(
      items.map((c: ChatCompletionChunk) => c.choices[0].delta.content),
      ['a', 'b'],
    );
  });

  it('yields unknown agent events as kind "unknown", warns once with the Check Connection hint, and carries on to done', async () => {
    server = await startRawServer((_req, res) => {
      sseHead(res);
      res.end(
        'event: thread\ndata: {"thread_id":"t1","agent_id":"a"}\n\n' +
          'event: tool_call\ndata: {"thread_id":"t1","name":"search"}\n\n' +
          'event: message\ndata: {"thread_id":"t1","delta":"hi"}\n\n' +
          'event: done\ndata: {"thread_id":"t1","status":"stop","usage":{"prompt_tokens":"3","completion_tokens":2,"total_tokens":5}}\n\n',
      );
    });
    const { items, error } = await drain(client().streamAgentMessage({ agent_id: 'a', query: 'q' }));
    assert.equal(error, undefined);
    assert.deepEqual(
      items.map((e: AgentEvent) => e.kind),
      ['thread', 'unknown', 'message', 'done'],
    );
    assert.deepEqual(items[1], { kind: 'unknown', event: 'tool_call', data: '{"thread_id":"t1","name":"search"}' });
    const done = items[3];
    assert.ok(done.kind === 'done' && done.usage?.prompt_tokens === 3);
    const warnings = lines.filter((l) => l.startsWith('warn'));
    assert.equal(warnings.length, 1, 'the first unknown shape is logged once, as a warning');
    assert.match(warnings[0], /'tool_call'.*KSM: Check Connection/);
  });

  it('decodes file lists tolerantly: name for filename, numbers as strings, status_detail, unknown fields', async () => {
    server = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          code: '200',
          message: 'OK',
          total: '2',
          extra: true,
          infoz: [
            { uuid: 'u1', name: 'old.txt', status: 'na', filesize: '12', date: '20261122010203', isdir: '0', status_detail: 'no filter could read it', colour: 'blue' },
            { uuid: 'u2', filename: 'new.txt', status: 'done', filesize: 5, date: '20261122010204', isdir: 0 },
          ],
        }),
      );
    });
    const page = await client().listFiles({ volume: 'docs' });
    assert.deepEqual(page, {
      total: 2,
      offset: 0,
      files: [
        { uuid: 'u1', filename: 'old.txt', status: 'na', filesize: 12, date: '20261122010203', isdir: 0, statusDetail: 'no filter could read it' },
        { uuid: 'u2', filename: 'new.txt', status: 'done', filesize: 5, date: '20261122010204', isdir: 0 },
      ],
    });
    assert.equal(server.requests[0].method, 'GET');
    assert.deepEqual(JSON.parse(server.requests[0].body), { volume: 'docs', offset: 0, limit: 20 });
    assert.equal(server.requests[0].headers.authorization, `Bearer ${KEY}`);
  });

  it('lists page after page over kept-alive connections (a GET or DELETE with a body no longer closes its connection), each body read whole', async () => {
    const names = ['a.md', 'b.md', 'c.md', 'd.md', 'e.md'];
    server = await startRawServer((_req, res, body) => {
      const { offset, limit } = JSON.parse(body) as { offset: number; limit: number };
      const infoz = names.slice(offset, offset + limit).map((filename, i) => ({ uuid: `u${offset + i}`, filename, status: 'done', filesize: 1, date: '20261122010203', isdir: 0 }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 200, message: 'OK', total: names.length, infoz }));
    });
    const ksm = client();
    const listed: string[] = [];
    for await (const file of ksm.listAllFiles('docs', { pageSize: 1 })) listed.push(file.filename);
    // Then a delete on the same connection: the pages' bodies left nothing behind on it.
    await ksm.deleteFiles({ volume: 'docs', uuids: ['u0'] }).catch(() => undefined);
    assert.deepEqual(listed, names);
    assert.deepEqual(
      server.requests.map((r) => [r.method, JSON.parse(r.body).offset]),
      [
        ['GET', 0],
        ['GET', 1],
        ['GET', 2],
        ['GET', 3],
        ['GET', 4],
        ['DELETE', undefined],
      ],
    );
    // Each request on a new connection cost a re-sync a handshake per page (TLS ones against a
    // real service). undici hands a connection back one turn of the event loop after its
    // answer, so the next page may take a second one; never more.
    assert.ok(server.connections <= 2, `${server.connections} connections for six requests`);
  });

  it('treats a body whose code is not 200 under HTTP 200 as that error', async () => {
    server = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 400, message: 'volume is not valid' }));
    });
    await assert.rejects(client().listFiles({ volume: 'docs' }), (e: unknown) => e instanceof InvalidRequestError && e.status === 400 && /volume is not valid/.test(e.message));
  });

  it('reads a JSON error answered to a stream request as that error', async () => {
    server = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 503, message: 'model busy' }));
    });
    const { error } = await drain(client().streamChatCompletion(ask));
    assert.ok(error instanceof ServerError && /model busy/.test(error.message), String(error));
  });

  it('shows the text of an HTML gateway page, not its markup, and never the key', async () => {
    server = await startRawServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end(`<html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head><body><h1>Bad Gateway</h1><p>token ${KEY} &amp; more</p></body></html>`);
    });
    const error = await client()
      .createChatCompletion(ask)
      .catch((e: unknown) => e);
    assert.ok(error instanceof ServerError);
    assert.match(error.message, /502 Bad Gateway Bad Gateway token \*\*\* & more/);
    assert.ok(!error.message.includes(KEY) && !error.message.includes('color:red'));
  });

  it('retries a listing when the connection drops before any answer, but never a completion', async () => {
    server = await startRawServer((req) => {
      req.socket.destroy();
    });
    await assert.rejects(client().listFiles({ volume: 'docs' }), NetworkError);
    assert.equal(server.requests.length, 4, 'first try and 3 retries');
    server.requests.length = 0;
    await assert.rejects(client().createChatCompletion(ask), NetworkError);
    assert.equal(server.requests.length, 1);
  });

  it('times out waiting for headers with TimeoutError, and reports a quiet stream as cut off', async () => {
    server = await startRawServer(async (req, res) => {
      if (req.url === '/v3/chat/completions' && JSON.parse(server!.requests.at(-1)!.body).stream) {
        sseHead(res);
        res.write(`data: ${chunk('only')}\n\n`);
      }
      // otherwise: never answer
    });
    await assert.rejects(client({ timeoutMs: 100, retry: { retries: 0 } }).createChatCompletion(ask), (e: unknown) => e instanceof TimeoutError && /timeoutSeconds/.test(e.message));
    // The header deadline must be met by a loopback server in this same (possibly busy)
    // process, so it is not cut as fine as the never-answering case above; the idle limit
    // stays above it, so a stream cut at the header deadline would still fail the test.
    const { items, error } = await drain(client({ timeoutMs: 500, streamIdleTimeoutMs: 1000 }).streamChatCompletion(ask));
    assert.equal(items.length, 1);
    assert.ok(error && (error as Error).name === 'StreamCutOffError', String(error));
  });

  it('does not follow a redirect (the key stays with the configured address) and says what to fix', async () => {
    server = await startRawServer((_req, res) => {
      res.writeHead(301, { location: 'https://elsewhere.example.com/ksm/rag/v5/files' });
      res.end();
    });
    await assert.rejects(
      client().listFiles({ volume: 'docs' }),
      (e: unknown) => e instanceof BadResponseError && e.status === 301 && /elsewhere\.example\.com/.test(e.message) && /ksm\.baseUrl/.test(e.message),
    );
    assert.equal(server.requests.length, 1);
  });

  it('refuses a completion answer without choices as a bad response', async () => {
    server = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"unexpected": true}');
    });
    await assert.rejects(client().createChatCompletion(ask), (e: unknown) => e instanceof BadResponseError && /unexpected/.test(e.excerpt ?? ''));
  });
});
