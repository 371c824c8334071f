// The local embedding model `emu-embed`: feature hashing. Text is lower-cased (Unicode
// NFKC), split into letter/digit words; each unigram and each adjacent-word bigram is hashed
// (FNV-1a, 32 bit) into one of EMBEDDING_DIMENSIONS buckets with a sign taken from another
// hash bit; the vector is L2-normalised. Same text, same vector, on any machine, and texts
// sharing words have a high cosine, which is what retrieval tests need.
export const EMBEDDING_MODEL = 'emu-embed';
export const EMBEDDING_DIMENSIONS = 512;

export function words(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function addFeature(vector: Float32Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  const bucket = hash % EMBEDDING_DIMENSIONS;
  vector[bucket] += (hash & 0x80000000) === 0 ? weight : -weight;
}

export function embed(text: string): Float32Array {
  const vector = new Float32Array(EMBEDDING_DIMENSIONS);
  const tokens = words(text);
  for (let i = 0; i < tokens.length; i++) {
    addFeature(vector, tokens[i], 1);
    if (i + 1 < tokens.length) addFeature(vector, `${tokens[i]} ${tokens[i + 1]}`, 0.5);
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

/** Both vectors are unit length, so the dot product is the cosine. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}
