// `ksm upload`, `ksm ls`, `ksm rm`: thin layers over src/api and the upload core (the same
// exclusion rules and duplicate handling as the editor's upload command).
import { NotFoundError } from '../api/errors';
import type { DoChunking, FileInfo } from '../api/types';
import { planUploads, type DuplicateChoice } from '../upload/core/duplicatePlanning';
import { expandSelection } from '../common/core/folderExpansion';
import { runUpload } from '../upload/core/uploadRun';
import { DEFAULT_EXCLUDES } from '../sync/core/scan';
import { ConfigurationError } from '../api/errors';
import { EXIT, type CliEnvironment } from './environment';
import type { Output } from './output';

export async function listVolume(env: CliEnvironment, volume: string, signal: AbortSignal): Promise<FileInfo[]> {
  const files: FileInfo[] = [];
  try {
    for await (const file of env.client.listAllFiles(volume, { signal, pageSize: 1000 })) files.push(file);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error; // D6: a volume never written is empty
  }
  return files;
}

export async function lsCommand(env: CliEnvironment, out: Output, volume: string, signal: AbortSignal): Promise<number> {
  const files = await listVolume(env, volume, signal);
  if (out.json) out.document({ volume, total: files.length, files });
  else for (const f of files) out.line(`${f.uuid}\t${f.status}\t${f.filesize}\t${f.filename}`);
  return EXIT.ok;
}

export async function rmCommand(env: CliEnvironment, out: Output, volume: string, targets: string[], signal: AbortSignal): Promise<number> {
  const files = await listVolume(env, volume, signal);
  const uuids = new Set<string>();
  const unknown: string[] = [];
  for (const target of targets) {
    const matches = files.filter((f) => f.uuid === target || f.filename === target);
    if (matches.length === 0) unknown.push(target);
    for (const m of matches) uuids.add(m.uuid);
  }
  const result = uuids.size ? await env.client.deleteFiles({ volume, uuids: [...uuids] }, { signal }) : { deleted: [], notFound: [] };
  if (out.json) out.document({ volume, deleted: result.deleted, notFound: [...result.notFound, ...unknown] });
  else {
    for (const uuid of result.deleted) out.line(`deleted ${files.find((f) => f.uuid === uuid)?.filename ?? ''} (${uuid})`);
    for (const t of [...result.notFound, ...unknown]) out.line(`not found ${t}`);
  }
  return unknown.length || result.notFound.length ? EXIT.partial : EXIT.ok;
}

export interface UploadFlags {
  embedding?: string;
  chunking: DoChunking;
  onDuplicate: DuplicateChoice;
  exclude: string[];
  maxFileSizeMb: number;
}

export async function uploadCommand(env: CliEnvironment, out: Output, volume: string, paths: string[], flags: UploadFlags, signal: AbortSignal): Promise<number> {
  const embedding = flags.embedding?.trim() || env.embedding;
  if (!embedding) throw new ConfigurationError('No embedding model: pass --embedding <model> or set KSM_EMBEDDING_MODEL.');
  const expansion = await expandSelection(paths, {
    excludeGlobs: [...DEFAULT_EXCLUDES, ...flags.exclude],
    maxFileSizeBytes: flags.maxFileSizeMb * 1024 * 1024,
    workspaceRoots: [process.cwd()],
    signal,
  });
  const existing = await listVolume(env, volume, signal);
  const plan = await planUploads(expansion.files, existing, async () => ({ choice: flags.onDuplicate, applyToAll: true }));
  plan.skipped.unshift(...expansion.skipped);
  const bar = out.progress(plan.uploads.length, `Uploading to ${volume}`);
  const summary = await runUpload({ service: env.client, volume, embedding, doChunking: flags.chunking, plan, signal, onProgress: (p) => bar.update(p.filesDone, p.filesTotal) });
  bar.stop();
  if (out.json) out.document(summary);
  else {
    for (const r of summary.results) out.line(r.outcome === 'uploaded' ? `uploaded ${r.filename} (${r.info.uuid})` : `${r.outcome} ${r.path}: ${r.reason}`);
    out.line(`${summary.uploaded} uploaded, ${summary.failed} failed, ${summary.skipped} skipped — ${volume}`);
  }
  if (summary.wasCancelled) return EXIT.cancelled;
  return summary.failed ? EXIT.partial : EXIT.ok;
}
