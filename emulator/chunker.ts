// Splits text into overlapping word windows, so a sentence cut at one chunk's end is whole
// in the next one. Windows are by words (not tokens) to stay fast and deterministic; a
// chunk is a slice of the original text. The generator keeps only the current window's
// word offsets, so a 64 MB text does not need arrays of millions of offsets (a worker
// chunks, embeds and stores it batch by batch).
export interface ChunkOptions {
  wordsPerChunk: number;
  overlapWords: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { wordsPerChunk: 120, overlapWords: 24 };

export function* iterateChunks(text: string, options: ChunkOptions = DEFAULT_CHUNKING): Generator<string> {
  const stride = Math.max(1, options.wordsPerChunk - options.overlapWords);
  const word = /\S+/g;
  // Word offsets from the current window's first word on.
  let starts: number[] = [];
  let ends: number[] = [];
  let match = word.exec(text);
  while (match) {
    starts.push(match.index);
    ends.push(match.index + match[0].length);
    match = word.exec(text);
    if (starts.length === options.wordsPerChunk || !match) {
      yield text.slice(starts[0], ends[ends.length - 1]);
      if (!match) return;
      starts = starts.slice(stride);
      ends = ends.slice(stride);
    }
  }
}

export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNKING): string[] {
  return [...iterateChunks(text, options)];
}
