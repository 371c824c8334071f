import { strict as assert } from 'node:assert';
import { AuthenticationError, CancelledError, isCancellation, isKsmError, redactSecrets, StreamCutOffError } from '../../src/api/errors';

describe('errors', () => {
  it('redacts bearer tokens and literal secrets', () => {
    const text = 'curl -H "Authorization: Bearer sk-live-123456" https://x/?k=sk-live-123456';
    const out = redactSecrets(text, ['sk-live-123456']);
    assert.ok(!out.includes('sk-live-123456'), out);
    assert.match(out, /Bearer \*\*\*/);
  });

  it('redacts a key however short it is (a leaked short key is still a leaked key)', () => {
    assert.equal(redactSecrets('a b c', ['a']), '*** b c');
  });

  it('classifies errors by kind and recognises cancellation', () => {
    const auth = new AuthenticationError('Set your API key', { status: 401 });
    assert.equal(auth.kind, 'auth');
    assert.equal(auth.status, 401);
    assert.equal(auth.name, 'AuthenticationError');
    assert.ok(isKsmError(auth));
    assert.ok(isCancellation(new CancelledError('stopped')));
    const abort = new Error('aborted');
    abort.name = 'AbortError';
    assert.ok(isCancellation(abort));
    assert.ok(!isCancellation(auth));
    assert.equal(new StreamCutOffError('cut', { receivedAny: true }).receivedAny, true);
  });
});
