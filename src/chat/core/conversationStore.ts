// Conversations on disk: one JSON file per conversation under `<root>/conversations/`, plus
// `index.json` listing them. The files are the truth; the index is a cache rebuilt from
// them when it is missing, stale or unreadable. Each index entry holds the stamp (size, mtime,
// inode) of the file it summarizes: a listing stats every file (no read) and re-reads only
// those whose stamp differs, e.g. a file saved just before the extension host died, before
// the index caught up (it kept the old title and order). A conversation file that cannot be read is
// moved to `<root>/corrupt/` and reported, never silently dropped (users lose trust in a
// chat that forgets). No `vscode` import: tested under plain mocha.
//
// Several windows may share one store (two windows with no folder share one workspace
// storage). Every write is a read-merge-write of one conversation under a cross-process
// lock (proper-lockfile), which also guards the index: a save applies only what this window
// changed since it last read the file (conversationMerge.ts), so another window's newer
// revision is never overwritten and turns added by two windows are both kept. A window that
// streams an answer keeps a live mark (`<root>/live/<id>.json`, its process id) while the
// answer is on disk as `streaming`, so another window shows that answer as "answering in
// another window" rather than "interrupted"; an answer whose writer is gone is interrupted.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { NotARegularFileError, readFileNoFollow, writeFileAtomic } from '../../common/core/atomicWrite';
import { applyInPlace, clone, mergeConversation } from './conversationMerge';
import { CONVERSATION_ID_PATTERN, CONVERSATION_SCHEMA, summarize, type ConversationSummary, type StoredConversation } from './conversationModel';

export interface StoreProblem {
  /** The conversation file that could not be read. */
  file: string;
  /** Where it was moved so nothing is lost. */
  keptAt?: string;
  /**
   * The file stays where it is, unchanged: written by a newer version (`newer`, not listed until
   * the extension is updated), or listed with a part this version does not understand left
   * unchanged on disk (`partly`, worth a log line, not a notification).
   */
  keptInPlace?: 'newer' | 'partly';
  reason: string;
  /** The problem is the index's (a cache, rebuilt from the conversation files): nothing is lost, a log line is enough. */
  index?: true;
}

/**
 * An index entry: the summary, and the stamp of the file it was made from (entries written by
 * earlier versions have none: their files are read once, and the entry gets one).
 */
interface IndexEntry extends ConversationSummary {
  fileStamp?: string;
}

export const INTERRUPTED_MESSAGE = 'Interrupted: VS Code closed while this answer was streaming.';

/** What a live mark holds: enough to tell whether its writer still runs. */
interface LiveMark {
  pid: number;
  host: string;
  store: string;
}

/** The lock is refreshed every 2 s and counts as abandoned (a crashed window) after 10 s. */
const LOCK_OPTIONS = { realpath: false, stale: 10_000, update: 2_000, retries: { retries: 200, factor: 1.3, minTimeout: 5, maxTimeout: 200 } };

export class ConversationStore {
  private readonly conversationsDir: string;
  private readonly corruptDir: string;
  private readonly liveDir: string;
  private readonly indexPath: string;
  /** Per conversation: the version this window last read or wrote, as it showed it (the merge base). */
  private readonly bases = new Map<string, StoredConversation>();
  /** Conversations whose streaming answer this store writes (it holds their live mark). */
  private readonly ownLive = new Set<string>();
  /** Identifies this store among several in one process (tests, two views). */
  private readonly instance = randomBytes(6).toString('hex');
  /** Writes of one conversation are chained so a later save never lands before an earlier one. */
  private readonly writes = new Map<string, Promise<void>>();
  private indexWrite: Promise<void> = Promise.resolve();
  /** Problems already reported by this store (a file kept in place is reported once, not at every read). */
  private readonly reported = new Set<string>();
  /**
   * Files a newer version wrote, by id, with the stamp they had when this store read them:
   * they have no index entry (this version does not list them), so without this every
   * listing read each one again and rewrote the index.
   */
  private readonly newerFiles = new Map<string, string>();

  constructor(
    readonly root: string,
    private readonly onProblem: (problem: StoreProblem) => void = () => undefined,
  ) {
    this.conversationsDir = join(root, 'conversations');
    this.corruptDir = join(root, 'corrupt');
    this.liveDir = join(root, 'live');
    this.indexPath = join(root, 'index.json');
  }

  /** Summaries, most recently updated first. */
  async list(): Promise<ConversationSummary[]> {
    const ids = await this.storedIds();
    const index = await this.readIndex();
    const known = new Map(index.map((entry) => [entry.id, entry]));
    // Stamped before reading, so a file changed meanwhile is re-read at the next listing rather than trusted.
    const stamps = await Promise.all(ids.map((id) => fileStamp(this.fileOf(id))));
    const entries: IndexEntry[] = [];
    let unlisted = 0;
    let stale = false;
    for (const [i, id] of ids.entries()) {
      const cached = known.get(id);
      const stamp = stamps[i];
      if (cached && stamp !== undefined && cached.fileStamp === stamp) {
        entries.push(cached);
        continue;
      }
      if (!cached && stamp !== undefined && this.newerFiles.get(id) === stamp) {
        unlisted++; // a newer version's file, unchanged since this store read it: not read again
        continue;
      }
      stale = true;
      const conversation = await this.load(id);
      if (conversation) entries.push(indexEntry(conversation, stamp));
      else if (stamp !== undefined && this.reported.has(`newer:${id}`)) {
        this.newerFiles.set(id, stamp);
        unlisted++;
      }
    }
    // Entries for files gone (or no longer listed) make the index stale too; a newer version's file has none.
    if (index.length !== ids.length - unlisted) stale = true;
    entries.sort((a, b) => b.updatedAt - a.updatedAt);
    // Awaited, and never creating the folder: a store deleted meanwhile stays deleted.
    if (stale) await this.updateIndex((current) => rebuiltIndex(current, entries, known), { createRoot: false }).catch(() => undefined);
    return entries.map(summaryOf);
  }

  /** Every readable conversation in full (for searching by content), newest first. */
  async loadAll(): Promise<StoredConversation[]> {
    const summaries = await this.list();
    const loaded = await Promise.all(summaries.map((s) => this.load(s.id)));
    return loaded.filter((c): c is StoredConversation => c !== undefined);
  }

  /** The conversation, or undefined when it does not exist or could not be read (reported). */
  async load(id: string): Promise<StoredConversation | undefined> {
    if (!CONVERSATION_ID_PATTERN.test(id)) return undefined;
    await this.writes.get(id);
    const stored = await this.readConversation(id, true);
    if (!stored) return undefined;
    const conversation = this.shownPart(stored);
    await this.showStreamingAnswers(conversation);
    this.bases.set(id, clone(conversation));
    return conversation;
  }

  /**
   * Writes what this window changed in `conversation` since it last read it, merged with
   * what other windows wrote meanwhile; `conversation` is updated in place with their part.
   */
  async save(conversation: StoredConversation): Promise<void> {
    const id = conversation.id;
    if (!CONVERSATION_ID_PATTERN.test(id)) throw new Error(`Invalid conversation id: ${id}`);
    await this.chain(id, async () => {
      const local = clone(conversation);
      await mkdir(this.conversationsDir, { recursive: true });
      let merged: StoredConversation | undefined;
      await this.locked(async () => {
        const disk = await this.readConversation(id, false);
        // A file a newer version wrote is never overwritten by this one (a downgrade keeps it).
        if (disk === undefined && this.reported.has(`newer:${id}`)) throw new Error(`Conversation ${id} was saved by a newer version of KSM Assistant; this version leaves it unchanged.`);
        merged = mergeConversation(this.bases.get(id), local, disk);
        await writeFileAtomic(this.fileOf(id), JSON.stringify(merged));
        const entry = indexEntry(merged, await fileStamp(this.fileOf(id)));
        await this.writeIndex((entries) => [entry, ...entries.filter((e) => e.id !== id)]);
      });
      const written = merged!;
      await this.updateLiveMark(id, written, local);
      const shown = this.shownPart(clone(written));
      await this.showStreamingAnswers(shown, local);
      this.bases.set(id, shown);
      // Only what came from other windows reaches the caller's copy; what this window
      // changed meanwhile (a delta that arrived during the write) stays as it is.
      if (JSON.stringify(shown) !== JSON.stringify(local)) applyOthers(conversation, local, shown);
    });
  }

  async delete(id: string): Promise<void> {
    if (!CONVERSATION_ID_PATTERN.test(id)) return;
    await this.chain(id, async () => {
      if (!(await exists(this.root))) return;
      await this.locked(async () => {
        await rm(this.fileOf(id), { force: true });
        await this.writeIndex((entries) => entries.filter((e) => e.id !== id));
      });
      this.bases.delete(id);
      await this.dropLiveMark(id);
    });
  }

  /** Resolves when every queued write has reached the disk. */
  async flush(): Promise<void> {
    await Promise.all([...this.writes.values(), this.indexWrite]);
  }

  private fileOf(id: string): string {
    return join(this.conversationsDir, `${id}.json`);
  }

  private async storedIds(): Promise<string[]> {
    try {
      const names = await readdir(this.conversationsDir);
      return names
        .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
        .map((n) => n.slice(0, -'.json'.length))
        .filter((id) => CONVERSATION_ID_PATTERN.test(id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /**
   * The conversation as on disk, or undefined when missing or unreadable. An unreadable
   * file is moved aside and reported (with `updateIndexAfter`, its index entry goes too;
   * under the lock the caller's own index write follows).
   */
  private async readConversation(id: string, updateIndexAfter: boolean): Promise<StoredConversation | undefined> {
    let text: string;
    try {
      text = await readFileNoFollow(this.fileOf(id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      if (error instanceof NotARegularFileError) {
        // Planted, not ours: kept as found (the link itself moved aside), never followed, so nothing it leads to is read or quoted.
        await this.keepAside(id, error.link ? 'a symbolic link, not a conversation file: not followed' : 'not a regular file', updateIndexAfter);
        return undefined;
      }
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      await this.keepAside(id, `not valid JSON (${(error as Error).message})`, updateIndexAfter);
      return undefined;
    }
    const schema = (parsed as { schema?: unknown } | null)?.schema;
    if (typeof schema === 'number' && Number.isInteger(schema) && schema > CONVERSATION_SCHEMA) {
      // A newer version wrote it (the user went back to an older one): it stays where it is,
      // unchanged, so the newer version finds it again; this one neither lists nor writes it.
      this.reportOnce(`newer:${id}`, {
        file: this.fileOf(id),
        keptInPlace: 'newer',
        reason: `saved by a newer version of KSM Assistant (conversation schema ${schema}; this version reads schema ${CONVERSATION_SCHEMA}). It is left unchanged and not listed: update the extension to open it`,
      });
      return undefined;
    }
    const problem = describeInvalid(parsed, id);
    if (problem) {
      await this.keepAside(id, problem, updateIndexAfter);
      return undefined;
    }
    const conversation = parsed as StoredConversation;
    if (conversation.pendingAttachments === undefined) conversation.pendingAttachments = [];
    return conversation;
  }

  /**
   * What the chat shows of a conversation as stored. Context chips are optional and shown as
   * chips only: a list this version does not understand is left out of what it shows, but
   * stays on disk as it is (a save keeps the disk's copy of a field this window did not
   * change), reported once.
   */
  private shownPart(conversation: StoredConversation): StoredConversation {
    const checks = [
      ['pendingCode', isCodeList],
      ['contextVolumes', isVolumeList],
      ['contextFiles', isFileList],
    ] as const;
    for (const [field, valid] of checks) {
      if (conversation[field] === undefined || valid(conversation[field])) continue;
      delete conversation[field];
      this.reportOnce(`partly:${conversation.id}:${field}`, {
        file: this.fileOf(conversation.id),
        keptInPlace: 'partly',
        reason: `its ${field} list is not in a form this version understands; the conversation is shown without it and the list is left unchanged in the file`,
      });
    }
    return conversation;
  }

  private reportOnce(key: string, problem: StoreProblem): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.onProblem(problem);
  }

  /**
   * How an answer stored as `streaming` shows in this window, unless this window writes it:
   * answering in another window while that window's process runs, else interrupted (a crash
   * or a kill of the extension host), keeping its text either way.
   */
  private async showStreamingAnswers(conversation: StoredConversation, own?: StoredConversation): Promise<void> {
    const streaming = conversation.turns.filter((turn) => turn.role === 'assistant' && turn.state === 'streaming');
    if (streaming.length === 0) return;
    const ownStreaming = new Set(own?.turns.filter((turn) => turn.state === 'streaming').map((turn) => turn.id));
    const elsewhere = await this.answeringElsewhere(conversation.id);
    for (const turn of streaming) {
      if (ownStreaming.has(turn.id)) continue;
      if (elsewhere) {
        turn.state = 'elsewhere';
        delete turn.error;
      } else {
        turn.state = 'cut-off';
        turn.error = INTERRUPTED_MESSAGE;
      }
    }
  }

  private async answeringElsewhere(id: string): Promise<boolean> {
    let mark: LiveMark;
    try {
      mark = JSON.parse(await readFileNoFollow(join(this.liveDir, `${id}.json`))) as LiveMark;
    } catch {
      return false;
    }
    if (mark.store === this.instance) return false;
    if (mark.host !== hostname() || !Number.isInteger(mark.pid)) return false;
    return processRuns(mark.pid);
  }

  /** Holds the live mark while this window's copy on disk has an answer streaming. */
  private async updateLiveMark(id: string, written: StoredConversation, local: StoredConversation): Promise<void> {
    const localStreaming = new Set(local.turns.filter((t) => t.state === 'streaming').map((t) => t.id));
    const streamingHere = written.turns.some((turn) => turn.state === 'streaming' && localStreaming.has(turn.id));
    if (streamingHere && !this.ownLive.has(id)) {
      await mkdir(this.liveDir, { recursive: true });
      const mark: LiveMark = { pid: process.pid, host: hostname(), store: this.instance };
      await writeFileAtomic(join(this.liveDir, `${id}.json`), JSON.stringify(mark));
      this.ownLive.add(id);
    } else if (!streamingHere) {
      await this.dropLiveMark(id);
    }
  }

  private async dropLiveMark(id: string): Promise<void> {
    if (!this.ownLive.delete(id)) return;
    await rm(join(this.liveDir, `${id}.json`), { force: true }).catch(() => undefined);
  }

  private async readIndex(): Promise<IndexEntry[]> {
    await this.indexWrite;
    return this.readIndexUnlocked();
  }

  /** Changes the index under the store lock (another window may change it at the same time). */
  private async updateIndex(change: (entries: IndexEntry[]) => IndexEntry[], options: { createRoot: boolean }): Promise<void> {
    const next = this.indexWrite.then(async () => {
      if (!options.createRoot && !(await exists(this.root))) return;
      await this.locked(() => this.writeIndex(change));
    });
    this.indexWrite = next.catch(() => undefined);
    await next;
  }

  /** Only under the lock. */
  private async writeIndex(change: (entries: IndexEntry[]) => IndexEntry[]): Promise<void> {
    const entries = await this.readIndexUnlocked();
    await writeFileAtomic(this.indexPath, JSON.stringify(change(entries)));
  }

  private async readIndexUnlocked(): Promise<IndexEntry[]> {
    try {
      const parsed: unknown = JSON.parse(await readFileNoFollow(this.indexPath));
      return Array.isArray(parsed) ? parsed.filter(isSummary) : [];
    } catch (error) {
      if (error instanceof NotARegularFileError) {
        // Not followed; moved aside so the next write (which refuses a link) can put a real index there.
        await this.keepIndexAside(error.link ? 'a symbolic link, not the index: not followed' : 'not a regular file');
        return [];
      }
      // The index is only a cache: a missing or unreadable one is rebuilt from the files.
      return [];
    }
  }

  /** Runs `work` holding the store's cross-process lock (the root folder must exist). */
  private async locked<T>(work: () => Promise<T>): Promise<T> {
    // Loaded on the first save, not at activation (its fs patching costs about 10 ms).
    const { lock } = await import('proper-lockfile');
    const release = await lock(this.indexPath, {
      ...LOCK_OPTIONS,
      // The default throws from a timer (it would crash the extension host); the work
      // under way finishes and the next write takes the lock afresh.
      onCompromised: () => undefined,
    });
    try {
      return await work();
    } finally {
      await release().catch(() => undefined);
    }
  }

  private async chain(id: string, write: () => Promise<void>): Promise<void> {
    const previous = this.writes.get(id) ?? Promise.resolve();
    const next = previous.then(write);
    const settled = next.catch(() => undefined);
    this.writes.set(id, settled);
    try {
      await next;
    } finally {
      if (this.writes.get(id) === settled) this.writes.delete(id);
    }
  }

  private async keepIndexAside(reason: string): Promise<void> {
    const file = this.indexPath;
    const keptAt = join(this.corruptDir, `index.${Date.now()}.json`);
    try {
      await mkdir(this.corruptDir, { recursive: true });
      await rename(file, keptAt);
      this.onProblem({ file, keptAt, reason: `${reason}; the index is rebuilt from the conversation files`, index: true });
    } catch (error) {
      this.onProblem({ file, reason: `${reason}; could not move it aside: ${(error as Error).message}`, index: true });
    }
  }

  private async keepAside(id: string, reason: string, updateIndex: boolean): Promise<void> {
    const file = this.fileOf(id);
    const keptAt = join(this.corruptDir, `${id}.${Date.now()}.json`);
    try {
      await mkdir(this.corruptDir, { recursive: true });
      await rename(file, keptAt);
      if (updateIndex) await this.updateIndex((entries) => entries.filter((e) => e.id !== id), { createRoot: false });
      this.onProblem({ file, keptAt, reason });
    } catch (error) {
      this.onProblem({ file, reason: `${reason}; could not move it aside: ${(error as Error).message}` });
    }
  }
}

/** Puts into `target` what other windows changed (`shown` against `local`, the copy that was merged). */
function applyOthers(target: StoredConversation, local: StoredConversation, shown: StoredConversation): void {
  const localById = new Map(local.turns.map((turn) => [turn.id, JSON.stringify(turn)]));
  const targetById = new Map(target.turns.map((turn) => [turn.id, turn]));
  // Turns added here after the merge copy was taken (during the write) stay, at the end.
  const addedMeanwhile = target.turns.filter((turn) => !localById.has(turn.id));
  const result = clone(shown);
  result.turns = shown.turns.map((turn) => {
    const mine = targetById.get(turn.id);
    // This window's own version went to disk: its live object (maybe grown since) stays.
    if (mine && localById.get(turn.id) === JSON.stringify(turn)) return mine;
    return turn;
  });
  result.turns.push(...addedMeanwhile);
  for (const field of ['title', 'model', 'threadId', 'parameters', 'pendingAttachments', 'pendingCode', 'contextVolumes', 'contextFiles'] as const) {
    if (JSON.stringify(local[field]) === JSON.stringify(shown[field])) (result as unknown as Record<string, unknown>)[field] = target[field];
  }
  applyInPlace(target, result);
}

/**
 * The listing's entries, except those another window wrote since this listing read the index
 * (`seen`): theirs are newer than this rebuild. An entry left behind by a crash (the index
 * write after a save never happened) is unchanged since it was read, so the re-read one
 * replaces it, even with the same `updatedAt` (a rename).
 */
function rebuiltIndex(current: IndexEntry[], rebuilt: IndexEntry[], seen: Map<string, IndexEntry>): IndexEntry[] {
  const fresh = new Map(current.map((entry) => [entry.id, entry]));
  return rebuilt.map((entry) => {
    const other = fresh.get(entry.id);
    return other && JSON.stringify(other) !== JSON.stringify(seen.get(entry.id)) ? other : entry;
  });
}

/** An index entry as the views get it: the summary without the file stamp. */
function summaryOf(entry: IndexEntry): ConversationSummary {
  const summary = { ...entry };
  delete summary.fileStamp;
  return summary;
}

function indexEntry(conversation: StoredConversation, stamp: string | undefined): IndexEntry {
  return stamp === undefined ? summarize(conversation) : { ...summarize(conversation), fileStamp: stamp };
}

/**
 * What changes whenever a conversation file is written: a save replaces the file (a new inode
 * while the old one still exists) with a new mtime and mostly a new size. lstat: a link is
 * never followed (it has no stamp, so it is read, refused and kept aside); bigint so
 * nanoseconds and a 64-bit inode survive.
 */
async function fileStamp(path: string): Promise<string | undefined> {
  try {
    const s = await lstat(path, { bigint: true });
    return s.isFile() ? `${s.size}:${s.mtimeNs}:${s.ino}` : undefined;
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isSummary(value: unknown): value is ConversationSummary {
  const v = value as ConversationSummary;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.id === 'string' &&
    CONVERSATION_ID_PATTERN.test(v.id) &&
    typeof v.title === 'string' &&
    (v.mode === 'chat' || v.mode === 'agent') &&
    typeof v.updatedAt === 'number'
  );
}

function isCodeList(value: unknown): boolean {
  return Array.isArray(value) && value.every((c) => typeof c?.id === 'string' && typeof c.filename === 'string' && typeof c.languageId === 'string' && typeof c.text === 'string');
}

function isVolumeList(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => typeof v?.volume === 'string' && typeof v.label === 'string' && typeof v.personal === 'boolean');
}

function isFileList(value: unknown): boolean {
  return Array.isArray(value) && value.every((f) => typeof f?.fileId === 'string' && typeof f.filename === 'string' && typeof f.volume === 'string' && typeof f.size === 'number');
}

/** Why a parsed file is not a conversation we can show, or undefined when it is one. */
function describeInvalid(value: unknown, id: string): string | undefined {
  const v = value as Partial<StoredConversation>;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  if (v.schema !== CONVERSATION_SCHEMA) return `unknown schema ${String(v.schema)}`;
  if (v.id !== id) return 'its id does not match its file name';
  if (typeof v.title !== 'string' || (v.mode !== 'chat' && v.mode !== 'agent') || typeof v.model !== 'string') {
    return 'title, mode or model missing';
  }
  if (typeof v.parameters !== 'object' || v.parameters === null) return 'parameters missing';
  if (!Array.isArray(v.turns)) return 'turns missing';
  for (const turn of v.turns) {
    if (typeof turn !== 'object' || turn === null || typeof turn.id !== 'string' || typeof turn.content !== 'string') {
      return 'a turn has no id or content';
    }
    if (turn.role !== 'user' && turn.role !== 'assistant') return `a turn has role ${String(turn.role)}`;
  }
  return undefined;
}
