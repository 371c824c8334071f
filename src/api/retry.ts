// Backoff for the calls D3 allows to retry (listing only): exponential with full jitter,
// honouring Retry-After, at most `retries` extra attempts.
import * as l10n from '@vscode/l10n';
import { setTimeout } from 'node:timers/promises';
import { CancelledError, KsmError, NetworkError, RateLimitedError, ServerError } from './errors';

export interface RetryPolicy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseDelayMs: 500, maxDelayMs: 8000 };

/** D3: a Retry-After longer than this is not waited for silently: the error goes to the user. */
export const LONGEST_HONOURED_RETRY_AFTER_MS = 30_000;

/** A Retry-After beyond this (a day) is not quoted to the user ("Wait 251606552615 s" from a date in 9999): they are told to try later. */
export const LONGEST_QUOTED_RETRY_AFTER_MS = 24 * 60 * 60_000;

/**
 * The delay before retry number `attempt` (0-based), or undefined when `error` must not be
 * retried. Only failures before any answer (network) and 429/503 qualify.
 */
export function retryDelay(error: unknown, attempt: number, policy: RetryPolicy, random: () => number = Math.random): number | undefined {
  if (attempt >= policy.retries || !(error instanceof KsmError)) return undefined;
  const retryable = error instanceof NetworkError || error instanceof RateLimitedError || (error instanceof ServerError && error.status === 503);
  if (!retryable) return undefined;
  // 429 and 503 both may say when to come back (D3); either is honoured the same way.
  const retryAfter = error instanceof RateLimitedError || error instanceof ServerError ? error.retryAfterMs : undefined;
  if (retryAfter !== undefined) return retryAfter <= LONGEST_HONOURED_RETRY_AFTER_MS ? retryAfter : undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/** How the client waits between attempts (tests inject one that records instead of waiting). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Waits `ms`, or rejects with CancelledError as soon as `signal` aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await setTimeout(ms, undefined, { signal });
  } catch (error) {
    // node:timers/promises rejects with an AbortError; callers tell a user's cancel by CancelledError.
    if (signal?.aborted) throw new CancelledError(l10n.t('Cancelled while waiting to retry.'), { cause: error });
    throw error;
  }
}
