// The one import of the tokenizer's data (about 1 MB). esbuild builds it as its own file
// (dist/vendor/tokenizer.js, see esbuild.mjs) and tokenCount.ts reaches it only through a
// dynamic import, so activation never parses it.
// cl100k_base rather than the newer o200k_base: half the size, and the service states no
// tokenizer of its own, so either is an estimate; both are real BPE counts.
export { encode } from 'gpt-tokenizer/encoding/cl100k_base';
