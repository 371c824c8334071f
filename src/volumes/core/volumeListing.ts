// The listing of one volume as the tree shows it: pages loaded so far, "load more", the
// error or "never written" state, and status updates from polling. No `vscode` import.
// Memory grows with what is loaded, never with `total` (bench/volumes-paging.ts).
import { isCancellation, isUnwrittenVolume } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { FileInfo } from '../../api/types';
import { isFinalStatus } from './fileDisplay';

export type ListingState =
  | { kind: 'unloaded' }
  | { kind: 'loading' }
  | { kind: 'loaded' }
  /** D6: a named volume nobody has uploaded to yet. */
  | { kind: 'missing' }
  | { kind: 'error'; error: Error };

/** What changed, so the view refreshes only those nodes. */
export interface ListingChange {
  /** The list itself changed (files added/removed, state, total): redraw the volume's children. */
  structure: boolean;
  /** Files whose fields changed in place (status, size…). */
  updated: FileInfo[];
}

/** Most files one poll may ask for (D10's upper bound for `limit`). */
const MAX_LIMIT = 1000;

export class VolumeListing {
  state: ListingState = { kind: 'unloaded' };
  /** Files at offsets 0..files.length-1, in service order (D10). */
  private files: FileInfo[] = [];
  /**
   * How many entries the service listed for `files`: more than `files.length` only when it
   * named a file twice (each is shown once). Pages go on from here, not from `files.length`.
   */
  private listed = 0;
  /** Files this session uploaded that lie beyond the loaded pages; shown until a page reaches them. */
  private recent: FileInfo[] = [];
  /** When each of `recent` was added (`uploads` at that moment), to tell a listing asked for before it. */
  private readonly recentSince = new WeakMap<FileInfo, number>();
  /** How many times `addUploaded` added files. */
  private uploads = 0;
  total = 0;
  private readonly listeners = new Set<(change: ListingChange) => void>();
  private generation = 0;
  private inflight?: Promise<void>;

  constructor(
    private readonly service: () => KsmService,
    readonly volume: string,
    private readonly pageSize: () => number,
  ) {}

  onDidChange(listener: (change: ListingChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Loaded files followed by this session's uploads that no page has reached yet. */
  get visibleFiles(): readonly FileInfo[] {
    return this.recent.length ? [...this.files, ...this.recent] : this.files;
  }

  get loadedCount(): number {
    return this.files.length;
  }

  get hasMore(): boolean {
    return this.state.kind === 'loaded' && this.listed + this.recent.length < this.total;
  }

  get pendingFiles(): FileInfo[] {
    return this.visibleFiles.filter((f) => !isFinalStatus(f.status));
  }

  find(uuid: string): FileInfo | undefined {
    return this.visibleFiles.find((f) => f.uuid === uuid);
  }

  /** First page, once; later calls reuse what is loaded, or wait for the load under way. */
  async ensureLoaded(signal?: AbortSignal): Promise<void> {
    if (this.state.kind === 'unloaded') await this.reload(signal);
    else if (this.inflight) await this.inflight;
  }

  /** Re-lists everything loaded so far (at least one page), keeping the user's place. */
  reload(signal?: AbortSignal): Promise<void> {
    const run = this.relist(signal);
    this.inflight = run;
    void run.finally(() => {
      if (this.inflight === run) this.inflight = undefined;
    });
    return run;
  }

  private async relist(signal?: AbortSignal): Promise<void> {
    const wanted = Math.max(this.pageSize(), this.listed);
    const generation = ++this.generation;
    const uploadsBefore = this.uploads;
    // A loaded list stays on screen while it is re-listed; only a first load shows "Loading…".
    if (this.state.kind !== 'loaded') this.setState({ kind: 'loading' });
    try {
      const files: FileInfo[] = [];
      const seen = new Set<string>();
      // Entries the service listed, duplicates included: the next page starts after them.
      let listed = 0;
      let total = 0;
      do {
        const page = await this.service().listFiles({ volume: this.volume, offset: listed, limit: Math.min(MAX_LIMIT, wanted - listed) }, { signal });
        total = page.total;
        // A file listed twice (a server's bug or a hostile answer) is shown once: the tree
        // names each row by its id, and two rows with one id make VS Code refuse the volume.
        appendUnseen(files, page.files, seen);
        listed += page.files.length;
        if (page.files.length === 0) break;
      } while (listed < Math.min(wanted, total));
      if (generation !== this.generation) return;
      this.files = files;
      this.listed = listed;
      this.total = total;
      this.dropRecentNowListed(uploadsBefore);
      this.setState({ kind: 'loaded' });
    } catch (error) {
      if (generation !== this.generation) return;
      this.failWith(error);
    }
  }

  /** Appends the next page (one request). */
  async loadMore(signal?: AbortSignal): Promise<void> {
    if (!this.hasMore) return;
    const generation = this.generation;
    const uploadsBefore = this.uploads;
    try {
      const page = await this.service().listFiles({ volume: this.volume, offset: this.listed, limit: this.pageSize() }, { signal });
      if (generation !== this.generation) return;
      const known = new Set(this.files.map((f) => f.uuid));
      appendUnseen(this.files, page.files, known);
      this.listed += page.files.length;
      this.total = page.total;
      this.dropRecentNowListed(uploadsBefore);
      this.emit({ structure: true, updated: [] });
    } catch (error) {
      if (generation !== this.generation) return;
      this.failWith(error);
    }
  }

  /** Shows files this session uploaded at once, even when they lie beyond the loaded pages. */
  addUploaded(infos: FileInfo[]): void {
    const known = new Set(this.visibleFiles.map((f) => f.uuid));
    const fresh = infos.filter((f) => !known.has(f.uuid));
    if (fresh.length === 0) return;
    this.uploads++;
    for (const file of fresh) this.recentSince.set(file, this.uploads);
    this.recent.push(...fresh);
    this.total += fresh.length;
    if (this.state.kind === 'missing' || this.state.kind === 'unloaded') this.state = { kind: 'loaded' };
    this.emit({ structure: true, updated: [] });
  }

  /** Drops files by id (after a delete) without a request. */
  removeFiles(uuids: Iterable<string>): void {
    const gone = new Set(uuids);
    const before = this.visibleFiles.length;
    const loadedBefore = this.files.length;
    this.files = this.files.filter((f) => !gone.has(f.uuid));
    this.listed = Math.max(0, this.listed - (loadedBefore - this.files.length));
    this.recent = this.recent.filter((f) => !gone.has(f.uuid));
    const removed = before - this.visibleFiles.length;
    if (removed === 0) return;
    this.total = Math.max(0, this.total - removed);
    this.emit({ structure: true, updated: [] });
  }

  /**
   * One request covering every file not yet final; updates them in place and reports
   * whether any file is still pending. Files shift when others are deleted, so a window
   * that misses a pending file falls back to a reload.
   */
  async pollPending(signal?: AbortSignal): Promise<{ pending: number; changed: number }> {
    const pending = this.pendingFiles;
    if (pending.length === 0 || this.state.kind !== 'loaded') return { pending: 0, changed: 0 };
    // Offsets from one index of the loaded files: a search of them per pending file (and
    // the offsets spread into Math.min) hung the poll when a page listed a million files.
    const offsetOf = this.offsets();
    let first = Infinity;
    let last = -Infinity;
    for (const file of pending) {
      const offset = offsetOf(file);
      if (offset < first) first = offset;
      if (offset > last) last = offset;
    }
    const generation = this.generation;
    const page = await this.service().listFiles({ volume: this.volume, offset: first, limit: Math.min(MAX_LIMIT, last - first + 1) }, { signal });
    if (generation !== this.generation) return { pending: this.pendingFiles.length, changed: 0 };
    const fresh = new Map(page.files.map((f) => [f.uuid, f]));
    const updated: FileInfo[] = [];
    let missing = 0;
    for (const file of pending) {
      const now = fresh.get(file.uuid);
      if (!now) {
        missing++;
        continue;
      }
      if (sameFields(file, now)) continue;
      Object.assign(file, now);
      if (now.statusDetail === undefined) delete file.statusDetail;
      updated.push(file);
    }
    const totalChanged = page.total !== this.total;
    this.total = page.total;
    if (missing > 0) {
      await this.reload(signal);
      return { pending: this.pendingFiles.length, changed: updated.length + missing };
    }
    if (updated.length || totalChanged) this.emit({ structure: totalChanged, updated });
    return { pending: this.pendingFiles.length, changed: updated.length };
  }

  /** Where each visible file lies in the volume's listing. */
  private offsets(): (file: FileInfo) => number {
    const loaded = new Map(this.files.map((f, i) => [f, i]));
    const recent = new Map(this.recent.map((f, i) => [f, i]));
    // Uploads append at the end (D10), so this session's uploads are the volume's tail.
    return (file) => loaded.get(file) ?? Math.max(0, this.total - this.recent.length + (recent.get(file) ?? -1));
  }

  /**
   * After a listing (asked for when `uploadsBefore` uploads had been added): drops this
   * session's uploads that are now listed, and those that cannot be in the volume any more.
   * Uploads append at the end (D10), so an upload no page listed can only lie in the unloaded
   * tail past the loaded pages: a listing that reached the end leaves it no room, and it was
   * deleted (the older copy a Replace deleted, or another client's delete). Keeping those
   * showed a ghost row, counted in the header's size, until a manual refresh (issue 26, rough
   * edge 1). An upload added after the listing was asked for is kept: the listing predates it.
   */
  private dropRecentNowListed(uploadsBefore: number): void {
    if (this.recent.length === 0) return;
    const listed = new Set(this.files.map((f) => f.uuid));
    const unlisted = this.recent.filter((f) => !listed.has(f.uuid));
    const newer = unlisted.filter((f) => (this.recentSince.get(f) ?? 0) > uploadsBefore);
    const judged = unlisted.filter((f) => (this.recentSince.get(f) ?? 0) <= uploadsBefore);
    const room = Math.max(0, this.total - this.listed);
    const kept = new Set([...judged.slice(Math.max(0, judged.length - room)), ...newer]);
    this.recent = unlisted.filter((f) => kept.has(f));
    // A listing that reached the end without them did not count them either. (One that did
    // not reach the end may or may not have: its total stands until the next listing.)
    if (room === 0) this.total += newer.length;
  }

  private failWith(error: unknown): void {
    if (isCancellation(error)) {
      this.setState(this.files.length ? { kind: 'loaded' } : { kind: 'unloaded' });
      return;
    }
    this.files = [];
    this.listed = 0;
    this.total = this.recent.length;
    if (isUnwrittenVolume(error) && this.recent.length === 0) {
      this.setState({ kind: 'missing' });
      return;
    }
    this.setState({ kind: 'error', error: error instanceof Error ? error : new Error(String(error)) });
  }

  private setState(state: ListingState): void {
    this.state = state;
    this.emit({ structure: true, updated: [] });
  }

  private emit(change: ListingChange): void {
    for (const listener of [...this.listeners]) listener(change);
  }
}

/** Appends the files whose id is not in `seen` yet (once each), adding their ids to it. */
function appendUnseen(target: FileInfo[], files: readonly FileInfo[], seen: Set<string>): void {
  for (const file of files) {
    if (seen.has(file.uuid)) continue;
    seen.add(file.uuid);
    target.push(file);
  }
}

function sameFields(a: FileInfo, b: FileInfo): boolean {
  return a.status === b.status && a.filesize === b.filesize && a.filename === b.filename && a.statusDetail === b.statusDetail && a.date === b.date;
}
