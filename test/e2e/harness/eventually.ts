import { delay } from './processes';

/**
 * Polls `probe` until it returns a truthy value; on timeout fails with `describe()`'s
 * account of what was last seen, so a red test says what the screen showed instead.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false | null>,
  describe: (last: T | undefined | false | null, error?: unknown) => string | Promise<string>,
  timeoutMs = 30_000,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined | false | null;
  let lastError: unknown;
  for (;;) {
    try {
      last = await probe();
      lastError = undefined;
      if (last) return last;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`${await describe(last, lastError)} (waited ${timeoutMs / 1000}s)`);
    await delay(intervalMs);
  }
}
