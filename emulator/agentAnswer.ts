// The rag-agent's answer: retrieval over the allowed files, then an extractive answer that
// quotes the best-matching sentences of the top chunks and cites their files.
import type { Citation, Thread } from './agentThreads';
import type { ValidAgentRequest } from './agentRequest';
import { words } from './embedder';
import { HttpError } from './httpErrors';
import { searchChunks } from './search';
import type { SearchScope, Store } from './store';

export interface AgentAnswer {
  citations: Citation[];
  reasoning: string | null;
  answer: string;
}

/** D18: only the given files when there are any, else the personal volume (unless search_personal_volume is false) plus context.volumes. */
export function searchScope(store: Store, request: ValidAgentRequest, userId: string): SearchScope {
  const personal = `{${userId}}`;
  if (request.fileIds.length > 0) {
    request.fileIds.forEach((id, i) => {
      const record = store.findRecord(id);
      const allowed = record && (!record.volume.startsWith('{') || record.volume === personal);
      if (!allowed) throw new HttpError(404, `file ${id.slice(0, 60)} does not exist (deleted?)`, `files[${i}].file_id`);
    });
    return { fileIds: request.fileIds };
  }
  return { volumes: [...new Set([...(request.searchPersonalVolume ? [personal] : []), ...request.volumes])] };
}

/** The sentences of a chunk that share the most words with the query, up to ~50 words. */
export function bestSnippet(chunk: string, query: string): string {
  const queryWords = new Set(words(query));
  const sentences = chunk
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+/)
    .filter(Boolean);
  const scored = sentences.map((sentence, index) => ({ sentence, index, score: words(sentence).filter((w) => queryWords.has(w)).length }));
  const best = [...scored].sort((a, b) => b.score - a.score || a.index - b.index);
  const chosen: typeof scored = [];
  let count = 0;
  for (const item of best) {
    if (count > 0 && (count + item.sentence.split(/\s+/).length > 50 || item.score === 0)) break;
    chosen.push(item);
    count += item.sentence.split(/\s+/).length;
  }
  const text = chosen
    .sort((a, b) => a.index - b.index)
    .map((item) => item.sentence)
    .join(' ');
  const capped = text.split(/\s+/);
  return capped.length > 60 ? `${capped.slice(0, 60).join(' ')}…` : text;
}

export function composeAnswer(store: Store, request: ValidAgentRequest, thread: Thread, userId: string): AgentAnswer {
  const scope = searchScope(store, request, userId);
  const hits = searchChunks(store, scope, request.query, 4);
  const citations: Citation[] = hits.map((hit) => ({
    file_id: hit.record.uuid,
    filename: hit.record.filename,
    volume: hit.record.volume,
    chunk_index: hit.chunkIndex,
    score: Math.round(hit.score * 1000) / 1000,
    snippet: bestSnippet(hit.text, request.query),
  }));
  const turn = thread.turns.length + 1;
  const previous = thread.turns[thread.turns.length - 1];
  const parts: string[] = [];
  if (previous) parts.push(`(Turn ${turn} of this thread. Earlier you asked: "${previous.query.slice(0, 160)}".)`);
  const { total, searchable } = store.countScope(scope);
  if (citations.length === 0) {
    parts.push(
      `I found nothing about "${request.query.slice(0, 160)}" in the ${searchable} searchable file(s)` +
        (total > searchable ? ` (${total - searchable} more are not processed or not searchable)` : '') +
        '.',
    );
  } else {
    const quoted = citations.slice(0, 3).map((citation, i) => `From ${citation.filename} [${i + 1}]: "${citation.snippet}"`);
    parts.push(`Here is what your files say about "${request.query.slice(0, 160)}".`, ...quoted);
  }
  const reasoning = request.enableThinking
    ? `Turn ${turn}. I searched ${searchable} searchable file(s) for "${request.query.slice(0, 160)}". ` +
      (citations.length ? `The best match is ${citations[0].filename}, chunk ${citations[0].chunk_index}, score ${citations[0].score}. I will quote it.` : 'Nothing matched, so I will say so.')
    : null;
  return { citations, reasoning, answer: parts.join('\n\n') };
}
