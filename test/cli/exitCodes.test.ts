// The one mapping from an error to `ksm`'s exit code (src/cli/environment.ts exitCodeFor), as
// `ksm --help` and the README document it: what a script in CI branches on.
import { strict as assert } from 'node:assert';
import { AuthenticationError, CancelledError, ConfigurationError, InvalidRequestError, NetworkError, NotFoundError, RateLimitedError, ServerError } from '../../src/api/errors';
import { EXIT, exitCodeFor, UsageError } from '../../src/cli/environment';
import { SyncBusyError } from '../../src/sync/core/lock';

describe('ksm exit codes (exitCodeFor)', () => {
  const cases: Array<[string, unknown, number]> = [
    ['a usage error', new UsageError('--seed: not a number'), EXIT.usage],
    ["a value the client's own checks refused before sending (no status)", new InvalidRequestError('bad volume'), EXIT.usage],
    ['a configuration error', new ConfigurationError('KSM_BASE_URL is not set'), EXIT.config],
    ['a refused key', new AuthenticationError('401', { status: 401 }), EXIT.config],
    ['an unknown model, agent or volume (404)', new NotFoundError('unknown model', { status: 404, param: 'model' }), EXIT.config],
    ["the service's 400", new InvalidRequestError('unknown embedding', { status: 400 }), EXIT.config],
    ['a 413 (too large for this request, not a setting)', new InvalidRequestError('too large', { status: 413 }), EXIT.service],
    ['a 5xx', new ServerError('503', { status: 503 }), EXIT.service],
    ['a 429', new RateLimitedError('429', { status: 429 }), EXIT.service],
    ['the network', new NetworkError('ECONNREFUSED', { code: 'ECONNREFUSED' }), EXIT.service],
    ['a cancel', new CancelledError('cancelled'), EXIT.cancelled],
    ['another sync running', new SyncBusyError('another sync of /tmp/folder is running'), EXIT.busy],
    // `ksm ask` rethrows the answer's sentence with the service's error as its cause, and the cause's kind.
    ["ask's sentence over an unknown model", Object.assign(new Error('Chat stream failed'), { kind: 'not-found', cause: new NotFoundError('unknown model', { status: 404 }) }), EXIT.config],
    ["ask's sentence over a stream cut short", Object.assign(new Error('cut off'), { kind: 'cut-off' }), EXIT.service],
  ];
  for (const [what, error, code] of cases) {
    it(`${what} → ${code}`, () => assert.equal(exitCodeFor(error), code));
  }
});
