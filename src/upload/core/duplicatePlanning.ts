// What to do with files whose name already exists in the target volume (D7: names may
// repeat; the extension asks). "Replace" uploads the new file and then deletes the old
// one(s), so a failed upload loses nothing; "Keep both" uploads as `name (2).ext`.
// No `vscode` import: the question is asked through the injected `decide`.
import { storedFileName } from '../../api/multipart';
import type { FileInfo, UploadSource } from '../../api/types';
import type { SelectedFile, SkippedFile } from '../../common/core/folderExpansion';
import { basename, extname } from 'node:path';
import * as l10n from '@vscode/l10n';
import { identicalReason } from './uploadMessages';

export type DuplicateChoice = 'replace' | 'keepBoth' | 'skip';

export interface DuplicateQuestion {
  filename: string;
  /** The name "Keep both" would upload under (`name (2).ext`, the first free one). */
  keepBothName: string;
  /** Files of the volume with that name. */
  existing: FileInfo[];
  /** How many conflicts remain including this one (for "apply to all"). */
  remaining: number;
}

/** `undefined` answer = the user cancelled the whole upload. */
export type DuplicateDecider = (question: DuplicateQuestion) => Promise<{ choice: DuplicateChoice; applyToAll: boolean } | undefined>;

export interface PlannedUpload {
  source: UploadSource & { filename: string };
  size: number;
  displayPath: string;
  /** Files to delete once this one is uploaded ("replace"). */
  replaces: FileInfo[];
}

export interface UploadPlan {
  uploads: PlannedUpload[];
  skipped: SkippedFile[];
}

export class UploadCancelledByUser extends Error {
  constructor() {
    super('Upload cancelled.');
    this.name = 'AbortError';
  }
}

/**
 * Tells whether `file` is byte for byte a copy in `clash` that this workspace uploaded (the
 * extension remembers what it uploaded: uploadedContents.ts). Such a file is skipped without
 * a question.
 */
export type IdenticalCheck = (file: SelectedFile, clash: readonly FileInfo[]) => Promise<boolean>;

export async function planUploads(files: SelectedFile[], existing: Iterable<FileInfo>, decide: DuplicateDecider, isIdentical?: IdenticalCheck): Promise<UploadPlan> {
  const byName = new Map<string, FileInfo[]>();
  for (const info of existing) {
    const list = byName.get(info.filename);
    if (list) list.push(info);
    else byName.set(info.filename, [info]);
  }
  const taken = new Set(byName.keys());
  const plannedNames = new Set<string>();
  // A clash with this workspace's own upload of the very same bytes is no question: "already there, identical".
  const identical = new Set<SelectedFile>();
  if (isIdentical) {
    for (const file of files) {
      const clash = byName.get(nameOf(file));
      if (clash && (await isIdentical(file, clash))) identical.add(file);
    }
  }
  // Names are compared as the service stores them (D7), not as the local file system spells them.
  const conflicts = files.filter((f) => byName.has(nameOf(f)) && !identical.has(f)).length;
  let answered = 0;
  let sticky: DuplicateChoice | undefined;
  const uploads: PlannedUpload[] = [];
  const skipped: SkippedFile[] = [];

  for (const file of files) {
    const name = nameOf(file);
    let filename = name;
    let replaces: FileInfo[] = [];
    const clash = byName.get(name);
    if (identical.has(file)) {
      skipped.push({ path: file.path, reason: l10n.t('{0}: "{1}" in the volume is the copy uploaded from this workspace, unchanged', identicalReason(), name) });
      continue;
    }
    if (clash && !plannedNames.has(name)) {
      let choice = sticky;
      if (!choice) {
        const answer = await decide({ filename: name, keepBothName: freeName(name, taken, plannedNames), existing: clash, remaining: conflicts - answered });
        if (!answer) throw new UploadCancelledByUser();
        choice = answer.choice;
        if (answer.applyToAll) sticky = choice;
      }
      answered++;
      if (choice === 'skip') {
        skipped.push({ path: file.path, reason: l10n.t('"{0}" already exists in the volume', name) });
        continue;
      }
      if (choice === 'replace') replaces = clash;
      else filename = freeName(name, taken, plannedNames);
    } else if (plannedNames.has(name)) {
      // Two selected files share a base name (from different folders): both are kept.
      filename = freeName(name, taken, plannedNames);
    }
    plannedNames.add(filename);
    uploads.push({ source: { path: file.path, filename, content: file.content, identity: file.identity }, size: file.size, displayPath: file.displayPath, replaces });
  }
  return { uploads, skipped };
}

/** The name the service will store `file` under (D7, D24), as volumes list it. */
function nameOf(file: SelectedFile): string {
  return storedFileName(file.volumeName ?? basename(file.path));
}

/** `report.pdf` → `report (2).pdf`, `report (3).pdf`… the first not taken. */
export function freeName(name: string, ...taken: ReadonlySet<string>[]): string {
  const extension = name.startsWith('.') && extname(name) === name ? '' : extname(name);
  const stem = extension ? name.slice(0, -extension.length) : name;
  for (let n = 2; ; n++) {
    const candidate = `${stem} (${n})${extension}`;
    if (!taken.some((set) => set.has(candidate))) return candidate;
  }
}
