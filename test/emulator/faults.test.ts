// D22: every fault kind, added through the API and through the HTTP test controls.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { until } from '../support/until';
import { assertErrorBody, call, list, readSse, useFreshEmulator } from './support';

const CHAT = '/v3/chat/completions';
const AGENT = '/v1/apps/chat-messages';
const chat = { model: 'emu-chat', stream: true, messages: [{ role: 'user', content: 'tell me a long story' }] };
const agent = { agent_id: 'rag-agent', query: 'anything', context: { model: 'emu-chat' } };

describe('emulator: fault injection', () => {
  const s = useFreshEmulator({ tokenDelayMs: 2 });

  it('status: 429 with Retry-After and the D2 body, then back to normal (times defaults to 1)', async () => {
    s.emu.faults.add({ kind: 'status', status: 429, retryAfter: 3, path: '/ksm/rag/v5/files' });
    const limited = await list(s.emu, '{dev}');
    assertErrorBody(limited, 429, null);
    assert.equal(limited.headers.get('retry-after'), '3');
    assert.equal((await list(s.emu, '{dev}')).status, 200);
  });

  it('status: 500 and 502 with an HTML body; method filter; times counts', async () => {
    s.emu.faults.add({ kind: 'status', status: 502, body: 'html', method: 'POST', times: 2 });
    assert.equal((await list(s.emu, '{dev}')).status, 200, 'GET is not matched');
    for (let i = 0; i < 2; i++) {
      const answer = await call(s.emu, 'POST', CHAT, { ...chat, stream: false });
      assert.equal(answer.status, 502);
      assert.match(answer.headers.get('content-type') ?? '', /text\/html/);
      assert.match(answer.text, /<html>/);
    }
    assert.equal((await call(s.emu, 'POST', CHAT, { ...chat, stream: false })).status, 200);
  });

  it('latency delays the answer by at least ms', async () => {
    s.emu.faults.add({ kind: 'latency', ms: 150 });
    const started = process.hrtime.bigint();
    await list(s.emu, '{dev}');
    assert.ok(Number(process.hrtime.bigint() - started) / 1e6 >= 150);
  });

  it('truncate-json cuts a JSON answer in half with a matching Content-Length', async () => {
    s.emu.faults.add({ kind: 'truncate-json', path: CHAT });
    const answer = await call(s.emu, 'POST', CHAT, { ...chat, stream: false });
    assert.equal(answer.status, 200);
    assert.equal(Number(answer.headers.get('content-length')), Buffer.byteLength(answer.text));
    assert.throws(() => JSON.parse(answer.text));
    assert.match(answer.text, /^\{"id":"chatcmpl-/);
  });

  it('reset destroys the connection after N events, and for JSON answers before any byte', async () => {
    s.emu.faults.add({ kind: 'reset', path: CHAT, afterEvents: 3 });
    const cut = await readSse(s.emu, CHAT, chat);
    assert.ok(cut.error, 'the read fails');
    assert.equal(cut.messages.length, 3);
    s.emu.faults.add({ kind: 'reset', path: '/ksm/rag/v5/files' });
    await assert.rejects(list(s.emu, '{dev}'));
  });

  it('malformed-sse injects a broken data line and the stream goes on to [DONE]', async () => {
    s.emu.faults.add({ kind: 'malformed-sse', path: CHAT, afterEvents: 2 });
    const { messages } = await readSse(s.emu, CHAT, chat);
    assert.equal(messages[2].data, '{"broken');
    assert.equal(messages[messages.length - 1].data, '[DONE]');
    assert.doesNotThrow(() => JSON.parse(messages[3].data));
  });

  it('no-terminator ends a completion stream cleanly without [DONE], and an agent stream without done', async () => {
    s.emu.faults.add({ kind: 'no-terminator', path: CHAT });
    const completion = await readSse(s.emu, CHAT, chat);
    assert.equal(completion.error, undefined);
    assert.ok(completion.messages.length > 3);
    assert.notEqual(completion.messages[completion.messages.length - 1].data, '[DONE]');
    assert.equal(JSON.parse(completion.messages[completion.messages.length - 1].data).choices[0].finish_reason, 'stop', 'everything but the terminator');
    s.emu.faults.add({ kind: 'no-terminator', path: AGENT, afterEvents: 2 });
    const agentStream = await readSse(s.emu, AGENT, agent);
    assert.deepEqual(
      agentStream.messages.map((m) => m.event),
      ['thread', 'retrieval'],
    );
  });

  it('stream-error: a completion chunk with finish_reason error and {code,message} in delta.content, then [DONE] (D14)', async () => {
    s.emu.faults.add({ kind: 'stream-error', path: CHAT, afterEvents: 4, code: 503, message: 'upstream unavailable' });
    const { messages } = await readSse(s.emu, CHAT, chat);
    assert.equal(messages.length, 6);
    const errorChunk = JSON.parse(messages[4].data);
    assert.equal(errorChunk.choices[0].finish_reason, 'error');
    assert.deepEqual(JSON.parse(errorChunk.choices[0].delta.content), { code: 503, message: 'upstream unavailable' });
    assert.equal(errorChunk.id, JSON.parse(messages[0].data).id);
    assert.equal(messages[5].data, '[DONE]');
  });

  it('stream-error on the agent: an error event, then done with status error (D19)', async () => {
    s.emu.faults.add({ kind: 'stream-error', path: AGENT, afterEvents: 1, code: 500, message: 'agent crashed' });
    const { messages } = await readSse(s.emu, AGENT, agent);
    assert.deepEqual(
      messages.map((m) => m.event),
      ['thread', 'error', 'done'],
    );
    const [thread, error, done] = messages.map((m) => JSON.parse(m.data));
    assert.deepEqual([error.code, error.message, error.thread_id], [500, 'agent crashed', thread.thread_id]);
    assert.equal(done.status, 'error');
  });

  it('a client closing a stream early is counted and announced as stream-aborted', async () => {
    const before = s.emu.stats.abortedStreams;
    const announced = once(s.emu.events, 'stream-aborted');
    const abort = new AbortController();
    const response = await fetch(`${s.emu.url}${CHAT}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${s.emu.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(chat),
      signal: abort.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    abort.abort();
    const [event] = await announced;
    assert.equal(event.path, CHAT);
    assert.equal(s.emu.stats.abortedStreams, before + 1);
  });

  it('HTTP test controls: POST /_emulator/faults (times may be omitted or "always"), GET stats, DELETE clears', async () => {
    const added = await call(s.emu, 'POST', '/_emulator/faults', { kind: 'status', status: 503, retryAfter: 1, path: '/ksm/rag/v5/files', times: 'always' });
    assert.equal(added.status, 200);
    for (let i = 0; i < 3; i++) assertErrorBody(await list(s.emu, '{dev}'), 503);
    assert.equal((await call(s.emu, 'DELETE', '/_emulator/faults')).status, 200);
    assert.equal((await list(s.emu, '{dev}')).status, 200);
    assertErrorBody(await call(s.emu, 'POST', '/_emulator/faults', { kind: 'explode' }), 400, 'kind');
    assertErrorBody(await call(s.emu, 'POST', '/_emulator/faults', { kind: 'status', status: 200 }), 400, 'status');
    const stats = await call(s.emu, 'GET', '/_emulator/stats');
    assert.equal(stats.json.requests, s.emu.stats.requests);
    assert.equal(stats.json.abortedStreams, s.emu.stats.abortedStreams);
    assert.ok(stats.json.requests > 10);
  });

  it('hold: the request waits unanswered until POST /_emulator/faults/release, and one whose client gives up is let go', async () => {
    assert.equal((await call(s.emu, 'POST', '/_emulator/faults', { kind: 'hold', path: '/ksm/rag/v5/files', method: 'GET' })).status, 200);
    let answered = false;
    const held = list(s.emu, '{dev}').then((answer) => ((answered = true), answer));
    await until(() => s.emu.faults.held === 1);
    assert.equal((await list(s.emu, '{dev}')).status, 200, 'the rule held one request (times 1); the next goes through');
    assert.equal(answered, false, 'still held while another request was answered');
    const released = await call(s.emu, 'POST', '/_emulator/faults/release');
    assert.equal(released.json.released, 1);
    assert.equal((await held).status, 200);
    assert.equal(s.emu.faults.held, 0);

    s.emu.faults.add({ kind: 'hold', path: '/ksm/rag/v5/files' });
    const gaveUp = new AbortController();
    const abandoned = fetch(`${s.emu.url}/ksm/rag/v5/files?volume=x`, { headers: { Authorization: `Bearer ${s.emu.apiKey}` }, signal: gaveUp.signal }).catch(() => 'aborted');
    await until(() => s.emu.faults.held === 1);
    gaveUp.abort();
    assert.equal(await abandoned, 'aborted');
    await until(() => s.emu.faults.held === 0); // the closed connection ended the hold, without a release
  });
});
