// Reading `.gitignore` files as git applies them: each folder's rules for the paths below it,
// from the workspace folder down. One reader of ignore rules for uploads and folder sync (the
// walk in folderExpansion.ts) and the private-file rules (privateFiles.ts), which both import
// it. No `vscode` import.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** One `.gitignore`: its rules, for paths relative to its folder `base`. */
export interface IgnoreScope {
  base: string;
  rules: Ignore;
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
  return text === undefined ? [] : [{ base: dir, rules: ignore().add(text) }];
}

/** `.gitignore` files from the workspace folder down to (excluding) the selected folder. */
export async function ancestorGitignores(root: string, folder: string): Promise<IgnoreScope[]> {
  const chain: string[] = [];
  for (let dir = dirname(folder); dir.length >= root.length && (dir === root || dir.startsWith(root + sep)); dir = dirname(dir)) {
    chain.unshift(dir);
    if (dir === root) break;
  }
  return (await Promise.all(chain.map(gitignoreAt))).flat();
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
