// One sync per folder and volume at a time: a lock next to the manifest (proper-lockfile, the
// library the conversation store uses: an atomic mkdir of `<manifest>.lock`, refreshed while
// held, taken over when stale after a crash, removed on exit). A second run waits up to
// `waitMs`, then stops with SyncBusyError; nothing was changed. No `vscode` import.
import * as l10n from '@vscode/l10n';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { KsmError } from '../../api/errors';

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
}

/** Takes the lock for the manifest at `manifestPath`; resolves with its release. */
export async function acquireSyncLock(manifestPath: string, options: SyncLockOptions): Promise<() => Promise<void>> {
  await mkdir(dirname(manifestPath), { recursive: true });
  const { lock } = await import('proper-lockfile');
  const lockfilePath = lockPathFor(manifestPath);
  const base = { realpath: false, lockfilePath, stale: 10_000, update: 2_000, onCompromised: () => undefined };
  try {
    return await lock(manifestPath, base);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
  }
  options.onWaiting?.();
  const waitMs = options.waitMs ?? 5_000;
  const step = 100;
  try {
    return await lock(manifestPath, { ...base, retries: { retries: Math.max(1, Math.ceil(waitMs / step)), factor: 1, minTimeout: step, maxTimeout: step } });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    throw new SyncBusyError(
      l10n.t('Another sync of {0} is running (lock {1}); nothing was changed. Run again when it has finished (a lock left by a crash expires within 10 seconds).', options.what, lockfilePath),
    );
  }
}
