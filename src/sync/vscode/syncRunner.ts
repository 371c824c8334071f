// One pairing (folder ↔ volume) in the editor: plans with the core, previews when the
// issue asks (first run, any deletion), applies with progress like uploads, ends in the
// same kind of summary (Show Details, Retry Failed), keeps a state for the status bar and,
// in watch mode, re-syncs after saves through the debounced watcher core.
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import { pairingFolderLabel } from '../core/pairingText';
import { shown } from '../../common/core/untrustedText';
import { errorMessage, isCancellation } from '../../api/errors';
import type { ExtensionServices } from '../../common/vscode/services';
import { withAbortSignal } from '../../common/vscode/cancellation';
import { reportError } from '../../common/vscode/commands';
import { settings, shownVolume } from '../../common/vscode/settings';
import { excludeGlobs } from '../../common/vscode/excludeGlobs';
import { applySync, type SyncSummary } from '../core/apply';
import { FileManifestStore } from '../core/manifest';
import { folderIdentity, type FolderIdentity } from '../core/scan';
import type { SyncedFolder } from '../core/citedSource';
import { acquireSyncLock } from '../core/lock';
import { isInSync, needsOwnershipChoice, planCounts, planSync, type Ownership, type SyncPlan } from '../core/plan';
import { eventFilter, noteSent, WATCH_LIMITS, WatchBatcher, type WatchLimits } from '../core/watchBatcher';
import { confirmDeletions, showPreview } from './syncPreview';
import { resolvePairingFolder, workspaceRootOf, type Pairing } from './syncSettings';
import type { DoChunking } from '../../api/types';
import type { SyncState } from './syncStatusText';
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { checkBaseUrl } from '../../api/baseUrl';
import { adoptEarlierRecord, editorRecordName } from '../core/folderManifest';

export type { SyncState } from './syncStatusText';

export interface SyncRunOptions {
  /** From a watcher: no preview pops up by itself; a plan that needs one waits for the user. */
  background?: boolean;
  /** Always preview (the status bar's "open the preview"). */
  preview?: boolean;
  /** Same-name files the folder never recorded (chosen in the preview when there is no manifest). */
  ownership?: Ownership;
  /** A watch run retrying after a failed one: its failures were told already, the status bar keeps saying so. */
  retry?: boolean;
}

export class PairingRunner implements vscode.Disposable {
  private stateValue: SyncState = { kind: 'idle' };
  private readonly changedPaths = new Set<string>();
  private running: Promise<SyncSummary | undefined> | undefined;
  private watcher: vscode.FileSystemWatcher | undefined;
  private batcher: WatchBatcher | undefined;
  private readonly isRelevant: (path: string) => Promise<boolean>;
  private syncedOnce = false;
  /** Whether this pairing had a sync record when the runner was built (a reload, a rebuild after a settings change). */
  private readonly syncedBefore: Promise<boolean>;
  /** A watch run offered the review of its plan (a notification) and the user has not run a sync since: later watch runs do not offer it again. */
  private reviewOffered = false;
  /** Aborted by dispose (Stop Syncing, the pairing edited or removed, trust or excludes changed, the window closing): the run in progress stops, a lock wait ends. */
  private readonly disposal = new AbortController();
  /** When a watch run last sent each file's copy (a watch run sends it again only `limits.fileIntervalMs` later). */
  private readonly lastSent = new Map<string, number>();
  /** The folder's device and inode, taken under the lock once its real path was checked: the run's scan reads that directory or nothing ('not-found' until then, or when it could not be taken). */
  private checkedFolder: FolderIdentity | 'not-found' = 'not-found';
  /** Set by a watch run that left files out: when the first of them may be sent. */
  private sendAgainInMs: number | undefined;
  /** The files the sync record holds (paths relative to the folder), read once when an event needs them and again after each run. */
  private recorded: Promise<ReadonlySet<string>> | undefined;

  constructor(
    readonly pairing: Pairing,
    readonly folderPath: string,
    private readonly services: ExtensionServices,
    private readonly hooks: {
      onState(): void;
      onApplied(volume: string, uploaded?: { uuids: string[]; doChunking: DoChunking }): void;
      showSummary(runner: PairingRunner, summary: SyncSummary, plan: SyncPlan): void;
    },
    /** Watch mode's timing: WATCH_LIMITS, their one home (tests pass their own). */
    private readonly limits: WatchLimits = WATCH_LIMITS,
  ) {
    this.isRelevant = eventFilter(folderPath, { excludeGlobs: excludeGlobs(), root: this.root, wasFile: async (rel) => (await this.recordedFiles()).has(rel) });
    // After a reload: say when this folder was last synced (its manifest's or its journal's time, the newer), not a bare "sync".
    const store = this.store();
    const lastRecord = Promise.all([stat(store.location).catch(() => undefined), stat(store.journalLocation).catch(() => undefined)]).then(([manifest, journal]) =>
      manifest && journal ? (journal.mtimeMs > manifest.mtimeMs ? journal : manifest) : (manifest ?? journal ?? firstStat(this.earlierLocations())),
    );
    // A pairing synced before (a record exists) watches from the start; only a first sync waits for the user's own run and its preview.
    this.syncedBefore = lastRecord.then(
      () => true,
      () => false,
    );
    this.startWatching();
    void lastRecord.then(
      (info) => {
        if (this.stateValue.kind === 'idle') this.setState({ kind: 'idle', lastSynced: info.mtimeMs });
      },
      () => undefined,
    );
  }

  get state(): SyncState {
    return this.stateValue;
  }

  get label(): string {
    // Display only (messages, titles, log): a repository's pairing names the folder as it likes.
    return pairingFolderLabel(this.pairing.folder, basename(this.folderPath));
  }

  private get root(): string {
    return workspaceRootOf(this.folderPath) ?? this.folderPath;
  }

  private setState(state: SyncState): void {
    this.stateValue = state;
    this.hooks.onState();
  }

  /** This folder and what its last sync stored (the manifest through its own reader), for citations; undefined before a first sync. */
  async syncedFolder(): Promise<SyncedFolder | undefined> {
    const store = this.store();
    let loaded = await store.load(this.pairing.volume);
    // Not synced since an earlier version kept the record elsewhere: read where it is.
    for (const earlier of this.earlierLocations()) {
      if (loaded.state !== 'missing') break;
      loaded = await new FileManifestStore(earlier, store.service).load(this.pairing.volume).catch(() => ({ state: 'missing' }) as const); // a link there is not read
    }
    return loaded.state === 'ok' ? { root: this.folderPath, manifest: loaded.manifest } : undefined;
  }

  /**
   * The manifest (and its lock) in the extension's GLOBAL storage, keyed by folder, volume and
   * service (`editorRecordName`): the one place every window sees, and one record per service
   * (a folder synced to a volume of the same name on two services keeps both). A workspace's
   * storage is not shared: VS Code gives a second window on the same workspace a storage
   * folder of its own (`<id>-1`), so a lock there never made that window wait.
   */
  private store(): FileManifestStore {
    const service = this.service();
    // Its journal sits beside it and is folded in once it has grown (a watch-mode re-sync of one file of a large folder appends a few lines).
    return new FileManifestStore(join(this.services.context.globalStorageUri.fsPath, 'sync', editorRecordName(this.folderPath, this.pairing.volume, service)), service, {
      compactEveryRun: false,
    });
  }

  /** The service address the record belongs to ('' while none is set: the run stops at the client anyway). */
  private service(): string {
    try {
      return checkBaseUrl(settings.baseUrl()).url;
    } catch {
      return '';
    }
  }

  /**
   * Where earlier versions kept this pairing's record, read until it is moved: the global
   * storage keyed by folder and volume alone, then this window's workspace storage (under
   * either name).
   */
  private earlierLocations(): string[] {
    const { folderPath, pairing } = this;
    const names = [editorRecordName(folderPath, pairing.volume), editorRecordName(folderPath, pairing.volume, this.service())];
    const places = [join(this.services.context.globalStorageUri.fsPath, 'sync', names[0])];
    const storage = this.services.context.storageUri;
    if (storage) places.push(...names.map((name) => join(storage.fsPath, 'sync', name)));
    return places;
  }

  /** Moves an earlier version's record to this pairing's (under the lock; its journal replayed; never through a symlink; never over an existing one). */
  private async adoptLegacyManifest(store: FileManifestStore): Promise<void> {
    const moved = await adoptEarlierRecord(store, this.pairing.volume, this.earlierLocations());
    if (moved) this.services.log.info(`[sync] ${this.label}: moved the sync record from ${moved} to ${store.location} (one per folder, volume and service, shared by every window)`);
  }

  /**
   * The files the last sync recorded: a path deleted before its event is looked at was a file
   * if it is one of them (watch mode's filter then applies no `dir/` line to it). Empty when
   * there is no usable record: the filter keeps its cautious answer.
   */
  private recordedFiles(): Promise<ReadonlySet<string>> {
    return (this.recorded ??= this.store()
      .load(this.pairing.volume)
      .then(
        (loaded) => new Set(loaded.state === 'ok' ? Object.keys(loaded.manifest.files) : []),
        () => new Set<string>(),
      ));
  }

  /** Every save, create and delete under the folder (ignore rules applied) counts as pending; in watch mode it also schedules a sync. */
  private startWatching(): void {
    this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(this.folderPath), '**/*'));
    const batcher = new WatchBatcher(
      async (_changed, { failures }) => {
        this.sendAgainInMs = undefined;
        const summary = await this.sync({ background: true, retry: failures > 0 }).catch((error: unknown) => {
          // Failed before anything was sent (the listing refused: 503, 401; the lock held past its wait): told once, as a failed
          // apply's summary is, not again for each retry (the status bar and the log said it alone, and the user never knew).
          if (failures === 0)
            void reportError(
              this.services.log,
              error,
              `[sync] ${this.label} → ${shown(this.pairing.volume)}: the watch sync failed`,
              vscode.l10n.t('Sync of {0} → {1} failed (it is tried again by itself): ', this.label, shownVolume(this.pairing.volume)),
            );
          throw error;
        });
        // Stopped by the service (down, refusing): the batcher tries again with backoff, and the changes wait for it.
        if (summary?.stopped) throw summary.stopped;
        // Files sent a moment ago were left out: the batcher runs again when they may be sent.
        return { againInMs: this.sendAgainInMs };
      },
      {
        quietMs: settings.syncWatchDelayMs(),
        limits: this.limits,
        onRetry: (delayMs, error) =>
          this.services.log.warn(`[sync] ${this.label} → ${shown(this.pairing.volume)}: the watch sync failed (${shown(errorMessage(error))}); trying again in ${Math.round(delayMs / 1000)} s`),
      },
    );
    this.batcher = batcher;
    const onEvent = async (uri: vscode.Uri) => {
      if (!(await this.isRelevant(uri.fsPath))) return;
      this.changedPaths.add(uri.fsPath);
      if (this.stateValue.kind !== 'syncing') this.setState({ kind: 'pending', count: this.changedPaths.size });
      // Was `syncedOnce` alone: after every reload (or a rebuild on a settings change) watch did nothing until the user synced by hand.
      if (this.pairing.watch && (this.syncedOnce || (await this.syncedBefore))) void batcher.notify(uri.fsPath);
    };
    this.watcher.onDidCreate(onEvent);
    this.watcher.onDidChange(onEvent);
    this.watcher.onDidDelete(onEvent);
  }

  /** Plans, previews when needed, applies. Resolves with the summary, or undefined when nothing was applied. */
  sync(options: SyncRunOptions = {}): Promise<SyncSummary | undefined> {
    if (this.running) return this.running;
    // A disposed runner's pairing is gone or rebuilt (a notification's Review or Retry Failed clicked after Stop Syncing): it never runs again.
    if (this.disposal.signal.aborted) return Promise.resolve(undefined);
    this.running = this.runOnce(options).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Before every run, watch runs included: the workspace is trusted and the pairing's folder
   * still resolves (symlinks included) to the real folder it was built for, inside the
   * workspace. Otherwise the run is refused with the reason, in the status bar and the log.
   */
  private refusal(): string | undefined {
    if (!vscode.workspace.isTrusted) return vscode.l10n.t('the workspace is not trusted (Restricted Mode): sync waits for trust');
    const now = resolvePairingFolder(this.pairing);
    if (!now.ok) return now.reason;
    if (now.path !== this.folderPath) return vscode.l10n.t("the folder '{0}' now resolves to {1}, not {2} (a symbolic link changed)", this.pairing.folder, now.path, this.folderPath);
    return undefined;
  }

  /** Says why the run is refused (state, log; an error for the user's own run), or does nothing when it may go. */
  private refuse(options: SyncRunOptions): { refused: true } | undefined {
    const refusal = this.refusal();
    if (!refusal) return undefined;
    this.services.log.warn(`[sync] refused to sync ${this.label} → ${shown(this.pairing.volume)}: ${shown(refusal)}.`);
    this.setState({ kind: 'error', message: vscode.l10n.t('refused: {0}', refusal) });
    if (options.background) return { refused: true };
    throw new Error(vscode.l10n.t('Sync of {0} refused: {1}.', this.label, refusal));
  }

  private async runOnce(options: SyncRunOptions): Promise<SyncSummary | undefined> {
    if (this.refuse(options)) return undefined;
    const store = this.store();
    // One run per pairing across windows: a second window waits for the first (the lock sits next to the manifest).
    const release = await vscode.window
      .withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t("Waiting for another window's sync of {0}…", this.label) }, () =>
        acquireSyncLock(store.location, {
          what: `${this.folderPath} → ${this.pairing.volume}`,
          waitMs: 10 * 60_000,
          signal: this.disposal.signal,
          onWaiting: () => this.services.log.info(`[sync] ${this.label}: another window is syncing this pairing; waiting`),
        }),
      )
      .then(
        (release) => release,
        (error: unknown) => {
          if (isCancellation(error)) return undefined; // disposed while waiting: the pairing is gone, nothing runs
          throw error;
        },
      );
    if (!release) return undefined;
    try {
      // Again once the lock is held: the wait for another window lasts up to 10 minutes, and a folder swapped for a link
      // to one outside the workspace meanwhile was read through (the scan starts at the folder's path) and its files sent.
      if (this.refuse(options)) return undefined;
      // And the scan is held to that very directory (device and inode, a link at its path not followed): a link put in its
      // place in the milliseconds between this check and the scan was followed. Checked again after it is read, so it is the checked folder's.
      this.checkedFolder = await folderIdentity(this.folderPath).catch(() => 'not-found' as const);
      if (this.refuse(options)) return undefined;
      await this.adoptLegacyManifest(store).catch((error: unknown) =>
        this.services.log.warn(`[sync] ${this.label}: the sync record in the workspace storage was not moved: ${(error as Error).message}`),
      );
      return await this.runLocked(options, store);
    } finally {
      this.recorded = undefined; // the run may have recorded more: read again when an event asks
      await release().catch(() => undefined);
    }
  }

  private async runLocked(options: SyncRunOptions, store: FileManifestStore): Promise<SyncSummary | undefined> {
    const before = this.stateValue;
    if (!options.background) this.reviewOffered = false; // the user's own run: a later watch run may offer again
    this.setState({ kind: 'syncing' });
    this.changedPaths.clear();
    let plan: SyncPlan | undefined;
    try {
      plan = await vscode.window.withProgress(
        {
          location: options.background ? vscode.ProgressLocation.Window : vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Comparing {0} with {1}…', this.label, shownVolume(this.pairing.volume)),
          cancellable: !options.background,
        },
        (_progress, token) =>
          withAbortSignal(token, (cancel) =>
            planSync({
              folder: this.folderPath,
              volume: this.pairing.volume,
              service: this.services.getClient(),
              store,
              rules: { excludeGlobs: excludeGlobs(), maxFileSizeBytes: settings.maxFileSizeBytes(), root: this.root, expectFolder: this.checkedFolder },
              deleteRemoved: this.pairing.deleteRemoved,
              ownership: options.ownership,
              resend: options.background ? { nowMs: Date.now(), lastSent: this.lastSent, intervalMs: this.limits.fileIntervalMs } : undefined,
              signal: AbortSignal.any([cancel, this.disposal.signal]),
            }),
          ),
      );
      const c = planCounts(plan);
      const waiting = plan.waiting ?? [];
      if (waiting.length) {
        this.sendAgainInMs = waiting.reduce((soonest, f) => Math.min(soonest, f.readyInMs), Infinity); // no spread: a mass change can leave many thousands waiting
        const names = waiting.slice(0, 5).map((f) => shown(f.rel));
        this.services.log.info(
          `[sync] ${this.label} → ${shown(this.pairing.volume)}: ${waiting.length} changed file(s) wait, each sent at most once every ${this.limits.fileIntervalMs / 1000} s by watch (next in ${Math.ceil(this.sendAgainInMs / 1000)} s): ${names.join(', ')}${waiting.length > names.length ? ', …' : ''}`,
        );
      }
      /** The state once applied: in sync, or files waiting for their interval. */
      const settled = (): SyncState =>
        this.changedPaths.size || waiting.length
          ? { kind: 'pending', count: Math.max(this.changedPaths.size, waiting.length), waiting: waiting.length ? { files: waiting.length, intervalMs: this.limits.fileIntervalMs } : undefined }
          : { kind: 'inSync' };
      this.services.log.info(
        `[sync] ${this.label} → ${shown(this.pairing.volume)}: ${c.upload} new, ${c.replace} changed, ${c.delete} to delete, ${c.unchanged} unchanged (manifest ${plan.manifest.state}; hashed ${plan.hashing.hashed}, skipped ${plan.hashing.skipped})`,
      );
      if (isInSync(plan) && !plan.baseChanged && !options.preview) {
        this.syncedOnce = true;
        this.reviewOffered = false;
        this.setState(settled());
        return undefined;
      }
      const needsPreview = options.preview || plan.manifest.state !== 'ok' || plan.deletes.length > 0 || needsOwnershipChoice(plan);
      if (needsPreview) {
        if (options.background) {
          // A deletion is never applied behind the user's back: it waits for the preview.
          this.setState({ kind: 'pending', count: c.upload + c.replace + c.delete });
          // Offered once: every later save made the same offer again (the status bar keeps the count).
          if (this.reviewOffered) return undefined;
          this.reviewOffered = true;
          void vscode.window
            .showInformationMessage(
              vscode.l10n.t('Sync of {0} → {1} is ready: {2} to upload, {3} to delete. Review it to apply.', this.label, shownVolume(this.pairing.volume), c.upload + c.replace, c.delete),
              vscode.l10n.t('Review'),
            )
            .then((choice) => {
              if (choice) void this.sync({ preview: true });
            });
          return undefined;
        }
        // While the preview waits for Apply nothing is being synced: the status bar says "review".
        this.setState({ kind: 'review', count: c.upload + c.replace + c.delete });
        const answer = await showPreview(plan, this.label);
        if (answer === 'adopt' || answer === 'keepOthers') {
          // The choice changes the plan: plan again with it (still holding the lock), then preview that.
          this.setState(before);
          return this.runLocked({ ...options, preview: true, ownership: answer }, store);
        }
        if (answer !== 'apply' || !(await confirmDeletions(plan, settings.syncDeleteGuardShare()))) {
          this.setState(
            before.kind === 'syncing' || before.kind === 'idle' || before.kind === 'inSync' || before.kind === 'review' ? { kind: 'pending', count: c.upload + c.replace + c.delete } : before,
          );
          return undefined;
        }
      }
      if (needsPreview) this.setState({ kind: 'syncing' });
      this.reviewOffered = false; // applied: a later plan that needs review is a new one
      const embedding = settings.embeddingModel();
      if (plan.uploads.length && !embedding) {
        throw new Error(vscode.l10n.t("No embedding model is set: set 'ksm.upload.embeddingModel' (the uploads' model) in Settings."));
      }
      const ready = plan;
      const doChunking = settings.doChunking();
      const summary = await vscode.window.withProgress(
        {
          location: options.background ? vscode.ProgressLocation.Window : vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Syncing {0} → {1}', this.label, shownVolume(this.pairing.volume)),
          cancellable: !options.background,
        },
        (progress, token) => {
          let reported = 0;
          return withAbortSignal(token, (cancel) =>
            applySync(ready, {
              service: this.services.getClient(),
              store,
              embedding,
              doChunking,
              signal: AbortSignal.any([cancel, this.disposal.signal]),
              onProgress: (p) => {
                const fraction = p.total ? p.done / p.total : 1;
                progress.report({ message: vscode.l10n.t('{0} / {1} files', p.done, p.total), increment: Math.max(0, (fraction - reported) * 100) });
                reported = Math.max(reported, fraction);
              },
            }),
          );
        },
      );
      this.syncedOnce = true;
      if (options.background) noteSent(this.lastSent, summary.results, Date.now(), this.limits.fileIntervalMs); // the interval is between watch runs' copies: a save after the user's own run is sent as usual
      if (summary.stopped) this.services.log.warn(`[sync] ${this.label}: stopped: ${summary.stopped.message}`);
      // One line per file: a name's newline (a file in the folder, a volume from the repository's settings) or a service's reason would forge lines of the log.
      for (const r of summary.results) this.services.log.info(`[sync] ${shown(this.pairing.volume)}: ${shown(r.rel)} ${r.action}${'reason' in r ? ` — ${shown(r.reason)}` : ''}`);
      const uuids = summary.results.flatMap((r) => (r.action === 'uploaded' || r.action === 'replaced' ? [r.uuid] : []));
      this.hooks.onApplied(this.pairing.volume, { uuids, doChunking });
      if (summary.stopped) this.setState({ kind: 'error', message: summary.stopped.message });
      else if (summary.failed) this.setState({ kind: 'error', message: vscode.l10n.t('{0} file(s) failed', summary.failed) });
      else if (summary.wasCancelled) this.setState({ kind: 'pending', count: summary.cancelled });
      else this.setState(settled());
      if (!options.background || (summary.failed && !options.retry)) this.hooks.showSummary(this, summary, ready);
      return summary;
    } catch (error) {
      if (isCancellation(error)) {
        this.setState({ kind: 'pending', count: Math.max(1, this.changedPaths.size) });
        return undefined; // silence on user cancel
      }
      this.setState({ kind: 'error', message: (error as Error).message });
      throw error;
    }
  }

  dispose(): void {
    this.disposal.abort();
    this.batcher?.dispose();
    this.watcher?.dispose();
  }
}

/** The first of these paths that exists, stat'ed (rejects when none does). */
async function firstStat(paths: string[]): Promise<Stats> {
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (info) return info;
  }
  throw new Error('none');
}
