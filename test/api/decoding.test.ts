// Pure pieces of the client: tolerant decoding (D8), stream error parsing (D14),
// Retry-After, excerpts, backoff (D3), batching and multipart escaping (D7).
import { strict as assert } from 'node:assert';
import { decodeAgentMessage } from '../../src/api/agentDecoding';
import { decodeDeleteResult, decodeFileInfo } from '../../src/api/decode';
import { BadResponseError, NetworkError, RateLimitedError, ServerError, InvalidRequestError } from '../../src/api/errors';
import { excerptOf, parseRetryAfter } from '../../src/api/httpErrors';
import { dispositionParameters } from '../../src/api/multipart';
import { redactorFor } from '../../src/api/redact';
import { retryDelay } from '../../src/api/retry';
import { parseStreamError } from '../../src/api/streams';
import { planBatches } from '../../src/api/upload';

describe('api decoding and helpers', () => {
  it('decodes a FileInfo tolerantly and refuses one without id or name', () => {
    assert.deepEqual(decodeFileInfo({ uuid: 7, name: 'a.txt', filesize: '10', isdir: '1', status: 'chunking', date: 20261122010203 }), {
      uuid: '7',
      filename: 'a.txt',
      status: 'chunking',
      filesize: 10,
      date: '20261122010203',
      isdir: 1,
    });
    assert.equal(decodeFileInfo({ filename: 'no id' }), undefined);
    assert.equal(decodeFileInfo('text'), undefined);
  });

  it('reads delete answers with or without the deleted list', () => {
    assert.deepEqual(decodeDeleteResult({ code: 200, message: 'OK' }, ['a', 'b']), { deleted: ['a', 'b'], notFound: [] });
    assert.deepEqual(decodeDeleteResult({ code: 200, not_found: ['b'] }, ['a', 'b']), { deleted: ['a'], notFound: ['b'] });
  });

  it('believes a delete answer only about the ids the request named', () => {
    // A hostile or confused service claiming other ids: `ksm rm` would report deleting files it never asked for.
    assert.deepEqual(decodeDeleteResult({ deleted: ['a', 'zz\u001b[2J'], not_found: ['b', 'yy'] }, ['a', 'b']), { deleted: ['a'], notFound: ['b'] });
  });

  it('says each id of a delete answer once, however often the service repeats it', () => {
    // `ksm rm` looked each deleted id up in the volume's listing and printed it: a million
    // repeats against a listing of a million files was quadratic.
    const requested = Array.from({ length: 100_000 }, (_, i) => `id${i}`);
    const repeated = Array.from({ length: 1_000_000 }, (_, i) => `id${i % 3}`);
    assert.deepEqual(decodeDeleteResult({ deleted: repeated, not_found: repeated }, ['id0', 'id1', 'id2']), { deleted: ['id0', 'id1', 'id2'], notFound: ['id0', 'id1', 'id2'] });
    const { deleted, notFound } = decodeDeleteResult({ not_found: repeated }, requested);
    assert.deepEqual([deleted.length, notFound], [99_997, ['id0', 'id1', 'id2']]);
  });

  it('decodes an agent answer (D20) and refuses one without thread_id', () => {
    const message = decodeAgentMessage(
      { id: 'msg_1', thread_id: 't', agent_id: 'a', content: 'hi', citations: [{ file_id: 'f', filename: 'x', score: '0.5', chunk_index: 2 }, 'junk'], status: 'stop' },
      redactorFor([]),
    );
    assert.deepEqual(message.citations, [{ file_id: 'f', filename: 'x', score: 0.5, chunk_index: 2 }]);
    assert.equal(message.reasoningContent, null);
    assert.throws(() => decodeAgentMessage({ content: 'hi' }, redactorFor([])), BadResponseError);
  });

  it('parses stream errors as JSON, as "code: message", or as a bare message (D14)', () => {
    assert.deepEqual(parseStreamError('{"code":503,"message":"upstream unavailable"}'), { code: 503, message: 'upstream unavailable' });
    assert.deepEqual(parseStreamError('503: upstream unavailable'), { code: 503, message: 'upstream unavailable' });
    assert.deepEqual(parseStreamError('model overloaded'), { message: 'model overloaded' });
    assert.deepEqual(parseStreamError('{not json'), { message: '{not json' });
    assert.match(parseStreamError(null).message, /without details/);
  });

  it('parses Retry-After in seconds and as an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    assert.equal(parseRetryAfter('3', now), 3000);
    assert.equal(parseRetryAfter('Sun, 22 Nov 2026 10:00:05 GMT', now), 5000);
    assert.equal(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });

  it('makes short readable excerpts of HTML and redacts secrets in them', () => {
    const html = `<html><head><title>Oops</title><script>var k=1</script></head><body><p>Bearer abc.def failed &amp; ${'x'.repeat(500)}</p></body></html>`;
    const excerpt = excerptOf(html, redactorFor(['x'.repeat(10)]));
    assert.ok(excerpt.startsWith('Oops Bearer *** failed & '));
    assert.ok(excerpt.length <= 201);
    assert.ok(!excerpt.includes('<') && !excerpt.includes('var k'));
  });

  it('reduces an error page built to make the HTML strip slow in one pass (a megabyte of unclosed tags)', () => {
    // On the old strip each of these read to the end from every '<': hours for a megabyte (a
    // 64 KiB error body blocked the extension host 1–5 s), and decoding errors pass answers of
    // up to 32 MiB. Now only the first 64 KiB is reduced, each closing tag looked for once.
    const redact = redactorFor(['k'.repeat(12)]);
    const mega = 1024 * 1024;
    assert.equal(excerptOf(`<html>${'<'.repeat(mega)}`, redact), `${'<'.repeat(200)}…`);
    assert.equal(excerptOf(`<html>${'<script'.repeat(mega / 7)}`, redact), `${'<script'.repeat(28)}<scr…`);
    assert.equal(excerptOf(`<html><head>${'<title'.repeat(mega / 6)}</head><p>Bad gateway</p>`, redact), `<html><head>`.replace(/<[^<>]*>/g, '') + `${'<title'.repeat(33)}<t…`);
    assert.equal(excerptOf(`<p>${'</script '.repeat(mega / 9)}`, redact).slice(0, 9), '</script ');
    // The page's meaning is kept: the head leaves its title, scripts and styles go, an unclosed one stays as text.
    assert.equal(
      excerptOf('<html><HEAD><title id=t>502 Bad Gateway</title ></head><style>p{}</style><body><script>var a="<b>"</SCRIPT><h1>Bad &amp; gateway</h1></body>', redact),
      '502 Bad Gateway Bad & gateway',
    );
    assert.equal(excerptOf('<html><head><title>T</title><body><script>alert(1)<h1>Hi</h1>', redact), 'T alert(1) Hi');
    // The cut comes after redaction: a key across the 64 KiB mark, after a page of empty tags, is still caught whole.
    const acrossTheCut = `<html>${'<b>'.repeat(21842)}${'k'.repeat(12)}`;
    assert.equal(acrossTheCut.indexOf('k'), 64 * 1024 - 4);
    assert.doesNotMatch(excerptOf(acrossTheCut, redact), /k/);
  });

  it('retries only what D3 allows, with full jitter under an exponential ceiling', () => {
    const policy = { retries: 3, baseDelayMs: 100, maxDelayMs: 1000 };
    assert.equal(
      retryDelay(new NetworkError('x'), 0, policy, () => 0.999),
      99,
    );
    assert.equal(
      retryDelay(new NetworkError('x'), 2, policy, () => 0.999),
      399,
    );
    assert.equal(
      retryDelay(new NetworkError('x'), 2, { ...policy, maxDelayMs: 150 }, () => 0.999),
      149,
    );
    assert.equal(
      retryDelay(new NetworkError('x'), 1, policy, () => 0),
      0,
    );
    assert.equal(retryDelay(new NetworkError('x'), 3, policy), undefined, 'at most 3 retries');
    assert.equal(retryDelay(new RateLimitedError('x', { status: 429, retryAfterMs: 2500 }), 0, policy), 2500, 'Retry-After wins');
    assert.equal(retryDelay(new RateLimitedError('x', { status: 429, retryAfterMs: 120_000 }), 0, policy), undefined, 'too long a wait goes to the user');
    assert.notEqual(retryDelay(new ServerError('x', { status: 503 }), 0, policy), undefined);
    assert.equal(retryDelay(new ServerError('x', { status: 500 }), 0, policy), undefined);
    assert.equal(retryDelay(new InvalidRequestError('x', { status: 400 }), 0, policy), undefined);
  });

  it('plans upload batches by count and bytes, a big file alone, order kept', () => {
    const sizes = (batches: Array<Array<{ size: number }>>) => batches.map((b) => b.map((f) => f.size));
    const files = [5, 5, 50, 5, 5, 5].map((size) => ({ size }));
    assert.deepEqual(sizes(planBatches(files, { maxFiles: 2, maxBytes: 20 })), [[5, 5], [50], [5, 5], [5]]);
    assert.deepEqual(sizes(planBatches(files, { maxFiles: 10, maxBytes: 1000 })), [[5, 5, 50, 5, 5, 5]]);
    assert.deepEqual(planBatches([], { maxFiles: 2, maxBytes: 20 }), []);
  });

  it('writes multipart names as RFC 7578 quoted-strings, with an RFC 5987 filename* for control characters and non-ASCII', () => {
    assert.equal(dispositionParameters('file', 'plain.txt'), 'form-data; name="file"; filename="plain.txt"');
    assert.equal(dispositionParameters('file', 'q"uote\\.txt'), 'form-data; name="file"; filename="q\\"uote\\\\.txt"');
    assert.equal(dispositionParameters('file', 'a\nü.txt'), `form-data; name="file"; filename="a%0Aü.txt"; filename*=UTF-8''a%0A%C3%BC.txt`);
  });
});
