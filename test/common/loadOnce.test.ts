// loadOnce (src/common/core/loadOnce.ts): the one way a feature loads its engine on first
// use. Concurrent callers share a single load, and a failed load is retried by the next call.
import { strict as assert } from 'node:assert';
import { loadOnce } from '../../src/common/core/loadOnce';

/** A load the test settles by hand, counting how often it was started. */
function controlledLoad<T>() {
  const pending: Array<{ resolve: (value: T) => void; reject: (error: Error) => void }> = [];
  const load = () => new Promise<T>((resolve, reject) => void pending.push({ resolve, reject }));
  return { load, pending };
}

describe('loadOnce: a feature engine loaded on first use', () => {
  it('gives concurrent callers one load and the same value, and later callers that value without loading again', async () => {
    const { load, pending } = controlledLoad<{ id: number }>();
    const engine = loadOnce(load);
    assert.equal(engine.started, false);
    const callers = [engine(), engine(), engine()];
    assert.equal(pending.length, 1, 'three callers before the load settled started one load');
    assert.equal(engine.started, true);
    assert.equal(engine.value, undefined, 'no value before the load settled');
    const runtime = { id: 1 };
    pending[0]!.resolve(runtime);
    for (const got of await Promise.all(callers)) assert.equal(got, runtime);
    assert.equal(engine.value, runtime);
    assert.equal(await engine(), runtime);
    assert.equal(pending.length, 1, 'a call after the load gave its value started no new load');
  });

  it('lets every waiting caller see a failed load, and the next call load again and succeed', async () => {
    const { load, pending } = controlledLoad<string>();
    const engine = loadOnce(load);
    const first = [engine(), engine()];
    pending[0]!.reject(new Error('the module did not import'));
    for (const outcome of await Promise.allSettled(first)) {
      assert.equal(outcome.status, 'rejected');
      assert.match(String((outcome as PromiseRejectedResult).reason), /did not import/);
    }
    assert.equal(engine.started, false, 'a failed load is forgotten');
    assert.equal(engine.value, undefined);
    const retry = engine();
    assert.equal(pending.length, 2, 'the next call started a new load');
    pending[1]!.resolve('runtime');
    assert.equal(await retry, 'runtime');
    assert.equal(engine.value, 'runtime');
  });
});
