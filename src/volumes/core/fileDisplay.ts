// How a FileInfo is described to people: status icon, size, date. No `vscode` import, so
// the formatting is unit-tested under plain mocha.
import { FINAL_FILE_STATUSES, type FileInfo } from '../../api/types';
import { formatBytes } from '../../common/core/byteSize';

/** Codicon id for a file's processing state (D9). */
export function statusIconId(status: string): string {
  if (status === 'done') return 'check';
  if (status === 'na') return 'warning';
  if (FINAL_FILE_STATUSES.has(status)) return 'circle-filled';
  if (['uploaded', 'waiting', 'chunking', 'embedding', 'indexing'].includes(status)) return 'sync~spin';
  return 'question';
}

export function isFinalStatus(status: string): boolean {
  return FINAL_FILE_STATUSES.has(status);
}

/** Parses the 14-digit UTC `yyyyMMddHHmmss` (D8); undefined when it is not that shape. */
export function parseServiceDate(value: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number);
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
  return Number.isNaN(date.getTime()) || date.getUTCMonth() !== mo! - 1 ? undefined : date;
}

/** "embedding · 1.2 MB" */
export function fileDescription(file: FileInfo): string {
  return file.isdir ? 'folder' : `${file.status} · ${formatBytes(file.filesize)}`;
}

/** Markdown lines of the tooltip; the adapter wraps them in a MarkdownString. */
export function fileTooltipMarkdown(file: FileInfo, volume: string, locale?: string): string {
  const date = parseServiceDate(file.date);
  const when = date ? date.toLocaleString(locale) : file.date || 'unknown';
  const lines = [
    `**${escapeMarkdown(file.filename)}**`,
    '',
    `- Volume: \`${volume}\``,
    `- ID: \`${file.uuid}\``,
    `- Status: ${file.status}`,
    `- Size: ${file.filesize.toLocaleString(locale)} bytes`,
    `- Uploaded: ${when}`,
  ];
  if (file.statusDetail) lines.push('', escapeMarkdown(file.statusDetail));
  return lines.join('\n');
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

export type FileSortOrder = 'upload' | 'name' | 'date' | 'size';

export const FILE_SORT_ORDERS: ReadonlyArray<{ order: FileSortOrder; label: string; detail: string }> = [
  { order: 'upload', label: 'Upload order', detail: 'As the service lists them, oldest first' },
  { order: 'name', label: 'Name', detail: 'A to Z' },
  { order: 'date', label: 'Date', detail: 'Newest first' },
  { order: 'size', label: 'Size', detail: 'Largest first' },
];

/** Sorts what is loaded (the service sorts nothing); returns a new array. */
export function sortFiles(files: readonly FileInfo[], order: FileSortOrder): FileInfo[] {
  const copy = [...files];
  if (order === 'name') copy.sort((a, b) => a.filename.localeCompare(b.filename, undefined, { numeric: true, sensitivity: 'base' }));
  // Dates are fixed-width digit strings, so comparing them as strings orders them in time.
  else if (order === 'date') copy.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  else if (order === 'size') copy.sort((a, b) => b.filesize - a.filesize);
  return copy;
}
