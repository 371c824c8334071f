// Filters: turn an uploaded file into plain text, or explain why they cannot.
// Each format uses a maintained library (unpdf, mammoth, html-to-text); plain text formats
// are decoded as strict UTF-8 so binary files are recognised and end `na` (D9).
import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { convert as htmlToText } from 'html-to-text';
import mammoth from 'mammoth';
import MarkdownIt from 'markdown-it';
import { extractText, getDocumentProxy } from 'unpdf';

export type FilterResult = { ok: true; text: string; filter: string } | { ok: false; reason: string };

/** Larger files are kept but not indexed: the emulator holds a file's text in memory. */
export const MAX_INDEXED_BYTES = 64 * 1024 * 1024;

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
  } catch (error) {
    return { ok: false, reason: `the ${extension || 'file'} filter failed: ${(error as Error).message}` };
  }
}

async function pdfText(bytes: Buffer): Promise<FilterResult> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { text } = await extractText(pdf, { mergePages: true });
  if (!text.trim()) return { ok: false, reason: 'the PDF has no extractable text (scanned images are not read)' };
  return { ok: true, text, filter: 'pdf' };
}

async function docxText(bytes: Buffer): Promise<FilterResult> {
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
