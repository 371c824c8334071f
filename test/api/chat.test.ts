// Chat completions against the emulator: plain and streamed answers, and every stream
// fault the client must survive (D13, D14, D3).
import { strict as assert } from 'node:assert';
import { CancelledError, InvalidRequestError, NotFoundError, RateLimitedError, StreamCutOffError, StreamError, BadResponseError } from '../../src/api/errors';
import type { ChatCompletionChunk, ChatCompletionRequest } from '../../src/api/types';
import { drain, nextEvent, useEmulator } from './harness';

const PATH = '/v3/chat/completions';
const ask = (content = 'tell me about volumes'): ChatCompletionRequest => ({ model: 'emu-chat', messages: [{ role: 'user', content }] });
const textOf = (chunks: ChatCompletionChunk[]) => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');

describe('api: chat completions', () => {
  const h = useEmulator({ responseWords: 30 });

  it('answers a plain completion with the typed shape', async () => {
    const completion = await h.client().createChatCompletion(ask('hello there'));
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.choices[0].message.role, 'assistant');
    assert.match(completion.choices[0].message.content, /hello there/);
    assert.ok(completion.usage.total_tokens > 0);
  });

  it('streams chunks that add up to the same kind of answer, ending on [DONE]', async () => {
    const { items, error } = await drain(h.client().streamChatCompletion(ask('stream me')));
    assert.equal(error, undefined);
    assert.ok(items.length > 3);
    assert.equal(items[0].choices[0].delta.role, 'assistant');
    assert.equal(new Set(items.map((c) => c.id)).size, 1, 'every chunk has the same id (D13)');
    assert.match(textOf(items), /stream me/);
    assert.equal(items.at(-1)!.choices[0].finish_reason, 'stop');
  });

  it('streams reasoning_content before content for a reasoning model', async () => {
    const { items, error } = await drain(h.client().streamChatCompletion({ ...ask('think'), model: 'emu-reasoner', reasoning: { effort: 'low' } }));
    assert.equal(error, undefined);
    const firstReasoning = items.findIndex((c) => c.choices[0]?.delta.reasoning_content);
    const firstContent = items.findIndex((c) => c.choices[0]?.delta.content);
    assert.ok(firstReasoning >= 0 && firstContent > firstReasoning);
  });

  it('refuses a bad parameter locally, without a round trip', async () => {
    const before = h.emulator.stats.requests;
    await assert.rejects(h.client().createChatCompletion({ ...ask(), temperature: 3 }), (e: unknown) => e instanceof InvalidRequestError && e.status === undefined && e.param === 'temperature');
    assert.throws(() => h.client().streamChatCompletion({ ...ask(), stop: ['a', 'b', 'c', 'd', 'e'] }), InvalidRequestError);
    assert.equal(h.emulator.stats.requests, before);
  });

  it('maps a server 400 to InvalidRequestError with status and the field it blamed', async () => {
    // Valid locally; only the server knows emu-chat has no reasoning mode (D12).
    await assert.rejects(h.client().createChatCompletion({ ...ask(), reasoning: { effort: 'high' } }), (e: unknown) => e instanceof InvalidRequestError && e.status === 400 && e.param === 'reasoning');
  });

  it('maps an unknown model to NotFoundError naming the field', async () => {
    await assert.rejects(h.client().createChatCompletion({ ...ask(), model: 'no-such-model' }), (e: unknown) => e instanceof NotFoundError && e.status === 404 && e.param === 'model');
  });

  it('keeps the text of a stream reset mid-way and reports it cut off', async () => {
    h.emulator.faults.add({ kind: 'reset', path: PATH, afterEvents: 5 });
    const { items, error } = await drain(h.client().streamChatCompletion(ask()));
    assert.equal(items.length, 5);
    assert.ok(error instanceof StreamCutOffError, String(error));
    assert.equal(error.receivedAny, true);
  });

  it('reports a stream that ends without [DONE] as cut off, after yielding everything', async () => {
    h.emulator.faults.add({ kind: 'no-terminator', path: PATH, afterEvents: 4 });
    const { items, error } = await drain(h.client().streamChatCompletion(ask()));
    assert.equal(items.length, 4);
    assert.ok(error instanceof StreamCutOffError && error.receivedAny);
  });

  it('says "nothing arrived" when a stream is cut before its first event', async () => {
    h.emulator.faults.add({ kind: 'reset', path: PATH, afterEvents: 0 });
    const { items, error } = await drain(h.client().streamChatCompletion(ask()));
    assert.equal(items.length, 0);
    assert.ok(error instanceof StreamCutOffError && !error.receivedAny, String(error));
  });

  it('throws StreamError with the code and message of finish_reason "error" (D14)', async () => {
    h.emulator.faults.add({ kind: 'stream-error', path: PATH, afterEvents: 3, code: 503, message: 'upstream unavailable' });
    const { items, error } = await drain(h.client().streamChatCompletion(ask()));
    assert.equal(items.length, 3);
    assert.ok(error instanceof StreamError, String(error));
    assert.equal(error.code, 503);
    assert.match(error.message, /upstream unavailable/);
  });

  it('throws BadResponseError with an excerpt on malformed SSE JSON, after what came before', async () => {
    h.emulator.faults.add({ kind: 'malformed-sse', path: PATH, afterEvents: 2 });
    const { items, error } = await drain(h.client().streamChatCompletion(ask()));
    assert.equal(items.length, 2);
    assert.ok(error instanceof BadResponseError, String(error));
    assert.match(error.excerpt ?? '', /broken/);
  });

  it('throws BadResponseError with an excerpt on a truncated JSON completion', async () => {
    h.emulator.faults.add({ kind: 'truncate-json', path: PATH });
    await assert.rejects(h.client().createChatCompletion(ask()), (e: unknown) => e instanceof BadResponseError && (e.excerpt ?? '').startsWith('{'));
  });

  it('does not retry a completion on 429, and passes Retry-After on', async () => {
    h.emulator.faults.add({ kind: 'status', path: PATH, status: 429, retryAfter: 7, times: 2 });
    const before = h.emulator.stats.requests;
    await assert.rejects(h.client().createChatCompletion(ask()), (e: unknown) => e instanceof RateLimitedError && e.retryAfterMs === 7000 && /7 s/.test(e.message));
    assert.equal(h.emulator.stats.requests - before, 1, 'exactly one request went out');
  });
});

describe('api: chat stream cancellation', () => {
  // Slow tokens, so the stream is surely still running when the client lets go.
  const h = useEmulator({ responseWords: 300, tokenDelayMs: 40 });

  it('aborts the connection on cancel mid-stream, so the server stops generating', async () => {
    const controller = new AbortController();
    const aborted = nextEvent(h.emulator, 'stream-aborted');
    const received: ChatCompletionChunk[] = [];
    const run = (async () => {
      for await (const chunk of h.client().streamChatCompletion(ask(), { signal: controller.signal })) {
        received.push(chunk);
        if (received.length === 3) controller.abort();
      }
    })();
    await assert.rejects(run, CancelledError);
    await aborted;
    assert.equal(received.length, 3);
    assert.equal(h.emulator.stats.abortedStreams, 1);
  });

  it('closes the connection when the caller stops reading early (break)', async () => {
    const aborted = nextEvent(h.emulator, 'stream-aborted');
    for await (const chunk of h.client().streamChatCompletion(ask())) {
      if (chunk) break;
    }
    await aborted;
  });

  it('rejects at once with CancelledError when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { error } = await drain(h.client().streamChatCompletion(ask(), { signal: controller.signal }));
    assert.ok(error instanceof CancelledError, String(error));
  });
});
