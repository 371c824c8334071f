// Top-k cosine search over the chunks of `done` files only (D9, D18).
import { cosine, embed } from './embedder';
import type { FileRecord } from './records';
import type { Store } from './store';

export interface SearchHit {
  record: FileRecord;
  chunkIndex: number;
  score: number;
  text: string;
}

export function searchChunks(store: Store, candidates: FileRecord[], query: string, topK = 4): SearchHit[] {
  const queryVector = embed(query);
  const hits: SearchHit[] = [];
  for (const record of candidates) {
    if (record.status !== 'done') continue;
    const chunks = store.getChunks(record.uuid);
    if (!chunks?.vectors) continue;
    chunks.vectors.forEach((vector, chunkIndex) => {
      const score = cosine(queryVector, vector);
      if (score > 0) hits.push({ record, chunkIndex, score, text: chunks.texts[chunkIndex] });
    });
  }
  return hits.sort((a, b) => b.score - a.score).slice(0, topK);
}
