// The Volumes TreeDataProvider: roots are the personal volume and `ksm.volumes.list`;
// children come from each volume's VolumeListing (or its filter search). It fires change
// events only for nodes that changed and starts live status polling for unsettled files.
import * as vscode from 'vscode';
import { AuthenticationError, isKsmError } from '../../api/errors';
import { errorFix, messageWithFix } from '../../common/core/errorFixes';
import type { KsmService } from '../../api/service';
import type { DoChunking, FileInfo } from '../../api/types';
import { sortFiles, type FileSortOrder } from '../core/fileDisplay';
import { formatBytes } from '../../common/core/byteSize';
import type { VolumeSearch } from '../core/fileSearch';
import { StatusPoller } from '../core/statusPoller';
import { VolumeListing } from '../core/volumeListing';
import { fileItem, loadMoreItem, messageItem, volumeItem, type FileNode, type MessageNode, type VolumeNode, type VolumesNode } from './volumeNodes';
import { shownVolumes } from '../../common/core/volumeTargets';

export interface VolumesTreeSource {
  /** Personal volume name (`{user}`) or undefined, then the named volumes. */
  roots(): Promise<{ personal?: string; named: string[] } | undefined>;
  client(): KsmService;
  pageSize(): number;
}

export class VolumesTreeProvider implements vscode.TreeDataProvider<VolumesNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<VolumesNode | VolumesNode[] | undefined | void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly listings = new Map<string, { listing: VolumeListing; unsubscribe: () => void }>();
  private readonly volumeNodes = new Map<string, VolumeNode>();
  private readonly fileNodes = new Map<string, FileNode>();
  /**
   * One object per (volume, message role), updated in place, like the file nodes. VS Code
   * passes a row's inline action the element it resolves from the row's handle: a fresh
   * object per getChildren left the error row's Refresh Volume with a handle whose element
   * was being replaced (the volume re-fetched around the click), so the click arrived with no
   * row and did nothing (issue 26, rough edge 9).
   */
  private readonly messageNodes = new Map<string, MessageNode>();
  private searchesByVolume = new Map<string, VolumeSearch>();
  /** Last description drawn on each volume row, to redraw the row only when it changes. */
  private readonly shownSummaries = new Map<string, string | undefined>();
  /**
   * Volumes whose children VS Code is waiting for (getChildren pending), with how many
   * calls. A change event for such a volume must not be fired: the workbench receives it
   * before the pending answer, starts a second fetch, and in code-server 1.100 the two
   * answers race so the expanded volume can end up with no rows at all (seen after a
   * window reload and after a 401). Changes are folded into the pending answer instead,
   * plus one refresh after it when the volume row's own description changed.
   */
  private readonly resolving = new Map<string, number>();
  sortOrder: FileSortOrder = 'upload';
  /** Volume → folder kept in sync with it (set by the sync feature). */
  private syncMarks: ReadonlyMap<string, string> = new Map();
  private viewVisible = true;
  poller: StatusPoller;
  /** The do_chunking a file was uploaded with, when this extension remembers it (D24). */
  processingMode: (uuid: string) => DoChunking | undefined = () => undefined;

  constructor(
    private readonly source: VolumesTreeSource,
    private readonly onPollError: (volume: string, error: unknown) => void,
  ) {
    this.poller = new StatusPoller((volume, signal) => this.listing(volume).pollPending(signal), undefined, onPollError);
  }

  listing(volume: string): VolumeListing {
    let entry = this.listings.get(volume);
    if (!entry) {
      const listing = new VolumeListing(
        () => this.source.client(),
        volume,
        () => this.source.pageSize(),
      );
      const unsubscribe = listing.onDidChange((change) => {
        if (listing.pendingFiles.length > 0 && !this.poller.isWatching(volume)) this.poller.watch(volume);
        // The children VS Code is waiting for will reflect this change; see getChildren.
        if (this.resolving.has(volume)) return;
        const volumeNode = this.volumeNodes.get(volume);
        const summary = this.volumeSummary(volume);
        const summaryChanged = summary !== this.shownSummaries.get(volume);
        this.shownSummaries.set(volume, summary);
        if (change.structure) this.changed.fire(volumeNode);
        else if (change.updated.length) {
          // The volume row's "N processing" changes with its files; its children are redrawn from memory.
          const nodes: VolumesNode[] = change.updated.map((f) => this.fileNode(volume, f));
          this.changed.fire(summaryChanged && volumeNode ? [volumeNode, ...nodes] : nodes);
        }
      });
      entry = { listing, unsubscribe };
      this.listings.set(volume, entry);
    }
    return entry.listing;
  }

  /** Forgets every listing (settings or key changed) and redraws from the roots. */
  resetAll(): void {
    this.poller.dispose();
    for (const { unsubscribe } of this.listings.values()) unsubscribe();
    this.listings.clear();
    this.fileNodes.clear();
    this.messageNodes.clear();
    this.searchesByVolume.clear();
    this.onSearchesChanged?.();
    this.poller = new StatusPoller((volume, signal) => this.listing(volume).pollPending(signal), undefined, this.onPollError);
    this.poller.setVisible(this.viewVisible);
    this.changed.fire();
  }

  /** Polling runs only while the view is visible (`TreeView.visible`). */
  setViewVisible(visible: boolean): void {
    this.viewVisible = visible;
    this.poller.setVisible(visible);
  }

  refreshRoots(): void {
    this.changed.fire();
  }

  redrawVolume(volume: string): void {
    if (this.resolving.has(volume)) return; // the pending getChildren answers with the current state
    const node = this.volumeNodes.get(volume);
    if (node) this.changed.fire(node);
  }

  setSyncMarks(marks: ReadonlyMap<string, string>): void {
    const changed = new Set([...this.syncMarks.keys(), ...marks.keys()].filter((v) => this.syncMarks.get(v) !== marks.get(v)));
    this.syncMarks = marks;
    for (const volume of changed) this.redrawVolume(volume);
  }

  setSearches(searches: Map<string, VolumeSearch>): void {
    this.searchesByVolume = searches;
    this.changed.fire();
    this.onSearchesChanged?.();
  }

  /** Called whenever the filter changes (set, cleared, reset with the tree). */
  onSearchesChanged?: () => void;

  get filtering(): boolean {
    return this.searchesByVolume.size > 0;
  }

  /** The active filter's search of each volume (none when not filtering). */
  searches(): IterableIterator<VolumeSearch> {
    return this.searchesByVolume.values();
  }

  search(volume: string): VolumeSearch | undefined {
    return this.searchesByVolume.get(volume);
  }

  /** Volumes shown as roots right now. */
  async currentVolumes(): Promise<string[]> {
    return (await this.rootNodes()).map((n) => n.volume);
  }

  volumeNode(volume: string): VolumeNode | undefined {
    return this.volumeNodes.get(volume);
  }

  fileNode(volume: string, file: FileInfo): FileNode {
    const key = `${volume}\n${file.uuid}`;
    let node = this.fileNodes.get(key);
    if (!node) {
      node = { kind: 'file', volume, file };
      this.fileNodes.set(key, node);
    } else if (node.file !== file) {
      node.file = file;
    }
    return node;
  }

  getTreeItem(node: VolumesNode): vscode.TreeItem {
    switch (node.kind) {
      case 'volume': {
        const summary = this.volumeSummary(node.volume);
        this.shownSummaries.set(node.volume, summary);
        return volumeItem(node, summary, this.syncMarks.get(node.volume));
      }
      case 'file':
        return fileItem(node, this.processingMode(node.file.uuid));
      case 'loadMore': {
        const listing = this.listing(node.volume);
        const remaining = node.search ? '' : `${listing.visibleFiles.length} of ${listing.total}`;
        return loadMoreItem(node, remaining);
      }
      case 'message':
        return messageItem(node);
    }
  }

  getParent(node: VolumesNode): VolumesNode | undefined {
    return node.kind === 'volume' ? undefined : this.volumeNodes.get(node.volume);
  }

  async getChildren(node?: VolumesNode): Promise<VolumesNode[]> {
    if (!node) return this.rootNodes();
    if (node.kind !== 'volume') return [];
    const search = this.searchesByVolume.get(node.volume);
    if (search) return this.searchChildren(search);
    const volume = node.volume;
    const listing = this.listing(volume);
    this.resolving.set(volume, (this.resolving.get(volume) ?? 0) + 1);
    try {
      await listing.ensureLoaded();
    } finally {
      const left = (this.resolving.get(volume) ?? 1) - 1;
      if (left > 0) this.resolving.set(volume, left);
      else this.resolving.delete(volume);
    }
    if (!this.resolving.has(volume) && this.volumeSummary(volume) !== this.shownSummaries.get(volume)) {
      // The row's own description (file count, size, processing) changed while VS Code
      // waited: redraw it once, after this answer has been sent (same ordered channel).
      // Only then: a needless redraw re-creates the rows under the user's pointer.
      setTimeout(() => this.redrawVolume(volume), 0);
    }
    return this.listingChildren(listing);
  }

  dispose(): void {
    this.poller.dispose();
    for (const { unsubscribe } of this.listings.values()) unsubscribe();
    this.changed.dispose();
  }

  private async rootNodes(): Promise<VolumeNode[]> {
    const roots = await this.source.roots();
    if (!roots) return [];
    const wanted = shownVolumes(roots.personal, roots.named);
    const nodes: VolumeNode[] = [];
    for (const { volume, personal } of wanted) {
      let node = this.volumeNodes.get(volume);
      if (!node || node.personal !== personal) {
        node = { kind: 'volume', volume, personal };
        this.volumeNodes.set(volume, node);
      }
      nodes.push(node);
    }
    const keep = new Set(wanted.map((w) => w.volume));
    for (const volume of [...this.volumeNodes.keys()]) {
      if (keep.has(volume)) continue;
      this.volumeNodes.delete(volume);
      this.poller.unwatch(volume);
      this.listings.get(volume)?.unsubscribe();
      this.listings.delete(volume);
    }
    return nodes;
  }

  /** The one message node of `volume` with `message`'s role, now saying `message`. */
  private stableMessage(message: MessageNode): MessageNode {
    const key = `${message.volume}\n${message.role}`;
    const known = this.messageNodes.get(key);
    if (!known) {
      this.messageNodes.set(key, message);
      return message;
    }
    // Every field of the new message, and none of the old one's optional fields it lacks.
    for (const field of ['detail', 'fix'] as const) delete known[field];
    return Object.assign(known, message);
  }

  /** Volumes whose listing failed (their row shows the error). */
  erroredVolumes(): string[] {
    return [...this.listings.entries()].filter(([, entry]) => entry.listing.state.kind === 'error').map(([volume]) => volume);
  }

  private listingChildren(listing: VolumeListing): VolumesNode[] {
    return this.listingChildrenFresh(listing).map((node) => (node.kind === 'message' ? this.stableMessage(node) : node));
  }

  private listingChildrenFresh(listing: VolumeListing): VolumesNode[] {
    const volume = listing.volume;
    const state = listing.state;
    if (state.kind === 'error') return [errorNode(volume, state.error)];
    if (state.kind === 'missing') return [{ kind: 'message', volume, role: 'missing', label: vscode.l10n.t('No files yet — upload to create this volume') }];
    if (state.kind === 'loading' || state.kind === 'unloaded') return [{ kind: 'message', volume, role: 'loading', label: vscode.l10n.t('Loading…') }];
    const files = sortFiles(listing.visibleFiles, this.sortOrder);
    if (files.length === 0) return [{ kind: 'message', volume, role: 'empty', label: vscode.l10n.t('No files — upload some to this volume') }];
    const children: VolumesNode[] = files.map((f) => this.fileNode(volume, f));
    if (listing.hasMore) children.push({ kind: 'loadMore', volume, search: false });
    return children;
  }

  private searchChildren(search: VolumeSearch): VolumesNode[] {
    const volume = search.volume;
    const children: VolumesNode[] = sortFiles(search.matches, this.sortOrder).map((f) => this.fileNode(volume, f));
    if (children.length === 0 && search.complete) {
      children.push({ kind: 'message', volume, role: 'noMatches', label: vscode.l10n.t('No file name matches "{0}"', search.query) });
    }
    if (!search.complete) children.push({ kind: 'loadMore', volume, search: true });
    return children.map((node) => (node.kind === 'message' ? this.stableMessage(node) : node));
  }

  private volumeSummary(volume: string): string | undefined {
    const entry = this.listings.get(volume);
    const search = this.searchesByVolume.get(volume);
    if (search) return search.countText;
    if (!entry || entry.listing.state.kind !== 'loaded') return undefined;
    const listing = entry.listing;
    const bytes = listing.visibleFiles.reduce((sum, f) => sum + f.filesize, 0);
    const pending = listing.pendingFiles.length;
    const count = listing.total === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', listing.total);
    return [count, listing.hasMore ? undefined : formatBytes(bytes), pending ? vscode.l10n.t('{0} processing', pending) : undefined].filter(Boolean).join(' · ');
  }
}

function errorNode(volume: string, error: Error): VolumesNode {
  const auth = error instanceof AuthenticationError;
  const label = auth ? vscode.l10n.t('The API key was refused') : isKsmError(error) && error.kind === 'config' ? vscode.l10n.t('Not configured') : vscode.l10n.t('Could not list files');
  const fix = errorFix(error)?.action;
  const detail = auth
    ? vscode.l10n.t('Click to set the API key')
    : fix
      ? vscode.l10n.t('{0} — click to {1}', messageWithFix(error), fix.title.toLowerCase())
      : vscode.l10n.t('{0} — click to retry', messageWithFix(error));
  return { kind: 'message', volume, role: 'error', label, detail, fix };
}
