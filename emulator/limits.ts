// Every limit the emulator puts on an expansion (decompression, parsing, generation) or on a
// request, in one place: the README and docs/service-contract.md (D23) quote these values.
// Over a file limit the file ends `na` with the reason; over a request limit the request is
// a 400/413 naming the limit.

/** A file's bytes are not indexed above this (its text is read into a worker's memory). */
export const MAX_INDEXED_BYTES = 64 * 1024 * 1024;
/** Text a filter may produce from one file (characters), whatever the format. */
export const MAX_EXTRACTED_CHARS = 64 * 1024 * 1024;
/** DOCX (a ZIP): entries and the total of their inflated sizes, counted while inflating. */
export const MAX_ZIP_ENTRIES = 2000;
export const MAX_ZIP_INFLATED_BYTES = 64 * 1024 * 1024;
/** PDF: pages read. */
export const MAX_PDF_PAGES = 2000;
/** Chunks of one file (a 64 MB text makes about 100,000). */
export const MAX_CHUNKS_PER_FILE = 200_000;

/**
 * A processing worker: heap cap, and how long one file may take before the worker is ended
 * (a guard against a hang: a 64 MB text needs about 15 s on 2 cores, more on a busy machine).
 */
export const WORKER_HEAP_MB = 1024;
export const DEFAULT_FILE_TIMEOUT_MS = 300_000;
/** Starts of processing a file may see without finishing before it is given up (`na`). */
export const MAX_PROCESSING_ATTEMPTS = 3;

/** json_schema / tool arguments: generated JSON size (characters) and nodes visited. */
export const MAX_SCHEMA_OUTPUT_CHARS = 1024 * 1024;
export const MAX_SCHEMA_NODES = 100_000;

/** Multipart: form fields (besides files) and file parts per upload. */
export const MAX_UPLOAD_FIELDS = 100;
export const MAX_UPLOAD_FILES = 10_000;
