// Agent messages against the emulator: typed events (D19), threads (D17), the plain answer
// (D20), and stream faults.
import { strict as assert } from 'node:assert';
import { BadResponseError, CancelledError, InvalidRequestError, NotFoundError, StreamCutOffError } from '../../src/api/errors';
import type { AgentEvent, AgentRequest } from '../../src/api/types';
import { drain, nextEvent, useEmulator } from './harness';

const PATH = '/v1/apps/chat-messages';
const ask = (query = 'what do my files say?', extra: Partial<AgentRequest> = {}): AgentRequest => ({ agent_id: 'rag-agent', query, context: { model: 'emu-chat' }, ...extra });
const kinds = (events: AgentEvent[]) => events.map((e) => e.kind);

describe('api: agent messages', () => {
  const h = useEmulator({ responseWords: 20 });

  it('streams thread, retrieval, message deltas and done, each carrying the thread id', async () => {
    const { items, error } = await drain(h.client().streamAgentMessage(ask()));
    assert.equal(error, undefined);
    assert.equal(items[0].kind, 'thread');
    assert.equal(items.at(-1)!.kind, 'done');
    assert.ok(kinds(items).includes('retrieval'));
    assert.ok(kinds(items).filter((k) => k === 'message').length > 1);
    const threadId = (items[0] as { threadId: string }).threadId;
    assert.match(threadId, /\S/);
    for (const event of items) assert.equal((event as { threadId?: string }).threadId, threadId, `${event.kind} carries the thread id`);
  });

  it('continues a thread by id, and maps an unknown thread to NotFoundError naming thread_id', async () => {
    const first = await h.client().sendAgentMessage(ask('first question'));
    assert.match(first.threadId, /\S/);
    assert.equal(first.agentId, 'rag-agent');
    const second = await h.client().sendAgentMessage(ask('second question', { thread_id: first.threadId }));
    assert.equal(second.threadId, first.threadId);
    await assert.rejects(h.client().sendAgentMessage(ask('lost', { thread_id: 'thr_unknown' })), (e: unknown) => e instanceof NotFoundError && e.param === 'thread_id');
  });

  it('streams reasoning events when thinking is enabled on a reasoning model', async () => {
    const { items } = await drain(h.client().streamAgentMessage(ask('think first', { context: { model: 'emu-reasoner', enable_thinking: true } })));
    assert.ok(kinds(items).indexOf('reasoning') >= 0 && kinds(items).indexOf('reasoning') < kinds(items).indexOf('message'));
  });

  it('refuses an empty query and a rag-agent request without a model locally', async () => {
    const before = h.emulator.stats.requests;
    assert.throws(
      () => h.client().streamAgentMessage(ask('  ')),
      (e: unknown) => e instanceof InvalidRequestError && e.param === 'query',
    );
    await assert.rejects(h.client().sendAgentMessage({ agent_id: 'rag-agent', query: 'q' }), (e: unknown) => e instanceof InvalidRequestError && e.param === 'context.model');
    assert.equal(h.emulator.stats.requests, before);
  });

  it('yields an error event and goes on to done (D19)', async () => {
    h.emulator.faults.add({ kind: 'stream-error', path: PATH, afterEvents: 3, code: 502, message: 'retrieval backend down' });
    const { items, error } = await drain(h.client().streamAgentMessage(ask()));
    assert.equal(error, undefined);
    const failure = items.find((e) => e.kind === 'error');
    assert.deepEqual(failure && { code: (failure as { code: number }).code, message: (failure as { message: string }).message }, { code: 502, message: 'retrieval backend down' });
    const done = items.at(-1)!;
    assert.ok(done.kind === 'done' && done.status === 'error');
  });

  it('reports a stream without done as cut off, after yielding what arrived', async () => {
    h.emulator.faults.add({ kind: 'no-terminator', path: PATH, afterEvents: 4 });
    const { items, error } = await drain(h.client().streamAgentMessage(ask()));
    assert.equal(items.length, 4);
    assert.ok(error instanceof StreamCutOffError && error.receivedAny);
  });

  it('reports a reset mid-stream as cut off, keeping the events before it', async () => {
    h.emulator.faults.add({ kind: 'reset', path: PATH, afterEvents: 3 });
    const { items, error } = await drain(h.client().streamAgentMessage(ask()));
    assert.equal(items.length, 3);
    assert.ok(error instanceof StreamCutOffError, String(error));
  });

  it('reports malformed event data as BadResponseError after the events before it', async () => {
    h.emulator.faults.add({ kind: 'malformed-sse', path: PATH, afterEvents: 2 });
    const { items, error } = await drain(h.client().streamAgentMessage(ask()));
    assert.equal(items.length, 2);
    assert.ok(error instanceof BadResponseError, String(error));
  });

  it('reports truncated JSON of a plain answer as BadResponseError', async () => {
    h.emulator.faults.add({ kind: 'truncate-json', path: PATH });
    await assert.rejects(h.client().sendAgentMessage(ask()), BadResponseError);
  });
});

describe('api: agent stream cancellation', () => {
  const h = useEmulator({ responseWords: 300, tokenDelayMs: 40 });

  it('aborts the connection on cancel, and the server sees it', async () => {
    const controller = new AbortController();
    const aborted = nextEvent(h.emulator, 'stream-aborted');
    let messages = 0;
    const run = (async () => {
      for await (const event of h.client().streamAgentMessage(ask(), { signal: controller.signal })) {
        if (event.kind === 'message' && ++messages === 2) controller.abort();
      }
    })();
    await assert.rejects(run, CancelledError);
    await aborted;
    assert.equal(h.emulator.stats.abortedStreams, 1);
  });
});
