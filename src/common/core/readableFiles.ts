// Which files a service filter can read (D9 and emulator/filters.ts: text of any kind as
// UTF-8, Markdown, code, JSON, CSV, HTML, PDF, DOCX). Anything else would be stored but
// end `na` with nothing searchable, so uploads skip it with a reason instead.
import { open } from 'node:fs/promises';
import { extname } from 'node:path';

/** Binary formats a filter reads (the rest of the readable formats are text). */
const READABLE_BINARY_EXTENSIONS = new Set(['.pdf', '.docx']);

const SNIFF_BYTES = 8192;

/** Undefined when a filter can read the file; otherwise why not. */
export async function unreadableReason(path: string): Promise<string | undefined> {
  return (await sniffFile(path)).reason;
}

/**
 * The readable-files check, plus the bytes it read: a file no longer than the sniff is read
 * whole (`complete`), so a caller that needs its content (folder sync's hash) reads it once.
 */
export async function sniffFile(path: string): Promise<{ reason?: string; head?: Buffer; complete?: boolean }> {
  if (READABLE_BINARY_EXTENSIONS.has(extname(path).toLowerCase())) return {};
  const head = await readHead(path);
  const complete = head.length < SNIFF_BYTES;
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return { head, complete };
  return looksLikeText(head) ? { head, complete } : { reason: 'binary file: no filter can read it (text, Markdown, code, JSON, CSV, HTML, PDF and DOCX are supported)' };
}

/** Strict UTF-8 without NUL bytes, as the service's text filters decode it. */
export function looksLikeText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  try {
    // `stream: true` tolerates a multi-byte character cut at the end of the sample.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
