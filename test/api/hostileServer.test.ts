// A hostile or broken server at the base URL (a compromised proxy, a misconfigured gateway,
// a wrong URL): whatever it answers, the client's use of memory and time stays bounded and
// the user gets one clear error. Real HTTP against a raw server; nothing waits on the clock.
import { strict as assert } from 'node:assert';
import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { KsmClient } from '../../src/api/client';
import { ask, MAX_ANSWER_CHARS, type AnswerEvent } from '../../src/chat/core/answerStream';
import { FileManifestStore } from '../../src/sync/core/manifest';
import { planSync } from '../../src/sync/core/plan';
import { BadResponseError, CancelledError, RateLimitedError, ServerError, TimeoutError } from '../../src/api/errors';
import { SSE_EVENT_LIMIT } from '../../src/api/sse';
import { ANSWER_BODY_LIMIT } from '../../src/api/transport';
import { MAX_LISTED_FILES, unseenFiles } from '../../src/api/decode';
import type { FileInfo } from '../../src/api/types';
import { sseHead, startRawServer, type RawServer } from './rawServer';

const KEY = 'ksm-hostile-test-key';

function clientOf(raw: RawServer, options: { timeoutMs?: number } = {}): KsmClient {
  return new KsmClient({ baseUrl: raw.url, apiKey: async () => KEY, retry: { retries: 0 }, ...options });
}

/** Resolves once the client closed the connection of `res`. */
function closed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => (res.destroyed || res.socket?.destroyed ? resolve() : res.on('close', () => resolve())));
}

/** Writes `piece` until the client goes away, honouring backpressure; resolves at the close. */
async function flood(res: ServerResponse, piece: Buffer | string): Promise<void> {
  const gone = closed(res);
  let open = true;
  void gone.then(() => (open = false));
  while (open) {
    if (!res.write(piece)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), gone]);
  }
}

describe('api: a hostile server at the base URL', () => {
  let raw: RawServer | undefined;
  afterEach(async () => {
    await raw?.close();
    raw = undefined;
  });

  it('refuses a JSON answer larger than the limit (valid JSON, no content-length) instead of buffering it', async () => {
    const filler = 'x'.repeat(ANSWER_BODY_LIMIT);
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"code":200,"total":1,"infoz":[{"uuid":"u1","filename":"${filler}"}]}`);
    });
    const error = await clientOf(raw)
      .listFiles({ volume: 'docs' })
      .catch((e: unknown) => e);
    assert.ok(error instanceof BadResponseError, String(error));
    assert.match(error.message, /larger than 32 MiB/);
  });

  it('refuses a JSON answer whose content-length is over the limit without reading it', async () => {
    let gone: Promise<void> | undefined;
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 * 1024 ** 3) });
      gone = flood(res, Buffer.alloc(64 * 1024, 0x20));
    });
    const error = await clientOf(raw)
      .createChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    assert.ok(error instanceof BadResponseError, String(error));
    assert.match(error.message, /larger than 32 MiB/);
    await gone;
  });

  it('an endless JSON body (no content-length) stops at the limit and the connection is closed', async () => {
    let gone: Promise<void> | undefined;
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"code":200,"infoz":[');
      gone = flood(res, '{"uuid":"u","filename":"f"},'.repeat(2000));
    });
    const error = await clientOf(raw)
      .listFiles({ volume: 'docs' })
      .catch((e: unknown) => e);
    assert.ok(error instanceof BadResponseError, String(error));
    assert.match(error.message, /larger than 32 MiB/);
    await gone;
  });

  it('a JSON body dribbled a byte at a time (each read inside the idle timeout) times out as a whole', async () => {
    let gone: Promise<void> | undefined;
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"code":200,"infoz":[');
      gone = closed(res);
      // A byte far inside the per-read timeout, until the client gives up.
      const timer = setInterval(() => res.write(' '), 20);
      void gone.then(() => clearInterval(timer));
    });
    const error = await clientOf(raw, { timeoutMs: 300 })
      .listFiles({ volume: 'docs' })
      .catch((e: unknown) => e);
    assert.ok(error instanceof TimeoutError, String(error));
    assert.match(error.message, /did not arrive whole within 1 s.*ksm\.request\.timeoutSeconds/);
    await gone;
  });

  it('an endless error body is read only to its limit (already safe)', async () => {
    let gone: Promise<void> | undefined;
    raw = await startRawServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      gone = flood(res, 'e'.repeat(64 * 1024));
    });
    const error = await clientOf(raw)
      .listFiles({ volume: 'docs' })
      .catch((e: unknown) => e);
    assert.ok(error instanceof ServerError, String(error));
    assert.ok(error.message.length < 1000, 'the message quotes an excerpt, not the body');
    await gone;
  });

  it('a gzip body is not decompressed (no bomb can expand): it is not JSON (already safe)', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      res.end(bomb);
    });
    const error = await clientOf(raw)
      .listFiles({ volume: 'docs' })
      .catch((e: unknown) => e);
    assert.ok(error instanceof BadResponseError, String(error));
    assert.match(error.message, /not valid JSON/);
  });

  it('a Retry-After in the year 9999 or of 10^11 s is neither waited for nor quoted as a wait', async () => {
    const answers: Array<[number, string]> = [
      [429, 'Fri, 31 Dec 9999 23:59:59 GMT'],
      [503, '99999999999'],
    ];
    raw = await startRawServer((_req, res) => {
      const [status, retryAfter] = answers[raw!.requests.length - 1];
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': retryAfter });
      res.end('{"message":"busy"}');
    });
    const waits: number[] = [];
    const client = new KsmClient({ baseUrl: raw.url, apiKey: async () => KEY, sleep: async (ms) => void waits.push(ms) });
    const limited = await client.listFiles({ volume: 'docs' }).catch((e: unknown) => e);
    assert.ok(limited instanceof RateLimitedError, String(limited));
    assert.match(limited.message, /rate limiting requests: busy\. Wait a moment and try again\./);
    const failed = await client.listFiles({ volume: 'docs' }).catch((e: unknown) => e);
    assert.ok(failed instanceof ServerError, String(failed));
    assert.match(failed.message, /\(HTTP 503\): busy\. Try again later\./);
    assert.deepEqual(waits, []);
    assert.equal(raw.requests.length, 2);
  });

  it('a JSON answer with a BOM and __proto__ keys decodes, and pollutes nothing', async () => {
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('\uFEFF{"code":200,"total":1,"__proto__":{"polluted":1},"infoz":[{"uuid":"u1","filename":"a.txt","__proto__":{"polluted":2},"filesize":1e400}]}');
    });
    const page = await clientOf(raw).listFiles({ volume: 'docs' });
    assert.equal(page.files[0].filename, 'a.txt');
    assert.equal(page.files[0].filesize, 0, 'an infinite size is no size');
    assert.equal(({} as { polluted?: number }).polluted, undefined);
    assert.equal((page.files[0] as { polluted?: number }).polluted, undefined);
  });

  it('a listing that answers the same page for every offset stops with an error instead of paging forever', async () => {
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"code":200,"total":1000000000000,"infoz":[{"uuid":"a","filename":"a.txt"},{"uuid":"b","filename":"b.txt"}]}');
    });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const file of clientOf(raw!).listAllFiles('docs', { pageSize: 2 })) {
        seen.push(file.uuid);
        if (seen.length > 50) return new Error('still paging after 50 files');
      }
      return new Error('ended without an error');
    })().catch((e: unknown) => e);
    assert.ok(error instanceof BadResponseError, String(error));
    assert.match(error.message, /already listed for offset 2/);
    assert.deepEqual(seen, ['a', 'b']);
    assert.equal(raw.requests.length, 2);
  });

  it('a listing that invents new files for every page stops at MAX_LISTED_FILES (the engine both listings share)', () => {
    // Over HTTP this would be a thousand pages of a thousand files: the check is the one both
    // listings call per page (listAllFiles above, sync's lazy listing below).
    const seen = new Set(Array.from({ length: MAX_LISTED_FILES - 1 }, (_, i) => `u${i}`));
    assert.deepEqual(
      unseenFiles(seen, [{ uuid: 'last', filename: 'last.txt', status: 'done', filesize: 1, date: '', isdir: 0 }], 'docs', 0).map((f) => f.uuid),
      ['last'],
    );
    const invented: FileInfo[] = [{ uuid: 'one-more', filename: 'x.txt', status: 'done', filesize: 1, date: '', isdir: 0 }];
    assert.throws(
      () => unseenFiles(seen, invented, 'docs', MAX_LISTED_FILES),
      (error: unknown) => error instanceof BadResponseError && /more than 1,000,000 files/.test(error.message),
    );
  });

  it("sync's listing, told total = 10^12 and answered the same full page for every offset, stops with an error", async () => {
    const files = Array.from({ length: 1000 }, (_, i) => ({ uuid: `u${i}`, filename: `f${i}.txt` }));
    const answer = JSON.stringify({ code: 200, total: 1e12, infoz: files });
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer);
    });
    const dir = mkdtempSync(join(tmpdir(), 'ksm-hostile-'));
    try {
      writeFileSync(join(dir, 'a.txt'), 'a');
      const store = new FileManifestStore(join(dir, 'manifest.json'));
      const error = await planSync({ folder: dir, volume: 'docs', service: clientOf(raw), store, rules: { excludeGlobs: [], maxFileSizeBytes: 0 }, deleteRemoved: false }).catch((e: unknown) => e);
      assert.ok(error instanceof BadResponseError, String(error));
      assert.match(error.message, /already listed/);
      assert.ok(raw.requests.length <= 4, `${raw.requests.length} pages asked`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('odd chat chunks are read or refused as a service error, never a TypeError worded as a broken connection', async () => {
    const answers = [
      // A last choice with only finish_reason, content as a number, tool_calls not a list, citations the chat format never has.
      'data: {"choices":[{"index":0,"delta":{"content":5,"tool_calls":7}}],"citations":[{"file_id":"x","snippet":1}]}\n\n' +
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[null,{"index":"1","function":{"name":"f","arguments":{"a":1}}}]}}]}\n\n' +
        'data: {"choices":[{"index":0,"finish_reason":"stop"}],"usage":"lots"}\n\ndata: [DONE]\n\n',
      'data: {"choices":[null]}\n\ndata: [DONE]\n\n',
    ];
    raw = await startRawServer((_req, res) => {
      sseHead(res);
      res.end(answers[raw!.requests.length - 1]);
    });
    const chunks = [];
    for await (const chunk of clientOf(raw).streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })) chunks.push(chunk);
    assert.deepEqual(
      chunks.map((c) => ({ choices: c.choices, citations: c.citations, usage: c.usage })),
      [
        { choices: [{ index: 0, delta: { content: '5' } }], citations: undefined, usage: undefined },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { name: 'f', arguments: '{"a":1}' } }] } }], citations: undefined, usage: undefined },
        { choices: [{ index: 0, finish_reason: 'stop', delta: {} }], citations: undefined, usage: null },
      ],
    );
    const error = await (async () => {
      for await (const _ of clientOf(raw!).streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
    })().catch((e: unknown) => e);
    assert.ok(error instanceof BadResponseError, String(error));
    assert.match(error.message, /a choice that is not an object/);
  });

  it("a whole completion's odd tool calls are dropped or read, never a TypeError", async () => {
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices":[{"message":{"content":"x","tool_calls":[1,{},[[]],{"id":"c","function":{"name":"f","arguments":{"a":1}}}]}}]}');
    });
    const completion = await clientOf(raw).createChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    assert.deepEqual(completion.choices[0].message.tool_calls, [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }]);
  });

  it('an SSE line that never ends is stopped at the event limit and the connection is closed', async () => {
    let gone: Promise<void> | undefined;
    raw = await startRawServer((_req, res) => {
      sseHead(res);
      res.write('data: {"choices":[{"delta":{"content":"ok"}}]}\n\n');
      res.write('data: {"choices":[{"delta":{"content":"');
      gone = flood(res, 'x'.repeat(64 * 1024));
    });
    const texts: string[] = [];
    const error = await (async () => {
      for await (const chunk of clientOf(raw!).streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })) {
        texts.push(String(chunk.choices[0]?.delta?.content ?? ''));
      }
    })().catch((e: unknown) => e);
    assert.ok(error instanceof BadResponseError, String(error));
    assert.match(error.message, new RegExp(`larger than ${SSE_EVENT_LIMIT / 1024 ** 2} MiB`));
    assert.ok(texts.join('').startsWith('o'), 'what came before is still shown');
    await gone;
  });

  it('endless data lines without the blank line that ends an event are stopped the same way', async () => {
    let gone: Promise<void> | undefined;
    raw = await startRawServer((_req, res) => {
      sseHead(res);
      gone = flood(res, 'data: x\n'.repeat(8 * 1024));
    });
    const error = await (async () => {
      for await (const _ of clientOf(raw!).streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
    })().catch((e: unknown) => e);
    assert.ok(error instanceof BadResponseError, String(error));
    await gone;
  });

  it('an answer of small events that never ends is stopped at the answer limit, with one message, and closed', async () => {
    let gone: Promise<void> | undefined;
    raw = await startRawServer((_req, res) => {
      sseHead(res);
      gone = flood(res, `data: {"choices":[{"delta":{"content":"${'y'.repeat(100)}"}}]}\n\n`.repeat(200));
    });
    let chars = 0;
    let last: AnswerEvent | undefined;
    for await (const event of ask(clientOf(raw), { kind: 'chat', body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } }, new AbortController().signal)) {
      if (event.type === 'text') chars += event.text.length;
      last = event;
    }
    assert.equal(last?.type, 'finished');
    assert.equal(last.type === 'finished' && last.reason, 'error');
    assert.match(last.type === 'finished' ? String(last.error?.message) : '', /grew beyond 8 million characters/);
    assert.ok(chars <= MAX_ANSWER_CHARS, `${chars} characters shown`);
    await gone;
  });

  it('a stream of keep-alive comments only is not an event: it runs until the user cancels, then closes', async () => {
    let comments = 0;
    let gone: Promise<void> | undefined;
    const controller = new AbortController();
    raw = await startRawServer((_req, res) => {
      sseHead(res);
      gone = closed(res);
      // More than the event limit in comments altogether: each one ends, so none is held.
      const piece = ': keep-alive\n\n'.repeat(4096);
      const write = () => {
        if (res.destroyed) return;
        comments += 4096;
        if (comments * 14 > 2 * SSE_EVENT_LIMIT) controller.abort();
        if (res.write(piece)) setImmediate(write);
        else res.once('drain', write);
      };
      write();
    });
    const error = await (async () => {
      for await (const _ of clientOf(raw!).streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal }));
    })().catch((e: unknown) => e);
    assert.ok(error instanceof CancelledError, String(error));
    await gone;
  });
});
