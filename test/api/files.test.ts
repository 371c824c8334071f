// File operations against the emulator: batched uploads with per-file results, listing
// with paging and retries (D3, D10), deletes (D11), and the error classes of each.
import { strict as assert } from 'node:assert';
import { rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { BadResponseError, CancelledError, InvalidRequestError, NotFoundError, PermissionError, RateLimitedError, ServerError } from '../../src/api/errors';
import type { FileInfo, UploadFileResult, UploadProgress } from '../../src/api/types';
import { nextEvent, useEmulator } from './harness';

const FILES = '/ksm/rag/v5/files';

describe('api: files', () => {
  const h = useEmulator();

  it('uploads several files in one request and returns one uploaded result per file, in order', async () => {
    const paths = [h.file('one.txt', 'first file'), h.file('two.md', '# second'), h.file('名前.txt', 'non-ASCII name')];
    const before = h.emulator.stats.requests;
    const results = await h.client().uploadFiles({ volume: 'multi', embedding: 'emu-embed', doChunking: 1, files: paths.map((path) => ({ path })) });
    assert.equal(h.emulator.stats.requests - before, 1, 'one multipart request for three small files');
    assert.deepEqual(
      results.map((r) => r.ok && r.info.filename),
      ['one.txt', 'two.md', '名前.txt'],
    );
    assert.deepEqual(
      results.map((r) => r.ok && r.info.filesize),
      [10, 8, Buffer.byteLength('non-ASCII name')],
    );
  });

  it('sends a chosen filename so the service stores it exactly: quotes, line breaks and UTF-8 (D7)', async () => {
    const path = h.file('plain.txt', 'x');
    const [result] = await h.client().uploadFiles({ volume: 'names', embedding: 'emu-embed', files: [{ path, filename: 'a "quoted"\r\nname ü.txt' }] });
    assert.ok(result.ok, String(!result.ok && result.error));
    assert.equal(result.info.filename, 'a "quoted"\r\nname ü.txt');
  });

  it('batches by count and by bytes, reports progress in bytes, and lists what it uploaded', async () => {
    const paths = Array.from({ length: 7 }, (_, i) => h.file(`batch-${i}.txt`, 'x'.repeat(1000 * (i + 1))));
    const before = h.emulator.stats.requests;
    const progress: UploadProgress[] = [];
    const answered: UploadFileResult[] = [];
    const results = await h
      .client()
      .uploadFiles(
        { volume: 'batched', embedding: 'emu-embed', doChunking: 0, files: paths.map((path) => ({ path })) },
        { batch: { maxFiles: 3, maxBytes: 9000 }, onProgress: (p) => progress.push(p), onFileResult: (r) => answered.push(r) },
      );
    // sizes 1k..7k: [1k,2k,3k] (count limit), [4k,5k] (9k fits), [6k] (6k+7k > 9k), [7k]
    assert.equal(h.emulator.stats.requests - before, 4);
    assert.ok(results.every((r) => r.ok));
    assert.equal(answered.length, 7);
    const last = progress.at(-1)!;
    assert.equal(last.bytesSent, 28000);
    assert.equal(last.bytesTotal, 28000);
    assert.equal(last.filesDone, 7);
    assert.ok(progress.length < 40, 'progress is per read piece and per batch, not per byte');
    const listed = await h.client().listFiles({ volume: 'batched', limit: 1000 });
    assert.deepEqual(
      listed.files.map((f) => f.filename),
      paths.map((p) => p.split('/').at(-1)),
    );
  });

  it('fails only the file that vanished before its batch; the others upload', async () => {
    const keep = h.file('keep.txt', 'kept');
    const gone = h.file('gone.txt', 'gone');
    rmSync(gone);
    const results = await h.client().uploadFiles({ volume: 'vanish', embedding: 'emu-embed', files: [{ path: keep }, { path: gone }, { path: h.dir }] });
    assert.equal(results.length, 3);
    assert.ok(results[0].ok);
    assert.ok(!results[1].ok && /no longer exists/.test(results[1].error.message));
    assert.ok(!results[2].ok && /folder/.test(results[2].error.message));
  });

  it('takes a size the caller knows without a stat, and still checks the file when it reads it: vanished, a folder, grown, a hostile size', async () => {
    const grown = h.file('grown.txt', 'now much longer than the caller saw');
    const keep = h.file('known.txt', 'known');
    const gone = h.file('gone-known.txt', 'gone');
    rmSync(gone);
    const progress: UploadProgress[] = [];
    const results = await h.client().uploadFiles(
      {
        volume: 'known-size',
        embedding: 'emu-embed',
        files: [
          { path: keep, knownSize: 5 },
          { path: gone, knownSize: 4 },
          { path: h.dir, knownSize: 10 },
          { path: grown, knownSize: 3 },
          { path: keep, filename: 'hostile.txt', knownSize: -1 },
        ],
      },
      { onProgress: (p) => progress.push(p) },
    );
    assert.ok(results[0].ok);
    assert.ok(!results[1].ok && /no longer exists/.test(results[1].error.message));
    assert.ok(!results[2].ok && /folder/.test(results[2].error.message));
    assert.ok(results[3].ok && results[3].info.filesize === Buffer.byteLength('now much longer than the caller saw'), 'the bytes on disk now go, not the size the caller saw');
    assert.ok(results[4].ok && results[4].info.filesize === 5, "a size that cannot be one is ignored (the file is stat'ed)");
    assert.equal(progress.at(-1)!.bytesSent, progress.at(-1)!.bytesTotal, 'progress ends at the bytes really sent');
  });

  it('fails every file of a refused batch with that error, and still sends the unrelated batches', async () => {
    const paths = [h.file('b1.txt', 'one'), h.file('b2.txt', 'two'), h.file('b3.txt', 'three')];
    h.emulator.faults.add({ kind: 'status', path: FILES, method: 'POST', status: 413, times: 1 });
    const results = await h.client().uploadFiles({ volume: 'partial', embedding: 'emu-embed', files: paths.map((path) => ({ path })) }, { batch: { maxFiles: 2 } });
    assert.ok(!results[0].ok && results[0].error instanceof InvalidRequestError && results[0].error.status === 413);
    assert.ok(!results[1].ok && results[1].error === (results[0] as { error: Error }).error);
    assert.ok(results[2].ok, 'the second batch was still sent');
  });

  it('stops at an auth failure and fails the remaining files with it instead of sending them', async () => {
    const paths = [h.file('c1.txt', '1'), h.file('c2.txt', '2')];
    const before = h.emulator.stats.requests;
    const results = await h.client({ apiKey: async () => 'not-the-key' }).uploadFiles({ volume: 'auth', embedding: 'emu-embed', files: paths.map((path) => ({ path })) }, { batch: { maxFiles: 1 } });
    assert.equal(h.emulator.stats.requests - before, 1);
    assert.ok(results.every((r) => !r.ok && r.error.name === 'AuthenticationError'));
  });

  it('refuses a bad upload locally (volume name, do_chunking, no files)', async () => {
    const path = h.file('v.txt', 'v');
    await assert.rejects(
      h.client().uploadFiles({ volume: 'bad volume', embedding: 'emu-embed', files: [{ path }] }),
      (e: unknown) => e instanceof InvalidRequestError && e.param === 'volume' && e.status === undefined,
    );
    await assert.rejects(h.client().uploadFiles({ volume: 'ok', embedding: 'emu-embed', doChunking: 3 as never, files: [{ path }] }), InvalidRequestError);
    await assert.rejects(h.client().uploadFiles({ volume: 'ok', embedding: 'emu-embed', files: [] }), InvalidRequestError);
  });

  it('reports an unknown embedding model as a per-file failure from the server (400)', async () => {
    const [result] = await h.client().uploadFiles({ volume: 'emb', embedding: 'no-such-embed', files: [{ path: h.file('e.txt', 'e') }] });
    assert.ok(!result.ok && result.error instanceof InvalidRequestError && result.error.status === 400);
  });

  it('pages through a volume lazily with listAllFiles', async () => {
    const paths = Array.from({ length: 5 }, (_, i) => h.file(`page-${i}.txt`, `p${i}`));
    await h.client().uploadFiles({ volume: 'paged', embedding: 'emu-embed', files: paths.map((path) => ({ path })) });
    const before = h.emulator.stats.requests;
    const seen: FileInfo[] = [];
    for await (const file of h.client().listAllFiles('paged', { pageSize: 2 })) seen.push(file);
    assert.deepEqual(
      seen.map((f) => f.filename),
      ['page-0.txt', 'page-1.txt', 'page-2.txt', 'page-3.txt', 'page-4.txt'],
    );
    assert.equal(h.emulator.stats.requests - before, 3);
    const page = await h.client().listFiles({ volume: 'paged', offset: 2, limit: 2 });
    assert.equal(page.total, 5);
    assert.equal(page.offset, 2);
    assert.deepEqual(
      page.files.map((f) => f.filename),
      ['page-2.txt', 'page-3.txt'],
    );
  });

  it("maps a never-written volume to NotFoundError (D6) and another user's personal volume to PermissionError", async () => {
    await assert.rejects(h.client().listFiles({ volume: 'never-written' }), (e: unknown) => e instanceof NotFoundError && e.param === 'volume');
    await assert.rejects(h.client().listFiles({ volume: '{someone-else}' }), PermissionError);
  });

  it('retries a listing on 429, honouring Retry-After, and then succeeds', async () => {
    await h.client().uploadFiles({ volume: 'retry', embedding: 'emu-embed', files: [{ path: h.file('r.txt', 'r') }] });
    h.emulator.faults.add({ kind: 'status', path: FILES, method: 'GET', status: 429, retryAfter: 0, times: 2 });
    const before = h.emulator.stats.requests;
    const page = await h.client().listFiles({ volume: 'retry' });
    assert.equal(page.files.length, 1);
    assert.equal(h.emulator.stats.requests - before, 3);
  });

  it('retries a listing on 503 at most 3 times, then reports the server error', async () => {
    h.emulator.faults.add({ kind: 'status', path: FILES, method: 'GET', status: 503, times: 10 });
    const before = h.emulator.stats.requests;
    await assert.rejects(h.client().listFiles({ volume: 'retry' }), (e: unknown) => e instanceof ServerError && e.status === 503);
    assert.equal(h.emulator.stats.requests - before, 4);
  });

  it('does not retry a 500 with an HTML body, and shows its text, not its markup', async () => {
    h.emulator.faults.add({ kind: 'status', path: FILES, method: 'GET', status: 500, body: 'html' });
    const before = h.emulator.stats.requests;
    const error = await h
      .client()
      .listFiles({ volume: 'retry' })
      .catch((e: unknown) => e);
    assert.ok(error instanceof ServerError, String(error));
    assert.equal(h.emulator.stats.requests - before, 1);
    assert.doesNotMatch(error.message, /<[a-z]+[ >]/i);
    assert.match(error.message, /HTTP 500/);
  });

  it('does not retry a 429 on upload', async () => {
    h.emulator.faults.add({ kind: 'status', path: FILES, method: 'POST', status: 429, retryAfter: 1, times: 2 });
    const before = h.emulator.stats.requests;
    const [result] = await h.client().uploadFiles({ volume: 'retry', embedding: 'emu-embed', files: [{ path: h.file('nr.txt', 'n') }] });
    assert.ok(!result.ok && result.error instanceof RateLimitedError && result.error.retryAfterMs === 1000);
    assert.equal(h.emulator.stats.requests - before, 1);
  });

  it('reports truncated JSON as BadResponseError with a short excerpt', async () => {
    h.emulator.faults.add({ kind: 'truncate-json', path: FILES, method: 'GET' });
    await assert.rejects(h.client().listFiles({ volume: 'retry' }), (e: unknown) => e instanceof BadResponseError && !!e.excerpt && e.excerpt.length <= 201);
  });

  it('deletes: deleted and not_found in one answer; all-missing (404 with not_found) is a result, not an error (D11)', async () => {
    const results = await h.client().uploadFiles({ volume: 'del', embedding: 'emu-embed', files: [{ path: h.file('d1.txt', '1') }, { path: h.file('d2.txt', '2') }] });
    const [a, b] = results.map((r) => (r.ok ? r.info.uuid : ''));
    assert.deepEqual(await h.client().deleteFiles({ volume: 'del', uuids: [a, 'missing-id'] }), { deleted: [a], notFound: ['missing-id'] });
    assert.deepEqual(await h.client().deleteFiles({ volume: 'del', uuids: [a] }), { deleted: [], notFound: [a] });
    const left = await h.client().listFiles({ volume: 'del' });
    assert.deepEqual(
      left.files.map((f) => f.uuid),
      [b],
    );
    await assert.rejects(h.client().deleteFiles({ volume: 'del', uuids: [] }), (e: unknown) => e instanceof InvalidRequestError && e.param === 'uuidz');
  });
});

describe('api: upload of files that change or a cancelled start', () => {
  const h = useEmulator();

  it('fails the batch with a clear message when a file shrinks while it is sent, and the next batch still goes', async () => {
    const shrinking = h.file('shrinking.bin', Buffer.alloc(16 * 1024 * 1024, 1));
    const later = h.file('later.txt', 'later');
    let truncated = false;
    const results = await h.client().uploadFiles(
      { volume: 'changing', embedding: 'emu-embed', doChunking: 0, files: [{ path: shrinking }, { path: later }] },
      {
        batch: { maxFiles: 1 },
        onProgress: (p) => {
          if (!truncated && p.bytesSent > 0) {
            truncated = true;
            truncateSync(shrinking, 10);
          }
        },
      },
    );
    assert.ok(!results[0].ok && results[0].error instanceof InvalidRequestError && /changed on disk/.test(results[0].error.message), String(!results[0].ok && results[0].error));
    assert.ok(results[1].ok);
    const listed = await h.client().listFiles({ volume: 'changing' });
    assert.deepEqual(
      listed.files.map((f) => f.filename),
      ['later.txt'],
    );
  });

  it('rejects with CancelledError before touching anything when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const answered: UploadFileResult[] = [];
    const before = h.emulator.stats.requests;
    await assert.rejects(
      h.client().uploadFiles({ volume: 'never', embedding: 'emu-embed', files: [{ path: h.file('n.txt', 'n') }] }, { signal: controller.signal, onFileResult: (r) => answered.push(r) }),
      CancelledError,
    );
    assert.equal(answered.length, 0);
    assert.equal(h.emulator.stats.requests, before);
  });
});

describe('api: upload cancellation', () => {
  // Large reads but a slow server is not needed: the file is big enough to be mid-flight.
  const h = useEmulator();

  it("aborts the request on the wire, rejects CancelledError, and keeps earlier batches' results", async () => {
    const small = h.file('first.txt', 'done before the cancel');
    const big = h.file('big.bin', Buffer.alloc(64 * 1024 * 1024, 7));
    const controller = new AbortController();
    const answered: UploadFileResult[] = [];
    const aborted = nextEvent(h.emulator, 'upload-aborted');
    const upload = h.client().uploadFiles(
      { volume: 'cancel', embedding: 'emu-embed', doChunking: 0, files: [{ path: small }, { path: big }] },
      {
        batch: { maxFiles: 1 },
        signal: controller.signal,
        onFileResult: (r) => answered.push(r),
        onProgress: (p) => {
          if (p.bytesSent > 8 * 1024 * 1024) controller.abort();
        },
      },
    );
    await assert.rejects(upload, CancelledError);
    await aborted;
    assert.equal(h.emulator.stats.abortedUploads, 1);
    assert.equal(answered.length, 1);
    assert.ok(answered[0].ok && answered[0].info.filename === 'first.txt');
    const listed = await h.client().listFiles({ volume: 'cancel' });
    assert.deepEqual(
      listed.files.map((f) => f.filename),
      ['first.txt'],
      'nothing of the aborted request was stored',
    );
    rmSync(join(h.dir, 'big.bin'));
  });
});
