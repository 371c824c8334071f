// The emulator's embedded database: one SQLite file (better-sqlite3) holding volumes, file
// records, chunks with their vectors, agent threads and turns. Uploaded bytes stay plain
// files under volumes/<dir>/content/ (SQLite is not made for blobs of gigabytes).
//
// WAL mode: the request thread reads while a processing worker (its own connection) writes
// chunks. synchronous=NORMAL: a committed transaction survives a crash or kill -9 of the
// process (it is in the WAL); after a power cut the last moments may roll back, never tear.
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';

export type Db = Database.Database;

export const STORE_FILE = 'store.sqlite';
const SCHEMA_VERSION = '1';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS volumes (name TEXT PRIMARY KEY, dir TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS files (
  uuid TEXT PRIMARY KEY,
  volume TEXT NOT NULL REFERENCES volumes(name),
  seq INTEGER NOT NULL UNIQUE,
  filename TEXT NOT NULL,
  filesize INTEGER NOT NULL,
  date TEXT NOT NULL,
  status TEXT NOT NULL,
  status_detail TEXT,
  embedding TEXT NOT NULL,
  do_chunking INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  chunk_count INTEGER
);
CREATE INDEX IF NOT EXISTS files_by_volume ON files(volume, seq);
CREATE INDEX IF NOT EXISTS files_unfinished ON files(seq) WHERE status NOT IN ('done', 'na');
CREATE TABLE IF NOT EXISTS chunks (file_uuid TEXT NOT NULL, idx INTEGER NOT NULL, text TEXT NOT NULL, vector BLOB);
CREATE UNIQUE INDEX IF NOT EXISTS chunks_by_file ON chunks(file_uuid, idx);
-- Bytes on disk that may have no record: content moved into place for an upload whose
-- records are not committed yet, or content of a deleted record. Removed at start.
CREATE TABLE IF NOT EXISTS loose_content (path TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, user_id TEXT NOT NULL, created INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS turns (thread_id TEXT NOT NULL REFERENCES threads(id), n INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (thread_id, n));
`;

/**
 * Opens a connection with the settings every connection needs (request thread and workers).
 * `checkpoints: false` (the request thread) leaves copying the WAL into the database to
 * the workers, which write most of it, and to a timer (store.ts), so a commit on the
 * request thread never pays for copying a worker's megabytes of chunks.
 */
export function connect(path: string, options: { readonly?: boolean; checkpoints?: boolean } = {}): Db {
  const db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    if (options.checkpoints === false) db.pragma('wal_autocheckpoint = 0');
  }
  return db;
}

export class DamagedStoreError extends Error {}

/**
 * Opens (or creates) the store and checks it can be read. A file that is not a database or
 * whose schema cannot be read throws DamagedStoreError naming the file; the caller
 * quarantines it. The check reads the header, the schema and `meta` only, so start-up time
 * does not grow with the number of files.
 */
export function openStore(dataDir: string): Db {
  const path = join(dataDir, STORE_FILE);
  let db: Db | undefined;
  try {
    db = connect(path, { checkpoints: false });
    db.exec(SCHEMA);
    const version = (db.prepare('SELECT value FROM meta WHERE key = ?').get('schema') as { value: string } | undefined)?.value;
    if (version === undefined) db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('schema', SCHEMA_VERSION);
    else if (version !== SCHEMA_VERSION) {
      db.close();
      throw new Error(`${path} has store schema ${version}, this emulator knows ${SCHEMA_VERSION}: move that file away (or delete the data folder ${dataDir}) to start afresh`);
    }
    return db;
  } catch (error) {
    db?.close();
    const code = (error as { code?: string }).code ?? '';
    if (/^SQLITE_(NOTADB|CORRUPT)/.test(code)) throw new DamagedStoreError(`${path} is damaged (${(error as Error).message})`);
    throw error;
  }
}

/** A folder under quarantine/ named by the time, for whatever a start found damaged. */
export function quarantineFolder(dataDir: string): string {
  const folder = join(dataDir, 'quarantine', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** Moves the damaged store (with its WAL) and the uploaded bytes it described aside, untouched. */
export function quarantineStore(dataDir: string): string {
  const folder = quarantineFolder(dataDir);
  for (const name of [STORE_FILE, `${STORE_FILE}-wal`, `${STORE_FILE}-shm`, 'volumes']) {
    if (existsSync(join(dataDir, name))) renameSync(join(dataDir, name), join(folder, name));
  }
  return folder;
}
