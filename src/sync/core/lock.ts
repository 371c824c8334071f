// One sync per folder and volume at a time: a lock next to the manifest (proper-lockfile, the
// library the conversation store uses: an atomic mkdir of `<manifest>.lock`, refreshed while
// held, taken over when stale after a crash, removed on exit). A second run waits up to
// `waitMs`, then stops with SyncBusyError; nothing was changed; its signal ends the wait. No `vscode` import.
import * as l10n from '@vscode/l10n';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CancelledError, KsmError } from '../../api/errors';
import { sleep } from '../../api/retry';

/** Another run holds the lock. */
export class SyncBusyError extends KsmError {
  readonly kind = 'config' as const;
  readonly busy = true;
}

export function lockPathFor(manifestPath: string): string {
  return `${manifestPath}.lock`;
}

export interface SyncLockOptions {
  /** How long to wait for another run to finish (default 5 s). */
  waitMs?: number;
  /** Called once when the lock is held by another run and this one starts waiting. */
  onWaiting?: () => void;
  /** What to say when the wait ends (folder → volume). */
  what: string;
  /**
   * Ends the wait (CancelledError) and never takes the lock after: a run cancelled, or its
   * pairing removed, while another window held the lock (for up to the editor's 10 minutes)
   * went on to sync once that window was done.
   */
  signal?: AbortSignal;
}

/** Takes the lock for the manifest at `manifestPath`; resolves with its release. */
export async function acquireSyncLock(manifestPath: string, options: SyncLockOptions): Promise<() => Promise<void>> {
  await mkdir(dirname(manifestPath), { recursive: true });
  const { lock } = await import('proper-lockfile');
  const lockfilePath = lockPathFor(manifestPath);
  const base = { realpath: false, lockfilePath, stale: 10_000, update: 2_000, onCompromised: () => undefined };
  if (options.signal?.aborted) throw new CancelledError(l10n.t('The sync was cancelled.'));
  try {
    return await lock(manifestPath, base);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
  }
  options.onWaiting?.();
  const waitMs = options.waitMs ?? 5_000;
  const step = 100;
  for (let attempt = Math.max(1, Math.ceil(waitMs / step)); attempt > 0; attempt--) {
    await sleep(step, options.signal); // rejects with CancelledError once the signal aborts
    try {
      return await lock(manifestPath, base);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    }
  }
  throw new SyncBusyError(
    l10n.t('Another sync of {0} is running (lock {1}); nothing was changed. Run again when it has finished (a lock left by a crash expires within 10 seconds).', options.what, lockfilePath),
  );
}
