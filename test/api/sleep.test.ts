// The wait between retries (node:timers/promises underneath): it ends on time, and a user's
// cancel ends it at once as CancelledError (silent in the UI), not as a generic AbortError.
import { strict as assert } from 'node:assert';
import { CancelledError } from '../../src/api/errors';
import { sleep } from '../../src/api/retry';

describe('api: abortable sleep between retries', () => {
  it('waits and resolves', async () => {
    await sleep(5);
  });

  it('rejects with CancelledError when the signal is already aborted, or aborts while waiting', async () => {
    await assert.rejects(sleep(60_000, AbortSignal.abort()), CancelledError);
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    await assert.rejects(waiting, CancelledError);
  });
});
