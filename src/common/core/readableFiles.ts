// Which files a service filter can read (D9 and emulator/filters.ts: text of any kind as
// UTF-8, Markdown, code, JSON, CSV, HTML, PDF, DOCX). Anything else would be stored but
// end `na` with nothing searchable, so uploads skip it with a reason instead.
import * as l10n from '@vscode/l10n';
import { isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { extname } from 'node:path';

/** Binary formats a filter reads (the rest of the readable formats are text). */
const READABLE_BINARY_EXTENSIONS = new Set(['.pdf', '.docx']);

const SNIFF_BYTES = 8192;
/** The synchronous sniff's read buffer (each result gets a copy of its bytes). */
const scratch = Buffer.allocUnsafe(SNIFF_BYTES);

/** Undefined when a filter can read the file; otherwise why not. */
export async function unreadableReason(path: string): Promise<string | undefined> {
  return (await sniffFile(path)).reason;
}

/**
 * The readable-files check, plus the bytes it read: a file no longer than the sniff is read
 * whole (`complete`), so a caller that needs its content (folder sync's hash) reads it once.
 */
export async function sniffFile(path: string, expected?: FileIdentity): Promise<Sniff> {
  if (READABLE_BINARY_EXTENSIONS.has(extname(path).toLowerCase())) return {};
  const head = await readHead(path, expected);
  return head === REPLACED ? replaced() : judged(head);
}

/** The file a caller found (device and inode): the sniff reads it or nothing. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

export interface Sniff {
  reason?: string;
  head?: Buffer;
  complete?: boolean;
  /** The path no longer leads to the file expected (replaced by a link or another file since it was found): nothing was read. */
  replaced?: boolean;
}

const REPLACED = Symbol('replaced');

function isReplaced(info: Stats, expected: FileIdentity | undefined): boolean {
  return expected !== undefined && (info.dev !== expected.dev || info.ino !== expected.ino);
}

function replaced(): Sniff {
  return { reason: l10n.t('it was replaced by another file since it was checked'), replaced: true };
}

/**
 * `sniffFile` without the thread pool, for scans of thousands of small files (a promise
 * open, read and close per file cost more than the reads). Opened non-blocking, so a file
 * swapped for a FIFO since it was listed cannot hang the caller (it throws instead; callers
 * fall back to `sniffFile`).
 */
export function sniffFileSync(path: string, expected?: FileIdentity): Sniff {
  if (READABLE_BINARY_EXTENSIONS.has(extname(path).toLowerCase())) return {};
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  let head: Buffer;
  try {
    // The path may lead elsewhere now (a link put in its place since it was stat'ed): nothing of that is read.
    if (expected && isReplaced(fstatSync(fd), expected)) return replaced();
    // Read into one scratch buffer and keep a copy of what was read: a zeroed 8 KiB buffer
    // per file was most of a 5,000-file scan's garbage.
    const read = readSync(fd, scratch, 0, SNIFF_BYTES, 0);
    head = Buffer.allocUnsafe(read);
    scratch.copy(head, 0, 0, read);
  } finally {
    closeSync(fd);
  }
  return judged(head);
}

function judged(head: Buffer): Sniff {
  const complete = head.length < SNIFF_BYTES;
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return { head, complete };
  return looksLikeText(head) ? { head, complete } : { reason: l10n.t('binary file: no filter can read it (text, Markdown, code, JSON, CSV, HTML, PDF and DOCX are supported)') };
}

/** Strict UTF-8 without NUL bytes, as the service's text filters decode it. */
export function looksLikeText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  // Valid UTF-8 as it stands (nearly every text file): a native check, no decoder, no string.
  // Otherwise the decoder says, tolerating a character cut at the end of the sample.
  if (isUtf8(head)) return true;
  try {
    // `stream: true` tolerates a multi-byte character cut at the end of the sample.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

async function readHead(path: string, expected?: FileIdentity): Promise<Buffer | typeof REPLACED> {
  const handle = await open(path, 'r');
  try {
    if (expected && isReplaced(await handle.stat(), expected)) return REPLACED;
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
