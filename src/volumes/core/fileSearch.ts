// Finding files by name in a volume too large to load: pages lazily through the volume
// (`listAllFiles`) until enough matches are found, and can continue where it stopped.
// No `vscode` import.
import { isUnwrittenVolume } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { FileInfo } from '../../api/types';

export interface SearchProgress {
  scanned: number;
  matches: number;
}

/**
 * Case-insensitive substring match on the file name; with `*` or `?` the pattern must match
 * the whole name: `*` stays within one folder level, `**` crosses them (a `**` folder also
 * stands for no folder), `?` is one character, every other character is literal (`report (1).pdf`,
 * `[draft] notes.md` are typed as they are), and a pattern without `/` matches the last part
 * of a name that has folders, so `*.pdf` finds `reports/q3.pdf`. Matched in time linear in
 * the name per pattern character (wildcardMatch): the names are the service's, and a
 * backtracking regular expression took seconds per long hostile name for `*a*a*b`.
 */
export function nameMatcher(query: string): (filename: string) => boolean {
  const trimmed = query.trim().toLowerCase();
  if (!/[*?]/.test(trimmed)) return (name) => name.toLowerCase().includes(trimmed);
  const tokens = wildcardTokens(trimmed);
  if (trimmed.includes('/')) return (name) => wildcardMatch(tokens, name.toLowerCase());
  return (name) => wildcardMatch(tokens, name.slice(name.lastIndexOf('/') + 1).toLowerCase());
}

type WildcardToken = { kind: 'char'; char: string } | { kind: 'one' } | { kind: 'segment' } | { kind: 'any' } | { kind: 'folders' };

/** `?` one character but `/`; `*` any run without `/`; `**` any run; `**` + `/` nothing or any run ending in `/`. */
function wildcardTokens(pattern: string): WildcardToken[] {
  const tokens: WildcardToken[] = [];
  for (let i = 0; i < pattern.length;) {
    if (pattern[i] === '*') {
      let end = i;
      while (pattern[end] === '*') end++;
      const atSegmentStart = i === 0 || pattern[i - 1] === '/';
      if (end - i >= 2 && atSegmentStart && pattern[end] === '/') {
        tokens.push({ kind: 'folders' });
        i = end + 1;
      } else {
        tokens.push({ kind: end - i >= 2 ? 'any' : 'segment' });
        i = end;
      }
    } else {
      tokens.push(pattern[i] === '?' ? { kind: 'one' } : { kind: 'char', char: pattern[i]! });
      i++;
    }
  }
  return tokens;
}

/** Whether `name` matches the tokens whole: one pass over the name per token (no backtracking). */
function wildcardMatch(tokens: readonly WildcardToken[], name: string): boolean {
  const n = name.length;
  // reach[j]: the tokens so far can match name[0..j).
  let reach = new Uint8Array(n + 1);
  reach[0] = 1;
  for (const token of tokens) {
    const next = new Uint8Array(n + 1);
    let any = 0;
    for (let j = 0; j <= n; j++) {
      switch (token.kind) {
        case 'char':
          if (j > 0 && reach[j - 1] && name[j - 1] === token.char) next[j] = 1;
          break;
        case 'one':
          if (j > 0 && reach[j - 1] && name[j - 1] !== '/') next[j] = 1;
          break;
        case 'segment':
          next[j] = reach[j] || (j > 0 && next[j - 1] && name[j - 1] !== '/') ? 1 : 0;
          break;
        case 'any':
          next[j] = reach[j] || (j > 0 && next[j - 1]) ? 1 : 0;
          break;
        case 'folders':
          next[j] = reach[j] || (any && name[j - 1] === '/') ? 1 : 0;
          break;
      }
      if (reach[j]) any = 1;
    }
    reach = next;
  }
  return reach[n] === 1;
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
      if (isUnwrittenVolume(error)) {
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
