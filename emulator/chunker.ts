// Splits text into overlapping word windows, so a sentence cut at one chunk's end is whole
// in the next one. Windows are by words (not tokens) to stay fast and deterministic.
export interface ChunkOptions {
  wordsPerChunk: number;
  overlapWords: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { wordsPerChunk: 120, overlapWords: 24 };

export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNKING): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const stride = Math.max(1, options.wordsPerChunk - options.overlapWords);
  const chunks: string[] = [];
  for (let start = 0; start < words.length; start += stride) {
    chunks.push(words.slice(start, start + options.wordsPerChunk).join(' '));
    if (start + options.wordsPerChunk >= words.length) break;
  }
  return chunks;
}
