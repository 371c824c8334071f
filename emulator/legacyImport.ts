// One-time import of a data folder in the older JSON layout (volumes/<dir>/volume.json,
// records/<uuid>.json, chunks/<uuid>.json + .vec, threads/<id>.json) into the SQLite store.
// Uploaded bytes stay where they are (volumes/<dir>/content/<uuid> is also the new place).
// Everything is inserted in one transaction; only after it commits are the old JSON files
// moved to legacy-json/<time>/ (kept, for the user to delete). A file that cannot be read
// is moved to quarantine/<time>/ together with the bytes it described, and reported by
// name; nothing is deleted.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { quarantineFolder, type Db } from './database';
import { EMBEDDING_DIMENSIONS } from './embedder';
import type { FileRecord } from './records';

function entriesOf(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

export function hasLegacyLayout(dataDir: string): boolean {
  const volumes = join(dataDir, 'volumes');
  return entriesOf(volumes).some((dir) => existsSync(join(volumes, dir, 'volume.json')) || existsSync(join(volumes, dir, 'records'))) || entriesOf(join(dataDir, 'threads')).length > 0;
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

export async function importLegacyLayout(dataDir: string, db: Db, warn: (line: string) => void): Promise<void> {
  const volumesRoot = join(dataDir, 'volumes');
  let quarantine: string | undefined;
  /** Moves damaged files (paths relative to the data folder) aside, keeping their place. */
  const quarantineAll = (relativePaths: string[], why: string, named = relativePaths[0]) => {
    quarantine ??= quarantineFolder(dataDir);
    for (const relative of relativePaths) {
      if (!existsSync(join(dataDir, relative))) continue;
      mkdirSync(dirname(join(quarantine, relative)), { recursive: true });
      renameSync(join(dataDir, relative), join(quarantine, relative));
    }
    warn(`${join(dataDir, named)} ${why}; moved to ${quarantine} (nothing deleted).`);
  };
  const moves: string[] = [];
  let files = 0;
  let threads = 0;

  const insertVolume = db.prepare('INSERT OR IGNORE INTO volumes (name, dir) VALUES (?, ?)');
  const insertFile = db.prepare('INSERT INTO files (uuid, volume, seq, filename, filesize, date, status, status_detail, embedding, do_chunking, chunk_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const insertChunk = db.prepare('INSERT INTO chunks (file_uuid, idx, text, vector) VALUES (?, ?, ?, ?)');
  const insertThread = db.prepare('INSERT OR IGNORE INTO threads (id, agent_id, user_id, created) VALUES (?, ?, ?, ?)');
  const insertTurn = db.prepare('INSERT INTO turns (thread_id, n, body) VALUES (?, ?, ?)');

  db.transaction(() => {
    for (const dir of entriesOf(volumesRoot)) {
      const volumeJson = join('volumes', dir, 'volume.json');
      if (!existsSync(join(dataDir, volumeJson))) continue;
      let name: string;
      try {
        name = readJson<{ name: string }>(join(dataDir, volumeJson)).name;
        if (typeof name !== 'string' || !name) throw new Error('no "name"');
      } catch (error) {
        quarantineAll([join('volumes', dir)], `cannot be read (${(error as Error).message}), so the volume folder ${dir} and its files were not imported`, volumeJson);
        continue;
      }
      insertVolume.run(name, dir);
      moves.push(volumeJson, join('volumes', dir, 'records'), join('volumes', dir, 'chunks'));
      for (const entry of entriesOf(join(dataDir, 'volumes', dir, 'records')).filter((e) => e.endsWith('.json'))) {
        const recordPath = join('volumes', dir, 'records', entry);
        const uuid = entry.slice(0, -'.json'.length);
        let record: FileRecord;
        try {
          record = readJson<FileRecord>(join(dataDir, recordPath));
          if (record.uuid !== uuid || typeof record.filename !== 'string' || typeof record.seq !== 'number') throw new Error('fields missing');
        } catch (error) {
          quarantineAll([recordPath, join('volumes', dir, 'content', uuid)], `is damaged (${(error as Error).message}); it and the file's bytes were not imported`);
          continue;
        }
        if (!existsSync(join(dataDir, 'volumes', dir, 'content', uuid))) continue; // listed without bytes: was never whole
        let chunkCount: number | null = null;
        let status = record.status;
        try {
          const chunksJson = join(dataDir, 'volumes', dir, 'chunks', `${uuid}.json`);
          if (existsSync(chunksJson)) {
            const stored = readJson<{ texts: string[]; vectors: boolean }>(chunksJson);
            const packed = stored.vectors ? readFileSync(join(dataDir, 'volumes', dir, 'chunks', `${uuid}.vec`)) : undefined;
            stored.texts.forEach((text, i) => {
              const vector = packed ? packed.subarray(i * EMBEDDING_DIMENSIONS * 4, (i + 1) * EMBEDDING_DIMENSIONS * 4) : null;
              insertChunk.run(uuid, i, text, vector);
            });
            chunkCount = stored.texts.length;
          }
        } catch {
          chunkCount = null;
        }
        // A file past chunking whose chunks did not come along is processed again.
        if (chunkCount === null && record.status !== 'na' && record.status !== 'uploaded') status = 'waiting';
        insertFile.run(uuid, name, record.seq, record.filename, record.filesize, record.date, status, record.statusDetail ?? null, record.embedding, record.doChunking, chunkCount);
        files += 1;
      }
    }
    for (const entry of entriesOf(join(dataDir, 'threads')).filter((e) => e.endsWith('.json'))) {
      const threadPath = join('threads', entry);
      try {
        const thread = readJson<{ id: string; agentId: string; userId: string; created: number; turns: unknown[] }>(join(dataDir, threadPath));
        insertThread.run(thread.id, thread.agentId, thread.userId, thread.created);
        thread.turns.forEach((turn, n) => insertTurn.run(thread.id, n, JSON.stringify(turn)));
        threads += 1;
      } catch (error) {
        quarantineAll([threadPath], `is damaged (${(error as Error).message}); the thread was not imported`);
      }
    }
  })();

  const legacy = join(dataDir, 'legacy-json', new Date().toISOString().replace(/[:.]/g, '-'));
  for (const relative of [...moves, 'threads']) {
    if (!existsSync(join(dataDir, relative))) continue;
    mkdirSync(dirname(join(legacy, relative)), { recursive: true });
    renameSync(join(dataDir, relative), join(legacy, relative));
  }
  warn(
    `imported ${files} file record(s) and ${threads} thread(s) from the older JSON layout into ${join(dataDir, 'store.sqlite')}; the old JSON files are in ${legacy} (delete it once you are happy).`,
  );
}
