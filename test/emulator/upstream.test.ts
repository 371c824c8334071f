// --upstream-url: completions (plain and streamed) and agent answers come from an
// OpenAI-compatible upstream. The upstream here is a second, real emulator on its /v3 path.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { assertErrorBody, call, readSse, upload } from './support';

describe('emulator: forwarding to an upstream model', () => {
  let dir: string;
  let upstream: RunningEmulator;
  let front: RunningEmulator;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-emu-upstream-'));
    upstream = await startEmulator({ port: 0, dataDir: join(dir, 'up'), apiKeys: { 'upstream-secret': 'up' }, tokenDelayMs: 0, testControls: true });
    front = await startEmulator({
      port: 0,
      dataDir: join(dir, 'front'),
      stepMs: 1,
      tokenDelayMs: 0,
      upstream: { baseUrl: `${upstream.url}/v3`, apiKey: 'upstream-secret', model: 'emu-reasoner' },
    });
  });
  after(async () => {
    await Promise.all([front?.close(), upstream?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('forwards a plain completion with the upstream key and model, answering under the requested model', async () => {
    const before = upstream.stats.requests;
    const { status, json } = await call(front, 'POST', '/v3/chat/completions', { model: 'emu-chat', repetition_penalty: 1, messages: [{ role: 'user', content: 'forward me' }] });
    assert.equal(status, 200);
    assert.equal(upstream.stats.requests, before + 1);
    assert.equal(json.model, 'emu-chat');
    assert.match(json.choices[0].message.content, /forward me/);
    assert.equal(typeof json.choices[0].message.reasoning_content, 'string', 'the upstream (emu-reasoner) wrote it');
  });

  it('passes a stream through chunk by chunk, ending with [DONE]', async () => {
    const { messages } = await readSse(front, '/v3/chat/completions', { model: 'emu-chat', stream: true, messages: [{ role: 'user', content: 'stream through' }] });
    assert.equal(messages[messages.length - 1].data, '[DONE]');
    const chunks = messages.slice(0, -1).map((m) => JSON.parse(m.data));
    assert.match(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), /stream through/);
    assert.equal(chunks[chunks.length - 1].choices[0].finish_reason, 'stop');
  });

  it('an upstream failure is a 502 D2 answer before a stream, and a D14 error chunk during one', async () => {
    upstream.faults.add({ kind: 'status', status: 500 });
    assertErrorBody(await call(front, 'POST', '/v3/chat/completions', { model: 'emu-chat', messages: [{ role: 'user', content: 'x' }] }), 502);
    upstream.faults.add({ kind: 'reset', afterEvents: 3 });
    const { messages } = await readSse(front, '/v3/chat/completions', { model: 'emu-chat', stream: true, messages: [{ role: 'user', content: 'x' }] });
    const errorChunk = JSON.parse(messages[messages.length - 2].data);
    assert.equal(errorChunk.choices[0].finish_reason, 'error');
    assert.equal(JSON.parse(errorChunk.choices[0].delta.content).code, 502);
    assert.equal(messages[messages.length - 1].data, '[DONE]');
  });

  it('the rag-agent asks the upstream with the retrieved excerpts and still cites them', async () => {
    await upload(front, '{dev}', [{ name: 'owls.txt', content: 'Barn owls hunt at night using their hearing.' }], 1);
    await front.waitForIdle();
    const { status, json } = await call(front, 'POST', '/v1/apps/chat-messages', { agent_id: 'rag-agent', query: 'How do barn owls hunt?', stream: false, context: { model: 'emu-chat' } });
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.citations[0].filename, 'owls.txt');
    assert.match(json.content, /^You asked: "How do barn owls hunt\?"/, 'the upstream responder restated the question');
  });

  it('streams the upstream answer as message events; an upstream failure mid-answer is an error event then done status error', async () => {
    const body = { agent_id: 'rag-agent', query: 'barn owls hearing', context: { model: 'emu-chat' } };
    const ok = await readSse(front, '/v1/apps/chat-messages', body);
    const text = ok.messages
      .filter((m) => m.event === 'message')
      .map((m) => JSON.parse(m.data).delta)
      .join('');
    assert.match(text, /^You asked: "barn owls hearing"/);
    assert.ok(ok.messages.filter((m) => m.event === 'message').length > 3, 'arrives in pieces');
    assert.equal(ok.messages[ok.messages.length - 1].event, 'done');
    upstream.faults.add({ kind: 'stream-error', afterEvents: 3, code: 503, message: 'model overloaded' });
    const failed = await readSse(front, '/v1/apps/chat-messages', body);
    const names = failed.messages.map((m) => m.event);
    assert.deepEqual(names.slice(-2), ['error', 'done']);
    const error = JSON.parse(failed.messages[failed.messages.length - 2].data);
    assert.equal(error.code, 502);
    assert.match(error.message, /model overloaded/);
    assert.equal(JSON.parse(failed.messages[failed.messages.length - 1].data).status, 'error');
  });
});
