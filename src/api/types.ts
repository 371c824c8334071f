// Wire and client types for the KSM service. Decisions referenced as Dnn live in
// docs/service-contract.md. This folder must never import `vscode`.

/** Processing state of a file (D9). `done` and `na` are final. */
export type FileStatus = 'uploaded' | 'waiting' | 'chunking' | 'embedding' | 'indexing' | 'done' | 'na';

export const FINAL_FILE_STATUSES: ReadonlySet<string> = new Set(['done', 'na']);

export interface FileInfo {
  uuid: string;
  filename: string;
  /** A known FileStatus, or whatever unknown string the server sent. */
  status: FileStatus | (string & {});
  filesize: number;
  /** `yyyyMMddHHmmss` as sent; see `parseServiceDate`. */
  date: string;
  isdir: 0 | 1;
  /** Optional human explanation of the status (D8); never required. */
  statusDetail?: string;
  /**
   * The `do_chunking` the file was uploaded with, when a server echoes it (D24: our
   * emulator does not; the extension then remembers what it sent).
   */
  doChunking?: DoChunking;
}

export interface FileListPage {
  total: number;
  offset: number;
  files: FileInfo[];
}

export type DoChunking = 0 | 1 | 2;

/** A file to upload: streamed from disk by path, never read whole into memory. */
export interface UploadSource {
  /** Absolute path on disk. */
  path: string;
  /** Name sent to the service (defaults to the path's base name). */
  filename?: string;
  /**
   * Its size as the caller found it a moment ago (sync's scan): the file is then not stat'ed
   * again before its batch (its size and type are checked when it is read, as for any file).
   */
  knownSize?: number;
  /**
   * Its bytes as the caller already read them (a folder scan's readable-files sniff reads a
   * small file whole): sent as they are, without opening the file again, so what is sent is
   * exactly what was checked and hashed. Its length is the size.
   */
  content?: Uint8Array;
  /**
   * The file a caller checked (device and inode, as `fs.Stats` gives them; the upload tools'
   * private-file check): the file opened must be this one, else it fails and nothing of it is
   * sent. A path replaced since the check (by a symlink to `~/.ssh/id_rsa`) is not read.
   */
  identity?: { dev: number; ino: number };
}

export interface UploadRequest {
  volume: string;
  embedding: string;
  doChunking?: DoChunking;
  files: UploadSource[];
}

export interface UploadProgress {
  /** Bytes of file content sent so far over all batches. */
  bytesSent: number;
  bytesTotal: number;
  /** Files whose batch has been answered. */
  filesDone: number;
  filesTotal: number;
}

export interface UploadBatchLimits {
  /** At most this many files per request. */
  maxFiles: number;
  /** At most this many bytes of file content per request (a single larger file goes alone). */
  maxBytes: number;
}

/** Every file of an upload ends as exactly one of these; none is silently dropped. */
export type UploadFileResult = { source: UploadSource; ok: true; info: FileInfo } | { source: UploadSource; ok: false; error: Error };

export interface DeleteResult {
  deleted: string[];
  notFound: string[];
}

// ---- Chat completions (/v3/chat/completions) ----

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  content: string;
  /** Only on `tool` messages: the call this message answers (D15). */
  tool_call_id?: string;
  /** Only on `assistant` messages that called tools. */
  tool_calls?: ToolCall[];
}

export interface ToolDefinition {
  type: 'function';
  function: {
    name: string;
    description?: string;
    parameters?: Record<string, unknown>;
    strict?: boolean | null;
  };
}

export type ResponseFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; json_schema: Record<string, unknown> };

export interface ReasoningOptions {
  effort?: 'low' | 'medium' | 'high' | null;
  budget_tokens?: number | null;
}

/** Request body of /v3/chat/completions, field names as on the wire. `stream` is set by the client. */
export interface ChatCompletionRequest {
  messages: ChatMessage[];
  model: string;
  frequency_penalty?: number | null;
  max_completion_tokens?: number | null;
  metadata?: Record<string, string> | null;
  /** `responses`: the service answers in the Responses interface format (D16); the client reads either format into the same types. */
  output_parser?: 'responses' | null;
  reasoning?: ReasoningOptions | null;
  repetition_penalty?: number | null;
  response_format?: ResponseFormat;
  seed?: number | null;
  stop?: string | string[] | null;
  temperature?: number | null;
  tools?: ToolDefinition[];
  top_p?: number | null;
  user?: string;
}

export type FinishReason = 'stop' | 'length' | 'error' | 'tool_calls' | (string & {});

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens?: number | null;
  total_tokens: number;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    finish_reason: FinishReason;
    message: { role: ChatRole; content: string; reasoning_content?: string | null; tool_calls?: ToolCall[]; citations?: Citation[] };
  }>;
  usage: Usage;
  /** Which format the service answered in (set when the request asked for `output_parser`). */
  outputFormat?: 'chat' | 'responses';
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: {
      role?: ChatRole;
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: Array<{ index: number; id?: string; type?: 'function'; function?: { name?: string; arguments?: string } }>;
    };
    finish_reason: FinishReason | null;
  }>;
  usage?: Usage | null;
  /** Ours, never on the chat format's wire: file citations of a Responses stream's annotations (D16). */
  citations?: Citation[];
}

// ---- Chat agent messages (/v1/apps/chat-messages) ----

export interface AgentFileRef {
  file_id: string;
  filename: string;
  size: number;
}

export interface AgentContext {
  model: string;
  enable_thinking?: boolean;
  tools?: unknown[];
  /** Our addition (D18): volumes to search besides the personal one. */
  volumes?: string[];
  /** Our addition (D18): false leaves the personal volume out of the search (a conversation that chose its volumes). Default true. */
  search_personal_volume?: boolean;
  [key: string]: unknown;
}

/** The service's retrieval agent, the default everywhere; it answers only with a chat model in `context.model`. */
export const DEFAULT_AGENT_ID = 'rag-agent';

export interface AgentRequest {
  agent_id: string;
  thread_id?: string | null;
  query: string;
  files?: AgentFileRef[];
  context?: AgentContext;
  user?: string;
}

export interface Citation {
  file_id: string;
  filename: string;
  volume?: string;
  chunk_index?: number;
  score?: number;
  snippet?: string;
}

/** Typed agent stream events (D19). Unknown event names arrive as `kind: 'unknown'`. */
export type AgentEvent =
  | { kind: 'thread'; threadId: string; agentId?: string; messageId?: string }
  | { kind: 'retrieval'; threadId?: string; citations: Citation[] }
  | { kind: 'reasoning'; threadId?: string; delta: string }
  | { kind: 'message'; threadId?: string; messageId?: string; delta: string }
  | { kind: 'error'; threadId?: string; code: number; message: string }
  | { kind: 'done'; threadId?: string; messageId?: string; status: FinishReason; usage?: Usage }
  | { kind: 'unknown'; event: string; data: string };

/** Non-streaming agent answer (D20). */
export interface AgentMessage {
  id: string;
  threadId: string;
  agentId: string;
  content: string;
  reasoningContent: string | null;
  citations: Citation[];
  status: FinishReason;
  usage?: Usage;
}

// ---- Client plumbing ----

export interface CallOptions {
  signal?: AbortSignal;
}

/** Where the client writes what it does. The extension passes its LogOutputChannel. */
export interface ClientLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}
