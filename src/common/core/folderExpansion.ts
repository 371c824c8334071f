// What a folder contributes, one definition for uploads (editor and `ksm upload`) and folder
// sync (editor and `ksm sync`): the files under it, each with a reason when skipped:
// `.gitignore` (as git applies them, nested files and `!` included: gitignore.ts), exclude and include globs
// (`files.exclude` + `ksm.upload.exclude`, via picomatch), credentials and private folders
// (`.env*`, keys, `.git/`: privateFiles.ts, whatever the excludes say), the
// size limit, and files no filter can read. A file reached twice (selected and inside a selected
// folder) is listed once. Each file also gets the name it is stored under in a volume
// (`volumeName`, D24): a folder's files keep their path below the selected folder, with
// `/` spelled `__` (the service strips directories, D7), exactly as folder sync names them.
// `.gitignore` files met inside a folder are applied, never uploaded (a `.gitignore` picked
// by name is); `ksm sync`'s manifest, journal and lock are left out the same way. Symbolic links are never followed: each is listed as skipped with the reason.
// No `vscode` import.
import * as l10n from '@vscode/l10n';
import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { lstat, realpath, stat } from 'node:fs/promises';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { hash } from 'node:crypto';
import { sniffFile, sniffFileSync } from './readableFiles';
import { credentialNameReason, privateFolderNameReason } from './privateFiles';
import { withoutTrailingSlashes } from '../../api/baseUrl';
import { formatBytes } from '../../common/core/byteSize';
import { checkExcludeGlobs } from './globCost';
import { ancestorGitignores, gitignoreAt, ignoringFileFrom, MAX_GITIGNORE_STAR_RUNS, scopesDecide, type IgnoreScope, type IgnoringLine } from './gitignore';
import { shown } from './untrustedText';

export interface ExpansionOptions {
  /**
   * Globs relative to the root of each selected folder (`workspaceRoots`): the workspace folder
   * holding it, else the selected folder itself. They pick among a folder's files only: a file
   * selected by name is taken whatever they say.
   */
  excludeGlobs: string[];
  /** 0 = no limit. */
  maxFileSizeBytes: number;
  /** What a size skip names as the limit's control: the setting (default), or `ksm`'s `--max-file-size-mb`. */
  sizeLimitName?: string;
  /** When set, a file met inside a selected folder is taken only if its path (relative to the folder's root, as `excludeGlobs`) matches one of these globs. */
  includeGlobs?: string[];
  /**
   * Workspace folders (the editor's): a selected folder inside one has it as its root, so the
   * globs are read as VS Code reads `files.exclude`, and the `.gitignore` files from it down to
   * the selection apply, as in git. A folder outside them all is its own root: its globs and
   * `.gitignore` files are relative to it, as folder sync reads the folder it syncs. The
   * command line passes none, so `ksm upload <volume> <folder>` and `ksm sync <folder>` read
   * the same globs the same way whatever the current folder is.
   */
  workspaceRoots: string[];
  /** Honour `.gitignore` files (default true). */
  useGitignore?: boolean;
  signal?: AbortSignal;
  /**
   * True when the caller already knows this file (same size and mtime) passed the
   * readable-files rule, so its head is not read again (folder sync: thousands of unchanged files).
   * `rel` is the file's path below the selected folder, `/`-separated (its name when picked by name).
   * May be given as a promise (folder sync: the folder is walked and stat'ed while the manifest
   * is still being read); it is awaited before the first file's checks.
   */
  knownReadable?: KnownReadable | Promise<KnownReadable | undefined>;
  /** Give `sha256` for files the readable-files sniff read whole (folder sync: no second read). */
  hashSmallFiles?: boolean;
  /** Work out each file's `volumeName` (default true; folder sync names only the files it sends). */
  volumeNames?: boolean;
  /**
   * Keep the bytes of files the readable-files sniff read whole as `content` (up to
   * KEPT_CONTENT_BYTES in all), so an upload sends them without reading each file again.
   */
  keepContent?: boolean;
  /**
   * Told the files taken, a folder at a time, in walk order (a first sync uploads them
   * meanwhile); they are then not kept in the result's `files`, which stays empty.
   */
  onFiles?: (files: SelectedFile[]) => void;
  /**
   * A path given that is itself a symbolic link is skipped, not followed (`ksm upload`: a shell
   * glob over a shared folder, `shared/*.md`, must not send where someone else's link points,
   * a key in the user's home). Unset, a named link is followed as the user picked it.
   */
  skipNamedLinks?: boolean;
}

/** At most this many bytes of sniffed small files are kept for the upload (the rest are read again at their batch). */
export const KEPT_CONTENT_BYTES = 64 * 1024 * 1024;

export interface SelectedFile {
  path: string;
  size: number;
  /** Modification time as seen when the selection was expanded (for callers that compare it). */
  mtimeMs?: number;
  /** Path shown to people: relative to the workspace folder or the selection. */
  displayPath: string;
  /**
   * The name the file is stored under (D24): its path below the selected folder with `/`
   * as `__` (`guides/setup.md` → `guides__setup.md`), or its own name when it was picked by
   * name. Left out by callers that build a plan by hand: the base name then.
   */
  volumeName?: string;
  /** The content hash, when `hashSmallFiles` was asked and the sniff read the file whole. */
  sha256?: string;
  /** Its path below the selected folder, `/`-separated (its name when picked by name). */
  rel?: string;
  /** The whole file as the sniff read it (`keepContent`); `sha256` is its hash when both are given. */
  content?: Buffer;
  /**
   * The file found (device and inode): its sniff and its upload (`UploadSource.identity`) read
   * this file or nothing, so a path replaced meanwhile (by a symbolic link to a key outside the
   * folder, a `git checkout` while a preview is open) is never read through.
   */
  identity?: { dev: number; ino: number };
}

export type KnownReadable = (path: string, size: number, mtimeMs: number, rel: string) => boolean;

export interface SkippedFile {
  path: string;
  reason: string;
  /**
   * The file or folder is there but could not be read (no permission, an I/O error): folder
   * sync keeps what it recorded for it (its copy is neither deleted nor forgotten), as it does
   * for files it did read. Unset for every rule's skip (the file is then no longer synced).
   */
  unread?: boolean;
  /**
   * Left out by the folder's own rules: an exclude or include pattern (the defaults' `.git`
   * among them), a `.gitignore` line, or the ignore file itself. Its owner chose that, so a
   * run's report counts these apart and names them only where asked (a dry run, Show
   * Details, `--json`): a repository's `.git` and `.gitignore` made every sync say
   * "2 skipped". Unset for what the folder holds but cannot contribute (a link, a credential,
   * a binary or too large file, one that cannot be read): those are always named.
   */
  excluded?: true;
}

export interface Expansion {
  files: SelectedFile[];
  skipped: SkippedFile[];
}

const SNIFF = '\0sniff';
/** A sniff's reason for a file removed between its stat and its read: left out, as one removed before the stat. */
const GONE = '\0gone';

/**
 * `ksm sync`'s manifest of a folder as it was before each pairing had its own: one file for
 * whichever volume synced last. Still read (and moved to its pairing's file) by
 * src/sync/core/folderManifest.ts; never written.
 */
export const SYNC_MANIFEST_NAME = '.ksm-sync.json';

/** The most characters of a volume's name kept (readable) in its sync files' names. */
const SYNC_NAME_VOLUME_CHARS = 32;

/**
 * The name of the manifest `ksm sync` keeps in the folder for one (service, volume) pairing:
 * `.ksm-sync.<volume, readable>.<key>.json`. The volume's name is hostile input (and the
 * service's address too): the readable part is lower case letters, digits, `_` and `-` only
 * (anything else, `.` and separators included, becomes `-`; at most 32 characters), so no
 * name holds a separator or `..` or grows unbounded; the key is the first 16 hex digits of
 * the sha256 of the service's address and the EXACT volume name, so `Prod` and `prod`
 * (one name on a case-insensitive file system otherwise) and two services differ by their
 * key. Its journal and lock are this name plus `.journal` and `.lock`.
 */
export function syncManifestName(service: string, volume: string): string {
  const readable =
    volume
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      // `(?<!-)` starts a final run's match at its first dash: `-+$` re-read a run from each of them.
      .replace(/^-+|(?<!-)-+$/g, '')
      .slice(0, SYNC_NAME_VOLUME_CHARS)
      .replace(/(?<!-)-+$/, '') || 'volume';
  const key = hash('sha256', `${syncServiceKey(service)}\n${volume}`, 'hex').slice(0, 16);
  return `.ksm-sync.${readable}.${key}.json`;
}

/** One spelling per service address in sync records' names: `https://KSM.example.com/` and `https://ksm.example.com` are one service. */
export function syncServiceKey(service: string): string {
  try {
    const url = new URL(service.trim());
    return `${url.origin}${withoutTrailingSlashes(url.pathname)}`;
  } catch {
    return service.trim();
  }
}

/** A pairing's manifest (`syncManifestName`) or the single-pairing one, alone or followed by `.` and anything (its journal, its lock, a temp file of its atomic write). */
export const SYNC_STATE_NAME = new RegExp(`^\\.ksm-sync(?:\\.[a-z0-9_-]{1,${SYNC_NAME_VOLUME_CHARS}}\\.[0-9a-f]{16})?\\.json(?:\\..*)?$`, 's');

/**
 * The manifests, their journals and their locks (`.ksm-sync.json`, `.ksm-sync.<volume>.<key>.json`,
 * each with `.journal` and `.lock/` beside it, and the temp file of an atomic write):
 * sync state (paths, file ids, the service's address), never a document. Left out of every
 * folder (an upload of a synced folder sent them into the volume, searchable), though a
 * file picked by name still goes.
 */
export function isSyncStateName(name: string): boolean {
  return SYNC_STATE_NAME.test(name);
}

const ON_WINDOWS = process.platform === 'win32';

/**
 * Whether a relative path matches any of `globs`, as `picomatch(globs, { dot: true })` says,
 * with their expressions joined into one: picomatch's own matcher runs each glob's in turn
 * through its bookkeeping, ~28 ms for the six default excludes over 5,000 paths against ~5.
 * As picomatch: an empty path matches nothing, a path equal to a glob matches it, and on
 * Windows `\` reads as `/`.
 */
export function globsMatcher(globs: readonly string[]): (path: string) => boolean {
  const either = globsPattern(globs);
  const literal = new Set(globs);
  return (path) => {
    if (path === '') return false;
    const posixPath = ON_WINDOWS ? path.replace(/\\/g, '/') : path;
    return literal.has(path) || literal.has(posixPath) || either.test(posixPath);
  };
}

/** The globs' picomatch expressions joined into one (test/architecture/regexSafety.test.ts checks what it builds). */
export function globsPattern(globs: readonly string[]): RegExp {
  const options = { dot: true, windows: ON_WINDOWS };
  return new RegExp(globs.map((glob) => `(?:${picomatch.makeRe(glob, options).source})`).join('|'));
}

export async function expandSelection(paths: string[], options: ExpansionOptions): Promise<Expansion> {
  const files: SelectedFile[] = [];
  const skipped: SkippedFile[] = [];
  const seen = new Set<string>();
  let keptBytes = 0;
  // A glob too costly to match would hold the process for minutes per file (globCost.ts).
  checkExcludeGlobs(options.excludeGlobs);
  const isExcluded = options.excludeGlobs.length ? globsMatcher(options.excludeGlobs) : () => false; // no globs: no matcher run per file
  const isIncluded = options.includeGlobs?.length ? globsMatcher(options.includeGlobs) : () => true;
  let knownReadable: KnownReadable | undefined;
  let knownSettled = options.knownReadable === undefined || typeof options.knownReadable === 'function';
  if (typeof options.knownReadable === 'function') knownReadable = options.knownReadable;

  /** The checks that need no disk read: the skip reason, 'sniff' when the readable-files rule must read the file, or undefined when taken. */
  // Translated once, not per file; the two rule reasons are compared by identity below (`excluded`).
  const excludedReason = l10n.t('matches an exclude pattern');
  const notIncludedReason = l10n.t('matches no include pattern');
  const sizeReason = l10n.t('larger than the {0} limit ({1})', formatBytes(options.maxFileSizeBytes), options.sizeLimitName ?? 'ksm.upload.maxFileSizeMB');
  const precheck = (path: string, size: number, mtimeMs: number, displayPath: string, explicit: boolean, rel: string, name: string): string | undefined => {
    if (!explicit && isExcluded(displayPath)) return excludedReason;
    // Credentials never go with a folder, whatever the exclude settings say (privateFiles.ts).
    const credential = explicit ? undefined : credentialNameReason(name);
    if (credential) return credential;
    if (!explicit && !isIncluded(displayPath)) return notIncludedReason;
    if (options.maxFileSizeBytes > 0 && size > options.maxFileSizeBytes) return sizeReason;
    return knownReadable?.(path, size, mtimeMs, rel) ? undefined : SNIFF;
  };

  /**
   * Takes files in the order given (`names[i]` is `candidates[i]`'s base name; `explicit`: picked
   * by name). Their checks run together (bounded: the readable-files sniff opens each file, and
   * 5,000 small files sniffed one after another cost more than uploading them); the results are
   * applied in order, so the lists keep name order. The candidates are the very objects listed
   * as taken (one object per file: a 5,000-file re-sync made several per file before).
   */
  const considerAll = async (candidates: SelectedFile[], names: string[], explicit: boolean) => {
    if (!knownSettled) {
      knownReadable = await options.knownReadable;
      knownSettled = true;
    }
    let fresh = candidates;
    let freshNames = names;
    // One selected folder cannot reach a file twice (the walk follows no links): skip the realpath and the set then.
    if (paths.length > 1) {
      fresh = [];
      freshNames = [];
      for (let i = 0; i < candidates.length; i++) {
        const real = await realpath(candidates[i].path).catch(() => resolve(candidates[i].path));
        if (seen.has(real)) continue;
        seen.add(real);
        fresh.push(candidates[i]);
        freshNames.push(names[i]);
      }
    }
    const reasons = new Array<string | undefined>(fresh.length);
    /** Files the sniff could not open or read (kept by a sync); a file gone meanwhile has the reason GONE and is left out. */
    const unreadAt = new Set<number>();
    const sniffs: number[] = [];
    for (let i = 0; i < fresh.length; i++) {
      const c = fresh[i];
      const reason = precheck(c.path, c.size, c.mtimeMs!, c.displayPath, explicit, c.rel!, freshNames[i]);
      reasons[i] = reason;
      if (reason === SNIFF) sniffs.push(i);
    }
    if (sniffs.length) {
      const sniffed = await sniffAll(
        sniffs.map((i) => fresh[i]),
        options.signal,
      );
      sniffs.forEach((index, k) => {
        const { reason, head, complete, unread } = sniffed[k];
        reasons[index] = reason;
        if (unread) unreadAt.add(index);
        if (reason || !head || !complete || head.length !== fresh[index].size) return;
        // Read whole and still the size stat saw: its hash costs no second read (folder sync asks for it),
        // and its upload no second open and read (the sniff's copy is kept instead of dropped).
        // One-shot hash (no Hash object per file: about a third less CPU for 5,000 small files).
        if (options.hashSmallFiles) fresh[index].sha256 = hash('sha256', head, 'hex');
        if (options.keepContent && keptBytes + head.length <= KEPT_CONTENT_BYTES) {
          keptBytes += head.length;
          fresh[index].content = head;
        }
      });
    }
    const taken = files.length;
    for (let i = 0; i < fresh.length; i++) {
      const c = fresh[i];
      if (reasons[i] === GONE) continue; // removed since the listing
      const reason = reasons[i];
      if (reason)
        skipped.push(
          unreadAt.has(i) ? { path: c.path, reason, unread: true } : reason === excludedReason || reason === notIncludedReason ? { path: c.path, reason, excluded: true } : { path: c.path, reason },
        );
      else {
        if (options.volumeNames !== false) c.volumeName = volumeNameFor(c.rel!);
        files.push(c);
      }
    }
    if (options.onFiles && files.length > taken) options.onFiles(files.splice(taken));
  };

  // Paths relative to the anchor, the selected folder and each .gitignore's folder are worked
  // out once per folder and extended by name per entry (path.relative per file was a good
  // part of a 5,000-file scan).
  const prefix = (from: string, dir: string) => {
    const rel = toPosix(relative(from, dir));
    return rel ? `${rel}/` : '';
  };
  const walk = async (dir: string, anchor: string, scopes: IgnoreScope[], selected: string): Promise<void> => {
    // The event loop is free once per folder (and per slice of stats below): the folder is
    // read synchronously, a promise readdir cost its 250 entries' folder several times as much.
    await yieldToLoop();
    options.signal?.throwIfAborted();
    let entries: FolderEntry[];
    // A subfolder swapped for a link since its parent was listed (a checkout, another user of a
    // shared folder) is not read through: it must still be this folder before and after its read.
    let before: Stats | undefined;
    try {
      if (dir !== selected) {
        before = lstatSync(dir, { throwIfNoEntry: false });
        if (!before) return; // removed since its parent was listed
        if (!before.isDirectory()) {
          skipped.push({ path: dir, reason: before.isSymbolicLink() ? l10n.t('symbolic link: not followed (links are never followed out of the folder)') : l10n.t('not a regular file') });
          return;
        }
      }
      entries = readFolder(dir, dirPrefixOf(dir), skipped);
      const after = before && lstatSync(dir, { throwIfNoEntry: false });
      if (before && (!after || !after.isDirectory() || after.dev !== before.dev || after.ino !== before.ino)) {
        skipped.push({ path: dir, reason: l10n.t('it was replaced by another file since it was checked'), unread: true });
        return;
      }
    } catch (error) {
      // The selected folder itself: the caller's error (nothing can be said about its files).
      if (dir === selected) throw error;
      // Removed (or renamed) while the walk got here: its files are gone as far as this walk can tell.
      if (errorCode(error) === 'ENOENT') return;
      // There but unreadable (no permission, replaced by a file meanwhile, an I/O error): said, and
      // what a sync recorded below it is kept (never deleted as if the folder were empty).
      skipped.push({ path: dir, reason: l10n.t('folder cannot be read ({0})', errorCode(error)), unread: true });
      return;
    }
    // A folder without a .gitignore costs no read of one (a thread-pool round trip per folder).
    const here = options.useGitignore === false || !entries.some((e) => e.name === '.gitignore') ? scopes : [...scopes, ...(await gitignoreAt(dir))];
    entries.sort((a, b) => collator.compare(a.name, b.name));
    const anchorPrefix = prefix(anchor, dir);
    const selectedPrefix = prefix(selected, dir);
    const scopePrefixes = here.map((scope) => prefix(scope.base, dir));
    // `dir` is absolute and normalised, and an entry's name holds no separator: a path is one concatenation (path.join per file was a good part of the scan).
    const dirPrefix = dirPrefixOf(dir);
    // Folder sync anchors at the folder it syncs: both paths are then one string (its lookups in the manifest then hash it once).
    const sameRel = selectedPrefix === anchorPrefix;
    let candidates: SelectedFile[] = [];
    let names: string[] = [];
    let statted = 0;
    for (const entry of entries) {
      const name = entry.name;
      if (isSyncStateName(name)) continue; // not listed as skipped either: every re-sync would report its own manifest
      const path = dirPrefix + name;
      if (entry.isSymbolicLink()) {
        skipped.push({ path, reason: l10n.t('symbolic link: not followed (links are never followed out of the folder)') });
        continue;
      }
      const isDir = entry.isDirectory();
      if (!isDir && !entry.isFile()) {
        skipped.push({ path, reason: l10n.t('not a regular file') });
        continue;
      }
      if (!isDir && name === '.gitignore') {
        skipped.push({ path, reason: l10n.t('git ignore rules (.gitignore) are applied, not uploaded'), excluded: true });
        continue;
      }
      const rel = anchorPrefix + name;
      if (isDir && isExcluded(rel)) {
        skipped.push({ path, reason: l10n.t('folder matches an exclude pattern'), excluded: true });
        continue;
      }
      const privateFolder = isDir ? privateFolderNameReason(name) : undefined;
      if (privateFolder) {
        skipped.push({ path, reason: l10n.t('folder {0}', privateFolder) });
        continue;
      }
      // As git: the deepest .gitignore with a matching line decides (a `!` there re-includes);
      // this folder is not excluded, or the walk would not be in it.
      const decided = here.length ? scopesDecide(here, (_, i) => scopePrefixes[i] + name, isDir) : 'kept';
      if (decided !== 'kept') {
        // A line too complex to apply is named every run (someone's .gitignore left this out unread); a plain ignore is the folder's own rule.
        skipped.push(decided.tooComplex ? { path, reason: gitignoreReason(decided, anchor, isDir) } : { path, reason: gitignoreReason(decided, anchor, isDir), excluded: true });
        continue;
      }
      if (isDir) {
        await considerAll(candidates, names, false);
        candidates = [];
        names = [];
        await walk(path, anchor, here, selected);
        continue;
      }
      // Stats are asked synchronously, with the event loop free every STAT_SLICE files: 5,000
      // promise stats cost several times the syscalls themselves (a promise, a thread-pool hop
      // and a callback each), and were most of a no-op sync's plan.
      if (++statted % STAT_SLICE === 0) {
        await yieldToLoop();
        options.signal?.throwIfAborted();
      }
      let info: Stats | undefined;
      try {
        // lstat: a file replaced by a link since the folder was read is not followed either.
        info = lstatSync(path, { throwIfNoEntry: false });
      } catch (error) {
        // There but not stat-able (a folder readable without search permission): said, and kept by a sync, never taken for removed.
        skipped.push({ path, reason: l10n.t('cannot be read ({0})', errorCode(error)), unread: true });
        continue;
      }
      if (!info) continue; // removed since the listing
      if (!info.isFile()) {
        skipped.push({ path, reason: info.isSymbolicLink() ? l10n.t('symbolic link: not followed (links are never followed out of the folder)') : l10n.t('not a regular file') });
        continue;
      }
      candidates.push({
        path,
        size: info.size,
        mtimeMs: info.mtimeMs,
        displayPath: rel,
        volumeName: undefined,
        sha256: undefined,
        rel: sameRel ? rel : selectedPrefix + name,
        content: undefined,
        identity: { dev: info.dev, ino: info.ino },
      });
      names.push(name);
    }
    await considerAll(candidates, names, false);
  };

  for (const selected of paths) {
    options.signal?.throwIfAborted();
    const path = resolve(selected);
    if (options.skipNamedLinks && (await lstat(path).catch(() => undefined))?.isSymbolicLink()) {
      skipped.push({ path, reason: l10n.t('symbolic link: not followed (name the file or folder it points to, to upload that)') });
      continue;
    }
    const info = await stat(path).catch(() => undefined);
    if (!info) {
      skipped.push({ path, reason: l10n.t('not found') });
      continue;
    }
    const root = options.workspaceRoots.map((r) => resolve(r)).find((r) => path === r || path.startsWith(r + sep));
    if (info.isDirectory()) {
      const inherited = root && options.useGitignore !== false && path !== root ? await ancestorGitignores(root, path) : { scopes: [] };
      // A folder git leaves out (itself or a folder above it): git does not look inside it, so nothing in it is taken.
      if (inherited.excludedBy) {
        skipped.push({ path, reason: gitignoreReason(inherited.excludedBy, root ?? path, true) });
        continue;
      }
      // Outside every workspace folder the folder is its own root (its parent was, for uploads
      // only: `ksm upload v docs --exclude 'drafts/**'` then kept what `ksm sync docs` left out).
      await walk(path, root ?? path, inherited.scopes, path);
    } else if (info.isFile()) {
      const anchor = root ?? dirname(path); // display only: no glob applies to a file picked by name
      // A file the user picked by name is uploaded even if a glob would exclude it.
      const name = basename(path);
      await considerAll(
        [
          {
            path,
            size: info.size,
            mtimeMs: info.mtimeMs,
            displayPath: toPosix(relative(anchor, path)) || name,
            volumeName: undefined,
            sha256: undefined,
            rel: name,
            content: undefined,
            identity: { dev: info.dev, ino: info.ino },
          },
        ],
        [name],
        true,
      );
    } else {
      skipped.push({ path, reason: l10n.t('not a regular file') });
    }
  }
  return { files, skipped };
}

const collator = new Intl.Collator();
const SNIFF_SLICE = 64;

/**
 * The readable-files sniff of many files: read synchronously in slices, with the event loop
 * free between slices (a promise open, read and close per file made a 5,000-file scan cost
 * more than uploading it). A file the synchronous read fails on gets the asynchronous sniff,
 * which fails or succeeds as it always did.
 */
type Sniffed = Awaited<ReturnType<typeof sniffFile>> & { unread?: boolean };

async function sniffAll(files: ReadonlyArray<Pick<SelectedFile, 'path' | 'identity'>>, signal?: AbortSignal): Promise<Sniffed[]> {
  const results: Sniffed[] = [];
  for (let i = 0; i < files.length; i += SNIFF_SLICE) {
    if (i > 0) await yieldToLoop();
    signal?.throwIfAborted();
    for (const { path, identity } of files.slice(i, i + SNIFF_SLICE)) {
      let result: Sniffed | undefined;
      try {
        result = sniffFileSync(path, identity);
        // Replaced since it was stat'ed (a link to a key outside): not read, and a sync keeps what it recorded.
        if (result.replaced) result = { reason: result.reason, unread: true };
      } catch {
        // One file that cannot be opened or read (no permission, an I/O error) is skipped with the
        // reason, never the end of the whole scan; one removed meanwhile is left out.
        result = await sniffFile(path, identity).then(
          (sniffed): Sniffed => (sniffed.replaced ? { reason: sniffed.reason, unread: true } : sniffed),
          (error: unknown): Sniffed => (errorCode(error) === 'ENOENT' ? { reason: GONE } : { reason: l10n.t('cannot be read ({0})', errorCode(error)), unread: true }),
        );
      }
      results.push(result);
    }
  }
  return results;
}
const STAT_SLICE = 256;

function dirPrefixOf(dir: string): string {
  return dir.endsWith(sep) ? dir : dir + sep;
}

function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : String((error as Error | undefined)?.message ?? error);
}

/** What the walk needs of a folder entry. */
type FolderEntry = Pick<Dirent, 'name' | 'isFile' | 'isDirectory' | 'isSymbolicLink'>;

/**
 * A folder's entries. Node decodes names as UTF-8, putting U+FFFD for bytes that are not
 * (Linux allows any bytes but `/` and NUL): such a name cannot be opened by the string it reads
 * as (or opens ANOTHER file, one whose name really holds U+FFFD). Only when a name holds U+FFFD
 * is the folder read again as bytes: the names that are not UTF-8 are skipped with the reason
 * (a folder of them made the whole sync fail), the others kept.
 */
function readFolder(dir: string, dirPrefix: string, skipped: SkippedFile[]): FolderEntry[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  if (!entries.some((e) => e.name.includes('\uFFFD'))) return entries;
  const kept: FolderEntry[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, encoding: 'buffer' })) {
    const bytes = entry.name as unknown as Buffer;
    const name = bytes.toString('utf8');
    if (isUtf8(bytes)) {
      kept.push({ name, isFile: () => entry.isFile(), isDirectory: () => entry.isDirectory(), isSymbolicLink: () => entry.isSymbolicLink() });
    } else {
      skipped.push({ path: dirPrefix + name, reason: l10n.t('name is not valid UTF-8: it cannot be opened by the name it reads as (rename it)') });
    }
  }
  return kept;
}

/**
 * The name a file at `rel` (relative to the selected or synced folder, `/`-separated) is
 * stored under (D24): the service strips directories (D7), so `docs/guide.md` is sent as
 * `docs__guide.md`, unique within the volume and still readable in citations. One source
 * for uploads and folder sync.
 */
export function volumeNameFor(rel: string): string {
  return rel.replaceAll('/', '__');
}

/**
 * Why a `.gitignore` left a path out: which file (relative to `anchor`, escaped: its folders'
 * names are someone else's) and which line, as `git check-ignore -v` names them, so the user
 * can find it; or that it was too costly to apply. The line's text is not repeated.
 */
function gitignoreReason(hit: IgnoringLine, anchor: string, isDir: boolean): string {
  const file = shown(ignoringFileFrom(anchor, hit));
  if (hit.line === undefined) return l10n.t('left out by {0}: its lines are too costly to match against this path (simplify its * and ** patterns)', file);
  if (hit.tooComplex) return l10n.t('left out by line {0} of {1}: more than {2} runs of * are too complex to apply (simplify or remove that line)', hit.line, file, MAX_GITIGNORE_STAR_RUNS);
  return isDir ? l10n.t('folder ignored by line {0} of {1}', hit.line, file) : l10n.t('ignored by line {0} of {1}', hit.line, file);
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
