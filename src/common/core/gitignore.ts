// Reading `.gitignore` files as git applies them: each folder's rules for the paths below it,
// from the workspace folder down. The one reader and parser of ignore rules: uploads and folder
// sync (the walk in folderExpansion.ts), the private-file rules (privateFiles.ts) and watch
// mode's event filter (sync/core/watchBatcher.ts, through `GitignoreCache`) all import it, so
// a rule means the same in each. No `vscode` import.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** One `.gitignore`: its rules, for paths relative to its folder `base`. */
export interface IgnoreScope {
  base: string;
  rules: Ignore;
}

/**
 * The rules of one `.gitignore` text, parsed as git reads them (comments, negation, directory
 * and anchored patterns, CRLF line ends, a leading BOM, trailing spaces). Every reader parses
 * through here.
 */
export function parseGitignore(text: string): Ignore {
  return ignore().add(text);
}

/**
 * Whether the `.gitignore` files from `root` down to the file's own folder ignore `path` (a
 * file inside the workspace folder `root`), as the folder walk applies them.
 */
export async function isGitignored(path: string, root: string): Promise<boolean> {
  const scopes = await ancestorGitignores(resolve(root), resolve(path));
  return scopes.some((scope) => scope.rules.ignores(toPosix(relative(scope.base, path))));
}

/** The `.gitignore` of `dir`, if it has one that can be read. */
export async function gitignoreAt(dir: string): Promise<IgnoreScope[]> {
  const text = await readFile(join(dir, '.gitignore'), 'utf8').catch(() => undefined);
  return text === undefined ? [] : [{ base: dir, rules: parseGitignore(text) }];
}

/** `.gitignore` files from the workspace folder down to (excluding) the selected folder. */
export async function ancestorGitignores(root: string, folder: string): Promise<IgnoreScope[]> {
  return (await Promise.all(foldersDownTo(root, folder).map(gitignoreAt))).flat();
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
 * `.gitignore` rules read again for every question, for a caller asked about many paths in a
 * burst (watch mode's events). Each folder's file is read once at a time: questions arriving
 * meanwhile share that read (a storm of events, a generated folder of 20,000 files, opened
 * the same `.gitignore` once per event and level: out of file descriptors, the rules read as
 * absent let ignored files through, ~400 MB). A read that starts after an edit sees it, so an
 * edited `.gitignore` applies at once; a text already parsed is not parsed again.
 */
export class GitignoreCache {
  private readonly reading = new Map<string, Promise<Ignore | undefined>>();
  /** Each folder's rules as last parsed, reused while its text is the same. */
  private readonly parsed = new Map<string, { text: string; rules: Ignore }>();

  /** The rules of `dir`'s `.gitignore`, undefined when it has none that can be read. */
  rulesIn(dir: string): Promise<Ignore | undefined> {
    let read = this.reading.get(dir);
    if (!read) {
      read = readFile(join(dir, '.gitignore'), 'utf8')
        .then(
          (text) => {
            const known = this.parsed.get(dir);
            if (known?.text === text) return known.rules;
            const fresh = { text, rules: parseGitignore(text) };
            this.parsed.set(dir, fresh);
            return fresh.rules;
          },
          () => {
            this.parsed.delete(dir);
            return undefined;
          },
        )
        .finally(() => this.reading.delete(dir));
      this.reading.set(dir, read);
    }
    return read;
  }

  /**
   * Whether the `.gitignore` files from `root` down to the file's own folder ignore `path`
   * (both absolute and resolved), the same answer as `isGitignored`. Read from the root down:
   * the first file that ignores the path ends the check.
   */
  async ignores(path: string, root: string): Promise<boolean> {
    for (const dir of foldersDownTo(root, path)) if ((await this.rulesIn(dir))?.ignores(toPosix(relative(dir, path)))) return true;
    return false;
  }
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
