// D1, D2, D4: every endpoint needs the key, and every refusal has the same body.
import { strict as assert } from 'node:assert';
import { assertErrorBody, call, uploadForm, useFreshEmulator } from './support';

const ENDPOINTS: Array<[string, string, unknown]> = [
  ['POST', '/ksm/rag/v5/files', 'form'],
  ['GET', '/ksm/rag/v5/files', { volume: '{dev}' }],
  ['DELETE', '/ksm/rag/v5/files', { volume: '{dev}', uuidz: ['x'] }],
  ['POST', '/v3/chat/completions', { model: 'emu-chat', messages: [{ role: 'user', content: 'hi' }] }],
  ['POST', '/v1/apps/chat-messages', { agent_id: 'rag-agent', query: 'hi', context: { model: 'emu-chat' } }],
];

describe('emulator: authentication and the error body', () => {
  const s = useFreshEmulator();
  const body = (b: unknown) => (b === 'form' ? uploadForm({ volume: '{dev}', embedding: 'emu-embed' }, [{ name: 'a.txt', content: 'a' }]) : b);

  for (const [method, path, payload] of ENDPOINTS) {
    it(`${method} ${path}: 401 without a key and with a wrong key, never echoing the key`, async () => {
      assertErrorBody(await call(s.emu, method, path, body(payload), { key: null }), 401, null);
      const wrong = await call(s.emu, method, path, body(payload), { key: 'not-the-key-123' });
      assertErrorBody(wrong, 401, null);
      assert.ok(!wrong.text.includes('not-the-key-123'));
    });
  }

  it('a Basic or malformed Authorization header is 401 too', async () => {
    const answer = await call(s.emu, 'GET', '/ksm/rag/v5/files', { volume: '{dev}' }, { key: null, headers: { Authorization: `Basic ${s.emu.apiKey}` } });
    assertErrorBody(answer, 401);
  });

  it('unknown endpoint and wrong method: 404 in the D2 shape', async () => {
    assertErrorBody(await call(s.emu, 'GET', '/v3/nothing'), 404, null);
    assertErrorBody(await call(s.emu, 'PUT', '/ksm/rag/v5/files', { volume: '{dev}' }), 404, null);
  });

  it('a JSON endpoint given another content type answers 415 (D4)', async () => {
    const answer = await call(s.emu, 'POST', '/v3/chat/completions', 'model=emu-chat', { headers: { 'Content-Type': 'text/plain' } });
    assertErrorBody(answer, 415, null);
  });

  it('an upload that is not multipart answers 415', async () => {
    assertErrorBody(await call(s.emu, 'POST', '/ksm/rag/v5/files', { volume: '{dev}' }), 415);
  });

  it('a body that is not JSON, or not an object, is 400', async () => {
    const headers = { 'Content-Type': 'application/json' };
    assertErrorBody(await call(s.emu, 'POST', '/v3/chat/completions', '{"model":', { headers }), 400, null);
    assertErrorBody(await call(s.emu, 'POST', '/v3/chat/completions', '[1,2]', { headers }), 400, null);
  });

  it('test controls need --test-controls', async () => {
    // This suite has them on; they answer without being part of the service surface.
    const stats = await call(s.emu, 'GET', '/_emulator/stats', undefined, { key: null });
    assert.equal(stats.status, 200);
    assert.equal(typeof stats.json.requests, 'number');
  });
});

describe('emulator: test controls are off by default', () => {
  const s = useFreshEmulator({ testControls: false });
  it('answers 404 for /_emulator/* when started without testControls', async () => {
    assertErrorBody(await call(s.emu, 'GET', '/_emulator/stats'), 404);
    assertErrorBody(await call(s.emu, 'POST', '/_emulator/faults', { kind: 'latency', ms: 1 }), 404);
  });
});
