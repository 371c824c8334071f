// A processing worker (a child process of workerPool.ts): reads one file through its filter, chunks it, embeds
// the chunks (do_chunking=1) and writes them to the store with its own SQLite connection, a
// batch per transaction, so neither the text nor the vectors of a large file ever reach the
// request thread and no transaction holds the write lock for long. The last transaction
// sets the file's chunk_count: chunks without it are from an interrupted run and replaced.
import { iterateChunks } from './chunker';
import { connect, type Db } from './database';
import { embed } from './embedder';
import { extractFileText } from './filters';
import { MAX_CHUNKS_PER_FILE } from './limits';

export interface FileJob {
  dbPath: string;
  uuid: string;
  contentPath: string;
  filename: string;
  withVectors: boolean;
}

export type JobResult = { ok: true; chunks: number } | { ok: false; reason: string };

const BATCH = 256;
let db: Db | undefined;

async function processFile(job: FileJob): Promise<JobResult> {
  const extracted = await extractFileText(job.contentPath, job.filename);
  if (!extracted.ok) return { ok: false, reason: extracted.reason };
  db ??= connect(job.dbPath);
  const connection = db;
  const insert = connection.prepare('INSERT INTO chunks (file_uuid, idx, text, vector) VALUES (?, ?, ?, ?)');
  connection.prepare('DELETE FROM chunks WHERE file_uuid = ?').run(job.uuid);
  const writeBatch = connection.transaction((batch: string[], first: number) => {
    batch.forEach((text, i) => {
      const vector = job.withVectors ? embed(text) : null;
      insert.run(job.uuid, first + i, text, vector && Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
    });
  });
  let count = 0;
  let batch: string[] = [];
  for (const chunk of iterateChunks(extracted.text)) {
    batch.push(chunk);
    if (batch.length === BATCH) {
      writeBatch(batch, count);
      count += batch.length;
      batch = [];
      if (count > MAX_CHUNKS_PER_FILE) {
        connection.prepare('DELETE FROM chunks WHERE file_uuid = ?').run(job.uuid);
        return { ok: false, reason: `its text makes more than ${MAX_CHUNKS_PER_FILE} chunks, the emulator's limit per file` };
      }
      await new Promise((resolve) => setImmediate(resolve)); // lets a terminate() through
    }
  }
  writeBatch(batch, count);
  count += batch.length;
  connection.transaction(() => {
    const updated = connection.prepare('UPDATE files SET chunk_count = ? WHERE uuid = ?').run(count, job.uuid).changes;
    if (updated === 0) connection.prepare('DELETE FROM chunks WHERE file_uuid = ?').run(job.uuid); // deleted meanwhile
  })();
  return { ok: true, chunks: count };
}

// Run as a child process by workerPool.ts (process.send exists only there); importing this
// module for its types does nothing.
if (process.send) {
  const send = process.send.bind(process);
  send('ready');
  process.on('message', (job: FileJob) => {
    processFile(job).then(
      (result) => send(result),
      (error: Error) => send({ ok: false, reason: `processing failed: ${error.message}` } satisfies JobResult),
    );
  });
  process.on('disconnect', () => process.exit(0)); // the emulator is gone: so is its worker
}
