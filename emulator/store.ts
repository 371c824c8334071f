// Everything the emulator keeps, on disk under the data folder, mirrored in memory.
//
// Layout (see README): volumes/<dir>/volume.json, records/<uuid>.json (one JSON per file,
// the only thing listing reads), content/<uuid> (the uploaded bytes), chunks/<uuid>.json
// (chunk texts) and chunks/<uuid>.vec (vectors). Content is written and fsynced before its record, and a
// record is deleted before its content, so a crash never leaves a listed file without its
// bytes; orphans (content or chunks without a record) are swept on start.
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { moveIntoPlace, writeFileAtomic } from './atomicFs';
import { EMBEDDING_DIMENSIONS } from './embedder';
import type { FileRecord } from './records';
import { volumeDirName } from './volumes';

export interface ChunkSet {
  texts: string[];
  /** null when the file was chunked without embedding (do_chunking=2). */
  vectors: Float32Array[] | null;
}

interface StoredChunks {
  texts: string[];
  /** Whether chunks/<uuid>.vec holds one Float32 vector per text, back to back. */
  vectors: boolean;
}

export interface StagedFile {
  tempPath: string;
  filename: string;
  size: number;
}

export class Store {
  private readonly volumes = new Map<string, Map<string, FileRecord>>();
  private readonly chunkSets = new Map<string, ChunkSet>();
  private sequence = 0;

  private constructor(readonly dataDir: string) {}

  static async open(dataDir: string): Promise<Store> {
    const store = new Store(dataDir);
    await store.load();
    return store;
  }

  get tempDir(): string {
    return join(this.dataDir, 'tmp');
  }

  get threadsDir(): string {
    return join(this.dataDir, 'threads');
  }

  newTempPath(): string {
    return join(this.tempDir, randomUUID());
  }

  private volumeDir(volume: string): string {
    return join(this.dataDir, 'volumes', volumeDirName(volume));
  }

  contentPath(record: FileRecord): string {
    return join(this.volumeDir(record.volume), 'content', record.uuid);
  }

  hasVolume(volume: string): boolean {
    return this.volumes.has(volume);
  }

  /** Files of a volume in upload order (D10). */
  listFiles(volume: string): FileRecord[] {
    const files = [...(this.volumes.get(volume)?.values() ?? [])];
    return files.sort((a, b) => a.seq - b.seq);
  }

  allRecords(): FileRecord[] {
    return [...this.volumes.values()].flatMap((files) => [...files.values()]);
  }

  findRecord(uuid: string): FileRecord | undefined {
    for (const files of this.volumes.values()) {
      const record = files.get(uuid);
      if (record) return record;
    }
    return undefined;
  }

  getChunks(uuid: string): ChunkSet | undefined {
    return this.chunkSets.get(uuid);
  }

  /** Stores an upload: all content first, then the records, so nothing is half-listed. */
  async commitUpload(
    volume: string,
    staged: StagedFile[],
    fields: { embedding: string; doChunking: FileRecord['doChunking']; date: string },
  ): Promise<FileRecord[]> {
    const dir = this.volumeDir(volume);
    await Promise.all(['records', 'content', 'chunks'].map((sub) => mkdir(join(dir, sub), { recursive: true })));
    if (!this.volumes.has(volume)) {
      await writeFileAtomic(join(dir, 'volume.json'), JSON.stringify({ name: volume }));
      this.volumes.set(volume, new Map());
    }
    const records = staged.map((file): FileRecord => ({
      uuid: randomUUID(),
      filename: file.filename,
      filesize: file.size,
      date: fields.date,
      seq: ++this.sequence,
      status: 'uploaded',
      volume,
      embedding: fields.embedding,
      doChunking: fields.doChunking,
    }));
    for (const [i, record] of records.entries()) await moveIntoPlace(staged[i].tempPath, this.contentPath(record));
    for (const record of records) await this.writeRecord(record);
    const files = this.volumes.get(volume)!;
    for (const record of records) files.set(record.uuid, record);
    return records;
  }

  async updateRecord(record: FileRecord): Promise<void> {
    if (!this.volumes.get(record.volume)?.has(record.uuid)) return; // deleted meanwhile
    await this.writeRecord(record);
  }

  private async writeRecord(record: FileRecord): Promise<void> {
    await writeFileAtomic(join(this.volumeDir(record.volume), 'records', `${record.uuid}.json`), JSON.stringify(record));
  }

  /** Vectors (raw Float32, compact and fast) first, then the texts JSON that marks the set complete. */
  async saveChunks(record: FileRecord, chunks: ChunkSet): Promise<void> {
    if (!this.volumes.get(record.volume)?.has(record.uuid)) return; // deleted meanwhile
    const dir = join(this.volumeDir(record.volume), 'chunks');
    if (chunks.vectors) {
      const packed = new Float32Array(chunks.vectors.length * EMBEDDING_DIMENSIONS);
      chunks.vectors.forEach((vector, i) => packed.set(vector, i * EMBEDDING_DIMENSIONS));
      await writeFileAtomic(join(dir, `${record.uuid}.vec`), new Uint8Array(packed.buffer));
    }
    const stored: StoredChunks = { texts: chunks.texts, vectors: chunks.vectors !== null };
    await writeFileAtomic(join(dir, `${record.uuid}.json`), JSON.stringify(stored));
    this.chunkSets.set(record.uuid, chunks);
  }

  /** Removes the record first (it stops being listed), then its bytes and chunks. */
  async deleteFiles(volume: string, uuids: string[]): Promise<{ deleted: string[]; notFound: string[] }> {
    const files = this.volumes.get(volume);
    const deleted: string[] = [];
    const notFound: string[] = [];
    for (const uuid of uuids) {
      const record = files?.get(uuid);
      if (!files || !record) {
        notFound.push(uuid);
        continue;
      }
      files.delete(uuid);
      this.chunkSets.delete(uuid);
      const dir = this.volumeDir(volume);
      await rm(join(dir, 'records', `${uuid}.json`), { force: true });
      await rm(this.contentPath(record), { force: true });
      await rm(join(dir, 'chunks', `${uuid}.json`), { force: true });
      await rm(join(dir, 'chunks', `${uuid}.vec`), { force: true });
      deleted.push(uuid);
    }
    return { deleted, notFound };
  }

  private async load(): Promise<void> {
    await rm(this.tempDir, { recursive: true, force: true });
    await mkdir(this.tempDir, { recursive: true });
    await mkdir(this.threadsDir, { recursive: true });
    const volumesRoot = join(this.dataDir, 'volumes');
    await mkdir(volumesRoot, { recursive: true });
    for (const dirName of await readdir(volumesRoot)) {
      const dir = join(volumesRoot, dirName);
      const metaPath = join(dir, 'volume.json');
      if (!existsSync(metaPath)) continue;
      const { name } = JSON.parse(await readFile(metaPath, 'utf8')) as { name: string };
      const files = new Map<string, FileRecord>();
      this.volumes.set(name, files);
      for (const entry of await readdir(join(dir, 'records')).catch(() => [] as string[])) {
        if (!entry.endsWith('.json')) {
          await rm(join(dir, 'records', entry), { force: true }); // a temp left by a crash
          continue;
        }
        let record: FileRecord;
        try {
          record = JSON.parse(await readFile(join(dir, 'records', entry), 'utf8')) as FileRecord;
        } catch {
          continue; // hand-edited or damaged: the file is not listed; its content is swept below
        }
        if (!existsSync(this.contentPath(record))) continue;
        files.set(record.uuid, record);
        this.sequence = Math.max(this.sequence, record.seq);
      }
      await this.sweepOrphans(dir, files);
    }
  }

  private async sweepOrphans(dir: string, files: Map<string, FileRecord>): Promise<void> {
    for (const entry of await readdir(join(dir, 'content')).catch(() => [] as string[])) {
      if (!files.has(entry)) await rm(join(dir, 'content', entry), { force: true });
    }
    for (const entry of await readdir(join(dir, 'chunks')).catch(() => [] as string[])) {
      const uuid = entry.replace(/\.(json|vec)$/, '');
      if (!files.has(uuid) || !/\.(json|vec)$/.test(entry)) await rm(join(dir, 'chunks', entry), { force: true });
      if (!files.has(uuid) || !entry.endsWith('.json')) continue;
      try {
        const stored = JSON.parse(await readFile(join(dir, 'chunks', entry), 'utf8')) as StoredChunks;
        let vectors: Float32Array[] | null = null;
        if (stored.vectors) {
          const bytes = await readFile(join(dir, 'chunks', `${uuid}.vec`));
          const packed = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
          vectors = stored.texts.map((_, i) => packed.subarray(i * EMBEDDING_DIMENSIONS, (i + 1) * EMBEDDING_DIMENSIONS));
        }
        this.chunkSets.set(uuid, { texts: stored.texts, vectors });
      } catch {
        // Damaged by hand: the file stays listed but is not found by retrieval until re-uploaded.
      }
    }
  }
}
