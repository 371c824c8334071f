// Reading `.gitignore` files as git applies them: each folder's rules for the paths below it,
// from the workspace folder down. The one reader, parser and matcher of ignore rules: uploads
// and folder sync (the walk in folderExpansion.ts), the private-file rules (privateFiles.ts)
// and watch mode's event filter (sync/core/watchBatcher.ts, through `GitignoreCache`) all
// import it, so a rule means the same in each. No `vscode` import.
//
// The rules are git's own (dir.c and wildmatch.c), checked against the `git` binary by
// test/common/gitignoreGit.test.ts:
// - for a path, the deepest `.gitignore` with a matching line decides, and within a file the
//   last matching line; a `!` line re-includes, so `sub/.gitignore` with `!keep.log` brings
//   back the `sub/keep.log` a root `*.log` left out;
// - a folder that is excluded is not entered: nothing below it can be re-included, and the
//   `.gitignore` files inside it are not read;
// - a pattern ending in `/` matches folders only.
// A committed `.gitignore` is someone else's text: patterns are matched without regular
// expressions, each (pattern position, name position) pair is worked out at most once, a line
// of more than MAX_GITIGNORE_STAR_RUNS runs of `*` is not matched, and each file's matching
// draws on a budget of steps that grows by PATH_ALLOWANCE a path: a path it runs out on counts
// as ignored (more is left out, never less), so a scan's cost grows with its paths, never
// faster, whatever the file holds.
// A `.gitignore` that is a symbolic link is not followed (git 2.32+ warns and reads none): its
// rules apply nowhere, and whatever it points to (a file outside the folder, a FIFO) is not
// opened. Nor is anything but a regular file read.
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Whether ignore rules match without regard to case. git does so when `core.ignorecase` is
 * set, and `git init`/`git clone` set it when the file system does not tell case apart: the
 * default file systems of macOS (APFS, HFS+) and Windows (NTFS) do not, Linux's do. So: on
 * darwin and win32 `*.LOG` leaves out `a.log`, as git there does; elsewhere it does not.
 */
export const GITIGNORE_IGNORES_CASE = process.platform === 'darwin' || process.platform === 'win32';

/**
 * The most steps one `.gitignore` may take on one path (its lines together; ~75 ms at the
 * slowest), and what its budget holds at most. Usual lines take a handful of steps, at most
 * one per character of the path and the line; `*a*a…*b` against a long name took git itself
 * minutes.
 */
export const MATCH_BUDGET = 250_000;
/**
 * What each path asked about adds to a file's budget (~1.5 ms at the slowest): a usual file
 * spends a few hundred steps a path, so it never runs dry. Without it, a committed file of a
 * few hundred costly lines took ~75 ms on every file of the folder (minutes for 5,000 files):
 * now a path it runs out on is left out after its share.
 */
export const PATH_ALLOWANCE = 5_000;

/**
 * Runs of `*` one line may hold and still be matched. The memo keeps a line's cost within
 * about (its runs + 1) steps per character of the path; a line of more runs (400 took ~2 ms a
 * path) is not matched at all and leaves out every path below its `.gitignore`'s folder: more
 * is left out, never less, at once. Real `.gitignore` lines hold one or two
 * (`**\/build/**\/*.map`: three).
 */
export const MAX_GITIGNORE_STAR_RUNS = 10;

interface Pattern {
  /** The pattern's bytes, without `!`, a trailing `/` or (for a path pattern) a leading `/`. */
  body: Buffer;
  negative: boolean;
  /** Ends in `/`: matches folders only. */
  mustBeDir: boolean;
  /** No `/` inside: matched against the name alone, at any depth. */
  basenameOnly: boolean;
  /** More than MAX_GITIGNORE_STAR_RUNS runs of `*`: not matched, counts as matching every path (left out). */
  tooComplex: boolean;
  /** Its line in the file (1 for the first), for the reason a too complex one gives. */
  line: number;
}

/** The rules of one `.gitignore`, in file order. */
export interface GitignoreRules {
  readonly patterns: readonly Pattern[];
  readonly ignoreCase: boolean;
  /** The steps this file may still take (MATCH_BUDGET at most, PATH_ALLOWANCE more a path). */
  readonly budget: { left: number };
}

/** One `.gitignore`: its rules, for paths relative to its folder `base`. */
export interface IgnoreScope {
  base: string;
  rules: GitignoreRules;
}

/**
 * The rules of one `.gitignore` text, parsed as git reads them: a leading BOM skipped, lines
 * split at `\n` (a `\r` before it dropped), `#` lines and empty lines skipped, trailing spaces
 * dropped unless escaped with `\`, a leading `!` negates (`\!` is a literal `!`), a trailing
 * `/` means folders only. Every reader parses through here.
 */
export function parseGitignore(text: string, ignoreCase = GITIGNORE_IGNORES_CASE): GitignoreRules {
  const patterns: Pattern[] = [];
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (let from = start, number = 1; from < text.length; number++) {
    let end = text.indexOf('\n', from);
    if (end < 0) end = text.length;
    let line = text.slice(from, end);
    from = end + 1;
    if (line === '' || line[0] === '#') continue;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const pattern = parseLine(trimTrailingSpaces(line), number);
    if (pattern) patterns.push(pattern);
  }
  return { patterns, ignoreCase, budget: { left: MATCH_BUDGET } };
}

/** git's trim_trailing_spaces: spaces at the end go, unless the first is escaped by `\`. */
function trimTrailingSpaces(line: string): string {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ') {
      if (lastSpace < 0) lastSpace = i;
    } else if (c === '\\') {
      i++;
      if (i >= line.length) return line;
      lastSpace = -1;
    } else lastSpace = -1;
  }
  return lastSpace < 0 ? line : line.slice(0, lastSpace);
}

/** git's parse_path_pattern. */
function parseLine(line: string, number: number): Pattern | undefined {
  let p = line;
  const negative = p[0] === '!';
  if (negative) p = p.slice(1);
  const mustBeDir = p.endsWith('/');
  if (mustBeDir) p = p.slice(0, -1);
  const basenameOnly = !p.includes('/');
  if (!basenameOnly && p[0] === '/') p = p.slice(1);
  // An empty pattern (`!`, `/`, spaces) matches no name.
  if (p === '') return undefined;
  return { body: Buffer.from(p, 'utf8'), negative, mustBeDir, basenameOnly, tooComplex: starRuns(p) > MAX_GITIGNORE_STAR_RUNS, line: number };
}

/** The runs of `*` in a pattern (`**` is one run; an escaped `\*` is none). */
function starRuns(pattern: string): number {
  let runs = 0;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === '*') {
      runs++;
      while (pattern[i + 1] === '*') i++;
    }
  }
  return runs;
}

/**
 * What the last matching line of one `.gitignore` says about `rel` (relative to the file's
 * folder, `/`-separated): true ignored, false re-included (`!`), undefined no line matches.
 * The caller knows the path's parent folders are not excluded.
 */
export function ruleVerdict(rules: GitignoreRules, rel: string, isDir: boolean): boolean | undefined {
  const decided = decidingLine(rules, rel, isDir);
  return decided === NO_LINE ? undefined : decided === OUT_OF_BUDGET || rules.patterns[decided]!.tooComplex || !rules.patterns[decided]!.negative;
}

/** No line of the file matches the path. */
const NO_LINE = -1;
/** The file's budget ran out on the path: left out. */
const OUT_OF_BUDGET = -2;

/** Which line of one `.gitignore` decides `rel`: its index in `rules.patterns`, NO_LINE or OUT_OF_BUDGET. */
function decidingLine(rules: GitignoreRules, rel: string, isDir: boolean): number {
  if (rules.patterns.length === 0) return NO_LINE;
  const budget = rules.budget;
  budget.left = Math.min(MATCH_BUDGET, Math.max(0, budget.left) + PATH_ALLOWANCE);
  const before = budget.left;
  try {
    return lineWithin(rules, rel, isDir, budget);
  } finally {
    stepsTaken += before - Math.max(0, budget.left);
  }
}

let stepsTaken = 0;

/** The matcher's steps so far, all files together: for tests that bound its work (they count steps, not time). */
export function matcherSteps(): number {
  return stepsTaken;
}

function lineWithin(rules: GitignoreRules, rel: string, isDir: boolean, budget: { left: number }): number {
  const path = Buffer.from(rel, 'utf8');
  const slash = path.lastIndexOf(SLASH);
  const name = slash < 0 ? path : path.subarray(slash + 1);
  const fold = rules.ignoreCase ? FOLD : 0;
  for (let i = rules.patterns.length - 1; i >= 0; i--) {
    const pattern = rules.patterns[i]!;
    if (pattern.mustBeDir && !isDir) continue;
    if (pattern.tooComplex) return i; // left out, whatever its `!` says
    const result = pattern.basenameOnly ? wildmatch(pattern.body, name, fold, budget) : wildmatch(pattern.body, path, fold | PATHNAME, budget);
    if (budget.left < 0) return OUT_OF_BUDGET; // the file's budget ran out on this path: left out
    if (result === MATCH) return i;
  }
  return NO_LINE;
}

/**
 * The `.gitignore` line that left a path out, as `git check-ignore -v` names it: the file (its
 * scope) and the line's number in it, so a reason can send the user there. `tooComplex` when
 * git's answer could not be worked out and the path was left out to be safe: that line has
 * more than MAX_GITIGNORE_STAR_RUNS runs of `*`, or (no `line`) the file's lines together ran
 * out of their budget on the path. Only the number: the line's text is someone else's and is
 * not repeated.
 */
export interface IgnoringLine {
  scope: IgnoreScope;
  line?: number;
  tooComplex: boolean;
}

/**
 * The `.gitignore` that decided, `/`-separated from `root`, as `git check-ignore -v` names it
 * from the repository's root. Its folders' names are someone else's: escape it to show it.
 */
export function ignoringFileFrom(root: string, hit: IgnoringLine): string {
  return toPosix(relative(root, join(hit.scope.base, '.gitignore')));
}

/**
 * git's answer for `rel` (relative to `base`, whose parent folders down from the root are known
 * not to be excluded) under `scopes` (root first, each base at or above `base`): the deepest
 * file with a matching line decides; the line that left the path out, or 'kept'.
 */
export function scopesDecide(scopes: readonly IgnoreScope[], relFromScope: (scope: IgnoreScope, index: number) => string, isDir: boolean): 'kept' | IgnoringLine {
  for (let i = scopes.length - 1; i >= 0; i--) {
    const scope = scopes[i]!;
    const decided = decidingLine(scope.rules, relFromScope(scope, i), isDir);
    if (decided === NO_LINE) continue;
    if (decided === OUT_OF_BUDGET) return { scope, tooComplex: true };
    const pattern = scope.rules.patterns[decided]!;
    if (pattern.tooComplex) return { scope, line: pattern.line, tooComplex: true };
    return pattern.negative ? 'kept' : { scope, line: pattern.line, tooComplex: false };
  }
  return 'kept';
}

/**
 * Whether the `.gitignore` files from `root` down ignore `path` (inside the workspace folder
 * `root`), as git and the folder walk decide: each folder on the way is checked first, and an
 * excluded one excludes everything below it. `path` is a file unless `isDir`.
 */
export async function isGitignored(path: string, root: string, isDir = false): Promise<boolean> {
  return (await gitignoreLineFor(path, root, isDir)) !== undefined;
}

/** isGitignored's answer naming the line that decided (for a path in an excluded folder, the folder's line, as git names it); undefined when kept. */
export function gitignoreLineFor(path: string, root: string, isDir = false): Promise<IgnoringLine | undefined> {
  return ignoredBelow(resolve(root), resolve(path), isDir, async (dir) => (await gitignoreAt(dir))[0]?.rules);
}

/** The `.gitignore` of `dir`, if it has one that can be read. */
export async function gitignoreAt(dir: string): Promise<IgnoreScope[]> {
  const text = await readGitignore(dir);
  return text === undefined ? [] : [{ base: dir, rules: parseGitignore(text) }];
}

/** Linux and macOS open without following a link at the last step; Windows has no such flag (0): there an lstat decides first. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
/** A FIFO opened for reading waits for a writer (the walk held forever, a thread-pool thread with it): not with this flag. */
const NO_WAIT = constants.O_NONBLOCK ?? 0;

/**
 * The text of `dir`'s `.gitignore`, undefined when it has none git would read: none there, a
 * symbolic link (not followed, as git 2.32+; opened with O_NOFOLLOW, so a link put there after
 * a check is not followed either), not a regular file (a FIFO, a folder), or unreadable. The
 * one place a `.gitignore` is opened.
 */
async function readGitignore(dir: string): Promise<string | undefined> {
  const path = join(dir, '.gitignore');
  try {
    if (!NO_FOLLOW && (await lstat(path)).isSymbolicLink()) return undefined;
    const handle = await open(path, constants.O_RDONLY | NO_FOLLOW | NO_WAIT);
    try {
      if (!(await handle.stat()).isFile()) return undefined;
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined; // none, a link (ELOOP), unreadable: no rules, as git
  }
}

/**
 * `.gitignore` files from the workspace folder down to (excluding) the selected folder, and
 * whether the selected folder is excluded by them (itself or a folder above it): then nothing
 * in it is taken, as git does not look inside it.
 */
export async function ancestorGitignores(root: string, folder: string): Promise<{ scopes: IgnoreScope[]; excludedBy?: IgnoringLine }> {
  const scopes: IgnoreScope[] = [];
  const dirs = foldersDownTo(root, folder);
  for (let i = 0; i < dirs.length; i++) {
    scopes.push(...(await gitignoreAt(dirs[i]!)));
    const next = i + 1 < dirs.length ? dirs[i + 1]! : folder;
    const decided = scopesDecide(scopes, (scope) => toPosix(relative(scope.base, next)), true);
    if (decided !== 'kept') return { scopes, excludedBy: decided };
  }
  return { scopes };
}

/** The folders from `root` down to the folder holding `path` (both absolute and resolved); empty when `path` is not below `root`. */
function foldersDownTo(root: string, path: string): string[] {
  const chain: string[] = [];
  for (let dir = dirname(path); dir.length >= root.length && (dir === root || dir.startsWith(root + sep)); dir = dirname(dir)) {
    chain.unshift(dir);
    if (dir === root) break;
  }
  return chain;
}

/**
 * git's walk for one path: from `root` down, each folder on the way is checked against the
 * `.gitignore` files above it (read through `rulesIn`); an excluded one ends it (ignored, its
 * own `.gitignore` unread), else the path itself is checked against them all.
 */
async function ignoredBelow(root: string, path: string, isDir: boolean, rulesIn: (dir: string) => Promise<GitignoreRules | undefined>): Promise<IgnoringLine | undefined> {
  const dirs = foldersDownTo(root, path);
  const scopes: IgnoreScope[] = [];
  for (let i = 0; i < dirs.length; i++) {
    const rules = await rulesIn(dirs[i]!);
    if (rules) scopes.push({ base: dirs[i]!, rules });
    const next = i + 1 < dirs.length ? dirs[i + 1]! : path;
    const nextIsDir = i + 1 < dirs.length || isDir;
    const decided = scopes.length ? scopesDecide(scopes, (scope) => toPosix(relative(scope.base, next)), nextIsDir) : 'kept';
    if (decided !== 'kept') return decided;
  }
  return undefined;
}

/**
 * `.gitignore` rules read again for every question, for a caller asked about many paths in a
 * burst (watch mode's events). Each folder's file is read once at a time: questions arriving
 * meanwhile share that read (a storm of events, a generated folder of 20,000 files, opened
 * the same `.gitignore` once per event and level: out of file descriptors, the rules read as
 * absent let ignored files through, ~400 MB). A read that starts after an edit sees it, so an
 * edited `.gitignore` applies at once; a text already parsed is not parsed again.
 */
export class GitignoreCache {
  private readonly reading = new Map<string, Promise<GitignoreRules | undefined>>();
  /** Each folder's rules as last parsed, reused while its text is the same. */
  private readonly parsed = new Map<string, { text: string; rules: GitignoreRules }>();

  /** `ignoreCase`: GITIGNORE_IGNORES_CASE unless a test asks for the other platforms' rule. */
  constructor(private readonly ignoreCase = GITIGNORE_IGNORES_CASE) {}

  /** The rules of `dir`'s `.gitignore`, undefined when it has none that can be read. */
  rulesIn(dir: string): Promise<GitignoreRules | undefined> {
    let read = this.reading.get(dir);
    if (!read) {
      read = readGitignore(dir)
        .then((text) => {
          if (text === undefined) {
            this.parsed.delete(dir);
            return undefined;
          }
          const known = this.parsed.get(dir);
          if (known?.text === text) return known.rules;
          const fresh = { text, rules: parseGitignore(text, this.ignoreCase) };
          this.parsed.set(dir, fresh);
          return fresh.rules;
        })
        .finally(() => this.reading.delete(dir));
      this.reading.set(dir, read);
    }
    return read;
  }

  /**
   * Whether the `.gitignore` files from `root` down ignore `path` (both absolute and
   * resolved; a folder when `isDir`), the same answer as `isGitignored`: read from the root
   * down, an excluded folder on the way ends the check without reading below it.
   */
  async ignores(path: string, root: string, isDir = false): Promise<boolean> {
    return (await ignoredBelow(root, path, isDir, (dir) => this.rulesIn(dir))) !== undefined;
  }
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

// ---------------------------------------------------------------------------------------
// git's wildmatch (wildmatch.c), on UTF-8 bytes as git reads names: `?` and `*` stop at `/`
// when matching a path, `**` between slashes crosses folders, `[…]` with `!`/`^`, ranges and
// `[:class:]`, `\` escapes. Each (pattern, text) position pair is worked out once (memo), so
// a pattern of many `*` cannot make it backtrack without bound; `budget` counts the steps.

const MATCH = 0;
const NOMATCH = 1;
const ABORT_ALL = -1;
const ABORT_TO_STARSTAR = -2;
const FOLD = 1;
const PATHNAME = 2;
const SLASH = 0x2f;
const BACKSLASH = 0x5c;

interface Match {
  pattern: Buffer;
  text: Buffer;
  flags: number;
  budget: { left: number };
  /** Results by (pattern position, text position), made at the first `*`. */
  memo: Map<number, number> | undefined;
  /** starFrom's answers by (pattern position, text position). */
  loops: Map<number, number> | undefined;
}

function wildmatch(pattern: Buffer, text: Buffer, flags: number, budget: { left: number }): number {
  return dowild({ pattern, text, flags, budget, memo: undefined, loops: undefined }, 0, 0);
}

function lower(c: number, flags: number): number {
  return flags & FOLD && c >= 0x41 && c <= 0x5a ? c + 32 : c;
}

function isGlobSpecial(c: number | undefined): boolean {
  return c === 0x2a || c === 0x3f || c === 0x5b || c === BACKSLASH;
}

/** dowild(p, t), worked out once. */
function at(m: Match, p: number, t: number): number {
  const memo = (m.memo ??= new Map());
  const key = p * (m.text.length + 1) + t;
  const known = memo.get(key);
  if (known !== undefined) return known;
  const result = dowild(m, p, t);
  memo.set(key, result);
  return result;
}

/**
 * A `*` (or `**` when `matchSlash`) followed by the pattern from `p`, tried at text `t`, then
 * further on. What it answers from a text position depends on that position alone, so every
 * position it passes is given the answer: later tries from there cost one lookup.
 */
function starFrom(m: Match, p: number, t: number, matchSlash: boolean): number {
  const { pattern, text, flags, budget } = m;
  const loops = (m.loops ??= new Map());
  const width = text.length + 1;
  const passed: number[] = [];
  let result = ABORT_ALL;
  for (;;) {
    const known = loops.get(p * width + t);
    if (known !== undefined) {
      result = known;
      break;
    }
    passed.push(t);
    if (t >= text.length) break;
    let tCh = lower(text[t]!, flags);
    if (!isGlobSpecial(pattern[p])) {
      // The text up to the next character the pattern names belongs to the `*`.
      const want = lower(pattern[p]!, flags);
      for (; t < text.length; t++) {
        if (--budget.left < 0) return ABORT_ALL;
        tCh = lower(text[t]!, flags);
        if (tCh === want || (!matchSlash && tCh === SLASH)) break;
      }
      if (t >= text.length || tCh !== want) {
        result = NOMATCH;
        break;
      }
    }
    const matched = at(m, p, t);
    if (matched !== NOMATCH) {
      if (!matchSlash || matched !== ABORT_TO_STARSTAR) {
        result = matched;
        break;
      }
    } else if (!matchSlash && tCh === SLASH) {
      result = ABORT_TO_STARSTAR;
      break;
    }
    t++;
  }
  for (const from of passed) loops.set(p * width + from, result);
  return result;
}

function dowild(m: Match, p: number, t: number): number {
  const { pattern, text, flags, budget } = m;
  for (; p < pattern.length; t++, p++) {
    if (--budget.left < 0) return ABORT_ALL;
    let pCh = pattern[p]!;
    let tCh = t < text.length ? text[t]! : -1;
    if (tCh < 0 && pCh !== 0x2a) return ABORT_ALL;
    tCh = lower(tCh, flags);
    pCh = lower(pCh, flags);
    switch (pCh) {
      case BACKSLASH:
        // A literal match with the next character, as written (none: no match).
        p++;
        if (p >= pattern.length || tCh !== pattern[p]) return NOMATCH;
        continue;
      case 0x3f: // ?
        if (flags & PATHNAME && tCh === SLASH) return NOMATCH;
        continue;
      case 0x2a: {
        // *
        let matchSlash: boolean;
        if (pattern[++p] === 0x2a) {
          const prevP = p - 2;
          while (pattern[++p] === 0x2a) {
            /* one run of stars */
          }
          if (!(flags & PATHNAME)) matchSlash = true;
          else if ((prevP < 0 || pattern[prevP] === SLASH) && (p >= pattern.length || pattern[p] === SLASH || (pattern[p] === BACKSLASH && pattern[p + 1] === SLASH))) {
            // `**/` may match no folder at all: `a/**/b` matches `a/b`.
            if (pattern[p] === SLASH && at(m, p + 1, t) === MATCH) return MATCH;
            matchSlash = true;
          } else matchSlash = false;
        } else matchSlash = !(flags & PATHNAME);
        if (p >= pattern.length) {
          // A trailing `**` matches everything, a trailing `*` what has no more slashes.
          if (!matchSlash && text.indexOf(SLASH, t) >= 0) return NOMATCH;
          return MATCH;
        }
        if (!matchSlash && pattern[p] === SLASH) {
          // One `*` then a slash: the rest of this name; the loop steps over both slashes.
          const slash = text.indexOf(SLASH, t);
          if (slash < 0) return NOMATCH;
          t = slash;
          continue;
        }
        return starFrom(m, p, t, matchSlash);
      }
      case 0x5b: {
        // [
        pCh = pattern[++p] ?? -1;
        if (pCh === 0x5e) pCh = 0x21; // ^ as !
        const negated = pCh === 0x21;
        if (negated) pCh = pattern[++p] ?? -1;
        let prevCh = 0;
        let matched = false;
        do {
          if (pCh < 0) return ABORT_ALL;
          if (pCh === BACKSLASH) {
            pCh = pattern[++p] ?? -1;
            if (pCh < 0) return ABORT_ALL;
            if (tCh === pCh) matched = true;
          } else if (pCh === 0x2d && prevCh && p + 1 < pattern.length && pattern[p + 1] !== 0x5d) {
            pCh = pattern[++p]!;
            if (pCh === BACKSLASH) {
              pCh = pattern[++p] ?? -1;
              if (pCh < 0) return ABORT_ALL;
            }
            if (tCh <= pCh && tCh >= prevCh) matched = true;
            else if (flags & FOLD && tCh >= 0x61 && tCh <= 0x7a && tCh - 32 <= pCh && tCh - 32 >= prevCh) matched = true;
            pCh = 0; // a range is not the start of another
          } else if (pCh === 0x5b && pattern[p + 1] === 0x3a) {
            const s = (p += 2);
            while (p < pattern.length && pattern[p] !== 0x5d) p++;
            if (p >= pattern.length) return ABORT_ALL;
            const len = p - s - 1;
            if (len < 0 || pattern[p - 1] !== 0x3a) {
              // No ":]": a plain `[` in the set.
              p = s - 2;
              pCh = 0x5b;
              if (tCh === pCh) matched = true;
              continue;
            }
            const cls = classTest(pattern.toString('latin1', s, s + len));
            if (!cls) return ABORT_ALL; // a malformed [:class:]
            if (cls(tCh) || (flags & FOLD && cls === CLASSES.upper && tCh >= 0x61 && tCh <= 0x7a)) matched = true;
            pCh = 0;
          } else if (tCh === pCh) matched = true;
        } while (((prevCh = pCh), (pCh = pattern[++p] ?? -1) !== 0x5d));
        if (matched === negated || (flags & PATHNAME && tCh === SLASH)) return NOMATCH;
        continue;
      }
      default:
        if (tCh !== pCh) return NOMATCH;
        continue;
    }
  }
  return t < text.length ? NOMATCH : MATCH;
}

const between = (c: number, from: number, to: number) => c >= from && c <= to;
const CLASSES = {
  alnum: (c: number) => between(c, 0x30, 0x39) || between(c, 0x41, 0x5a) || between(c, 0x61, 0x7a),
  alpha: (c: number) => between(c, 0x41, 0x5a) || between(c, 0x61, 0x7a),
  blank: (c: number) => c === 0x20 || c === 0x09,
  cntrl: (c: number) => between(c, 0, 0x1f) || c === 0x7f,
  digit: (c: number) => between(c, 0x30, 0x39),
  graph: (c: number) => between(c, 0x21, 0x7e),
  lower: (c: number) => between(c, 0x61, 0x7a),
  print: (c: number) => between(c, 0x20, 0x7e),
  punct: (c: number) => between(c, 0x21, 0x2f) || between(c, 0x3a, 0x40) || between(c, 0x5b, 0x60) || between(c, 0x7b, 0x7e),
  space: (c: number) => c === 0x20 || between(c, 0x09, 0x0d),
  upper: (c: number) => between(c, 0x41, 0x5a),
  xdigit: (c: number) => between(c, 0x30, 0x39) || between(c, 0x41, 0x46) || between(c, 0x61, 0x66),
};

function classTest(name: string): ((c: number) => boolean) | undefined {
  return Object.hasOwn(CLASSES, name) ? CLASSES[name as keyof typeof CLASSES] : undefined;
}
