// The volumes a user works with, in one place for every front end: the name rules of D5,
// the shown list ("My files" = the personal volume `{<user_id>}`, then the named volumes of
// `ksm.volumes.list`), how each is labelled, and where "Add Volume…" writes the list. The
// Volumes tree and the upload target picker both read it, so they cannot disagree.
// Shared (src/common/core) because more than one feature needs it; no `vscode` import.
import * as l10n from '@vscode/l10n';

const NAMED_VOLUME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const PERSONAL_VOLUME = /^\{[A-Za-z0-9._@-]{1,128}\}$/;

/** An error message for the input box, or undefined when the name is valid (D5). */
export function volumeNameProblem(name: string, existing: readonly string[] = []): string | undefined {
  const trimmed = name.trim();
  if (!trimmed) return l10n.t('Enter a volume name.');
  if (PERSONAL_VOLUME.test(trimmed)) return l10n.t('Personal volumes are shown as "{0}" (set ksm.userId); add named volumes here.', personalVolumeLabel());
  if (trimmed.length > 128) return l10n.t('A volume name has at most 128 characters.');
  if (!NAMED_VOLUME.test(trimmed)) {
    return l10n.t('Use letters, digits, ".", "_" and "-", starting with a letter or digit.');
  }
  if (existing.includes(trimmed)) return l10n.t('"{0}" is already in the view.', trimmed);
  return undefined;
}

export function isPersonalVolumeName(name: string): boolean {
  return PERSONAL_VOLUME.test(name);
}

/** The personal volume of a user id: `{<user_id>}` (D5), or undefined when no user id is set. */
export function personalVolumeName(userId: string): string | undefined {
  const id = userId.trim();
  return id ? `{${id}}` : undefined;
}

/**
 * Where "Add Volume…" writes `ksm.volumes.list`, and the list it writes. VS Code does not
 * merge arrays across scopes (a workspace value replaces the user value), so a workspace
 * that has its own list gets the name there (anywhere else it would not show). Otherwise it
 * goes into the user's settings: adding a volume never creates a `.vscode/settings.json`
 * in the user's project (a team shares a list by putting it there themselves).
 */
export function volumeListAddition(values: { workspaceValue?: unknown; globalValue?: unknown }, workspaceOpen: boolean, name: string): { scope: 'workspace' | 'global'; list: string[] } {
  const add = (list: unknown[]) => [...list.filter((v): v is string => typeof v === 'string' && v !== name), name];
  if (workspaceOpen && Array.isArray(values.workspaceValue)) return { scope: 'workspace', list: add(values.workspaceValue) };
  return { scope: 'global', list: add(Array.isArray(values.globalValue) ? values.globalValue : []) };
}

/**
 * Where Remove Volume takes `name` out of `ksm.volumes.list`: every scope whose list has it,
 * so it leaves the view; but in Restricted Mode (`workspaceTrusted` false) the workspace's
 * lists are not read, so they are not written either: removing a volume never edits an
 * untrusted repository's `.vscode/settings.json`.
 */
export function volumeListRemovals(
  values: { workspaceFolderValue?: unknown; workspaceValue?: unknown; globalValue?: unknown },
  workspaceTrusted: boolean,
  name: string,
): Array<{ scope: 'workspaceFolder' | 'workspace' | 'global'; list: unknown[] }> {
  const scopes = [
    ['workspaceFolder', workspaceTrusted ? values.workspaceFolderValue : undefined],
    ['workspace', workspaceTrusted ? values.workspaceValue : undefined],
    ['global', values.globalValue],
  ] as const;
  return scopes.flatMap(([scope, list]) => (Array.isArray(list) && list.includes(name) ? [{ scope, list: list.filter((v) => v !== name) }] : []));
}

/** A volume as the view and the pickers show it. */
export interface VolumeTarget {
  volume: string;
  personal: boolean;
}

/**
 * The personal volume's name in the tools' input (`{"volume": "My files"}`): English, as the
 * tools' schemas say; the tools accept the translated label too.
 */
export const PERSONAL_VOLUME_LABEL = 'My files';

/** The label of the personal volume wherever a volume is shown (translated). */
export function personalVolumeLabel(): string {
  return l10n.t('My files');
}

/** The personal volume first (when a user id is set), then the named volumes in settings order. */
export function shownVolumes(personal: string | undefined, named: readonly string[]): VolumeTarget[] {
  return [...(personal ? [{ volume: personal, personal: true }] : []), ...named.filter((v) => v !== personal).map((volume) => ({ volume, personal: false }))];
}

/** How a volume name the service sent (a citation's, a listing's) is shown: "My files" for any personal volume `{…}`. */
export function servedVolumeLabel(volume: string): string {
  return isPersonalVolumeName(volume) ? personalVolumeLabel() : volume;
}

/** What a volume is called in the tree and in pickers. */
export function volumeLabel(target: VolumeTarget): string {
  return target.personal ? personalVolumeLabel() : target.volume;
}

/**
 * How messages name a volume: "My files" for the user's own personal volume (`personal`,
 * from ksm.userId), the name otherwise. Every notification, title and dialog goes through
 * this, so no raw `{user}` id reaches a sentence.
 */
export function volumeDisplayName(volume: string, personal: string | undefined): string {
  return volume === personal ? personalVolumeLabel() : volume;
}

/** The codicon id of a volume: `account` for the personal one, `database` for named ones. */
export function volumeCodicon(target: VolumeTarget): 'account' | 'database' {
  return target.personal ? 'account' : 'database';
}
