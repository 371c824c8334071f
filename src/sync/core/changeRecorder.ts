// The apply's journal writer: every change is applied to the manifest in memory at once and
// appended to the store's journal (src/sync/core/journal.ts), with an fdatasync only where the
// next run could not rebuild the change from the listing and the intents. Intents are written
// at once; answers are gathered into one append. No `vscode` import.
import { applyChange, type ManifestChange } from './journal';
import type { Manifest, ManifestStore } from './manifest';

export interface ChangeRecorder {
  /** Applied to the manifest in memory now and on disk when this resolves (intents, before sending). */
  now(changes: ManifestChange[]): Promise<void>;
  /** Creates the journal now when the store can (the first `now` then waits for one fdatasync, not the file's creation). */
  prepare(): void;
  /**
   * Applied now, on disk soon: answers are gathered for up to ANSWERS_WRITE_DELAY_MS into one
   * append, fdatasync'ed only when one of them needs it (a crash loses none the next run
   * cannot rebuild: the intents are on disk).
   */
  later(changes: ManifestChange[]): void;
  /** Everything so far written (fdatasync'ed when `final`); the first failed append's error, if any. */
  flush(final?: boolean): Promise<void>;
  /** The end of the run: flushed, the journal closed (and folded in when the store says so). */
  finish(): Promise<void>;
}

/** How long answers wait in memory before their journal append (they are gathered into one write). */
const ANSWERS_WRITE_DELAY_MS = 100;

/**
 * Changes the next run could not rebuild need fdatasync before they count (intents,
 * deletions, older copies to delete); a copy recorded or a file not sent does not: its
 * intent is on disk, and the next plan finds the copy in the listing by name and size.
 */
function needsDurability(change: ManifestChange): boolean {
  return change.kind !== 'recorded' && change.kind !== 'notSent';
}

export function changeRecorder(store: ManifestStore, manifest: Manifest): ChangeRecorder {
  let failure: unknown;
  let last: Promise<void> = Promise.resolve();
  /** Answers applied in memory, not yet handed to the journal. */
  let queued: ManifestChange[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let durableSoon = false;
  const write = (changes: ManifestChange[], durable: boolean) => {
    last = store.append(manifest, changes, durable);
    last.catch((error: unknown) => (failure ??= error));
    return last;
  };
  /** Hands the queued answers to the journal, in order, before anything appended after them. */
  const drain = (durable: boolean) => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const changes = queued;
    queued = [];
    if (changes.length || durable) write(changes, durable || changes.some(needsDurability));
  };
  const flush = async (final = false) => {
    drain(final); // mid-run: written (the deletions that follow fdatasync their own lines); at the end, fdatasync'ed
    await last.catch(() => undefined); // appends are ordered: the last one settles after every earlier one
    if (failure) throw failure;
  };
  return {
    now(changes) {
      drain(false);
      for (const change of changes) applyChange(manifest, change);
      return write(changes, true);
    },
    prepare() {
      if (!store.prepare) return;
      last = store.prepare(manifest);
      last.catch((error: unknown) => (failure ??= error));
    },
    later(changes) {
      for (const change of changes) applyChange(manifest, change);
      queued.push(...changes);
      if (changes.some(needsDurability)) {
        // Written once the answers handed over in this turn are in (a batch's answers come in one turn): one append, not one per file.
        if (!durableSoon) {
          durableSoon = true;
          queueMicrotask(() => {
            durableSoon = false;
            if (queued.length) drain(true);
          });
        }
      } else timer ??= setTimeout(() => drain(false), ANSWERS_WRITE_DELAY_MS);
    },
    flush,
    async finish() {
      try {
        await flush(true);
      } finally {
        await store.finish(manifest); // closes the journal even after a failed append
      }
    },
  };
}
