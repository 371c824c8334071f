// The words of an upload, without `vscode`, so their rules are unit-tested: the duplicate
// question's choices (safe one first), what a selection of only skipped files says, and the
// summary line. Volumes are named as people see them ("My files", volumeTargets.ts).
import type { SkippedFile } from '../../common/core/folderExpansion';
import type { DuplicateChoice, DuplicateQuestion } from './duplicatePlanning';
import type { UploadSummary } from './uploadRun';

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
export function duplicateOptions(question: DuplicateQuestion, volume: string): DuplicateOption[] {
  const one = (applyToAll: boolean): DuplicateOption[] => [
    {
      choice: 'skip',
      applyToAll,
      label: applyToAll ? 'Skip All' : 'Skip',
      detail: applyToAll ? `Upload none of the ${question.remaining} clashing files` : `Leave "${question.filename}" in ${volume} as it is; do not upload this file`,
    },
    {
      choice: 'keepBoth',
      applyToAll,
      label: applyToAll ? 'Keep Both for All' : 'Keep Both',
      detail: applyToAll ? 'Upload every clashing file under a free name like "name (2).ext"' : `Upload this file as "${question.keepBothName}"`,
    },
    {
      choice: 'replace',
      applyToAll,
      label: applyToAll ? 'Replace All' : 'Replace',
      detail: applyToAll
        ? `Upload every clashing file, then delete the older copies in ${volume} once the new ones are processed`
        : `Upload, then delete the older cop${question.existing.length > 1 ? `ies (${question.existing.length})` : 'y'} once the new one is processed`,
    },
  ];
  return question.remaining > 1 ? [...one(false), ...one(true)] : one(false);
}

/** The duplicate question's title, naming the volume. */
export function duplicateTitle(question: DuplicateQuestion, volume: string): string {
  const copies = question.existing.length > 1 ? ` (${question.existing.length} copies)` : '';
  return `"${question.filename}" is already in ${volume}${copies}`;
}

/**
 * The warning for a selection in which nothing can be uploaded, with each reason: named
 * per file for a few files, counted per reason for many.
 */
export function nothingToUploadMessage(skipped: readonly SkippedFile[]): string {
  if (skipped.length === 0) return 'Nothing to upload: the selection holds no files.';
  const head = `Nothing to upload: ${skipped.length === 1 ? 'the file was' : `all ${skipped.length} files were`} skipped`;
  if (skipped.length <= 3) return `${head}. ${skipped.map((s) => `${baseName(s.path)}: ${s.reason}`).join('; ')}.`;
  const byReason = new Map<string, number>();
  for (const s of skipped) byReason.set(s.reason, (byReason.get(s.reason) ?? 0) + 1);
  return `${head}. ${[...byReason].map(([reason, n]) => `${n} × ${reason}`).join('; ')}.`;
}

/** "12 uploaded, 2 failed — My files" */
/** The start of the reason a file is skipped when this workspace already uploaded the very same bytes. */
export const IDENTICAL_REASON = 'already there, identical';

/** True when nothing was sent because every file was already there, identical (said as good news, not a warning). */
export function allIdentical(summary: UploadSummary): boolean {
  return summary.results.length > 0 && summary.results.every((r) => r.outcome === 'skipped' && r.reason.startsWith(IDENTICAL_REASON));
}

export function summaryLine(summary: UploadSummary, volume: string): string {
  if (allIdentical(summary)) {
    const [only] = summary.results;
    return summary.results.length === 1
      ? `"${only.filename}" is already in ${volume}, identical: nothing to upload.`
      : `All ${summary.results.length} files are already in ${volume}, identical: nothing to upload.`;
  }
  const identical = summary.results.filter((r) => r.outcome === 'skipped' && r.reason.startsWith(IDENTICAL_REASON)).length;
  const parts = [`${summary.uploaded} uploaded`];
  if (identical) parts.push(`${identical} already there, identical`);
  if (summary.failed) parts.push(`${summary.failed} failed`);
  if (summary.skipped - identical) parts.push(`${summary.skipped - identical} skipped`);
  if (summary.cancelled) parts.push(`${summary.cancelled} not sent (cancelled)`);
  const replacing = summary.replacements.length;
  if (replacing) parts.push(`${replacing} replace${replacing === 1 ? 's' : ''} an older copy once processed`);
  return `${parts.join(', ')} — ${volume}`;
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
