// D3 over real HTTP: listing (the one retried call) honours Retry-After on 503 exactly as on
// 429, in seconds or as an HTTP date, up to the documented cap; a longer wait goes to the
// user at once. The client's sleep and clock are injected, so the waits are recorded, not
// waited for, and nothing depends on wall-clock time.
import { strict as assert } from 'node:assert';
import { RateLimitedError, ServerError } from '../../src/api/errors';
import { LONGEST_HONOURED_RETRY_AFTER_MS } from '../../src/api/retry';
import { useEmulator } from './harness';
import { startRawServer } from './rawServer';
import { KsmClient } from '../../src/api/client';

const FILES = '/ksm/rag/v5/files';

describe('api: Retry-After on 429 and 503 (D3)', () => {
  const h = useEmulator();
  const waits: number[] = [];
  const client = () => h.client({ retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 1 }, sleep: async (ms) => void waits.push(ms) });
  before(async () => {
    await h.client().uploadFiles({ volume: 'retry-after', embedding: 'emu-embed', files: [{ path: h.file('ra.txt', 'ra') }] });
  });
  beforeEach(() => {
    waits.length = 0;
  });

  for (const status of [503, 429]) {
    it(`waits what a ${status} asks (2 s, twice) before listing again, then succeeds`, async () => {
      h.emulator.faults.add({ kind: 'status', path: FILES, method: 'GET', status, retryAfter: 2, times: 2 });
      const before = h.emulator.stats.requests;
      const page = await client().listFiles({ volume: 'retry-after' });
      assert.equal(page.files.length, 1);
      assert.equal(h.emulator.stats.requests - before, 3);
      assert.deepEqual(waits, [2000, 2000]);
    });

    it(`does not wait silently for a ${status} asking longer than the cap: the user is told how long`, async () => {
      const seconds = LONGEST_HONOURED_RETRY_AFTER_MS / 1000 + 30;
      h.emulator.faults.add({ kind: 'status', path: FILES, method: 'GET', status, retryAfter: seconds, times: 1 });
      const error = await client()
        .listFiles({ volume: 'retry-after' })
        .catch((e: unknown) => e);
      assert.ok(status === 503 ? error instanceof ServerError : error instanceof RateLimitedError, String(error));
      assert.equal((error as ServerError).retryAfterMs, seconds * 1000);
      assert.match((error as Error).message, new RegExp(`Wait ${seconds} s`));
      assert.deepEqual(waits, []);
    });
  }

  it('reads a Retry-After date against the injected clock', async () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    const raw = await startRawServer((_req, res, _body) => {
      if (raw.requests.length === 1) {
        res.writeHead(503, { 'retry-after': 'Sun, 22 Nov 2026 10:00:04 GMT', 'content-type': 'application/json' });
        res.end('{"code":503,"error":{"message":"busy"}}');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"code":200,"total":0,"infoz":[]}');
      }
    });
    try {
      const dated = new KsmClient({ baseUrl: raw.url, apiKey: async () => 'k', now: () => now, sleep: async (ms) => void waits.push(ms) });
      await dated.listFiles({ volume: 'x' });
      assert.deepEqual(waits, [4000]);
    } finally {
      await raw.close();
    }
  });

  it('still backs off with jitter on a 503 without Retry-After', async () => {
    h.emulator.faults.add({ kind: 'status', path: FILES, method: 'GET', status: 503, times: 1 });
    await h.client({ retry: { retries: 3, baseDelayMs: 400, maxDelayMs: 400 }, sleep: async (ms) => void waits.push(ms) }).listFiles({ volume: 'retry-after' });
    assert.equal(waits.length, 1);
    assert.ok(waits[0] >= 0 && waits[0] < 400, String(waits[0]));
  });
});
