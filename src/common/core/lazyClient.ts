import type { UploadOptions, KsmService } from '../../api/service';
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
  UploadFileResult,
  UploadRequest,
} from '../../api/types';

/**
 * A KsmService that builds the real client only when a call is made. The HTTP stack
 * (undici) is most of the bundle; loading it at the first request instead of in
 * `activate()` keeps activation in single-digit milliseconds (bench/activation.ts).
 */
export class LazyClient implements KsmService {
  constructor(private readonly load: () => Promise<KsmService>) {}

  async uploadFiles(request: UploadRequest, options?: UploadOptions): Promise<UploadFileResult[]> {
    return (await this.load()).uploadFiles(request, options);
  }
  async listFiles(request: { volume: string; offset?: number; limit?: number }, options?: CallOptions): Promise<FileListPage> {
    return (await this.load()).listFiles(request, options);
  }
  async *listAllFiles(volume: string, options?: CallOptions & { pageSize?: number }): AsyncIterable<FileInfo> {
    yield* (await this.load()).listAllFiles(volume, options);
  }
  async deleteFiles(request: { volume: string; uuids: string[] }, options?: CallOptions): Promise<DeleteResult> {
    return (await this.load()).deleteFiles(request, options);
  }
  async createChatCompletion(request: ChatCompletionRequest, options?: CallOptions): Promise<ChatCompletion> {
    return (await this.load()).createChatCompletion(request, options);
  }
  async *streamChatCompletion(request: ChatCompletionRequest, options?: CallOptions): AsyncIterable<ChatCompletionChunk> {
    yield* (await this.load()).streamChatCompletion(request, options);
  }
  async sendAgentMessage(request: AgentRequest, options?: CallOptions): Promise<AgentMessage> {
    return (await this.load()).sendAgentMessage(request, options);
  }
  async *streamAgentMessage(request: AgentRequest, options?: CallOptions): AsyncIterable<AgentEvent> {
    yield* (await this.load()).streamAgentMessage(request, options);
  }
}
