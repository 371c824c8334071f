// How a FileInfo is described to people: status icon, size, date. No `vscode` import, so
// the formatting is unit-tested under plain mocha.
import * as l10n from '@vscode/l10n';
import { FINAL_FILE_STATUSES, type DoChunking, type FileInfo } from '../../api/types';
import { formatBytes } from '../../common/core/byteSize';
import { markdownCode, markdownText, shownInMessage, shownInput } from '../../common/core/untrustedText';

/**
 * What a file's state means to people (D24): `na` is read with the processing the file was
 * uploaded with (`mode`: echoed by the server or remembered from the upload). Store only
 * and Chunk only end `na` by choice, shown neutrally; a file sent to be indexed that ends
 * `na` failed, shown as a warning with the service's reason; with no mode known, `na` is
 * only "not indexed", claiming neither.
 */
export interface FileState {
  kind: 'done' | 'processing' | 'storedOnly' | 'chunkedOnly' | 'failed' | 'notIndexed' | 'unknown';
  /** Short text for the row's description ("stored, not indexed", "failed: no text found"). */
  text: string;
  /** Codicon id. */
  icon: string;
  /** Drawn in the theme's warning colour. */
  warning: boolean;
  /** The full sentence for the tooltip. */
  explanation?: string;
}

/** A failure reason longer than this is cut in the row (the tooltip has it whole). */
const REASON_IN_ROW = 60;
/**
 * What the service sent is shown at most this long: a status in the row, a name in the row
 * (255, the longest file name most file systems allow), any field in the tooltip.
 */
const STATUS_IN_ROW = 40;
const NAME_IN_ROW = 255;
const FIELD_IN_TOOLTIP = 1000;

export function fileState(file: FileInfo, mode: DoChunking | undefined = file.doChunking): FileState {
  const status = file.status;
  if (status === 'done') return { kind: 'done', text: 'done', icon: 'check', warning: false };
  if (status === 'na') {
    if (mode === 0)
      return {
        kind: 'storedOnly',
        text: l10n.t('stored, not indexed'),
        icon: 'archive',
        warning: false,
        explanation: l10n.t('Stored as is ("Store only"): kept in the volume, not searchable by the agent.'),
      };
    if (mode === 2)
      return {
        kind: 'chunkedOnly',
        text: l10n.t('chunked, not indexed'),
        icon: 'archive',
        warning: false,
        explanation: l10n.t('Split into chunks without vectors ("Chunk only"): kept, not searchable by the agent.'),
      };
    if (mode === 1) {
      // The server's words: `(?<!\.)` starts a match only at the first of the final dots (`/\.+$/` re-read a run of dots from each: quadratic).
      const detail = file.statusDetail?.trim().replace(/(?<!\.)\.+$/, '');
      const reason = detail ? shownInput(detail, FIELD_IN_TOOLTIP) : l10n.t('the service gave no reason');
      const short = reason.length > REASON_IN_ROW ? `${reason.slice(0, REASON_IN_ROW - 1)}…` : reason;
      return {
        kind: 'failed',
        text: l10n.t('failed: {0}', short),
        icon: 'warning',
        warning: true,
        explanation: l10n.t('Processing failed: {0}. The file is stored but not searchable; fix it and upload it again.', reason),
      };
    }
    return {
      kind: 'notIndexed',
      text: l10n.t('not indexed'),
      icon: 'circle-slash',
      warning: false,
      explanation: l10n.t('Not searchable. Uploaded from elsewhere, so whether it was stored only by choice or failed processing is not known.'),
    };
  }
  if (FINAL_FILE_STATUSES.has(status)) return { kind: 'unknown', text: status, icon: 'circle-filled', warning: false };
  if (['uploaded', 'waiting', 'chunking', 'embedding', 'indexing'].includes(status)) return { kind: 'processing', text: status, icon: 'sync~spin', warning: false };
  // A state this version does not know is the service's own word: escaped and bounded.
  return { kind: 'unknown', text: shownInput(status, STATUS_IN_ROW), icon: 'question', warning: false };
}

/** Codicon id for a file's processing state (D9); `na` as read by `fileState`. */
export function statusIconId(status: string, mode?: DoChunking): string {
  if (status === 'done') return 'check';
  if (status === 'na') return fileState({ uuid: '', filename: '', status, filesize: 0, date: '', isdir: 0 }, mode).icon;
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

/**
 * A file row's label: the name as the service sent it (anyone who can upload to a shared
 * volume chose it), its control and bidi characters escaped (`invoice\u202egpj.exe` cannot
 * show as `invoiceexe.jpg`) and a megabyte name cut.
 */
export function fileRowLabel(file: FileInfo): string {
  return shownInput(file.filename, NAME_IN_ROW);
}

/** "embedding · 1.2 MB", "stored, not indexed · 3 KB" */
export function fileDescription(file: FileInfo, mode?: DoChunking): string {
  return file.isdir ? 'folder' : `${fileState(file, mode ?? file.doChunking).text} · ${formatBytes(file.filesize)}`;
}

/**
 * What a screen reader says for a file row (the item's accessibilityInformation): the name, then
 * its status and size in words, since a description alone is read as an unlabelled tail.
 */
export function fileAccessibleLabel(file: FileInfo, mode?: DoChunking): string {
  const name = fileRowLabel(file);
  if (file.isdir) return l10n.t('{0}, folder', name);
  const state = fileState(file, mode ?? file.doChunking);
  return state.warning
    ? l10n.t('{0}, status {1} (needs attention), size {2}', name, state.text, formatBytes(file.filesize))
    : l10n.t('{0}, status {1}, size {2}', name, state.text, formatBytes(file.filesize));
}

/** The same for a volume row: its name, the folder it is synced with, and its summary (files, size, processing). */
export function volumeAccessibleLabel(label: string, personal: boolean, summary: string | undefined, syncedWith?: string): string {
  return [personal ? l10n.t('{0}, personal volume', label) : l10n.t('{0}, volume', label), syncedWith ? l10n.t('synced with folder {0}', syncedWith) : '', summary ?? ''].filter(Boolean).join(', ');
}

/**
 * Markdown lines of the tooltip; the adapter wraps them in a MarkdownString. Every field the
 * service sent (name, id, status, date, detail) and the volume name from settings is bounded
 * and escaped (markdownText, markdownCode): none can end its line, start a link or an image,
 * or forge another field.
 */
export function fileTooltipMarkdown(file: FileInfo, volume: string, locale?: string, mode?: DoChunking): string {
  const state = fileState(file, mode ?? file.doChunking);
  const date = parseServiceDate(file.date);
  const when = date ? date.toLocaleString(locale) : markdownText(shownInput(file.date, STATUS_IN_ROW)) || 'unknown';
  const status = markdownCode(shownInput(file.status, STATUS_IN_ROW));
  const lines = [
    `**${markdownText(shownInput(file.filename, FIELD_IN_TOOLTIP))}**`,
    '',
    `- Volume: \`${markdownCode(shownInput(volume, FIELD_IN_TOOLTIP))}\``,
    `- ID: \`${markdownCode(shownInput(file.uuid, FIELD_IN_TOOLTIP))}\``,
    `- Status: ${state.kind === 'done' || state.kind === 'processing' || state.kind === 'unknown' ? markdownText(state.text) : `${markdownText(state.text)} (\`${status}\`)`}`,
    `- Size: ${file.filesize.toLocaleString(locale)} bytes`,
    `- Uploaded: ${when}`,
  ];
  if (state.explanation) lines.push('', markdownText(state.explanation));
  // A failure's explanation already quotes the service's detail.
  if (file.statusDetail && state.kind !== 'failed') lines.push('', markdownText(shownInput(file.statusDetail, FIELD_IN_TOOLTIP)));
  return lines.join('\n');
}

export type FileSortOrder = 'upload' | 'name' | 'date' | 'size';

/** The sort orders with their texts, built when asked for (after the l10n bundle is configured). */
export const fileSortOrders = (): ReadonlyArray<{ order: FileSortOrder; label: string; detail: string }> => [
  { order: 'upload', label: l10n.t('Upload order'), detail: l10n.t('As the service lists them, oldest first') },
  { order: 'name', label: l10n.t('Name'), detail: l10n.t('A to Z') },
  { order: 'date', label: l10n.t('Date'), detail: l10n.t('Newest first') },
  { order: 'size', label: l10n.t('Size'), detail: l10n.t('Largest first') },
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

/**
 * What a reveal says when it cannot show the file. The volume and the id come from where the
 * reveal was asked (a citation the service sent, a command link's arguments), so both are
 * quoted as text: this is a notification, where `[..](command:..)` is a link that runs a command.
 */
export function revealFailureMessage(problem: 'volumeNotShown' | 'fileNotFound', volumeName: string, fileId: string): string {
  const volume = shownInMessage(shownInput(volumeName, 130));
  return problem === 'volumeNotShown'
    ? l10n.t('Volume "{0}" is not in the Volumes view. Add it with "Add Volume…" to browse it.', volume)
    : l10n.t('File {0} was not found in {1} (it may have been deleted).', shownInMessage(shownInput(fileId, 80)), volume);
}

/**
 * A tree row's id: its kind and its parts, each encoded, so no two rows share one. A volume
 * name comes from settings and a file id from the service; joined raw, volume `a:b` with file
 * `c` and volume `a` with file `b:c` were one id, and VS Code refuses a tree whose rows share
 * an id (the whole volume would not show).
 */
export function treeRowId(kind: 'volume' | 'file' | 'more' | 'search' | 'message', ...parts: string[]): string {
  return [kind, ...parts.map(encodeURIComponent)].join(':');
}
