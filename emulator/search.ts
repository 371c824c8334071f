// Top-k cosine search over the chunks of `done` files only (D9, D18); the vectors are
// streamed from the store (store.ts), never all held in memory.
import { embed } from './embedder';
import type { FileRecord } from './records';
import type { SearchScope, Store } from './store';

export interface SearchHit {
  record: FileRecord;
  chunkIndex: number;
  score: number;
  text: string;
}

export function searchChunks(store: Store, scope: SearchScope, query: string, topK = 4): SearchHit[] {
  return store.searchVectors(scope, embed(query), topK).flatMap((hit) => {
    const record = store.findRecord(hit.uuid);
    return record ? [{ record, chunkIndex: hit.chunkIndex, score: hit.score, text: store.chunkText(hit.uuid, hit.chunkIndex) }] : [];
  });
}
