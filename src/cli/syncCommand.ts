// `ksm sync <folder> <volume>`: the sync engine (src/sync/core) with the manifest kept in
// the folder, one per service and volume (.ksm-sync.<volume>.<key>.json, see
// src/sync/core/folderManifest.ts) so CI runs are incremental and one folder can be synced
// to several volumes. One run per folder and volume at a time (a lock next to its
// manifest). Deletions need --delete; more than --max-delete-percent of the volume, or more
// than --max-delete files, needs --allow-mass-delete too. With no manifest, same-name files the folder never recorded stop
// the run before anything changes: --adopt or --keep-others chooses.
import { basename, relative, resolve } from 'node:path';
import { access, lstat, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { ConfigurationError } from '../api/errors';
import { SYNC_MANIFEST_NAME } from '../common/core/folderExpansion';
import type { DoChunking } from '../api/types';
import { applySync, type SyncFileResult, type SyncSummary } from '../sync/core/apply';
import { firstSyncStreamed } from '../sync/core/firstSync';
import { acquireSyncLock } from '../sync/core/lock';
import { folderManifestPath, openFolderManifest } from '../sync/core/folderManifest';
import type { FileManifestStore } from '../sync/core/manifest';
import { deletionShare, exceedsDeleteGuard, guardedDeletions, needsOwnershipChoice, planCounts, planSync, type Ownership, type PlanOptions, type SyncPlan } from '../sync/core/plan';
import { DEFAULT_EXCLUDES } from '../sync/core/scan';
import { checkVolumeArgument, EXIT, UsageError, type CliEnvironment } from './environment';
import { shown, shownText, type FileRecord, type Output } from './output';

export interface SyncFlags {
  dryRun?: boolean;
  delete?: boolean;
  json?: boolean;
  exclude: string[];
  include: string[];
  maxFileSizeMb: number;
  maxDeletePercent: number;
  maxDelete?: number;
  allowMassDelete?: boolean;
  adopt?: boolean;
  keepOthers?: boolean;
  dedupe?: boolean;
  embedding?: string;
  chunking: DoChunking;
  concurrency: number;
  /** How long to wait for another sync of the same folder (seconds). */
  lockWaitSeconds?: number;
}

export async function syncCommand(env: CliEnvironment, out: Output, folderArg: string, volume: string, flags: SyncFlags, signal: AbortSignal): Promise<number> {
  checkVolumeArgument(volume);
  const folder = resolve(folderArg);
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`'${shown(folderArg)}' is not a folder.`);
  // A folder that cannot be listed can say nothing about its files (a raw EACCES was reported as a service failure, exit 5).
  await access(folder, constants.R_OK | constants.X_OK).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`'${shown(folderArg)}' cannot be read (${shown(error.code ?? error.message)}).`);
  });
  if (flags.adopt && flags.keepOthers) throw new UsageError('Pass --adopt or --keep-others, not both.');
  const ownership: Ownership = flags.adopt ? 'adopt' : flags.keepOthers ? 'keepOthers' : 'ask';
  const manifestPath = folderManifestPath(folder, env.baseUrl, volume);
  try {
    return await syncWithLock(env, out, folder, volume, flags, ownership, manifestPath, signal);
  } catch (error) {
    throw recordNotWritten(error, manifestPath) ?? error;
  }
}

/**
 * The folder's sync record (its manifest, journal or lock) could not be written: a read-only
 * or full file system, a folder the user may not write. Said as such, exit 3 (the raw
 * `ENOSPC: no space left on device, write` exited 5, "service or network"). Every upload's
 * intent is written before it is sent, so the next run finds what this one sent.
 */
function recordNotWritten(error: unknown, manifestPath: string): ConfigurationError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (!(error instanceof Error) || typeof (error as NodeJS.ErrnoException).syscall !== 'string' || !code || !LOCAL_WRITE_ERRORS.has(code)) return undefined;
  return new ConfigurationError(
    `Could not write this folder's sync record (${basename(manifestPath)}, its journal or its lock): ${error.message}. ` +
      'Make the folder writable (or free space), then run again: the next run finds what this one sent, and sends nothing twice.',
    { cause: error },
  );
}

const LOCAL_WRITE_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'EFBIG']);

async function syncWithLock(env: CliEnvironment, out: Output, folder: string, volume: string, flags: SyncFlags, ownership: Ownership, manifestPath: string, signal: AbortSignal): Promise<number> {
  // A dry run changes nothing, so it takes no lock; anything else holds this pairing's lock from plan to end (another volume's run has its own).
  const release = flags.dryRun
    ? async () => undefined
    : await acquireSyncLock(manifestPath, {
        what: `${folder} → ${volume}`,
        waitMs: (flags.lockWaitSeconds ?? 5) * 1000,
        onWaiting: () => process.stderr.write(`ksm sync: another sync of this folder to this volume is running; waiting up to ${flags.lockWaitSeconds ?? 5} s…\n`),
        signal, // Ctrl-C ends the wait (exit 130, nothing changed): it waited out --lock-wait (up to an hour) first
      });
  try {
    // One run per process: nothing to remember. A single-pairing .ksm-sync.json of this volume moves to its file (under the lock; a dry run reads it where it is).
    const { store, legacy } = await openFolderManifest(folder, env.baseUrl, volume, {
      compactEveryRun: true,
      remember: false,
      migrate: !flags.dryRun,
      legacyLock: {
        what: `${folder} (${SYNC_MANIFEST_NAME})`,
        waitMs: (flags.lockWaitSeconds ?? 5) * 1000,
        onWaiting: () => process.stderr.write(`ksm sync: an earlier ksm is syncing this folder with ${SYNC_MANIFEST_NAME}; waiting up to ${flags.lockWaitSeconds ?? 5} s…\n`),
        signal,
      },
    });
    if (legacy === 'migrated' && !out.json) out.notice(`Moved this volume's record from ${SYNC_MANIFEST_NAME} to ${basename(store.location)} (one manifest per volume; commit it in its place).`);
    return await syncLocked(env, out, folder, volume, flags, ownership, store, signal);
  } finally {
    await release().catch(() => undefined);
  }
}

async function syncLocked(env: CliEnvironment, out: Output, folder: string, volume: string, flags: SyncFlags, ownership: Ownership, store: FileManifestStore, signal: AbortSignal): Promise<number> {
  const planOptions: PlanOptions = {
    folder,
    volume,
    service: env.client,
    store,
    // Applied right after planning: small files are sent as the scan read them (one read each).
    rules: {
      excludeGlobs: [...DEFAULT_EXCLUDES, ...flags.exclude],
      includeGlobs: flags.include,
      maxFileSizeBytes: flags.maxFileSizeMb * 1024 * 1024,
      sizeLimitName: '--max-file-size-mb',
      keepSmallContent: true,
    },
    deleteRemoved: Boolean(flags.delete),
    ownership,
    dedupe: flags.dedupe,
    signal,
  };
  const embedding = flags.embedding?.trim() || env.embedding;
  const onResult = (r: SyncFileResult) => {
    out.record(syncRecord(r));
    if (r.action === 'failed') out.notice(resultLine(r));
    else out.line(resultLine(r));
  };
  /** What a streamed first sync and a planned run are applied with alike. */
  const runOptions = (bar: ReturnType<Output['progress']>) => ({
    embedding,
    doChunking: flags.chunking,
    concurrency: flags.concurrency,
    signal,
    onProgress: (p: { done: number; total: number }) => bar.update(p.done, p.total),
    onResult,
  });
  // A first sync (no manifest, no journal: a re-sync reads its manifest once, in the plan) into an
  // empty volume sends while the folder is read (nothing to ask about, guard or delete).
  const firstRun = !(await lstat(store.location).catch(() => undefined)) && !(await lstat(store.journalLocation).catch(() => undefined));
  if (!flags.dryRun && embedding && firstRun) {
    const bar = out.progress(1, `Syncing ${shown(volume)}`);
    let streamed;
    try {
      streamed = await firstSyncStreamed(planOptions, {
        ...runOptions(bar),
        onStreaming: () => {
          if (!out.json) out.notice(`No usable manifest (${basename(store.location)} not found): nothing will be deleted for removed files this run.`);
        },
      });
    } finally {
      bar.stop();
    }
    if (streamed) {
      if (!out.json) printPlan(out, streamed.plan, true, true); // the counts, known once the folder was read
      return finishRun(out, streamed.plan, streamed.summary, volume);
    }
  }
  const plan = await planSync(planOptions);
  const guardTripped = exceedsDeleteGuard(plan, flags.maxDeletePercent / 100, flags.maxDelete ?? Infinity) && !flags.allowMassDelete;
  const choice = needsOwnershipChoice(plan);

  if (flags.dryRun || guardTripped || choice) {
    const planned = { dryRun: Boolean(flags.dryRun), guardTripped, needsChoice: choice, plan: planJson(plan) };
    // --json prints it as its one document, --json-lines as its one record (it printed nothing at all before).
    if (out.json) {
      out.document(planned);
      out.record(planned);
    } else printPlan(out, plan);
    if (choice && !flags.dryRun) {
      const names = plan.conflicts
        .slice(0, 3)
        .map((c) => `'${shown(c.rel)}'`)
        .join(', ');
      const name = basename(plan.manifest.location);
      const manifest = plan.manifest.state === 'missing' ? `No sync manifest for this volume (${name})` : `No usable sync manifest (${name}: ${shown(plan.manifest.reason ?? plan.manifest.state)})`;
      throw new UsageError(
        `${manifest}, and ${plan.conflicts.length} file(s) of the folder (${names}${plan.conflicts.length > 3 ? ', …' : ''}) already have a same-name file in '${shown(volume)}' that this folder never recorded; nothing was changed. ` +
          "Re-run with --adopt to treat them as this folder's older copies (uploaded again, then the old ones deleted), or --keep-others to upload alongside and leave them.",
      );
    }
    if (guardTripped) {
      const limit = flags.maxDelete !== undefined && guardedDeletions(plan) > flags.maxDelete ? `more than --max-delete ${flags.maxDelete}` : `more than ${flags.maxDeletePercent}%`;
      out.line(
        `Refused: this would delete ${guardedDeletions(plan)} of the ${plan.remoteCount} files in '${shown(volume)}' (${Math.round(deletionShare(plan) * 100)}%, ${limit}). Check the plan, then re-run with --allow-mass-delete.`,
      );
      process.stderr.write(`ksm sync: the delete guard refused to delete ${guardedDeletions(plan)} of ${plan.remoteCount} files; nothing was changed.\n`);
      return EXIT.guard;
    }
    return EXIT.ok;
  }

  if (plan.uploads.length > 0 && !embedding) {
    throw new ConfigurationError('No embedding model: pass --embedding <model> or set KSM_EMBEDDING_MODEL.');
  }
  if (!out.json) printPlan(out, plan, true);
  const bar = out.progress(plan.uploads.length + plan.deletes.length, `Syncing ${shown(volume)}`);
  let summary;
  try {
    summary = await applySync(plan, { service: env.client, store, ...runOptions(bar) });
  } finally {
    bar.stop();
  }
  return finishRun(out, plan, summary, volume);
}

/** Why a file removed from the folder is still in the volume (the plan and a run's record say it alike). */
const KEPT_REASON = 'removed locally; pass --delete to delete it from the volume';

function finishRun(out: Output, plan: SyncPlan, summary: SyncSummary, volume: string): number {
  // Files (or folders) that are there but could not be read: not synced, and their copies kept (the plan deletes nothing for them); said even in a brief plan.
  const unread = plan.skipped.filter((s) => s.unread);
  // What the folder holds but does not contribute (links, credentials, ignored, too large, binary), said as `ksm upload` says it: a run in CI said it only in a dry run.
  const skipped = plan.skipped.filter((s) => !s.unread);
  const counts = {
    uploaded: summary.uploaded,
    replaced: summary.replaced,
    deleted: summary.deleted,
    failed: summary.failed,
    cancelled: summary.cancelled,
    unchanged: plan.unchanged,
    ...(unread.length ? { unread: unread.length } : {}),
    ...(skipped.length ? { skipped: skipped.length } : {}),
    ...(plan.keptRemote.length ? { kept: plan.keptRemote.length } : {}),
  };
  const notSent: FileRecord[] = [
    // Relative to the folder, as the other records are.
    ...skipped.map((s): FileRecord => ({ path: relative(plan.folder, s.path) || s.path, action: 'skipped', reason: s.reason })),
    // Removed from the folder, still in the volume: without --delete the run said only "0 deleted".
    ...plan.keptRemote.map((rel): FileRecord => ({ path: rel, action: 'kept', reason: KEPT_REASON })),
  ];
  for (const r of notSent) {
    out.record(r);
    out.line(`${r.action.padEnd(7)} ${shown(r.path)}: ${shown(r.reason ?? '')}`);
  }
  if (!out.json) for (const s of unread) out.notice(`not read ${shown(s.path)}: ${shown(s.reason)} (not synced; its copy in the volume, if any, is kept)`);
  if (out.json)
    out.document({
      dryRun: false,
      plan: planJson(plan),
      results: [...summary.results.map(syncRecord), ...notSent],
      summary: counts,
      stopped: summary.stopped ? { kind: summary.stopped.stopKind, message: summary.stopped.message } : undefined,
    });
  out.record({ summary: counts });
  out.notice(
    `${counts.uploaded} uploaded, ${counts.replaced} replaced, ${counts.deleted} deleted, ${counts.unchanged} unchanged${counts.failed ? `, ${counts.failed} failed` : ''}${counts.unread ? `, ${unread.length} not read` : ''}${skipped.length ? `, ${skipped.length} skipped` : ''}${plan.keptRemote.length ? `, ${plan.keptRemote.length} kept (removed locally; --delete deletes them)` : ''}${counts.cancelled ? `, ${counts.cancelled} not confirmed (cancelled)` : ''} — ${shown(volume)}`,
  );
  if (summary.stopped) {
    process.stderr.write(`ksm sync: stopped: ${shownText(summary.stopped.message)}\n`);
    return summary.stopped.stopKind === 'config' ? EXIT.config : EXIT.service;
  }
  if (summary.wasCancelled) return EXIT.cancelled;
  return summary.failed || unread.length ? EXIT.partial : EXIT.ok;
}

function printPlan(out: Output, plan: SyncPlan, brief = false, manifestNoticeShown = false): void {
  const c = planCounts(plan);
  if (plan.manifest.state !== 'ok' && !manifestNoticeShown) {
    out.notice(
      `No usable manifest (${plan.manifest.state === 'missing' ? `${basename(plan.manifest.location)} not found` : shown(plan.manifest.reason ?? '')}): nothing will be deleted for removed files this run.`,
    );
  }
  for (const claim of plan.ignoredClaims) out.notice(`  ignored manifest claim: ${shown(claim)}`);
  out.line(`Plan for ${shown(plan.folder)} → ${shown(plan.volume)}: ${c.upload} to upload, ${c.replace} to replace, ${c.delete} to delete, ${c.unchanged} unchanged`);
  if (brief) return;
  for (const u of plan.uploads) out.line(`  ${u.replaces ? 'replace' : 'upload '} ${shown(u.rel)}${u.renamedFrom ? ` (renamed from ${shown(u.renamedFrom)})` : ''}`);
  for (const d of plan.deletes) {
    const why = d.reason === 'replaced' ? ' (older copy of a replaced file)' : d.reason === 'duplicate' ? ' (extra copy)' : '';
    out.line(`  delete  ${shown(d.remoteName)} (${shown(d.uuid)})${why}`);
  }
  for (const c of plan.conflicts)
    out.line(
      `  same name ${shown(c.rel)}: ${c.remote.length} file(s) in the volume this folder never recorded (${plan.ownership === 'adopt' ? 'adopted: replaced' : plan.ownership === 'keepOthers' ? 'kept: uploaded alongside' : 'needs --adopt or --keep-others'})`,
    );
  for (const d of plan.duplicates) out.line(`  duplicate ${shown(d.file.filename)} (${shown(d.file.uuid)}) beside this folder's copy${d.sameSize ? ' (--dedupe deletes it)' : ''}`);
  for (const rel of plan.keptRemote) out.line(`  keep    ${shown(rel)} (${KEPT_REASON})`);
  for (const f of plan.untracked) out.line(`  remote  ${shown(f.filename)} (not from this folder; left alone)`);
  for (const s of plan.skipped) out.line(`  skip    ${shown(s.path)}: ${shown(s.reason)}`);
}

function planJson(plan: SyncPlan) {
  return {
    folder: plan.folder,
    volume: plan.volume,
    manifest: plan.manifest,
    counts: planCounts(plan),
    uploads: plan.uploads.map((u) => ({ path: u.rel, filename: u.remoteName, size: u.size, sha256: u.sha256, replaces: u.replaces?.map((r) => r.uuid), renamedFrom: u.renamedFrom })),
    deletes: plan.deletes.map((d) => ({ path: d.rel, filename: d.remoteName, uuid: d.uuid, reason: d.reason })),
    adopted: plan.adopted.map((a) => ({ path: a.rel, uuid: a.uuid })),
    conflicts: plan.conflicts.map((c) => ({ path: c.rel, remote: c.remote.map((f) => f.uuid) })),
    duplicates: plan.duplicates.map((d) => ({ path: d.rel, uuid: d.file.uuid, sameSize: d.sameSize })),
    ignoredClaims: plan.ignoredClaims,
    keptRemote: plan.keptRemote,
    untracked: plan.untracked.map((f) => ({ filename: f.filename, uuid: f.uuid, size: f.filesize })),
    skipped: plan.skipped,
    deleteShare: deletionShare(plan),
  };
}

function syncRecord(r: SyncFileResult): FileRecord {
  return 'reason' in r ? { path: r.rel, action: r.action, reason: r.reason } : { path: r.rel, action: r.action, filename: r.remoteName, uuid: r.uuid };
}

function resultLine(r: SyncFileResult): string {
  return 'reason' in r ? `${r.action} ${shown(r.rel)}: ${shown(r.reason)}` : `${r.action} ${shown(r.rel)}`;
}
