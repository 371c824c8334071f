// A cited file back to the workspace (issue 26, "a citation leads to the code"): when the
// volume copy came from a folder synced from this workspace, the sync manifest (read by
// ./manifest.ts, its format unchanged) pairs relative path ↔ remote name ↔ file id, so a
// citation can open the workspace file at the cited passage, found by its text. Everything
// read here is hostile: a manifest entry that leads outside its folder (absolute, `..`, a
// symlink out) is never opened. No `vscode` import.
import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Manifest } from './manifest';

/** A workspace folder synced to a volume, with what its last sync stored. */
export interface SyncedFolder {
  /** Absolute path of the local folder. */
  root: string;
  manifest: Manifest;
}

export interface CitedFileRef {
  fileId: string;
  filename: string;
  /** The volume the service named; without it only a file id match counts. */
  volume?: string;
}

export interface WorkspaceMatch {
  /** Absolute path inside `root` (not yet checked on disk: see `insideFolder`). */
  path: string;
  root: string;
  relativePath: string;
}

/**
 * The workspace file a cited volume file was synced from: by file id first (exact), then,
 * in the same volume, by remote name when exactly one entry has it (a copy re-uploaded
 * since the last sync has a new id but keeps its name). Undefined when nothing, or more
 * than one file, matches, or the entry's path leads outside its folder.
 */
export function workspaceFileFor(folders: readonly SyncedFolder[], cited: CitedFileRef): WorkspaceMatch | undefined {
  const inVolume = folders.filter((f) => cited.volume === undefined || f.manifest.volume === cited.volume);
  const byId = inVolume.flatMap((f) =>
    Object.entries(f.manifest.files)
      .filter(([, e]) => e.uuid === cited.fileId)
      .map(([rel]) => ({ folder: f, rel })),
  );
  let found = byId.length === 1 ? byId[0] : undefined;
  if (!found && byId.length === 0 && cited.volume !== undefined) {
    const byName = inVolume.flatMap((f) =>
      Object.entries(f.manifest.files)
        .filter(([, e]) => e.remoteName === cited.filename)
        .map(([rel]) => ({ folder: f, rel })),
    );
    if (byName.length === 1) found = byName[0];
  }
  if (!found) return undefined;
  const rel = found.rel;
  if (!rel || isAbsolute(rel) || /^[a-zA-Z]:/.test(rel) || rel.split(/[\\/]/).some((part) => part === '..' || part === '')) return undefined;
  const path = resolve(found.folder.root, rel);
  const back = relative(found.folder.root, path);
  if (!back || back.startsWith('..') || isAbsolute(back)) return undefined;
  return { path, root: found.folder.root, relativePath: rel };
}

/** True when `path` still exists and, symlinks followed, stays inside `root`. */
export async function insideFolder(root: string, path: string): Promise<boolean> {
  try {
    const [realRoot, realPath] = await Promise.all([realpath(root), realpath(path)]);
    return realPath.startsWith(realRoot.endsWith(sep) ? realRoot : join(realRoot, sep));
  } catch {
    return false;
  }
}

/** Where a passage sits in a file (0-based lines, end inclusive). */
export interface PassageRange {
  startLine: number;
  endLine: number;
}

/**
 * Finds the cited passage in the file's text: the whole snippet with whitespace runs
 * equal, else its longest line or sentence (at least 12 characters), also without up to six
 * leading words (a heading the service joined to it). The file may have
 * changed since it was synced; a passage no longer there gives undefined (open at the top).
 */
export function findPassage(text: string, snippet: string | undefined): PassageRange | undefined {
  const wanted = (snippet ?? '').trim();
  if (!wanted) return undefined;
  const flat = collapsed(text);
  const whole = locate(text, flat, wanted);
  if (whole) return whole;
  // The service may quote a chunk with its markup stripped ("# Title" → "Title") and lines
  // joined: try its lines and sentences, longest first, each also without a few leading words.
  // Only the longest few: each try reads the whole file, and a hostile snippet can have
  // a hundred thousand lines.
  const parts = wanted
    .split(/\r?\n|(?<=[.!?])\s+/)
    .map((l) => l.trim())
    .filter((l) => l.length >= 12)
    .sort((a, b) => b.length - a.length)
    .slice(0, MAX_PASSAGE_PARTS);
  for (const part of parts) {
    const words = part.split(/\s+/);
    for (let drop = 0; drop <= Math.min(6, words.length - 3); drop++) {
      const candidate = words.slice(drop).join(' ');
      if (candidate.length < 12) break;
      const at = locate(text, flat, candidate);
      if (at) return at;
    }
  }
  return undefined;
}

/** How many of a snippet's lines and sentences are looked for, longest first. */
const MAX_PASSAGE_PARTS = 16;

/** The text with each run of whitespace as one space, and where each of its characters came from. */
interface Collapsed {
  text: string;
  from: Uint32Array;
}

function collapsed(text: string): Collapsed {
  const from = new Uint32Array(text.length);
  let out = '';
  let n = 0;
  const run = /\s+/g;
  let copied = 0;
  const copy = (end: number) => {
    out += text.slice(copied, end);
    for (let i = copied; i < end; i++) from[n++] = i;
  };
  for (let m = run.exec(text); m; m = run.exec(text)) {
    copy(m.index);
    out += ' ';
    from[n++] = m.index;
    copied = run.lastIndex;
  }
  copy(text.length);
  return { text: out, from: from.subarray(0, n) };
}

/**
 * Finds `needle` in `text` with any run of whitespace equal to any other; the lines it spans.
 * A plain substring search in the collapsed text: the regex it replaces (the needle's words
 * joined by `\s+`) overflowed the stack on a long snippet and re-read a near match from every
 * place it started.
 */
function locate(text: string, flat: Collapsed, needle: string): PassageRange | undefined {
  const words = needle.split(/\s+/).filter(Boolean);
  if (words.length === 0) return undefined;
  const wanted = words.join(' ');
  const at = flat.text.indexOf(wanted);
  if (at < 0) return undefined;
  const start = flat.from[at]!;
  const end = flat.from[at + wanted.length - 1]! + 1;
  const lineAt = (offset: number) => text.slice(0, offset).split('\n').length - 1;
  return { startLine: lineAt(start), endLine: lineAt(end) };
}
