// `ksm sync <folder> <volume>`: the sync engine (src/sync/core) with the manifest kept in
// the folder (.ksm-sync.json) so CI runs are incremental. Deletions need --delete; more
// than --max-delete-percent of the volume needs --allow-mass-delete too.
import { resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import { ConfigurationError } from '../api/errors';
import type { DoChunking } from '../api/types';
import { applySync, type SyncFileResult } from '../sync/core/apply';
import { FileManifestStore } from '../sync/core/manifest';
import { deletionShare, exceedsDeleteGuard, planCounts, planSync, type SyncPlan } from '../sync/core/plan';
import { CLI_MANIFEST_NAME, DEFAULT_EXCLUDES } from '../sync/core/scan';
import { EXIT, type CliEnvironment } from './environment';
import type { Output } from './output';

export interface SyncFlags {
  dryRun?: boolean;
  delete?: boolean;
  json?: boolean;
  exclude: string[];
  maxFileSizeMb: number;
  maxDeletePercent: number;
  allowMassDelete?: boolean;
  embedding?: string;
  chunking: DoChunking;
  concurrency: number;
}

export async function syncCommand(env: CliEnvironment, out: Output, folderArg: string, volume: string, flags: SyncFlags, signal: AbortSignal): Promise<number> {
  const folder = resolve(folderArg);
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory()) throw new ConfigurationError(`'${folderArg}' is not a folder.`);
  const store = new FileManifestStore(resolve(folder, CLI_MANIFEST_NAME));
  const plan = await planSync({
    folder,
    volume,
    service: env.client,
    store,
    rules: { excludeGlobs: [...DEFAULT_EXCLUDES, ...flags.exclude], maxFileSizeBytes: flags.maxFileSizeMb * 1024 * 1024 },
    deleteRemoved: Boolean(flags.delete),
    signal,
  });
  const guardTripped = exceedsDeleteGuard(plan, flags.maxDeletePercent / 100) && !flags.allowMassDelete;

  if (flags.dryRun || guardTripped) {
    if (out.json) out.document({ dryRun: Boolean(flags.dryRun), guardTripped, plan: planJson(plan) });
    else {
      printPlan(out, plan);
      if (guardTripped) {
        out.line(`Refused: this would delete ${Math.round(deletionShare(plan) * 100)}% of '${volume}' (more than ${flags.maxDeletePercent}%). Check the plan, then re-run with --allow-mass-delete.`);
      }
    }
    if (guardTripped) process.stderr.write(`ksm sync: the delete guard refused to delete ${plan.deletes.length} of ${plan.remoteCount} files; nothing was changed.\n`);
    return guardTripped ? EXIT.guard : EXIT.ok;
  }

  const embedding = flags.embedding?.trim() || env.embedding;
  if (plan.uploads.length > 0 && !embedding) {
    throw new ConfigurationError('No embedding model: pass --embedding <model> or set KSM_EMBEDDING_MODEL.');
  }
  if (!out.json) printPlan(out, plan, true);
  const bar = out.progress(plan.uploads.length + plan.deletes.length, `Syncing ${volume}`);
  const summary = await applySync(plan, {
    service: env.client,
    store,
    embedding,
    doChunking: flags.chunking,
    concurrency: flags.concurrency,
    signal,
    onProgress: (p) => bar.update(p.done, p.total),
    onResult: (r) => out.line(resultLine(r)),
  });
  bar.stop();
  const counts = { uploaded: summary.uploaded, replaced: summary.replaced, deleted: summary.deleted, failed: summary.failed, cancelled: summary.cancelled, unchanged: plan.unchanged };
  if (out.json) out.document({ dryRun: false, plan: planJson(plan), results: summary.results, summary: counts });
  else out.line(`${counts.uploaded} uploaded, ${counts.replaced} replaced, ${counts.deleted} deleted, ${counts.unchanged} unchanged${counts.failed ? `, ${counts.failed} failed` : ''}${counts.cancelled ? `, ${counts.cancelled} cancelled` : ''} — ${volume}`);
  if (summary.wasCancelled) return EXIT.cancelled;
  return summary.failed ? EXIT.partial : EXIT.ok;
}

function printPlan(out: Output, plan: SyncPlan, brief = false): void {
  const c = planCounts(plan);
  if (plan.manifest.state !== 'ok') {
    out.line(`No usable manifest (${plan.manifest.state === 'missing' ? `${CLI_MANIFEST_NAME} not found` : plan.manifest.reason}): comparing by name and size; nothing will be deleted this run.`);
  }
  out.line(`Plan for ${plan.folder} → ${plan.volume}: ${c.upload} to upload, ${c.replace} to replace, ${c.delete} to delete, ${c.unchanged} unchanged`);
  if (brief) return;
  for (const u of plan.uploads) out.line(`  ${u.replaces ? 'replace' : 'upload '} ${u.rel}${u.renamedFrom ? ` (renamed from ${u.renamedFrom})` : ''}`);
  for (const d of plan.deletes) out.line(`  delete  ${d.rel ?? d.remoteName}${d.reason === 'replaced' ? ' (older copy of a replaced file)' : ''}`);
  for (const rel of plan.keptRemote) out.line(`  keep    ${rel} (removed locally; pass --delete to delete it from the volume)`);
  for (const f of plan.untracked) out.line(`  remote  ${f.filename} (not from this folder; left alone)`);
  for (const s of plan.skipped) out.line(`  skip    ${s.path}: ${s.reason}`);
}

function planJson(plan: SyncPlan) {
  return {
    folder: plan.folder,
    volume: plan.volume,
    manifest: plan.manifest,
    counts: planCounts(plan),
    uploads: plan.uploads.map((u) => ({ path: u.rel, remoteName: u.remoteName, size: u.size, sha256: u.sha256, replaces: u.replaces?.uuid, renamedFrom: u.renamedFrom })),
    deletes: plan.deletes.map((d) => ({ path: d.rel, remoteName: d.remoteName, uuid: d.uuid, reason: d.reason })),
    adopted: plan.adopted,
    keptRemote: plan.keptRemote,
    untracked: plan.untracked.map((f) => ({ filename: f.filename, uuid: f.uuid, size: f.filesize })),
    skipped: plan.skipped,
    deleteShare: deletionShare(plan),
  };
}

function resultLine(r: SyncFileResult): string {
  return 'reason' in r ? `${r.action} ${r.rel}: ${r.reason}` : `${r.action} ${r.rel}`;
}
