// Values kept in VS Code's storage (globalState, workspaceState) as a later version of the
// extension may have written them (docs/architecture.md, "Stored state across versions"): what
// this version understands is read, everything else is written back unchanged, and a value of
// a shape this version does not know at all is left as it is, never written over. One reading
// for every store that keeps a list or a map (recent volumes and models, remembered processing,
// uploaded contents, processing modes, approved pairings). No `vscode` import.

/** A stored list split into the entries this version reads (in order) and the others (as stored). */
export interface StoredList<T> {
  known: T[];
  unknown: unknown[];
}

/**
 * A stored list: nothing stored is an empty one; undefined when the value is not a list (a later
 * version's new shape), which the caller then leaves as it is.
 */
export function storedList<T>(stored: unknown, isKnown: (entry: unknown) => entry is T): StoredList<T> | undefined {
  if (stored === undefined || stored === null) return { known: [], unknown: [] };
  if (!Array.isArray(stored)) return undefined;
  const list: StoredList<T> = { known: [], unknown: [] };
  for (const entry of stored as unknown[]) (isKnown(entry) ? list.known : list.unknown).push(entry);
  return list;
}

/**
 * A most-recent-first list after `value` was used: it first, each known entry once, at most
 * `kept` known entries, then the entries this version does not read, unchanged. Undefined when
 * the stored value is not a list: it is left as it is (the use is then not remembered).
 */
export function withRecent<T>(stored: unknown, value: T, kept: number, isKnown: (entry: unknown) => entry is T): unknown[] | undefined {
  const list = storedList(stored, isKnown);
  if (!list) return undefined;
  return [...[value, ...list.known.filter((v) => v !== value)].slice(0, kept), ...list.unknown];
}

/** A stored list of strings with each of `added` in it once (appended), every other entry unchanged; undefined when it is not a list (left as it is). */
export function withStrings(stored: unknown, added: readonly string[]): unknown[] | undefined {
  if (stored !== undefined && stored !== null && !Array.isArray(stored)) return undefined;
  const next: unknown[] = [...((stored as unknown[] | null | undefined) ?? [])];
  for (const value of added) if (!next.includes(value)) next.push(value);
  return next;
}

/** A stored map (a plain object), or undefined when the value is something else (left as it is); nothing stored is an empty one. */
export function storedRecord(stored: unknown): Record<string, unknown> | undefined {
  if (stored === undefined || stored === null) return {};
  return typeof stored === 'object' && !Array.isArray(stored) ? (stored as Record<string, unknown>) : undefined;
}

export function isString(value: unknown): value is string {
  return typeof value === 'string';
}
