// A VS Code cancellation token turned into the AbortSignal src/api and the cores take: it
// aborts on cancel, starts aborted for a token already cancelled, and lets go of its
// listener when the work ends (the copy it replaced never did). The helper imports only
// types from `vscode`, so a stand-in token with the same two members is enough here.
import { strict as assert } from 'node:assert';
import type * as vscode from 'vscode';
import { abortSignalFor, withAbortSignal } from '../../src/common/vscode/cancellation';

class StandInToken implements vscode.CancellationToken {
  isCancellationRequested = false;
  readonly listeners = new Set<() => void>();
  onCancellationRequested: vscode.Event<unknown> = (listener) => {
    const callback = () => listener(undefined);
    this.listeners.add(callback);
    return { dispose: () => this.listeners.delete(callback) };
  };
  cancel(): void {
    this.isCancellationRequested = true;
    for (const listener of [...this.listeners]) listener();
  }
}

describe('common: cancellation token → AbortSignal', () => {
  it('aborts when the token is cancelled and removes its listener on dispose', () => {
    const token = new StandInToken();
    const cancel = abortSignalFor(token);
    assert.equal(cancel.signal.aborted, false);
    assert.equal(token.listeners.size, 1);
    token.cancel();
    assert.equal(cancel.signal.aborted, true);
    cancel.dispose();
    assert.equal(token.listeners.size, 0);
  });

  it('starts aborted for a token already cancelled, without listening', () => {
    const token = new StandInToken();
    token.cancel();
    const cancel = abortSignalFor(token);
    assert.equal(cancel.signal.aborted, true);
    assert.equal(token.listeners.size, 0);
  });

  it('withAbortSignal lets go of the token when the work ends, also when it fails', async () => {
    const token = new StandInToken();
    assert.equal(await withAbortSignal(token, async (signal) => (assert.equal(token.listeners.size, 1), signal.aborted)), false);
    assert.equal(token.listeners.size, 0);
    await assert.rejects(
      withAbortSignal(token, async () => Promise.reject(new Error('failed'))),
      /failed/,
    );
    assert.equal(token.listeners.size, 0);
  });

  it('aborts work in flight when the user cancels', async () => {
    const token = new StandInToken();
    const work = withAbortSignal(token, (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))));
    token.cancel();
    await assert.rejects(work, (error: Error) => error.name === 'AbortError');
    assert.equal(token.listeners.size, 0);
  });
});
