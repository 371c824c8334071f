import type * as vscode from 'vscode';

/**
 * An AbortSignal (what src/api and every core take) that aborts when `token` is cancelled.
 * Dispose the result when the work ends: the token's listener is removed then, so a
 * long-lived token (a progress notification's, a drop's) does not keep the work's closure.
 * Only types come from `vscode`, so it is tested under plain mocha with a stand-in token.
 */
export function abortSignalFor(token: vscode.CancellationToken): vscode.Disposable & { readonly signal: AbortSignal } {
  const controller = new AbortController();
  if (token.isCancellationRequested) {
    controller.abort();
    return { signal: controller.signal, dispose: () => undefined };
  }
  const listener = token.onCancellationRequested(() => controller.abort());
  return { signal: controller.signal, dispose: () => listener.dispose() };
}

/** Runs `work` with a signal that aborts when `token` is cancelled, and removes the listener after. */
export async function withAbortSignal<T>(token: vscode.CancellationToken, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const cancel = abortSignalFor(token);
  try {
    return await work(cancel.signal);
  } finally {
    cancel.dispose();
  }
}
