// What the store keeps per file, and how it appears on the wire (D8).
export type FileStatus = 'uploaded' | 'waiting' | 'chunking' | 'embedding' | 'indexing' | 'done' | 'na';
export type DoChunking = 0 | 1 | 2;

export interface FileRecord {
  uuid: string;
  filename: string;
  filesize: number;
  /** `yyyyMMddHHmmss`, UTC. */
  date: string;
  /** Upload sequence number: listing order (D10). */
  seq: number;
  status: FileStatus;
  statusDetail?: string;
  volume: string;
  embedding: string;
  doChunking: DoChunking;
  /** Starts of processing so far (store.ts: a file that keeps killing its worker ends `na`). */
  attempts?: number;
  /** Set once the file's chunks are all stored (null while processing). */
  chunkCount?: number | null;
}

export interface WireFileInfo {
  uuid: string;
  filename: string;
  status: FileStatus;
  filesize: number;
  date: string;
  isdir: 0;
  status_detail?: string;
}

export function toWire(record: FileRecord): WireFileInfo {
  const info: WireFileInfo = {
    uuid: record.uuid,
    filename: record.filename,
    status: record.status,
    filesize: record.filesize,
    date: record.date,
    isdir: 0,
  };
  if (record.statusDetail) info.status_detail = record.statusDetail;
  return info;
}

export function serviceDate(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getUTCFullYear()}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())}` + `${pad(at.getUTCHours())}${pad(at.getUTCMinutes())}${pad(at.getUTCSeconds())}`;
}

export function isFinal(status: FileStatus): boolean {
  return status === 'done' || status === 'na';
}
