// Filters: turn an uploaded file into plain text, or explain why they cannot.
// Each format uses a maintained library (unpdf, mammoth, html-to-text); plain text formats
// are decoded as strict UTF-8 so binary files are recognised and end `na` (D9). Every
// expansion is bounded (limits.ts): a DOCX is inflated once with yauzl, counting entries and
// real inflated bytes, before mammoth reads it; a PDF's pages and any filter's text are
// capped. These run in a processing worker (processWorker.ts), whose heap cap and timeout
// catch whatever slips past.
import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { convert as htmlToText } from 'html-to-text';
import MarkdownIt from 'markdown-it';
import yauzl from 'yauzl';
import { MAX_EXTRACTED_CHARS, MAX_INDEXED_BYTES, MAX_PDF_PAGES, MAX_ZIP_ENTRIES, MAX_ZIP_INFLATED_BYTES } from './limits';

export type FilterResult = { ok: true; text: string; filter: string } | { ok: false; reason: string };

const MB = 1024 * 1024;

/** A reason that ends the file `na`: a limit was reached, not a bug in the file. */
class LimitReached extends Error {}

// Markdown is rendered, then read as HTML, so emphasis marks and link syntax do not reach the chunks.
const markdown = new MarkdownIt({ html: false });
const HTML_EXTENSIONS = new Set(['.html', '.htm', '.xhtml']);

export async function extractFileText(path: string, filename: string): Promise<FilterResult> {
  const { size } = await stat(path);
  if (size > MAX_INDEXED_BYTES) {
    return { ok: false, reason: `file is larger than ${MAX_INDEXED_BYTES / 1024 / 1024} MB, the emulator's indexing limit` };
  }
  const bytes = await readFile(path);
  const extension = extname(filename).toLowerCase();
  try {
    const result = await extractBytes(bytes, filename, extension);
    if (result.ok && result.text.length > MAX_EXTRACTED_CHARS) {
      return { ok: false, reason: `its text is over ${MAX_EXTRACTED_CHARS / MB}M characters, the emulator's limit per file` };
    }
    return result;
  } catch (error) {
    if (error instanceof LimitReached) return { ok: false, reason: error.message };
    return { ok: false, reason: `the ${extension || 'file'} filter failed: ${(error as Error).message}` };
  }
}

async function extractBytes(bytes: Buffer, filename: string, extension: string): Promise<FilterResult> {
  {
    if (extension === '.pdf' || bytes.subarray(0, 5).toString('latin1') === '%PDF-') return await pdfText(bytes);
    if (extension === '.docx') return await docxText(bytes);
    const text = decodeText(bytes);
    if (text === undefined) {
      return { ok: false, reason: `no filter can read "${filename}": it looks like a binary file` };
    }
    if (HTML_EXTENSIONS.has(extension) || /^\s*<(!doctype html|html)\b/i.test(text)) {
      return { ok: true, text: htmlToText(text, { wordwrap: false }), filter: 'html' };
    }
    const filter = textFilterName(extension);
    if (filter === 'markdown') return { ok: true, text: htmlToText(markdown.render(text), { wordwrap: false }), filter };
    return { ok: true, text, filter };
  }
}

// unpdf and mammoth load on first use: most files are text, and a worker that loads them
// up front takes a second longer to start.
async function pdfText(bytes: Buffer): Promise<FilterResult> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  if (pdf.numPages > MAX_PDF_PAGES) throw new LimitReached(`the PDF has ${pdf.numPages} pages, over the emulator's limit of ${MAX_PDF_PAGES}`);
  const { text } = await extractText(pdf, { mergePages: true });
  if (!text.trim()) return { ok: false, reason: 'the PDF has no extractable text (scanned images are not read)' };
  return { ok: true, text, filter: 'pdf' };
}

async function docxText(bytes: Buffer): Promise<FilterResult> {
  await checkZipExpansion(bytes);
  const { default: mammoth } = await import('mammoth');
  const { value } = await mammoth.extractRawText({ buffer: bytes });
  return { ok: true, text: value, filter: 'docx' };
}

/** Strict UTF-8 (with or without BOM); NUL bytes or invalid sequences mean binary. */
function decodeText(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function textFilterName(extension: string): string {
  if (extension === '.md' || extension === '.markdown') return 'markdown';
  if (extension === '.json') return 'json';
  if (extension === '.csv') return 'csv';
  if (extension === '.txt' || extension === '') return 'text';
  return 'source';
}

/**
 * Inflates every entry of a ZIP once, as a stream, counting entries and the bytes that
 * really come out (not the sizes the archive claims; yauzl also refuses an entry whose
 * inflated size differs from its header), and stops at the first limit.
 */
function checkZipExpansion(bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true }, (openError, zip) => {
      if (openError || !zip) return reject(new Error(`not a readable ZIP/DOCX: ${openError?.message ?? 'no archive'}`));
      if (zip.entryCount > MAX_ZIP_ENTRIES) {
        zip.close();
        return reject(new LimitReached(`the archive has ${zip.entryCount} entries, over the emulator's limit of ${MAX_ZIP_ENTRIES}`));
      }
      let inflated = 0;
      const overLimit = () => new LimitReached(`the archive inflates to more than ${MAX_ZIP_INFLATED_BYTES / MB} MB, the emulator's limit (a decompression bomb?)`);
      zip.on('error', reject);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        if (/\/$/.test(entry.fileName)) return zip.readEntry();
        if (inflated + entry.uncompressedSize > MAX_ZIP_INFLATED_BYTES) {
          zip.close();
          return reject(overLimit());
        }
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError ?? new Error('unreadable entry'));
          stream.on('data', (chunk: Buffer) => {
            inflated += chunk.length;
            if (inflated > MAX_ZIP_INFLATED_BYTES) {
              stream.destroy();
              zip.close();
              reject(overLimit());
            }
          });
          stream.on('error', reject);
          stream.on('end', () => zip.readEntry());
        });
      });
      zip.readEntry();
    });
  });
}
