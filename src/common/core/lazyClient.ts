import type { KsmService } from '../../api/service';

/** The arguments of one service call, as the interface declares them. */
type Args<K extends keyof KsmService> = Parameters<KsmService[K]>;

/**
 * A KsmService that builds the real client only when a call is made. The HTTP stack
 * (undici) is most of the bundle; loading it at the first request instead of in
 * `activate()` keeps activation in single-digit milliseconds (bench/activation.ts).
 */
export class LazyClient implements KsmService {
  constructor(private readonly load: () => Promise<KsmService>) {}

  async uploadFiles(...args: Args<'uploadFiles'>): ReturnType<KsmService['uploadFiles']> {
    return (await this.load()).uploadFiles(...args);
  }
  async listFiles(...args: Args<'listFiles'>): ReturnType<KsmService['listFiles']> {
    return (await this.load()).listFiles(...args);
  }
  async *listAllFiles(...args: Args<'listAllFiles'>): ReturnType<KsmService['listAllFiles']> {
    yield* (await this.load()).listAllFiles(...args);
  }
  async deleteFiles(...args: Args<'deleteFiles'>): ReturnType<KsmService['deleteFiles']> {
    return (await this.load()).deleteFiles(...args);
  }
  async createChatCompletion(...args: Args<'createChatCompletion'>): ReturnType<KsmService['createChatCompletion']> {
    return (await this.load()).createChatCompletion(...args);
  }
  async *streamChatCompletion(...args: Args<'streamChatCompletion'>): ReturnType<KsmService['streamChatCompletion']> {
    yield* (await this.load()).streamChatCompletion(...args);
  }
  async sendAgentMessage(...args: Args<'sendAgentMessage'>): ReturnType<KsmService['sendAgentMessage']> {
    return (await this.load()).sendAgentMessage(...args);
  }
  async *streamAgentMessage(...args: Args<'streamAgentMessage'>): ReturnType<KsmService['streamAgentMessage']> {
    yield* (await this.load()).streamAgentMessage(...args);
  }
}
