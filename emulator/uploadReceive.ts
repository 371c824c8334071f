// Receives a multipart upload as a stream (busboy): every file part goes straight to a temp
// file under the data folder, never whole into memory. Fields may arrive after the files,
// so nothing is decided until the whole body is in; on any failure every temp is removed.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { fsyncFile } from './atomicFs';
import type { RequestContext } from './context';
import { HttpError, badRequest } from './httpErrors';
import { MAX_UPLOAD_FIELDS, MAX_UPLOAD_FILES } from './limits';
import type { StagedFile } from './store';

export interface ReceivedUpload {
  fields: Map<string, string>;
  files: StagedFile[];
}

/**
 * Removes a directory part a tool may have left in a part's filename (D7). Only `/` is a
 * separator: a backslash is an ordinary character of a name on Linux and macOS, so
 * `back\slash.txt` stays whole (busboy runs with preservePath so it does not cut it first).
 */
function baseName(filename: string): string {
  return filename.split('/').pop() ?? '';
}

export async function receiveUpload(ctx: RequestContext): Promise<ReceivedUpload> {
  const { req, shared } = ctx;
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    throw new HttpError(415, `upload must be multipart/form-data, got ${contentType || 'no content type'}`);
  }
  const limit = shared.maxUploadBytes;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    throw new HttpError(413, `upload of ${declared} bytes is over the limit of ${limit} bytes`);
  }
  const resetFault = shared.faults.take(ctx.path, ctx.method, ['reset']);

  const fields = new Map<string, string>();
  const files: StagedFile[] = [];
  const writes: Promise<void>[] = [];
  const partStreams: NodeJS.ReadableStream[] = [];
  let received = 0;
  let settled = false;
  let failure: Error | undefined;
  let parser: busboy.Busboy;

  const cleanup = () => Promise.all(files.map((file) => rm(file.tempPath, { force: true })));

  const clientGone = () => {
    shared.stats.abortedUploads += 1;
    shared.events.emit('upload-aborted', { path: ctx.path });
  };
  if (req.destroyed) {
    // Closed before we got here (during a latency fault): its 'close' event has passed and a
    // destroyed stream gives no more data, even a body that had fully arrived, so waiting for
    // it would hang this handler forever. Nobody waits for the answer: store nothing.
    clientGone();
    throw new Error('client closed the connection before the upload was read');
  }

  return new Promise<ReceivedUpload>((resolve, reject) => {
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      failure = error;
      req.unpipe(parser);
      // Ends the temp-file writes at once; they would otherwise wait for bytes that never come.
      for (const stream of partStreams) (stream as unknown as { destroy(error?: Error): void }).destroy(error);
      void Promise.allSettled(writes)
        .then(cleanup)
        .finally(() => reject(error));
    };

    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (resetFault && received >= (resetFault.afterBytes ?? 0)) {
        req.socket.destroy();
        fail(new HttpError(500, 'connection reset by fault injection'));
      } else if (received > limit) {
        fail(new HttpError(413, `upload is over the limit of ${limit} bytes`));
      }
    });
    req.on('error', () => undefined); // a dropped connection is handled by 'close' below
    req.on('close', () => {
      if (!req.complete && !settled) {
        clientGone();
        fail(new Error('client closed the connection during the upload'));
      }
    });

    try {
      // defParamCharset: a plain filename="…" is read as UTF-8 (what browsers and undici send);
      // filename*=UTF-8''… (RFC 5987) is decoded by busboy and wins over filename.
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        preservePath: true,
        limits: { fieldSize: 1024 * 1024, fields: MAX_UPLOAD_FIELDS, files: MAX_UPLOAD_FILES },
      });
    } catch (error) {
      reject(badRequest(`malformed multipart body: ${(error as Error).message}`));
      return;
    }
    parser.on('fieldsLimit', () =>
      fail(new HttpError(413, `the upload has more than ${MAX_UPLOAD_FIELDS} form fields (besides files), the emulator's limit: send volume, embedding and do_chunking once each`)),
    );
    parser.on('filesLimit', () => fail(new HttpError(413, `the upload has more than ${MAX_UPLOAD_FILES} file parts, the emulator's limit per request: split it`, 'file')));
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        fail(badRequest(`form field "${name.slice(0, 40)}" is longer than 1 MB`, name.slice(0, 40)));
        return;
      }
      if (!fields.has(name)) fields.set(name, value);
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || failure) {
        stream.resume();
        return;
      }
      const staged: StagedFile = { tempPath: shared.store.newTempPath(), filename: baseName(info.filename ?? ''), size: 0 };
      files.push(staged);
      partStreams.push(stream);
      stream.on('data', (chunk: Buffer) => (staged.size += chunk.length));
      writes.push(pipeline(stream, createWriteStream(staged.tempPath)).then(() => fsyncFile(staged.tempPath)));
    });
    parser.on('error', (error: Error) => fail(badRequest(`malformed multipart body: ${error.message}`)));
    parser.on('close', () => {
      Promise.all(writes).then(
        () => {
          if (settled) return;
          settled = true;
          resolve({ fields, files });
        },
        (error: Error) => fail(error),
      );
    });
    req.pipe(parser);
  });
}

export async function discardStaged(files: StagedFile[]): Promise<void> {
  await Promise.all(files.map((file) => rm(file.tempPath, { force: true })));
}
