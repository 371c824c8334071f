// Finding files by name in a volume too large to load: pages lazily through the volume
// (`listAllFiles`) until enough matches are found, and can continue where it stopped.
// No `vscode` import.
import picomatch from 'picomatch';
import { NotFoundError } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { FileInfo } from '../../api/types';

export interface SearchProgress {
  scanned: number;
  matches: number;
}

/**
 * Glob characters other than `*` and `?` taken literally: a name like `report (1).pdf` or
 * `[draft] notes.md` is typed as it is, not read as a group or a character class.
 */
const LITERAL_GLOB_CHARACTERS = /[\\()[\]{}!+@|]/g;

/**
 * Case-insensitive substring match on the file name; with `*` or `?` the pattern must match
 * the whole name, through picomatch (the upload's exclude globs use it too): `*` stays within
 * one folder level, `**` crosses them, and a pattern without `/` matches the last part of a
 * name that has folders, so `*.pdf` finds `reports/q3.pdf`.
 */
export function nameMatcher(query: string): (filename: string) => boolean {
  const trimmed = query.trim().toLowerCase();
  if (!/[*?]/.test(trimmed)) return (name) => name.toLowerCase().includes(trimmed);
  const glob = picomatch(trimmed.replace(LITERAL_GLOB_CHARACTERS, '\\$&'), {
    nocase: true,
    dot: true,
    nobrace: true,
    nobracket: true,
    noextglob: true,
    nonegate: true,
  });
  if (trimmed.includes('/')) return glob;
  return (name) => glob(name.slice(name.lastIndexOf('/') + 1));
}

/**
 * "100 matches", "1 match", "100+ matches": the `+` only when at least one more match is
 * known to exist (VolumeSearch reads one match ahead), never for exactly 100.
 */
export function matchCountText(count: number, more: boolean, interrupted = false): string {
  const text = `${count}${more ? '+' : ''} match${count === 1 && !more ? '' : 'es'}`;
  return interrupted && !more ? `${text} so far` : text;
}

export class VolumeSearch {
  readonly matches: FileInfo[] = [];
  scanned = 0;
  /**
   * True once no further match exists: the whole volume was read. While false, a match
   * beyond the ones shown has been found (read ahead), so "more" is a fact, not a guess.
   */
  complete = false;
  private iterator?: AsyncIterator<FileInfo>;
  /** The first match beyond `wanted`, held back for the next call. */
  private ahead?: FileInfo;

  /** A match beyond `matches` is known to exist. */
  get hasMoreMatches(): boolean {
    return this.ahead !== undefined;
  }

  /** "12 matches", "100+ matches", "3 matches so far" (stopped before the end). */
  get countText(): string {
    return matchCountText(this.matches.length, this.hasMoreMatches, !this.complete);
  }
  private readonly matcher: (filename: string) => boolean;

  constructor(
    private readonly service: KsmService,
    readonly volume: string,
    readonly query: string,
    private readonly pageSize = 1000,
  ) {
    this.matcher = nameMatcher(query);
  }

  /**
   * Reads on until `wanted` more matches are found or the volume ends. An abort stops
   * the read and keeps what was found; the next call starts a fresh page walk and skips
   * what was already scanned (listing order is stable, D10).
   */
  async findMore(wanted: number, signal?: AbortSignal, onProgress?: (p: SearchProgress) => void): Promise<FileInfo[]> {
    const found: FileInfo[] = [];
    if (this.ahead && wanted > 0) {
      found.push(this.ahead);
      this.matches.push(this.ahead);
      this.ahead = undefined;
    }
    if (this.complete) return found;
    if (!this.iterator) {
      const seen = this.scanned;
      this.iterator = this.service.listAllFiles(this.volume, { signal, pageSize: this.pageSize })[Symbol.asyncIterator]();
      // A restarted walk skips what an earlier, aborted walk already scanned.
      for (let i = 0; i < seen; i++) {
        const next = await this.iterator.next();
        if (next.done) {
          this.complete = true;
          return found;
        }
      }
    }
    try {
      // Reads until one match more than wanted (kept in `ahead`), so "more" is known.
      while (!this.ahead) {
        signal?.throwIfAborted();
        const next = await this.iterator.next();
        if (next.done) {
          this.complete = true;
          break;
        }
        this.scanned++;
        if (this.matcher(next.value.filename)) {
          if (found.length < wanted) {
            found.push(next.value);
            this.matches.push(next.value);
          } else {
            this.ahead = next.value;
          }
        }
        if (this.scanned % 500 === 0) onProgress?.({ scanned: this.scanned, matches: this.matches.length });
      }
    } catch (error) {
      // D6: a volume nobody has uploaded to has no files, so the search is complete.
      if (error instanceof NotFoundError) {
        this.complete = true;
        return found;
      }
      // The iterator is bound to the aborted signal; drop it so a later call can resume.
      this.iterator = undefined;
      throw error;
    }
    return found;
  }
}
