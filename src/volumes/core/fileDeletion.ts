// Deleting selected files, possibly from several volumes, with one outcome per file:
// deleted, already gone (D11 `not_found`), or failed with the reason. No `vscode` import.
import * as l10n from '@vscode/l10n';
import { NotFoundError } from '../../api/errors';
import type { KsmService } from '../../api/service';
import { messageWithFix } from '../../common/core/errorFixes';
import { shownInMessage, shownInput } from '../../common/core/untrustedText';

export interface FileToDelete {
  volume: string;
  uuid: string;
  filename: string;
}

export type DeleteOutcome = FileToDelete & ({ outcome: 'deleted' | 'already gone' } | { outcome: 'failed'; reason: string });

export async function deleteSelectedFiles(service: KsmService, files: readonly FileToDelete[], signal?: AbortSignal): Promise<DeleteOutcome[]> {
  const byVolume = new Map<string, FileToDelete[]>();
  for (const file of files) byVolume.set(file.volume, [...(byVolume.get(file.volume) ?? []), file]);
  const outcomes: DeleteOutcome[] = [];
  // One request per volume, one after another: deletes are never retried automatically (D3).
  for (const [volume, group] of byVolume) {
    const uuids = [...new Set(group.map((f) => f.uuid))];
    try {
      const result = await service.deleteFiles({ volume, uuids }, { signal });
      const deleted = new Set(result.deleted);
      const gone = new Set(result.notFound);
      for (const file of group) {
        if (deleted.has(file.uuid)) outcomes.push({ ...file, outcome: 'deleted' });
        else if (gone.has(file.uuid)) outcomes.push({ ...file, outcome: 'already gone' });
        else outcomes.push({ ...file, outcome: 'failed', reason: l10n.t('the service did not confirm the delete') });
      }
    } catch (error) {
      // D11: when none of the ids exists the answer is 404 (D6: so is a volume never
      // written); either way, for the user the files are gone.
      if (error instanceof NotFoundError) {
        for (const file of group) outcomes.push({ ...file, outcome: 'already gone' });
        continue;
      }
      // One line, as a notification shows it (the service's words made inert there).
      const reason = messageWithFix(error);
      for (const file of group) outcomes.push({ ...file, outcome: 'failed', reason });
    }
  }
  return outcomes;
}

/** Longest file name a message quotes whole (a confirmation names each file it deletes). */
const NAME_IN_MESSAGE = 120;

/**
 * "a.txt", "a.txt, b.md and c.pdf", "a.txt, b.md, c.pdf and 7 more". The names are the
 * service's (anyone who can upload to a shared volume chose them), and these lines go to a
 * notification or the delete confirmation: each is bounded, its control and bidi characters
 * escaped and `[label](command:…)` kept as text (shownInMessage).
 */
export function describeFileList(names: readonly string[], shown = 3): string {
  const quoted = names.map((n) => `"${shownInMessage(shownInput(n, NAME_IN_MESSAGE))}"`);
  if (quoted.length <= shown) return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
  return `${quoted.slice(0, shown).join(', ')} and ${quoted.length - shown} more`;
}

/**
 * The delete confirmation's question: the files by their names as the service has them
 * (describeFileList: escaped, invisible characters shown, bounded) and the volume or volumes
 * they leave (`volumeName`: "My files" for the user's own), so "notes.md" of a shared volume
 * is not taken for the one in My files.
 */
export function deleteQuestion(files: readonly FileToDelete[], volumeName: (volume: string) => string): string {
  const names = describeFileList(files.map((f) => f.filename));
  const volumes = [...new Set(files.map((f) => f.volume))].map((v) => `'${shownInMessage(shownInput(volumeName(v), NAME_IN_MESSAGE))}'`);
  if (files.length === 1) return l10n.t('Delete {0} from {1}?', names, volumes[0]!);
  if (volumes.length === 1) return l10n.t('Delete {0} files from {1}: {2}?', files.length, volumes[0]!, names);
  return l10n.t('Delete {0} files from {1} volumes ({2}): {3}?', files.length, volumes.length, volumes.join(', '), names);
}
