// Volume names as D5 defines them. No `vscode` import.

const NAMED_VOLUME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const PERSONAL_VOLUME = /^\{[A-Za-z0-9._@-]{1,128}\}$/;

/** An error message for the input box, or undefined when the name is valid (D5). */
export function volumeNameProblem(name: string, existing: readonly string[] = []): string | undefined {
  const trimmed = name.trim();
  if (!trimmed) return 'Enter a volume name.';
  if (PERSONAL_VOLUME.test(trimmed)) return 'Personal volumes are shown as "My files" (set ksm.userId); add named volumes here.';
  if (trimmed.length > 128) return 'A volume name has at most 128 characters.';
  if (!NAMED_VOLUME.test(trimmed)) {
    return 'Use letters, digits, ".", "_" and "-", starting with a letter or digit.';
  }
  if (existing.includes(trimmed)) return `"${trimmed}" is already in the view.`;
  return undefined;
}

export function isPersonalVolumeName(name: string): boolean {
  return PERSONAL_VOLUME.test(name);
}

/**
 * Where "Add Volume…" writes `ksm.volumes.list`, and the list it writes. VS Code does not
 * merge arrays across scopes (a workspace value replaces the user value), so writing a
 * one-name list into a workspace that had none would hide every volume of the user's list.
 * The name goes into the list the view shows, in the scope it comes from; with no list
 * anywhere, into the workspace when one is open (shared with the team), else the user's.
 */
export function volumeListAddition(
  values: { workspaceValue?: unknown; globalValue?: unknown },
  workspaceOpen: boolean,
  name: string,
): { scope: 'workspace' | 'global'; list: string[] } {
  const add = (list: unknown[]) => [...list.filter((v): v is string => typeof v === 'string' && v !== name), name];
  if (workspaceOpen && Array.isArray(values.workspaceValue)) return { scope: 'workspace', list: add(values.workspaceValue) };
  if (Array.isArray(values.globalValue)) return { scope: 'global', list: add(values.globalValue) };
  return { scope: workspaceOpen ? 'workspace' : 'global', list: [name] };
}
