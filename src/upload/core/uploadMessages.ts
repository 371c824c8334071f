// The words of an upload, without `vscode`, so their rules are unit-tested: the duplicate
// question's choices (safe one first), what a selection of only skipped files says, and the
// summary line. Volumes are named as people see them ("My files", volumeTargets.ts).
import * as l10n from '@vscode/l10n';
import type { SkippedFile } from '../../common/core/folderExpansion';
import type { DuplicateChoice, DuplicateQuestion } from './duplicatePlanning';
import type { FileOutcome, UploadSummary } from './uploadRun';
import { shownInMessage, shownInput, shownWithIcons } from '../../common/core/untrustedText';

/**
 * A file's name inside a notification: the workspace's names are a cloned repository's, and a
 * notification makes `[..](command:..)` a link that runs a command; escaped and bounded.
 */
const quotedName = (name: string): string => shownInMessage(shownInput(name, 120));

export interface DuplicateOption {
  choice: DuplicateChoice;
  applyToAll: boolean;
  label: string;
  detail: string;
}

/**
 * What the duplicate question offers, in order: the first is the default (Enter), so it is
 * the safe Skip, never the destructive Replace. With more clashes to come the same three
 * choices follow once more for "this and every remaining clash".
 */
export function duplicateOptions(question: DuplicateQuestion, volumeName: string): DuplicateOption[] {
  // A quick pick draws `$(icon)` in its rows: the workspace's file name and the volume's are text (shownWithIcons).
  const volume = shownWithIcons(volumeName);
  const filename = shownWithIcons(question.filename);
  const one = (applyToAll: boolean): DuplicateOption[] => [
    {
      choice: 'skip',
      applyToAll,
      label: applyToAll ? l10n.t('Skip All') : l10n.t('Skip'),
      detail: applyToAll ? l10n.t('Upload none of the {0} clashing files', question.remaining) : l10n.t('Leave "{0}" in {1} as it is; do not upload this file', filename, volume),
    },
    {
      choice: 'keepBoth',
      applyToAll,
      label: applyToAll ? l10n.t('Keep Both for All') : l10n.t('Keep Both'),
      detail: applyToAll ? l10n.t('Upload every clashing file under a free name like "name (2).ext"') : l10n.t('Upload this file as "{0}"', shownWithIcons(question.keepBothName)),
    },
    {
      choice: 'replace',
      applyToAll,
      label: applyToAll ? l10n.t('Replace All') : l10n.t('Replace'),
      detail: applyToAll
        ? l10n.t('Upload every clashing file, then delete the older copies in {0} once the new ones are processed', volume)
        : question.existing.length > 1
          ? l10n.t('Upload, then delete the older copies ({0}) once the new one is processed', question.existing.length)
          : l10n.t('Upload, then delete the older copy once the new one is processed'),
    },
  ];
  return question.remaining > 1 ? [...one(false), ...one(true)] : one(false);
}

/** The duplicate question's title, naming the volume. */
export function duplicateTitle(question: DuplicateQuestion, volumeName: string): string {
  const [filename, volume] = [shownWithIcons(question.filename), shownWithIcons(volumeName)];
  return question.existing.length > 1 ? l10n.t('"{0}" is already in {1} ({2} copies)', filename, volume, question.existing.length) : l10n.t('"{0}" is already in {1}', filename, volume);
}

/**
 * The warning for a selection in which nothing can be uploaded, with each reason: named
 * per file for a few files, counted per reason for many.
 */
export function nothingToUploadMessage(skipped: readonly SkippedFile[]): string {
  if (skipped.length === 0) return l10n.t('Nothing to upload: the selection holds no files.');
  const head = skipped.length === 1 ? l10n.t('Nothing to upload: the file was skipped') : l10n.t('Nothing to upload: all {0} files were skipped', skipped.length);
  if (skipped.length <= 3) return `${head}. ${skipped.map((s) => `${quotedName(baseName(s.path))}: ${s.reason}`).join('; ')}.`;
  const byReason = new Map<string, number>();
  for (const s of skipped) byReason.set(s.reason, (byReason.get(s.reason) ?? 0) + 1);
  return `${head}. ${[...byReason].map(([reason, n]) => `${n} × ${reason}`).join('; ')}.`;
}

/** "12 uploaded, 2 failed — My files" */
/** The start of the reason a file is skipped when this workspace already uploaded the very same bytes. */
export const identicalReason = (): string => l10n.t('already there, identical');

/** True when nothing was sent because every file was already there, identical (said as good news, not a warning). */
export function allIdentical(summary: UploadSummary): boolean {
  const considered = notExcluded(summary);
  return considered.length > 0 && considered.every((r) => r.outcome === 'skipped' && r.reason.startsWith(identicalReason()));
}

/** The outcomes of the files the selection contributes: not those its own rules left out (a folder's `.gitignore`, its excluded files). */
function notExcluded(summary: UploadSummary): FileOutcome[] {
  return summary.results.filter((r) => r.outcome === 'uploaded' || !r.excluded);
}

export function summaryLine(summary: UploadSummary, volume: string): string {
  if (allIdentical(summary)) {
    const considered = notExcluded(summary);
    return considered.length === 1
      ? l10n.t('"{0}" is already in {1}, identical: nothing to upload.', quotedName(considered[0].filename), volume)
      : l10n.t('All {0} files are already in {1}, identical: nothing to upload.', considered.length, volume);
  }
  const identical = summary.results.filter((r) => r.outcome === 'skipped' && r.reason.startsWith(identicalReason())).length;
  const parts = [l10n.t('{0} uploaded', summary.uploaded)];
  if (identical) parts.push(l10n.t('{0} already there, identical', identical));
  if (summary.failed) parts.push(l10n.t('{0} failed', summary.failed));
  if (summary.skipped - identical) parts.push(l10n.t('{0} skipped', summary.skipped - identical));
  if (summary.cancelled) parts.push(l10n.t('{0} not sent (cancelled)', summary.cancelled));
  const replacing = summary.replacements.length;
  if (replacing) parts.push(replacing === 1 ? l10n.t('1 replaces an older copy once processed') : l10n.t('{0} replace an older copy once processed', replacing));
  return `${parts.join(', ')} — ${volume}`;
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
