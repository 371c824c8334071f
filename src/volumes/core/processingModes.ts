// Which `do_chunking` each file was uploaded with, so a final `na` can be read as what it
// is (D24): the user's choice ("Store only", "Chunk only": stored, not indexed) or a
// failure (sent to be indexed, ended `na`). The service's FileInfo does not say (D8); what
// this extension sent is kept in globalState, bounded, newest last. No `vscode` import: the
// stored value is read back as `unknown` (another version may have written it) and checked.
import type { DoChunking } from '../../api/types';

/** How many files' modes are kept; the oldest are forgotten first. */
export const PROCESSING_MODES_KEPT = 5000;

export type StoredProcessingModes = Array<[uuid: string, mode: DoChunking]>;

export class ProcessingModes {
  private readonly modes = new Map<string, DoChunking>();

  constructor(
    stored: unknown,
    private readonly save: (entries: StoredProcessingModes) => void,
    private readonly kept = PROCESSING_MODES_KEPT,
  ) {
    if (!Array.isArray(stored)) return;
    for (const entry of stored) {
      if (Array.isArray(entry) && typeof entry[0] === 'string' && isDoChunking(entry[1])) this.modes.set(entry[0], entry[1]);
    }
  }

  get(uuid: string): DoChunking | undefined {
    return this.modes.get(uuid);
  }

  remember(uuids: readonly string[], mode: DoChunking): void {
    if (uuids.length === 0) return;
    for (const uuid of uuids) {
      this.modes.delete(uuid); // re-inserted last: the newest survive trimming
      this.modes.set(uuid, mode);
    }
    for (const uuid of this.modes.keys()) {
      if (this.modes.size <= this.kept) break;
      this.modes.delete(uuid);
    }
    this.save([...this.modes]);
  }
}

function isDoChunking(value: unknown): value is DoChunking {
  return value === 0 || value === 1 || value === 2;
}
