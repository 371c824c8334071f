/**
 * A feature's engine loaded on first use (docs/architecture.md, lazy loading): every caller
 * until the load settles shares one load; a load that failed (a module that did not import,
 * a runtime that threw while starting) is forgotten, so the next call tries again instead
 * of failing for the rest of the session. `value` is what the load gave, once it succeeded
 * (undefined before: nothing to tell or dispose yet); `started` says a load is under way or
 * done.
 */
export interface LoadOnce<T> {
  (): Promise<T>;
  readonly started: boolean;
  readonly value: T | undefined;
}

export function loadOnce<T>(load: () => Promise<T>): LoadOnce<T> {
  let loading: Promise<T> | undefined;
  let value: T | undefined;
  const get = (() =>
    (loading ??= load().then(
      (loaded) => (value = loaded),
      (error: unknown) => {
        loading = undefined; // the next call tries again
        throw error;
      },
    ))) as LoadOnce<T>;
  Object.defineProperties(get, {
    started: { get: () => loading !== undefined },
    value: { get: () => value },
  });
  return get;
}
