// The multipart/form-data body of an upload (D7), written by hand as an async iterable:
// undici's FormData + fs.openAsBlob would also stream from disk, but gives no way to count
// the bytes of file content as they go out (upload progress), nor an exact Content-Length
// up front. Small files come already read (src/api/uploadFiles.ts); large ones are read from
// already-open handles in large pieces, never whole.
import * as l10n from '@vscode/l10n';
import { randomUUID } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** Large reads keep progress callbacks and syscalls few (about 1000 per GiB). */
const READ_SIZE = 1024 * 1024;
const COALESCE_BYTES = 256 * 1024;
/** Buffers per file being read: one being written, one being read, one spare. */
const RING_SLOTS = 3;
/** Error code of a file that shrank while its bytes were being sent. */
export const FILE_CHANGED = 'KSM_FILE_CHANGED';

/** A file part: its content already read (a small file), or an open handle to stream it from. */
export type MultipartFile = { filename: string; size: number } & ({ content: Uint8Array } | { handle: FileHandle });

export interface MultipartPlan {
  boundary: string;
  contentType: string;
  length: number;
  /** Creates the body; `onFileBytes` gets the byte count of each piece of file content sent. */
  open: (onFileBytes: (bytes: number) => void) => AsyncIterable<Uint8Array>;
}

/**
 * The `Content-Disposition` parameters for a part (D7), so that a mainstream multipart parser
 * (busboy, Go's mime/multipart, Python's email parser, werkzeug) receives the name exactly:
 *
 * - `filename="…"` is an RFC 7578 quoted-string: `"` and `\` go as quoted-pairs (`\"`,
 *   `\\`), which those parsers decode (the WHATWG `%22` form is not decoded by them, so a
 *   browser-style `q%22uote.txt` would be stored as such). Non-ASCII stays raw UTF-8, as
 *   browsers send it.
 * - A header line cannot carry CR, LF or other control characters, and a parser reading the
 *   quoted-string as Latin-1 (busboy's default) garbles UTF-8. For such names an RFC 5987
 *   `filename*=UTF-8''…` goes along, which those parsers prefer over `filename`; the plain
 *   `filename` then carries the control characters as `%0A`-style escapes (the WHATWG form)
 *   for a parser that knows only `filename`.
 */
export function dispositionParameters(name: string, filename?: string): string {
  const parts = [`form-data; name=${quoted(name)}`];
  if (filename !== undefined) {
    parts.push(`filename=${quoted(filename)}`);
    if (needsExtendedForm(filename)) parts.push(`filename*=UTF-8''${extendedValue(filename)}`);
  }
  return parts.join('; ');
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;

function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(CONTROL, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)}"`;
}

function needsExtendedForm(value: string): boolean {
  return /[^\u0020-\u007e]/.test(value);
}

/** RFC 5987 `value-chars`: attr-char stays, every other UTF-8 byte is %XX. */
function extendedValue(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The name the service stores for a file sent under `filename` (D7): exactly what was
 * sent, stripped of any directory part after a `/`. Duplicate detection compares listed
 * names with this, so "already in the volume" means what the service means by it.
 */
export function storedFileName(filename: string): string {
  return filename.slice(filename.lastIndexOf('/') + 1);
}

function fieldHeader(boundary: string, name: string, filename?: string): Buffer {
  const type = filename === undefined ? '' : '\r\nContent-Type: application/octet-stream';
  return Buffer.from(`--${boundary}\r\nContent-Disposition: ${dispositionParameters(name, filename)}${type}\r\n\r\n`, 'utf8');
}

function partSize(file: MultipartFile): number {
  return 'content' in file ? file.content.length : file.size;
}

export function planMultipart(fields: Array<[string, string]>, files: MultipartFile[]): MultipartPlan {
  // 122 random bits; randomUUID draws from a buffered entropy pool (randomBytes per request was a syscall each).
  const boundary = `----ksm-${randomUUID().replaceAll('-', '')}`;
  const crlf = Buffer.from('\r\n');
  const fieldParts = fields.map(([name, value]) => Buffer.concat([fieldHeader(boundary, name), Buffer.from(value, 'utf8'), crlf]));
  const fileHeaders = files.map((file) => fieldHeader(boundary, 'file', file.filename));
  const closing = Buffer.from(`--${boundary}--\r\n`);
  const length = fieldParts.reduce((sum, part) => sum + part.length, 0) + fileHeaders.reduce((sum, header, i) => sum + header.length + partSize(files[i]) + crlf.length, 0) + closing.length;

  async function* pieces(onFileBytes: (bytes: number) => void): AsyncGenerator<Uint8Array> {
    for (const part of fieldParts) yield part;
    for (let i = 0; i < files.length; i++) {
      yield fileHeaders[i];
      const file = files[i];
      if ('handle' in file) yield* fileContent(file, onFileBytes);
      else if (file.content.length > 0) {
        onFileBytes(file.content.length);
        yield file.content;
      }
      yield crlf;
    }
    yield closing;
  }

  return { boundary, contentType: `multipart/form-data; boundary=${boundary}`, length, open: (onFileBytes) => coalesce(pieces(onFileBytes)) };
}

/**
 * Joins small pieces (part headers, small files) into writes of up to COALESCE_BYTES. Each
 * yielded piece becomes one socket write; a server that refuses early (413) closes the
 * connection after answering, and a body trickling out in many tiny writes would then
 * hit EPIPE before the client could read that answer.
 */
async function* coalesce(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  for await (const piece of source) {
    if (pendingBytes + piece.length <= COALESCE_BYTES) {
      pending.push(piece);
      pendingBytes += piece.length;
      continue;
    }
    if (pending.length > 0) yield pending.length === 1 ? pending[0] : Buffer.concat(pending);
    pending = [piece];
    pendingBytes = piece.length;
    if (pendingBytes > COALESCE_BYTES) {
      yield piece;
      pending = [];
      pendingBytes = 0;
    }
  }
  if (pending.length > 0) yield pending.length === 1 ? pending[0] : Buffer.concat(pending);
}

/**
 * Reads a file in READ_SIZE pieces with one read always in flight, so the disk read of the
 * next piece overlaps the socket write of this one (without it, upload speed is the sum
 * of both, not the slower of them).
 *
 * Pieces are read into a small ring of buffers instead of a fresh buffer each time: fresh
 * 1 MiB buffers cost page faults and GC and made uploads about 3× more CPU-hungry than
 * curl. Reuse is safe because undici (writeIterable) asks for the next piece only after
 * the previous one was written (write() returned true or 'drain' fired), and every piece
 * but a file's last is READ_SIZE bytes, far above the socket's 16 KiB high-water mark; so
 * when slot n+2 is refilled, piece n is long gone. test/api/uploadIntegrity.test.ts checks
 * the bytes that arrive, so an undici change to that contract fails loudly.
 */
async function* fileContent(file: MultipartFile & { handle: FileHandle }, onFileBytes: (bytes: number) => void): AsyncGenerator<Uint8Array> {
  const ring: Buffer[] = [];
  let reads = 0;
  const readAt = (position: number) => {
    const slot = reads++ % RING_SLOTS;
    ring[slot] ??= Buffer.allocUnsafe(Math.min(READ_SIZE, file.size));
    const buffer = ring[slot].subarray(0, Math.min(READ_SIZE, file.size - position));
    const read = file.handle.read(buffer, 0, buffer.length, position).then(({ bytesRead }) => ({ buffer, bytesRead }));
    read.catch(() => undefined); // an abandoned read (cancelled upload, closed handle) must not go unhandled
    return read;
  };
  let position = 0;
  let next = file.size > 0 ? readAt(0) : undefined;
  while (next) {
    const { buffer, bytesRead } = await next;
    if (bytesRead === 0) throw Object.assign(new Error(l10n.t("'{0}' became shorter while it was being uploaded.", file.filename)), { code: FILE_CHANGED });
    position += bytesRead;
    next = position < file.size ? readAt(position) : undefined;
    onFileBytes(bytesRead);
    yield bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
  }
}
