// Several windows may share one chat store (two windows with no folder share the same
// workspace storage). A window saves what it changed since it last read the file, not its
// whole copy: a three-way merge of the copy the window last read (base), its copy now
// (local) and the file as it is now (disk). Turns merge by id; a turn or a field the window
// did not change keeps the disk's version, so a window never overwrites a newer revision
// another window wrote (a finished answer with a stale partial copy), and turns two
// windows added meanwhile are both kept. No `vscode` import.
import type { StoredConversation } from './conversationModel';
import type { Turn as TurnView } from './conversationModel';

/** Conversation fields merged one by one (turns are merged by id, `updatedAt` takes the later). */
const FIELDS = ['title', 'mode', 'model', 'agentId', 'threadId', 'enableThinking', 'parameters', 'pendingAttachments', 'pendingCode', 'contextVolumes', 'contextFiles', 'createdAt', 'schema'] as const;

/**
 * The conversation to write: the disk's version, with what this window changed since
 * `base` applied on top. `base` undefined means the window never read the file (it created
 * the conversation), so all of its turns are its own.
 */
export function mergeConversation(base: StoredConversation | undefined, local: StoredConversation, disk: StoredConversation | undefined): StoredConversation {
  if (!disk) return clone(local);
  const merged = clone(disk);
  const record = merged as unknown as Record<string, unknown>;
  for (const field of FIELDS) {
    const mine = (local as unknown as Record<string, unknown>)[field];
    const read = base ? (base as unknown as Record<string, unknown>)[field] : undefined;
    if (!base || !same(mine, read)) {
      if (mine === undefined) delete record[field];
      else record[field] = clone(mine);
    }
  }
  merged.updatedAt = Math.max(local.updatedAt, disk.updatedAt);
  merged.turns = mergeTurns(base?.turns ?? [], local.turns, disk.turns);
  return merged;
}

function mergeTurns(base: TurnView[], local: TurnView[], disk: TurnView[]): TurnView[] {
  const baseById = new Map(base.map((turn) => [turn.id, turn]));
  const localById = new Map(local.map((turn) => [turn.id, turn]));
  const merged: TurnView[] = [];
  for (const turn of disk) {
    const mine = localById.get(turn.id);
    const read = baseById.get(turn.id);
    // Read before and gone now: this window removed it (Retry replaces the last answer).
    if (!mine && read) continue;
    // Changed here since it was read: this window's version; otherwise the disk's, newer or equal.
    merged.push(mine && (!read || !same(mine, read)) ? clone(mine) : clone(turn));
  }
  // Turns this window added that the disk does not hold: after their predecessor here.
  const position = new Set(merged.map((turn) => turn.id));
  for (let i = 0; i < local.length; i++) {
    const turn = local[i];
    if (position.has(turn.id)) continue;
    // Read before, gone from the disk and unchanged here: another window removed it.
    const read = baseById.get(turn.id);
    if (read && same(turn, read)) continue;
    let at = merged.length;
    for (let p = i - 1; p >= 0; p--) {
      const index = merged.findIndex((t) => t.id === local[p].id);
      if (index >= 0) {
        at = index + 1;
        break;
      }
    }
    merged.splice(at, 0, clone(turn));
    position.add(turn.id);
  }
  return merged;
}

/**
 * Makes `target` hold `source` (keeping the objects the caller holds, so a running answer's
 * turn object stays the one in the list).
 */
export function applyInPlace(target: StoredConversation, source: StoredConversation): void {
  const byId = new Map(target.turns.map((turn) => [turn.id, turn]));
  const turns = source.turns.map((turn) => {
    const mine = byId.get(turn.id);
    if (!mine) return clone(turn);
    if (!same(mine, turn)) replaceContents(mine as unknown as Record<string, unknown>, clone(turn) as unknown as Record<string, unknown>);
    return mine;
  });
  replaceContents(target as unknown as Record<string, unknown>, { ...clone(source), turns } as unknown as Record<string, unknown>);
}

function replaceContents(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key of Object.keys(target)) if (!(key in source)) delete target[key];
  Object.assign(target, source);
}

export function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
