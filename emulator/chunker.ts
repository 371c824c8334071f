// Splits text into overlapping word windows, so a sentence cut at one chunk's end is whole
// in the next one. Windows are by words (not tokens) to stay fast and deterministic; a
// chunk is a slice of the original text (word offsets are recorded once, no per-word
// strings; collapsing whitespace per chunk cost 8x the whole split, so snippets do it).
export interface ChunkOptions {
  wordsPerChunk: number;
  overlapWords: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { wordsPerChunk: 120, overlapWords: 24 };

export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNKING): string[] {
  const starts: number[] = [];
  const ends: number[] = [];
  const word = /\S+/g;
  for (let match = word.exec(text); match; match = word.exec(text)) {
    starts.push(match.index);
    ends.push(match.index + match[0].length);
  }
  if (starts.length === 0) return [];
  const stride = Math.max(1, options.wordsPerChunk - options.overlapWords);
  const chunks: string[] = [];
  for (let first = 0; first < starts.length; first += stride) {
    const last = Math.min(first + options.wordsPerChunk, starts.length) - 1;
    chunks.push(text.slice(starts[first], ends[last]));
    if (last === starts.length - 1) break;
  }
  return chunks;
}
