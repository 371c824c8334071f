// Keys and logs against the emulator: a missing or wrong key says how to fix it, the key
// never appears in an error or a log line, and debug mode logs requests as curl commands.
import { strict as assert } from 'node:assert';
import { AuthenticationError, ConfigurationError, KsmError, NetworkError, TimeoutError } from '../../src/api/errors';
import { KsmClient } from '../../src/api/client';
import { drain, recordingLogger, useEmulator } from './harness';

describe('api: keys, errors and request logging', () => {
  const h = useEmulator();
  const WRONG_KEY = 'sk-wrong-1234567890';

  it('refuses to call without a key, saying how to set one, and sends nothing', async () => {
    const before = h.emulator.stats.requests;
    await assert.rejects(
      h.client({ apiKey: async () => undefined }).listFiles({ volume: 'docs' }),
      (e: unknown) => e instanceof ConfigurationError && /Set your API key with 'KSM: Set API Key'/.test(e.message),
    );
    assert.equal(h.emulator.stats.requests, before);
  });

  it('reads the key at each call, so a key set later is used at once', async () => {
    let key: string | undefined;
    const client = h.client({ apiKey: async () => key });
    await assert.rejects(client.createChatCompletion({ model: 'emu-chat', messages: [{ role: 'user', content: 'x' }] }), ConfigurationError);
    key = h.emulator.apiKey;
    const answer = await client.createChatCompletion({ model: 'emu-chat', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(answer.object, 'chat.completion');
  });

  it('maps a wrong key to AuthenticationError for every operation, never echoing the key', async () => {
    const client = h.client({ apiKey: async () => WRONG_KEY, logRequests: true });
    const errors: unknown[] = [];
    const chat = { model: 'emu-chat', messages: [{ role: 'user' as const, content: 'hi' }] };
    const agent = { agent_id: 'rag-agent', query: 'q', context: { model: 'emu-chat' } };
    errors.push(await client.listFiles({ volume: 'docs' }).catch((e) => e));
    errors.push(await client.deleteFiles({ volume: 'docs', uuids: ['x'] }).catch((e) => e));
    errors.push(await client.createChatCompletion(chat).catch((e) => e));
    errors.push((await drain(client.streamChatCompletion(chat))).error);
    errors.push(await client.sendAgentMessage(agent).catch((e) => e));
    errors.push((await drain(client.streamAgentMessage(agent))).error);
    const [upload] = await client.uploadFiles({ volume: 'docs', embedding: 'emu-embed', files: [{ path: h.file('k.txt', 'k') }] });
    errors.push(!upload.ok && upload.error);
    for (const error of errors) {
      assert.ok(error instanceof AuthenticationError && error.status === 401, String(error));
      assert.match(error.message, /Set your API key with 'KSM: Set API Key'/);
      assert.ok(!error.message.includes(WRONG_KEY));
    }
    assert.ok(h.logLines.length >= 7);
    assert.ok(
      h.logLines.every((line) => !line.includes(WRONG_KEY)),
      'no log line carries the key',
    );
  });

  it('logs each request as an equivalent curl command with the key as ***', async () => {
    const client = h.client({ logRequests: true });
    await client.uploadFiles({ volume: 'curl', embedding: 'emu-embed', doChunking: 0, files: [{ path: h.file('c.txt', 'c') }] });
    await client.listFiles({ volume: 'curl', limit: 5 });
    const curls = h.logLines.filter((l) => l.startsWith('info curl '));
    assert.equal(curls.length, 2);
    assert.match(
      curls[0],
      /curl -X POST '.*\/ksm\/rag\/v5\/files' -H 'authorization: Bearer \*\*\*'.* -F 'volume=curl' -F 'embedding=emu-embed' -F 'do_chunking=0' -F 'file=@.*c\.txt;filename=c\.txt'/,
    );
    assert.match(curls[1], /curl -X GET '.*\/ksm\/rag\/v5\/files' .*-H 'content-type: application\/json; charset=utf-8' --data-raw '\{"volume":"curl","offset":0,"limit":5\}'/);
    assert.ok(curls.every((l) => !l.includes(h.emulator.apiKey)));
  });

  it('logs no curl lines when debug mode is off', async () => {
    await h.client({ logRequests: false }).listFiles({ volume: 'curl' });
    assert.equal(h.logLines.filter((l) => l.includes('curl ')).length, 0);
  });

  it('reports a server that is not there as NetworkError naming ECONNREFUSED once, with its code (the fix comes from errorFixes)', async () => {
    const client = new KsmClient({ baseUrl: 'http://127.0.0.1:9', apiKey: async () => 'k', retry: { retries: 0 } });
    await assert.rejects(
      client.createChatCompletion({ model: 'emu-chat', messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => e instanceof NetworkError && e.code === 'ECONNREFUSED' && e.message.split('ECONNREFUSED').length === 2 && /nothing accepted the connection/.test(e.message),
    );
  });

  it('times out a slow answer (emulator latency fault) with TimeoutError', async () => {
    h.emulator.faults.add({ kind: 'latency', path: '/v3/chat/completions', ms: 1500 });
    const error = await h
      .client({ timeoutMs: 200 })
      .createChatCompletion({ model: 'emu-chat', messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e);
    assert.ok(error instanceof TimeoutError, String(error));
    assert.ok(error instanceof KsmError && error.kind === 'timeout');
  });

  it('accepts a base URL with a trailing slash', async () => {
    const page = await h.client({ baseUrl: `${h.emulator.url}/` }).listFiles({ volume: `{${h.emulator.userId}}` });
    assert.equal(page.total, 0);
  });

  it('logs through the given logger only what it was asked to (no per-chunk logging on streams)', async () => {
    const lines: string[] = [];
    const client = new KsmClient({ baseUrl: h.emulator.url, apiKey: async () => h.emulator.apiKey, logger: recordingLogger(lines) });
    const { items } = await drain(client.streamChatCompletion({ model: 'emu-chat', messages: [{ role: 'user', content: 'x' }] }));
    assert.ok(items.length > 5);
    assert.deepEqual(lines, []);
  });
});
