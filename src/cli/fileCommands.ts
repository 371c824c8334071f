// `ksm upload`, `ksm ls`, `ksm rm`: thin layers over src/api and the upload core (the same
// exclusion rules and duplicate handling as the editor's upload command).
import { isConfigurationAnswer, isUnwrittenVolume } from '../api/errors';
import type { DoChunking, FileInfo } from '../api/types';
import { planUploads, type DuplicateChoice } from '../upload/core/duplicatePlanning';
import { expandSelection } from '../common/core/folderExpansion';
import { runUpload, type FileOutcome } from '../upload/core/uploadRun';
import { DEFAULT_EXCLUDES } from '../sync/core/scan';
import { ConfigurationError } from '../api/errors';
import { ReplacementTracker, type PendingReplacement, type SettledReplacement } from '../upload/core/pendingReplacements';
import { checkVolumeArgument, EXIT, UsageError, type CliEnvironment } from './environment';
import { shown, shownText, type FileRecord, type Output } from './output';

export async function listVolume(env: CliEnvironment, volume: string, signal: AbortSignal): Promise<FileInfo[]> {
  const files: FileInfo[] = [];
  try {
    for await (const file of env.client.listAllFiles(volume, { signal, pageSize: 1000 })) files.push(file);
  } catch (error) {
    if (!isUnwrittenVolume(error)) throw error; // D6: a volume never written is empty
  }
  return files;
}

export async function lsCommand(env: CliEnvironment, out: Output, volume: string, signal: AbortSignal): Promise<number> {
  checkVolumeArgument(volume);
  const files = await listVolume(env, volume, signal);
  if (out.json) out.document({ volume, total: files.length, files });
  else for (const f of files) out.line(`${shown(f.uuid)}\t${shown(f.status)}\t${f.filesize}\t${shown(f.filename)}`);
  return EXIT.ok;
}

export async function rmCommand(env: CliEnvironment, out: Output, volume: string, targets: string[], signal: AbortSignal, flags: { dryRun?: boolean } = {}): Promise<number> {
  checkVolumeArgument(volume);
  const files = await listVolume(env, volume, signal);
  const uuids = new Set<string>();
  const unknown: string[] = [];
  for (const target of targets) {
    // An id names one file: a file whose name happens to be that id is not deleted with it.
    const byId = files.filter((f) => f.uuid === target);
    const matches = byId.length ? byId : files.filter((f) => f.filename === target);
    if (matches.length === 0) unknown.push(target);
    for (const m of matches) uuids.add(m.uuid);
  }
  if (flags.dryRun) {
    // A name can match many files (every copy of it): what would go, by the same matching, nothing deleted.
    const wouldDelete = files.filter((f) => uuids.has(f.uuid)).map((f) => ({ uuid: f.uuid, filename: f.filename }));
    if (out.json) out.document({ volume, dryRun: true, wouldDelete, notFound: unknown });
    else {
      for (const f of wouldDelete) out.line(`would delete ${shown(f.filename)} (${shown(f.uuid)})`);
      for (const t of unknown) out.notice(`not found ${shown(t)}`);
    }
    return unknown.length ? EXIT.partial : EXIT.ok;
  }
  const result = uuids.size ? await env.client.deleteFiles({ volume, uuids: [...uuids] }, { signal }) : { deleted: [], notFound: [] };
  if (out.json) out.document({ volume, deleted: result.deleted, notFound: [...result.notFound, ...unknown] });
  else {
    for (const uuid of result.deleted) out.line(`deleted ${shown(files.find((f) => f.uuid === uuid)?.filename ?? '')} (${shown(uuid)})`);
    for (const t of [...result.notFound, ...unknown]) out.notice(`not found ${shown(t)}`);
  }
  return unknown.length || result.notFound.length ? EXIT.partial : EXIT.ok;
}

export interface UploadFlags {
  embedding?: string;
  chunking: DoChunking;
  onDuplicate: DuplicateChoice;
  exclude: string[];
  include: string[];
  maxFileSizeMb: number;
  /** Upload requests in flight. */
  concurrency: number;
  /** How long `replace` waits for the new copies to be processed before leaving the old ones (seconds). */
  replaceWaitSeconds: number;
}

export async function uploadCommand(env: CliEnvironment, out: Output, volume: string, paths: string[], flags: UploadFlags, signal: AbortSignal): Promise<number> {
  checkVolumeArgument(volume);
  const embedding = flags.embedding?.trim() || env.embedding;
  if (!embedding) throw new ConfigurationError('No embedding model: pass --embedding <model> or set KSM_EMBEDDING_MODEL.');
  // The volume's listing is asked while the folder is read (a missing path still fails first).
  const listing = listVolume(env, volume, signal);
  listing.catch(() => undefined); // awaited below; not unhandled if the expansion throws first
  const expansion = await expandSelection(paths, {
    excludeGlobs: [...DEFAULT_EXCLUDES, ...flags.exclude],
    includeGlobs: flags.include,
    maxFileSizeBytes: flags.maxFileSizeMb * 1024 * 1024,
    sizeLimitName: '--max-file-size-mb',
    // No workspace: each folder given is its own root, its globs and `.gitignore` files relative to it, as `ksm sync` reads its folder (not to the current folder).
    workspaceRoots: [],
    signal,
    keepContent: true, // small files are sent as the sniff read them: one read each
    skipNamedLinks: true, // `ksm upload v shared/*`: a link someone put there is not followed
  });
  const missing = expansion.skipped.filter((s) => s.reason === 'not found');
  if (missing.length) throw new UsageError(`Not found: ${missing.map((m) => `'${shown(m.path)}'`).join(', ')}; nothing was uploaded.`);
  const existing = await listing;
  const plan = await planUploads(expansion.files, existing, async () => ({ choice: flags.onDuplicate, applyToAll: true }));
  plan.skipped.unshift(...expansion.skipped);
  const bar = out.progress(plan.uploads.length, `Uploading to ${shown(volume)}`);
  // Each file is said as its batch is answered (a CI log of 5,000 files said nothing until the end); the rest (skipped, not sent) after.
  const said = new Set<string>();
  const say = (r: FileOutcome) => {
    said.add(r.path);
    out.record(uploadRecord(r));
    if (r.outcome === 'uploaded') out.line(`uploaded ${shown(r.filename)} (${shown(r.info.uuid)})`);
    else if (r.outcome === 'skipped') {
      // What the folder's own rules left out (its .git, .gitignore, excluded files) is counted, not named: --json and --json-lines have it.
      if (!r.excluded) out.line(`skipped ${shown(r.path)}: ${shown(r.reason)}`);
    } else out.notice(`${r.outcome} ${shown(r.path)}: ${shown(r.reason)}`);
  };
  let summary;
  try {
    summary = await runUpload({
      service: env.client,
      volume,
      embedding,
      doChunking: flags.chunking,
      plan,
      signal,
      concurrency: flags.concurrency,
      onProgress: (p) => bar.update(p.filesDone, p.filesTotal),
      onResult: say,
    });
  } finally {
    bar.stop();
  }
  for (const r of summary.results) if (!said.has(r.path)) say(r);
  const settled = summary.replacements.length && !summary.wasCancelled ? await finishReplacements(env, out, summary.replacements, flags.replaceWaitSeconds, signal) : [];
  const replaced = settled.filter((s) => s.outcome === 'replaced').length;
  const counts = { uploaded: summary.uploaded, replaced, failed: summary.failed, skipped: summary.skipped, ...(summary.excluded ? { excluded: summary.excluded } : {}), cancelled: summary.cancelled };
  if (out.json)
    out.document({
      volume,
      results: summary.results.map(uploadRecord),
      summary: counts,
      replacements: settled.map((s) => ({ uuid: s.pending.uuid, filename: s.pending.filename, replaces: s.pending.replaces, outcome: s.outcome, message: s.message })),
    });
  out.record({ summary: counts });
  out.notice(
    `${summary.uploaded} uploaded${summary.replacements.length ? ` (${replaced} replaced)` : ''}, ${summary.failed} failed, ${summary.skipped} skipped${summary.excluded ? `, ${summary.excluded} excluded` : ''} — ${shown(volume)}`,
  );
  if (summary.wasCancelled) return EXIT.cancelled;
  // Every file failed with one configuration-class answer (a refused model, key or path): exit 3, as sync does.
  const failures = summary.results.filter((r) => r.outcome === 'failed');
  const first = failures[0];
  if (first && summary.uploaded === 0 && 'error' in first && isConfigurationAnswer(first.error)) {
    process.stderr.write(`ksm upload: stopped: ${shownText(first.reason)}\n`);
    return EXIT.config;
  }
  // A file or folder that is there but could not be read (no permission) was not sent: some files failed, as `ksm sync` says it.
  return summary.failed || settled.some((s) => s.outcome === 'delete-failed') || expansion.skipped.some((s) => s.unread) ? EXIT.partial : EXIT.ok;
}

function uploadRecord(r: FileOutcome): FileRecord {
  if (r.outcome === 'uploaded') return { path: r.path, action: 'uploaded', filename: r.filename, uuid: r.info.uuid };
  return { path: r.path, action: r.outcome === 'skipped' && r.excluded ? 'excluded' : r.outcome, reason: r.reason };
}

/**
 * `--on-duplicate replace` finishes as the editor's does: the older copies are deleted once
 * the new copy is `done` (kept when it ends `na`, with the reason). Waits up to `waitSeconds`;
 * what is still processing then keeps its older copies, and says so.
 */
async function finishReplacements(env: CliEnvironment, out: Output, replacements: PendingReplacement[], waitSeconds: number, signal: AbortSignal): Promise<SettledReplacement[]> {
  let pending = replacements;
  const settled: SettledReplacement[] = [];
  const tracker = new ReplacementTracker({ service: () => env.client, storage: { get: () => pending, set: async (next) => void (pending = next) }, onSettled: (s) => settled.push(s) });
  const deadline = Date.now() + waitSeconds * 1000;
  out.notice(`Waiting for ${replacements.length} new cop${replacements.length === 1 ? 'y' : 'ies'} to be processed before deleting the older ones…`);
  for (;;) {
    await tracker.settleOnce();
    if (pending.length === 0 || signal.aborted || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  for (const s of settled) (s.outcome === 'replaced' ? out.line : out.notice)(`replace ${shown(s.message)}`);
  for (const p of pending) {
    out.notice(
      `replace '${shown(p.filename)}': the new copy is still processing after ${waitSeconds} s, so the older cop${p.replaces.length === 1 ? 'y was' : 'ies were'} kept (${p.replaces.map(shown).join(', ')}); delete with: ksm rm <volume> ${p.replaces.map(shown).join(' ')}`,
    );
  }
  return settled;
}
