// Which `do_chunking` each file was uploaded with, so a final `na` can be read as what it
// is (D24): the user's choice ("Store only", "Chunk only": stored, not indexed) or a
// failure (sent to be indexed, ended `na`). The service's FileInfo does not say (D8); what
// this extension sent is kept in globalState, bounded, newest last. No `vscode` import: the
// stored value is read back as `unknown` (another version may have written it) and checked.
import type { DoChunking } from '../../api/types';
import { storedList } from '../../common/core/storedState';

/** How many files' modes are kept; the oldest are forgotten first. */
export const PROCESSING_MODES_KEPT = 5000;

type StoredMode = [uuid: string, mode: DoChunking, ...rest: unknown[]];

export class ProcessingModes {
  /** Each known file's entry as stored (a later version's extra elements kept). */
  private readonly modes = new Map<string, StoredMode>();
  /** Entries this version does not read (a later version's mode or shape): saved unchanged, before the others. Undefined: the stored value is not a list, and is never written over. */
  private readonly unknown: unknown[] | undefined;

  /** `save` is given the entries to store: the known ones newest last, after the ones this version does not read. */
  constructor(
    stored: unknown,
    private readonly save: (entries: unknown[]) => void,
    private readonly kept = PROCESSING_MODES_KEPT,
  ) {
    const list = storedList(stored, isStoredMode);
    this.unknown = list?.unknown;
    for (const entry of list?.known ?? []) this.modes.set(entry[0], entry);
  }

  get(uuid: string): DoChunking | undefined {
    return this.modes.get(uuid)?.[1];
  }

  remember(uuids: readonly string[], mode: DoChunking): void {
    if (uuids.length === 0) return;
    for (const uuid of uuids) {
      this.modes.delete(uuid); // re-inserted last: the newest survive trimming
      this.modes.set(uuid, [uuid, mode]);
    }
    for (const uuid of this.modes.keys()) {
      if (this.modes.size <= this.kept) break;
      this.modes.delete(uuid);
    }
    // A later version's shape is left as it is: the modes are known for this session only.
    if (this.unknown) this.save([...this.unknown, ...this.modes.values()]);
  }
}

function isStoredMode(entry: unknown): entry is StoredMode {
  return Array.isArray(entry) && typeof entry[0] === 'string' && isDoChunking(entry[1]);
}

function isDoChunking(value: unknown): value is DoChunking {
  return value === 0 || value === 1 || value === 2;
}
