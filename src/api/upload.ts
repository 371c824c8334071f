// Uploads in batches (by file count and by bytes) with one result per file: each file ends
// uploaded (with its FileInfo) or failed (with the reason); none is silently dropped.
import * as l10n from '@vscode/l10n';
import type { FileHandle } from 'node:fs/promises';
import pMap from 'p-map';
import { basename } from 'node:path';
import { BadResponseError, CancelledError, InvalidRequestError, KsmError, NetworkError } from './errors';
import { decodeUploadInfos } from './decode';
import { codeOf, errorFromFailure } from './httpErrors';
import { redactorFor } from './redact';
import { FILE_CHANGED, planMultipart, type MultipartFile } from './multipart';
import { openBatchFiles, statAll, type OpenedFile } from './uploadFiles';
import type { UploadOptions } from './service';
import type { Transport } from './transport';
import type { UploadBatchLimits, UploadFileResult, UploadRequest, UploadSource } from './types';

export const DEFAULT_BATCH_LIMITS: UploadBatchLimits = { maxFiles: 20, maxBytes: 32 * 1024 * 1024 };

/** Errors that would fail every later batch the same way: stop sending, fail the rest with it. */
const CLOSED_MID_BODY = new Set(['EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET']);

const FATAL_KINDS = new Set(['auth', 'permission', 'config', 'rate-limited', 'not-found']);

/** A refused key, a path that is not the API (404), or a refused embedding model or volume: every later batch would get the same answer. */
function isFatal(error: KsmError): boolean {
  return FATAL_KINDS.has(error.kind) || (error.kind === 'invalid-request' && (error.param === 'embedding' || error.param === 'volume'));
}

interface Sized {
  source: UploadSource;
  filename: string;
  size: number;
}

/** Groups files in order; a file larger than `maxBytes` goes alone. */
export function planBatches<T extends { size: number }>(files: T[], limits: UploadBatchLimits): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const file of files) {
    if (current.length > 0 && (current.length >= limits.maxFiles || bytes + file.size > limits.maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

function unreadable(source: UploadSource, error: unknown): Error {
  const code = (error as { code?: string })?.code;
  const message =
    code === 'ENOENT'
      ? l10n.t('Could not read {0}: it no longer exists.', source.path)
      : code === 'EACCES' || code === 'EPERM'
        ? l10n.t('Could not read {0}: permission denied.', source.path)
        : code === 'EISDIR'
          ? l10n.t('Could not read {0}: it is a folder.', source.path)
          : l10n.t('Could not read {0}: {1}.', source.path, (error as Error)?.message ?? String(error));
  return new Error(message, { cause: error });
}

export async function uploadInBatches(transport: Transport, request: UploadRequest, options: UploadOptions = {}): Promise<UploadFileResult[]> {
  const limits: UploadBatchLimits = { ...DEFAULT_BATCH_LIMITS, ...options.batch };
  const results: UploadFileResult[] = [];
  const progress = { bytesSent: 0, bytesTotal: 0, filesDone: 0, filesTotal: request.files.length };
  const report = (result: UploadFileResult) => {
    results.push(result);
    progress.filesDone++;
    options.onFileResult?.(result);
  };
  const fail = (source: UploadSource, error: Error) => report({ source, ok: false, error });
  const checkCancelled = () => {
    if (options.signal?.aborted) throw new CancelledError(l10n.t('The upload was cancelled.'));
  };

  checkCancelled();
  const sized: Sized[] = [];
  const unknown = request.files.filter((source) => !source.content && !isKnownSize(source.knownSize));
  const stated = await statAll(unknown.map((source) => source.path));
  let next = 0;
  request.files.forEach((source) => {
    if (source.content) {
      sized.push({ source, filename: source.filename ?? basename(source.path), size: source.content.length });
      progress.bytesTotal += source.content.length;
      return;
    }
    if (isKnownSize(source.knownSize)) {
      sized.push({ source, filename: source.filename ?? basename(source.path), size: source.knownSize });
      progress.bytesTotal += source.knownSize;
      return;
    }
    const got = stated[next++];
    const error = 'error' in got ? got.error : got.info.isFile() ? undefined : Object.assign(new Error(l10n.t('not a file')), { code: 'EISDIR' });
    if (error !== undefined || !('info' in got)) return fail(source, unreadable(source, error));
    sized.push({ source, filename: source.filename ?? basename(source.path), size: got.info.size });
    progress.bytesTotal += got.info.size;
  });
  options.onProgress?.({ ...progress });

  const fields: Array<[string, string]> = [
    ['volume', request.volume],
    ['embedding', request.embedding],
  ];
  if (request.doChunking !== undefined) fields.push(['do_chunking', String(request.doChunking)]);
  const batches = planBatches(sized, limits);
  // A fatal answer stops the batches not yet sent (they fail with it); a cancel ends the
  // call once the batches in flight have settled, so no result arrives after it returned.
  let fatal: KsmError | undefined;
  let cancelled: unknown;
  await pMap(
    batches,
    async (batch) => {
      if (fatal) return void batch.forEach((file) => fail(file.source, fatal!));
      if (cancelled) return;
      try {
        checkCancelled();
        const error = await sendBatch(transport, request.volume, fields, batch, progress, options, report);
        if (error && isFatal(error)) fatal ??= error;
      } catch (error) {
        cancelled ??= error;
      }
    },
    { concurrency: Math.max(1, options.concurrency ?? 1) },
  );
  if (cancelled) throw cancelled;
  options.onProgress?.({ ...progress });
  // Callers get results in the order they asked (onFileResult already told the answer order).
  const order = new Map(request.files.map((source, i) => [source, i]));
  return results.sort((a, b) => order.get(a.source)! - order.get(b.source)!);
}

function isKnownSize(size: number | undefined): size is number {
  return size !== undefined && Number.isSafeInteger(size) && size >= 0;
}

/** Sends one batch and reports its files; returns the batch's error, if any. Throws only on cancel. */
async function sendBatch(
  transport: Transport,
  volume: string,
  fields: Array<[string, string]>,
  batch: Sized[],
  progress: { bytesSent: number; bytesTotal: number; filesDone: number; filesTotal: number },
  options: UploadOptions,
  report: (result: UploadFileResult) => void,
): Promise<KsmError | undefined> {
  // Read (small) or open (large) every file before the request starts, so one that vanished
  // since it was chosen fails alone instead of breaking the request for its batch mates.
  const handles: FileHandle[] = [];
  const ready: Array<Sized & { file: MultipartFile }> = [];
  try {
    // Files whose bytes the caller already read (a folder scan) are not opened again.
    const toRead = batch.flatMap((entry, i) => (entry.source.content ? [] : [i]));
    const read = toRead.length
      ? await openBatchFiles(
          toRead.map((i) => batch[i].source.path),
          toRead.map((i) => batch[i].source.identity),
        )
      : [];
    const opened: OpenedFile[] = batch.map((entry) => (entry.source.content ? { content: entry.source.content, size: entry.source.content.length } : undefined!));
    toRead.forEach((index, k) => (opened[index] = read[k]));
    for (const got of opened) if ('handle' in got) handles.push(got.handle);
    batch.forEach((entry, i) => {
      const got = opened[i];
      if ('error' in got) {
        progress.bytesTotal -= entry.size; // never sent (a size the caller knew, or a stat a moment ago)
        return report({ source: entry.source, ok: false, error: unreadable(entry.source, got.error) });
      }
      progress.bytesTotal += got.size - entry.size;
      const file: MultipartFile = 'content' in got ? { content: got.content, size: got.size, filename: entry.filename } : { handle: got.handle, size: got.size, filename: entry.filename };
      ready.push({ ...entry, size: got.size, file });
    });
    if (ready.length === 0) return undefined;
    const plan = planMultipart(
      fields,
      ready.map((r) => r.file),
    );
    const onFileBytes = (bytes: number) => {
      progress.bytesSent += bytes;
      options.onProgress?.({ ...progress });
    };
    const what = ready.length === 1 ? l10n.t("Uploading '{0}' to volume '{1}'", ready[0].filename, volume) : l10n.t("Uploading {0} files to volume '{1}'", ready.length, volume);
    try {
      const { body, redact } = await transport.json({
        method: 'POST',
        path: '/ksm/rag/v5/files',
        what,
        accept: 'application/json',
        signal: options.signal,
        multipart: {
          contentType: plan.contentType,
          length: plan.length,
          open: () => plan.open(onFileBytes),
          curlForm: [...fields.map(([name, value]) => ({ name, value })), ...ready.map((r) => ({ name: 'file', path: r.source.path, filename: r.filename }))],
        },
      });
      const infos = decodeUploadInfos(body, redact);
      ready.forEach((entry, i) => {
        const info = infos[i];
        if (info) report({ source: entry.source, ok: true, info });
        else report({ source: entry.source, ok: false, error: new BadResponseError(l10n.t("{0}: the service did not return an entry for '{1}'.", what, entry.filename)) });
      });
      return undefined;
    } catch (caught) {
      let error = caught instanceof KsmError ? caught : errorFromFailure(caught, what, options.signal, redactorFor([]));
      if (error instanceof CancelledError || options.signal?.aborted) throw error instanceof CancelledError ? error : new CancelledError(l10n.t('The upload was cancelled.'), { cause: error });
      if (codeOf(error) === FILE_CHANGED) {
        error = new InvalidRequestError(
          l10n.t('{0} failed: a file changed on disk while it was being sent ({1}). Upload it again once it is saved.', what, (error.cause as Error)?.message ?? l10n.t('size changed')),
          {
            cause: error,
          },
        );
      } else if (error instanceof NetworkError && CLOSED_MID_BODY.has(codeOf(error) ?? '')) {
        // A server that refuses a body (too large, not allowed) may answer and hang up
        // before reading it all; the client then only sees the broken pipe.
        error = new NetworkError(
          l10n.t('{0} failed: the service closed the connection while the files were being sent (it may refuse uploads this large). Try again, or upload fewer or smaller files.', what),
          {
            cause: error,
          },
        );
      }
      for (const entry of ready) report({ source: entry.source, ok: false, error });
      transport.logger?.warn(error.message);
      return error;
    } finally {
      options.onProgress?.({ ...progress });
    }
  } finally {
    await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
  }
}
