// The local side of a sync: every file under the folder that the upload rules allow
// (.gitignore applied and never synced itself, exclude globs, size limit, readable-files rule,
// symlinks skipped: the same code as uploads, src/common/core/folderExpansion.ts), keyed by its path relative to the folder, with size and
// mtime for the hash skip. No `vscode` import.
import * as l10n from '@vscode/l10n';
import { lstat } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { KsmError } from '../../api/errors';
import { expandSelection, isSyncStateName, volumeNameFor, type KnownReadable, type SelectedFile, type SkippedFile } from '../../common/core/folderExpansion';

/** A manifest (any pairing's, or the single-pairing one), its journal and its lock, at the folder's top or in a subfolder synced on its own: never synced, never a reason to sync. */
export function isManifestPath(rel: string): boolean {
  return isSyncStateName(rel.slice(rel.lastIndexOf('/') + 1));
}

/** What VS Code's `files.exclude` hides by default; the CLI applies these too, so both sides see the same files. */
export const DEFAULT_EXCLUDES = ['**/.git', '**/.svn', '**/.hg', '**/CVS', '**/.DS_Store', '**/Thumbs.db'];

export interface ScanRules {
  /** Globs relative to `root` (a workspace folder in VS Code, the synced folder on the command line). */
  excludeGlobs: string[];
  /** Only files matching one of these (relative to `root`) are synced (`ksm sync --include`). */
  includeGlobs?: string[];
  /** 0 = no limit. */
  maxFileSizeBytes: number;
  /** How a size skip names the limit (`ExpansionOptions.sizeLimitName`). */
  sizeLimitName?: string;
  /** Where globs and `.gitignore` files are anchored; defaults to the synced folder. */
  root?: string;
  /**
   * Not a rule: keep the bytes of small files the sniff read whole (`LocalFile.content`), for
   * a caller that sends right after planning (the CLI). The editor's preview may stay open
   * while files are edited: it reads them again when it applies.
   */
  keepSmallContent?: boolean;
  /**
   * Not a rule: the folder the caller checked (its real path's device and inode, e.g. with
   * `folderIdentity`). The scan refuses (FolderReplacedError) a folder that is not that very
   * directory when the walk starts or when it ends: a link put in its place after the check
   * (a few milliseconds in the editor, between the check under the lock and the scan) was
   * followed, and the files where it points were read and sent. (With `onFiles`, the files
   * told during the walk were told already: the end check only stops the run there.)
   * `'not-found'`: the caller's check found no directory it could identify there, so the
   * scan refuses whatever is there now.
   */
  expectFolder?: FolderIdentity | 'not-found';
}

export interface FolderIdentity {
  dev: number;
  ino: number;
}

/** The synced folder is not the directory its caller checked (swapped for a link or another folder): nothing of it was used. */
export class FolderReplacedError extends KsmError {
  readonly kind = 'config' as const;
}

/** The device and inode of the directory at `path` itself (a link there is not followed: it has its own). */
export async function folderIdentity(path: string): Promise<FolderIdentity> {
  const info = await lstat(path);
  return { dev: info.dev, ino: info.ino };
}

/** Throws FolderReplacedError unless `path` is, without following a link at it, the directory `expected` (never when the check found none). */
async function checkFolder(path: string, expected: FolderIdentity | 'not-found'): Promise<void> {
  const info = expected === 'not-found' ? undefined : await lstat(path).catch(() => undefined);
  if (expected !== 'not-found' && info?.isDirectory() && info.dev === expected.dev && info.ino === expected.ino) return;
  throw new FolderReplacedError(l10n.t('The folder {0} is no longer the folder that was checked (a symbolic link or another folder was put in its place): nothing of it was synced.', path));
}

/** What the last sync recorded per relative path, so unchanged files skip the readable-files sniff. */
export interface KnownFiles {
  get(rel: string): { size: number; mtimeMs: number } | undefined;
}

export interface LocalFile {
  /** Relative to the synced folder, `/`-separated. */
  rel: string;
  path: string;
  size: number;
  mtimeMs: number;
  /** Known from the scan's own read of a small file (no second read to hash it). */
  sha256?: string;
  /** The bytes that read (and hashed, as `sha256`): the upload sends these instead of reading the file again. */
  content?: Buffer;
  /** The file the scan found (device and inode): the upload reads this file or nothing (`UploadSource.identity`). */
  identity?: { dev: number; ino: number };
}

export interface Scan {
  files: LocalFile[];
  skipped: SkippedFile[];
}

/**
 * `known` may be a promise: the folder is walked and stat'ed meanwhile, and the files checked once it is settled.
 * `onFiles` is told the files found, a folder at a time, in walk order (a first sync uploads them meanwhile); `files` then stays empty.
 */
export async function scanFolder(folder: string, rules: ScanRules, signal?: AbortSignal, known?: KnownFiles | Promise<KnownFiles | undefined>, onFiles?: (files: LocalFile[]) => void): Promise<Scan> {
  const base = resolve(folder);
  if (rules.expectFolder) await checkFolder(base, rules.expectFolder);
  const local = (file: SelectedFile): LocalFile => {
    const rel = file.rel ?? toPosix(relative(base, file.path));
    return { rel, path: file.path, size: file.size, mtimeMs: file.mtimeMs ?? 0, sha256: file.sha256, content: file.sha256 ? file.content : undefined, identity: file.identity };
  };
  const expansion = await expandSelection([base], {
    excludeGlobs: rules.excludeGlobs,
    includeGlobs: rules.includeGlobs,
    maxFileSizeBytes: rules.maxFileSizeBytes,
    sizeLimitName: rules.sizeLimitName,
    // No root (the command line): the folder is its own, exactly as for `ksm upload` of it.
    workspaceRoots: rules.root ? [resolve(rules.root)] : [],
    signal,
    hashSmallFiles: true,
    keepContent: rules.keepSmallContent === true,
    volumeNames: false, // remoteNameFor names the files a sync sends
    knownReadable: known instanceof Promise ? known.then(readableFrom) : readableFrom(known),
    onFiles: onFiles && ((found) => onFiles(found.map(local))),
  });
  // Once more at the end: the folder swapped during the walk (a subfolder then read through the link) leaves nothing used.
  if (rules.expectFolder) await checkFolder(base, rules.expectFolder);
  return { files: expansion.files.map(local), skipped: expansion.skipped };
}

function readableFrom(known: KnownFiles | undefined): KnownReadable | undefined {
  return known
    ? (_path, size, mtimeMs, rel) => {
        const entry = known.get(rel);
        return entry !== undefined && entry.size === size && entry.mtimeMs === mtimeMs;
      }
    : undefined;
}

/**
 * Whether a path (relative to the folder, `/`-separated) is one the scan found but could not
 * read, or lies in a folder it could not read (`SkippedFile.unread`): what a sync recorded for
 * it is kept, neither deleted nor forgotten. Undefined when the scan read everything.
 */
export function unreadMatcher(folder: string, skipped: readonly SkippedFile[]): ((rel: string) => boolean) | undefined {
  const base = resolve(folder);
  const unread = skipped.filter((s) => s.unread).map((s) => toPosix(relative(base, s.path)));
  if (!unread.length) return undefined;
  const exact = new Set(unread);
  return (rel) => exact.has(rel) || unread.some((folderRel) => rel.startsWith(`${folderRel}/`));
}

/**
 * The service strips directories from names (D7), so a nested file is stored under its
 * relative path with `/` turned into `__` (`docs/guide.md` → `docs__guide.md`): the same
 * rule as a folder upload (D24, `volumeNameFor`).
 */
export function remoteNameFor(rel: string): string {
  return volumeNameFor(rel);
}

export function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
