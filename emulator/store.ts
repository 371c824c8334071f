// Everything the emulator keeps: records, chunks, vectors and threads in SQLite
// (database.ts), uploaded bytes as files under volumes/<dir>/content/<uuid>.
//
// An upload's bytes are fsynced and moved into place first, listed in `loose_content`, and
// then one transaction inserts all its records and forgets them from `loose_content`: a
// kill at any point leaves the whole upload or none of it, and the next start removes the
// loose bytes of an upload that never committed. A delete removes the records in one
// transaction (noting the bytes as loose), then the bytes. Start-up reads no per-file data:
// it removes loose bytes and temp uploads and queues the unfinished files.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { fsyncDir } from './atomicFs';
import { DamagedStoreError, openStore, quarantineStore, type Db } from './database';
import { cosine } from './embedder';
import { hasLegacyLayout, importLegacyLayout } from './legacyImport';
import type { DoChunking, FileRecord, FileStatus } from './records';
import { volumeDirName } from './volumes';

export interface StagedFile {
  tempPath: string;
  filename: string;
  size: number;
}

interface FileRow {
  uuid: string;
  volume: string;
  seq: number;
  filename: string;
  filesize: number;
  date: string;
  status: FileStatus;
  status_detail: string | null;
  embedding: string;
  do_chunking: number;
  attempts: number;
  chunk_count: number | null;
}

/** Where retrieval looks: given files, or every file of some volumes (D18). */
export type SearchScope = { fileIds: string[] } | { volumes: string[] };

export interface ScoredChunk {
  uuid: string;
  chunkIndex: number;
  score: number;
}

function toRecord(row: FileRow): FileRecord {
  const record: FileRecord = {
    uuid: row.uuid,
    filename: row.filename,
    filesize: row.filesize,
    date: row.date,
    seq: row.seq,
    status: row.status,
    volume: row.volume,
    embedding: row.embedding,
    doChunking: row.do_chunking as DoChunking,
    attempts: row.attempts,
    chunkCount: row.chunk_count,
  };
  if (row.status_detail) record.statusDetail = row.status_detail;
  return record;
}

/** How often the request thread copies the WAL back (its own commits do not: database.ts). */
const CHECKPOINT_EVERY_MS = 10_000;

export class Store {
  private sequence: number;
  private readonly checkpointTimer: NodeJS.Timeout;

  private constructor(
    readonly dataDir: string,
    readonly db: Db,
  ) {
    this.sequence = (db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM files').get() as { seq: number }).seq;
    // PASSIVE: copies what no reader needs, never waits for a writer.
    this.checkpointTimer = setInterval(() => db.open && db.pragma('wal_checkpoint(PASSIVE)'), CHECKPOINT_EVERY_MS);
    this.checkpointTimer.unref();
  }

  /**
   * Opens the data folder: a damaged store is moved to quarantine/ with the bytes it
   * described (reported through `warn`, never deleted); a folder in the older JSON layout
   * is imported once (legacyImport.ts).
   */
  static async open(dataDir: string, warn: (line: string) => void = () => undefined): Promise<Store> {
    mkdirSync(dataDir, { recursive: true });
    let db: Db;
    try {
      db = openStore(dataDir);
    } catch (error) {
      if (!(error instanceof DamagedStoreError)) throw error;
      const folder = quarantineStore(dataDir);
      warn(`${error.message}. It was moved, with the uploaded files it listed, to ${folder}; starting with an empty store. Nothing was deleted: inspect or remove that folder yourself.`);
      db = openStore(dataDir);
    }
    const store = new Store(dataDir, db);
    if (store.isEmpty() && hasLegacyLayout(dataDir)) {
      await importLegacyLayout(dataDir, db, warn);
      store.sequence = (db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM files').get() as { seq: number }).seq;
    }
    store.sweepLeftovers();
    return store;
  }

  get path(): string {
    return this.db.name;
  }

  get tempDir(): string {
    return join(this.dataDir, 'tmp');
  }

  newTempPath(): string {
    return join(this.tempDir, randomUUID());
  }

  close(): void {
    clearInterval(this.checkpointTimer);
    if (this.db.open) this.db.close();
  }

  private isEmpty(): boolean {
    return this.db.prepare('SELECT 1 FROM volumes LIMIT 1').get() === undefined && this.db.prepare('SELECT 1 FROM threads LIMIT 1').get() === undefined;
  }

  private volumeDir(volume: string): string {
    return join(this.dataDir, 'volumes', volumeDirName(volume));
  }

  contentPath(record: Pick<FileRecord, 'volume' | 'uuid'>): string {
    return join(this.volumeDir(record.volume), 'content', record.uuid);
  }

  hasVolume(volume: string): boolean {
    return this.db.prepare('SELECT 1 FROM volumes WHERE name = ?').get(volume) !== undefined;
  }

  countFiles(volume: string): number {
    return (this.db.prepare('SELECT count(*) AS n FROM files WHERE volume = ?').get(volume) as { n: number }).n;
  }

  /** One page of a volume's files in upload order (D10), read through the (volume, seq) index. */
  listFiles(volume: string, offset = 0, limit = -1): FileRecord[] {
    const rows = this.db.prepare('SELECT * FROM files WHERE volume = ? ORDER BY seq LIMIT ? OFFSET ?').all(volume, limit, offset) as FileRow[];
    return rows.map(toRecord);
  }

  findRecord(uuid: string): FileRecord | undefined {
    const row = this.db.prepare('SELECT * FROM files WHERE uuid = ?').get(uuid) as FileRow | undefined;
    return row && toRecord(row);
  }

  /** Files whose processing has not ended, oldest first (resumed after a restart). */
  unfinishedRecords(): FileRecord[] {
    return (this.db.prepare("SELECT * FROM files WHERE status NOT IN ('done', 'na') ORDER BY seq").all() as FileRow[]).map(toRecord);
  }

  /** How many of the scope's files exist and how many are searchable (`done`). */
  countScope(scope: SearchScope): { total: number; searchable: number } {
    const { where, param } = scopeFilter(scope);
    return this.db.prepare(`SELECT count(*) AS total, coalesce(sum(status = 'done'), 0) AS searchable FROM files f WHERE ${where}`).get(param) as {
      total: number;
      searchable: number;
    };
  }

  /** Stores an upload: every file's bytes in place, then all records in one transaction. */
  async commitUpload(volume: string, staged: StagedFile[], fields: { embedding: string; doChunking: DoChunking; date: string }): Promise<FileRecord[]> {
    const dir = this.volumeDir(volume);
    mkdirSync(join(dir, 'content'), { recursive: true });
    const records = staged.map((file): FileRecord => ({
      uuid: randomUUID(),
      filename: file.filename,
      filesize: file.size,
      date: fields.date,
      seq: 0,
      status: 'uploaded',
      volume,
      embedding: fields.embedding,
      doChunking: fields.doChunking,
      attempts: 0,
      chunkCount: null,
    }));
    const paths = records.map((record) => this.contentPath(record));
    const noteLoose = this.db.prepare('INSERT OR IGNORE INTO loose_content (path) VALUES (?)');
    this.db.transaction(() => paths.forEach((path) => noteLoose.run(path)))();
    for (const [i, file] of staged.entries()) await rename(file.tempPath, paths[i]);
    await fsyncDir(join(dir, 'content'));

    const insertVolume = this.db.prepare('INSERT OR IGNORE INTO volumes (name, dir) VALUES (?, ?)');
    const insertFile = this.db.prepare(
      'INSERT INTO files (uuid, volume, seq, filename, filesize, date, status, embedding, do_chunking) VALUES (@uuid, @volume, @seq, @filename, @filesize, @date, @status, @embedding, @doChunking)',
    );
    const forget = this.db.prepare('DELETE FROM loose_content WHERE path = ?');
    const firstSeq = this.sequence;
    try {
      this.db.transaction(() => {
        insertVolume.run(volume, volumeDirName(volume));
        records.forEach((record, i) => {
          record.seq = firstSeq + i + 1;
          insertFile.run({ ...record });
          forget.run(paths[i]);
        });
      })();
    } catch (error) {
      await Promise.all(paths.map((path) => rm(path, { force: true })));
      this.db.transaction(() => paths.forEach((path) => forget.run(path)))();
      throw error;
    }
    this.sequence = firstSeq + records.length;
    return records;
  }

  /** Persists a new status; false when the file was deleted meanwhile. */
  setStatus(uuid: string, status: FileStatus, detail?: string): boolean {
    const info = this.db.prepare('UPDATE files SET status = ?, status_detail = coalesce(?, status_detail) WHERE uuid = ?').run(status, detail ?? null, uuid);
    return info.changes > 0;
  }

  /** Counts one more start of processing a file (so a file that kills its worker cannot loop). */
  beginAttempt(uuid: string): number {
    const row = this.db.prepare('UPDATE files SET attempts = attempts + 1 WHERE uuid = ? RETURNING attempts').get(uuid) as { attempts: number } | undefined;
    return row?.attempts ?? 0;
  }

  undoAttempt(uuid: string): void {
    this.db.prepare('UPDATE files SET attempts = max(attempts - 1, 0) WHERE uuid = ?').run(uuid);
  }

  /** Removes the records (and their chunks) in one transaction, then their bytes. */
  async deleteFiles(volume: string, uuids: string[]): Promise<{ deleted: string[]; notFound: string[] }> {
    const deleted: string[] = [];
    const notFound: string[] = [];
    const removeFile = this.db.prepare('DELETE FROM files WHERE uuid = ? AND volume = ?');
    const removeChunks = this.db.prepare('DELETE FROM chunks WHERE file_uuid = ?');
    const noteLoose = this.db.prepare('INSERT OR IGNORE INTO loose_content (path) VALUES (?)');
    this.db.transaction(() => {
      for (const uuid of uuids) {
        if (removeFile.run(uuid, volume).changes === 0) {
          notFound.push(uuid);
          continue;
        }
        removeChunks.run(uuid);
        noteLoose.run(this.contentPath({ volume, uuid }));
        deleted.push(uuid);
      }
    })();
    await this.removeLoose(deleted.map((uuid) => this.contentPath({ volume, uuid })));
    return { deleted, notFound };
  }

  /** Chunks a worker left behind when it failed, was ended, or its file was deleted meanwhile. */
  dropChunks(uuid: string): void {
    this.db.prepare('DELETE FROM chunks WHERE file_uuid = ?').run(uuid);
  }

  /**
   * Exact cosine top-k over the vectors of the scope's `done` files, streamed from SQLite
   * one row at a time: memory holds k hits, not the vectors of the volume.
   */
  searchVectors(scope: SearchScope, query: Float32Array, topK: number): ScoredChunk[] {
    const { where, param } = scopeFilter(scope);
    const rows = this.db
      .prepare(`SELECT c.file_uuid AS uuid, c.idx AS idx, c.vector AS vector FROM files f JOIN chunks c ON c.file_uuid = f.uuid WHERE ${where} AND f.status = 'done' AND c.vector IS NOT NULL`)
      .iterate(param) as IterableIterator<{ uuid: string; idx: number; vector: Buffer }>;
    const best: ScoredChunk[] = [];
    for (const row of rows) {
      const vector = new Float32Array(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength / 4);
      const score = cosine(query, vector);
      if (score <= 0 || (best.length === topK && score <= best[best.length - 1].score)) continue;
      best.push({ uuid: row.uuid, chunkIndex: row.idx, score });
      best.sort((a, b) => b.score - a.score);
      if (best.length > topK) best.pop();
    }
    return best;
  }

  chunkText(uuid: string, index: number): string {
    return (this.db.prepare('SELECT text FROM chunks WHERE file_uuid = ? AND idx = ?').get(uuid, index) as { text: string } | undefined)?.text ?? '';
  }

  /**
   * The bytes of deleted records: removed together, then forgotten in one transaction (one
   * rm and one commit per file, one after another, made a delete of 50 files ~18–22 ms, now ~7). A kill
   * in between leaves them noted as loose: the next start removes what is left.
   */
  private async removeLoose(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    await Promise.all(paths.map((path) => rm(path, { force: true })));
    const forget = this.db.prepare('DELETE FROM loose_content WHERE path = ?');
    this.db.transaction(() => paths.forEach((path) => forget.run(path)))();
  }

  /** Temp uploads and loose bytes left by a crash: O(leftovers), not O(files). */
  private sweepLeftovers(): void {
    rmSync(this.tempDir, { recursive: true, force: true });
    mkdirSync(this.tempDir, { recursive: true });
    const loose = (this.db.prepare('SELECT path FROM loose_content').all() as Array<{ path: string }>).map((row) => row.path);
    const stillListed = this.db.prepare('SELECT 1 FROM files WHERE uuid = ?');
    const forget = this.db.prepare('DELETE FROM loose_content WHERE path = ?');
    for (const path of loose) {
      const uuid = path.split(/[\\/]/).pop() ?? '';
      if (!stillListed.get(uuid) && existsSync(path)) rmSync(path, { force: true });
      forget.run(path);
    }
  }
}

function scopeFilter(scope: SearchScope): { where: string; param: string } {
  if ('fileIds' in scope) return { where: 'f.uuid IN (SELECT value FROM json_each(?))', param: JSON.stringify(scope.fileIds) };
  return { where: 'f.volume IN (SELECT value FROM json_each(?))', param: JSON.stringify(scope.volumes) };
}
