// "Replace" keeps a searchable copy: the older copies of a file are deleted only once the
// new copy reached `done`. A new copy that ends `na` (not searchable) leaves the older,
// searchable copies in place, and the user is told. The service has no atomic replace and
// processing takes minutes, so the pending replacements are remembered in storage (they
// survive a reload) and settled by polling the volume's listing. No `vscode` import.
import * as l10n from '@vscode/l10n';
import { messageWithFix } from '../../common/core/errorFixes';
import { shownInMessage, shownInput } from '../../common/core/untrustedText';
import type { KsmService } from '../../api/service';
import type { FileInfo } from '../../api/types';

export interface PendingReplacement {
  volume: string;
  /** The new copy. */
  uuid: string;
  filename: string;
  /** The older copies it replaces. */
  replaces: string[];
}

export type ReplacementOutcome =
  /** The new copy is searchable; the older copies were deleted (or were already gone). */
  | 'replaced'
  /** The new copy ended `na`: the older searchable copies were kept. */
  | 'kept-old'
  /** The new copy is no longer in the volume (deleted meanwhile): the older copies were kept. */
  | 'new-gone'
  /** Deleting the older copies failed; they are still there. */
  | 'delete-failed';

export interface SettledReplacement {
  pending: PendingReplacement;
  outcome: ReplacementOutcome;
  /** For the user: what happened and why. */
  message: string;
}

/** Where the pending replacements live between reloads (VS Code's globalState in the extension). */
export interface ReplacementStorage {
  /** As stored: an earlier or later version may have written entries of another shape (kept as they are). */
  get(): unknown;
  set(pending: PendingReplacement[]): Promise<void>;
}

export interface ReplacementTrackerOptions {
  service: () => KsmService;
  storage: ReplacementStorage;
  onSettled: (settled: SettledReplacement) => void;
  /** How messages name a volume ("My files" for the personal one); the raw name by default. */
  volumeName?: (volume: string) => string;
  onError?: (error: unknown) => void;
  /** Between two looks at the listing while copies are still processing. */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export class ReplacementTracker {
  private loop: Promise<void> | undefined;
  private disposed = false;
  private reportedUnknown = false;

  constructor(private readonly options: ReplacementTrackerOptions) {}

  get pending(): PendingReplacement[] {
    const stored = this.options.storage.get();
    return Array.isArray(stored) ? stored.filter(isPending) : [];
  }

  /** Remembers new replacements and makes sure they are being watched. */
  async add(replacements: PendingReplacement[]): Promise<void> {
    if (replacements.length === 0) return;
    await this.write([...this.pending, ...replacements]);
    this.resume();
  }

  /**
   * Stores `pending` with every stored entry this version does not understand (another
   * version's shape) kept as it is, after them: they are never silently dropped. A stored
   * value that is not a list at all is left unchanged (nothing new is remembered); both are
   * reported once.
   */
  private async write(pending: PendingReplacement[]): Promise<void> {
    const stored = this.options.storage.get();
    if (stored !== undefined && stored !== null && !Array.isArray(stored)) {
      this.reportUnknown(
        l10n.t(
          'The remembered replacements are stored in a form this version does not know; they are left unchanged and new replacements are not remembered across a reload. Delete the older copies by hand once the new ones are processed.',
        ),
      );
      return;
    }
    const unknown = (stored ?? []).filter((entry: unknown) => !isPending(entry));
    if (unknown.length) {
      this.reportUnknown(l10n.t('{0} remembered replacements are in a form this version does not know; they are kept unchanged for the version that wrote them.', unknown.length));
    }
    await this.options.storage.set([...pending, ...unknown] as PendingReplacement[]);
  }

  private reportUnknown(message: string): void {
    if (this.reportedUnknown) return;
    this.reportedUnknown = true;
    this.options.onError?.(new Error(message));
  }

  /** Watches what storage holds (after a reload), until every replacement settled. */
  resume(): void {
    if (this.loop || this.disposed || this.pending.length === 0) return;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    this.loop = (async () => {
      while (!this.disposed && this.pending.length > 0) {
        try {
          await this.settleOnce();
        } catch (error) {
          this.options.onError?.(error);
        }
        if (this.pending.length > 0) await sleep(this.options.pollMs ?? 5000);
      }
    })().finally(() => (this.loop = undefined));
  }

  /** Resolves when the watch loop has nothing left to do (tests; disposal). */
  async idle(): Promise<void> {
    while (this.loop) await this.loop;
  }

  dispose(): void {
    this.disposed = true;
  }

  /** One look at each volume with pending replacements; settles the ones whose new copy is final. */
  async settleOnce(): Promise<SettledReplacement[]> {
    const settled: SettledReplacement[] = [];
    const byVolume = new Map<string, PendingReplacement[]>();
    for (const pending of this.pending) byVolume.set(pending.volume, [...(byVolume.get(pending.volume) ?? []), pending]);
    for (const [volume, list] of byVolume) {
      const files = new Map<string, FileInfo>();
      for await (const file of this.options.service().listAllFiles(volume, { pageSize: 1000 })) files.set(file.uuid, file);
      for (const pending of list) {
        const result = await this.settle(pending, files);
        if (!result) continue;
        settled.push(result);
        await this.write(this.pending.filter((p) => !(p.volume === pending.volume && p.uuid === pending.uuid)));
        this.options.onSettled(result);
      }
    }
    return settled;
  }

  private async settle(pending: PendingReplacement, files: Map<string, FileInfo>): Promise<SettledReplacement | undefined> {
    const fresh = files.get(pending.uuid);
    // The message goes to a notification: the service's words (its detail, its error) and the
    // file's name are quoted as text there (a [..](command:..) link would run a command).
    const name = l10n.t("'{0}' in {1}", shownInMessage(shownInput(pending.filename, 120)), this.options.volumeName?.(pending.volume) ?? pending.volume);
    if (!fresh) return { pending, outcome: 'new-gone', message: l10n.t('{0}: the new copy is no longer in the volume, so the older copy was kept.', name) };
    if (fresh.status !== 'done' && fresh.status !== 'na') return undefined;
    const older = pending.replaces.map((uuid) => files.get(uuid)).filter((f): f is FileInfo => f !== undefined);
    // Only a searchable older copy is worth keeping; one that is not searchable either goes.
    const toDelete = fresh.status === 'done' ? older : older.filter((f) => f.status !== 'done');
    const kept = older.length - toDelete.length;
    if (toDelete.length > 0) {
      try {
        await this.options.service().deleteFiles({ volume: pending.volume, uuids: toDelete.map((f) => f.uuid) });
      } catch (error) {
        return { pending, outcome: 'delete-failed', message: l10n.t('{0}: the older copy could not be deleted ({1}); both copies are in the volume.', name, messageWithFix(error)) };
      }
    }
    if (fresh.status === 'na' && kept > 0) {
      const message = fresh.statusDetail
        ? l10n.t('{0}: the new copy could not be processed ({1}), so the older, searchable copy was kept.', name, shownInMessage(shownInput(fresh.statusDetail, 300)))
        : l10n.t('{0}: the new copy could not be processed, so the older, searchable copy was kept.', name);
      return { pending, outcome: 'kept-old', message };
    }
    return { pending, outcome: 'replaced', message: l10n.t('{0}: the new copy is ready; the older copy was deleted.', name) };
  }
}

function isPending(value: unknown): value is PendingReplacement {
  const v = value as PendingReplacement;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.volume === 'string' &&
    typeof v.uuid === 'string' &&
    typeof v.filename === 'string' &&
    Array.isArray(v.replaces) &&
    v.replaces.every((uuid) => typeof uuid === 'string')
  );
}
