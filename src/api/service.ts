// The operations the extension needs from the service. `KsmClient` (client.ts) implements
// it over HTTP; features depend on this interface only, so each can be given a client
// built from the current settings at call time.
import type {
  AgentEvent,
  AgentMessage,
  AgentRequest,
  CallOptions,
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  DeleteResult,
  FileInfo,
  FileListPage,
  UploadBatchLimits,
  UploadFileResult,
  UploadProgress,
  UploadRequest,
} from './types';

export interface UploadOptions extends CallOptions {
  onProgress?: (progress: UploadProgress) => void;
  /** Called once per file as soon as its batch is answered. */
  onFileResult?: (result: UploadFileResult) => void;
  batch?: Partial<UploadBatchLimits>;
  /** Upload requests in flight at once (default 1); results still come once per file. */
  concurrency?: number;
}

export interface KsmService {
  /** Uploads in batches; resolves with one result per file (never rejects for a per-file failure). Rejects with CancelledError when aborted. */
  uploadFiles(request: UploadRequest, options?: UploadOptions): Promise<UploadFileResult[]>;
  listFiles(request: { volume: string; offset?: number; limit?: number }, options?: CallOptions): Promise<FileListPage>;
  /** Pages lazily through a whole volume. */
  listAllFiles(volume: string, options?: CallOptions & { pageSize?: number }): AsyncIterable<FileInfo>;
  deleteFiles(request: { volume: string; uuids: string[] }, options?: CallOptions): Promise<DeleteResult>;
  createChatCompletion(request: ChatCompletionRequest, options?: CallOptions): Promise<ChatCompletion>;
  /** Ends on `[DONE]`; throws StreamError for `finish_reason: "error"` and StreamCutOffError when `[DONE]` never came, after yielding what arrived. */
  streamChatCompletion(request: ChatCompletionRequest, options?: CallOptions): AsyncIterable<ChatCompletionChunk>;
  sendAgentMessage(request: AgentRequest, options?: CallOptions): Promise<AgentMessage>;
  /** Ends after the `done` event (which it yields); throws StreamCutOffError when `done` never came. */
  streamAgentMessage(request: AgentRequest, options?: CallOptions): AsyncIterable<AgentEvent>;
}
