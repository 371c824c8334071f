// KsmClient: the service over HTTP. Every parameter is validated before sending; every
// answer is decoded tolerantly; every failure becomes one of the classes in errors.ts.
import * as l10n from '@vscode/l10n';
import type { Dispatcher } from 'undici';
import { CancelledError, errorMessage, KsmError, StreamCutOffError } from './errors';
import { agentStreamDecoder, decodeAgentMessage } from './agentDecoding';
import { agentEventRedaction, agentMessageRedacted, chatChunkRedaction, completionRedacted, type AnswerRedaction } from './answerRedaction';
import { decodeChatCompletion, decodeDeleteResult, decodeListPage, isObject, unseenFiles } from './decode';
import { codeOf, errorFromResponse } from './httpErrors';
import type { Redactor } from './redact';
import { DEFAULT_RETRY, type RetryPolicy, type Sleep } from './retry';
import type { KsmService, UploadOptions } from './service';
import { readServerSentEventBatches } from './sse';
import { SessionShapeLog, type ShapeObserver } from './shapes';
import { decodeResponsesObject, responsesStreamDecoder } from './responsesDecoding';
import { chatChunkDecoder, type EventDecoder, type StreamState } from './streams';
import { MIN_STREAM_IDLE_MS, Transport, type HttpCall } from './transport';
import { uploadInBatches } from './upload';
import { withoutTrailingSlashes } from './baseUrl';
import { validateAgentRequest, validateChatRequest, validateDeleteRequest, validateListRequest, validateUploadRequest } from './validate';
import type {
  AgentEvent,
  AgentMessage,
  AgentRequest,
  CallOptions,
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ClientLogger,
  DeleteResult,
  FileInfo,
  FileListPage,
  UploadFileResult,
  UploadRequest,
} from './types';

export interface KsmClientOptions {
  /** Service root, for example `https://ksm.example.com` (a trailing slash is ignored). */
  baseUrl: string;
  /** Read at every call, so a key set meanwhile is used at once. */
  apiKey: () => Promise<string | undefined>;
  /** Time to wait for an answer's headers, and then for the rest of a JSON answer; a stream may run longer. Default 60 s. */
  timeoutMs?: number;
  /** How long a started stream may stay silent before it counts as cut off. Default: the larger of 5 min and 2 × timeoutMs. */
  streamIdleTimeoutMs?: number;
  userAgent?: string;
  dispatcher?: Dispatcher;
  logger?: ClientLogger;
  /** Log each request as an equivalent curl command (key shown as ***). */
  logRequests?: boolean;
  retry?: Partial<RetryPolicy>;
  /**
   * Told how each answer of an open shape was read (agent events, the agent answer, error
   * bodies). Default: a log that warns once about a shape nothing could read. The extension
   * passes one per session; Check Connection records them for its report.
   */
  shapes?: ShapeObserver;
  /** How retries wait (tests inject one that records the delays); default a real timer. */
  sleep?: Sleep;
  /** The clock `Retry-After` dates are read against; default Date.now. */
  now?: () => number;
}

const FILES_PATH = '/ksm/rag/v5/files';
const DEFAULT_PAGE_SIZE = 100;

type DecoderFactory<T> = (state: StreamState, redact: Redactor) => EventDecoder<T>;
/** How a stream's items lose the key (answerRedaction.ts). */
type RedactionFactory<T> = (secrets: readonly string[]) => AnswerRedaction<T>;

export class KsmClient implements KsmService {
  private readonly transport: Transport;
  private readonly shapes: ShapeObserver;

  constructor(options: KsmClientOptions) {
    this.shapes = options.shapes ?? new SessionShapeLog(() => options.logger);
    const timeoutMs = options.timeoutMs ?? 60_000;
    this.transport = new Transport({
      baseUrl: withoutTrailingSlashes(options.baseUrl.trim()),
      apiKey: options.apiKey,
      timeoutMs,
      streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? Math.max(MIN_STREAM_IDLE_MS, timeoutMs * 2),
      userAgent: options.userAgent ?? 'ksm-assistant',
      dispatcher: options.dispatcher,
      logger: options.logger,
      logRequests: options.logRequests ?? false,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      shapes: this.shapes,
      sleep: options.sleep,
      now: options.now,
    });
  }

  async uploadFiles(request: UploadRequest, options?: UploadOptions): Promise<UploadFileResult[]> {
    validateUploadRequest(request);
    return uploadInBatches(this.transport, request, options);
  }

  async listFiles(request: { volume: string; offset?: number; limit?: number }, options?: CallOptions): Promise<FileListPage> {
    validateListRequest(request);
    const offset = request.offset ?? 0;
    const { body, redact } = await this.transport.json({
      method: 'GET',
      path: FILES_PATH,
      what: l10n.t("Listing files of volume '{0}'", request.volume),
      json: { volume: request.volume, offset, limit: request.limit ?? 20 },
      accept: 'application/json',
      signal: options?.signal,
      retry: true,
    });
    return decodeListPage(body, offset, redact);
  }

  async *listAllFiles(volume: string, options?: CallOptions & { pageSize?: number }): AsyncGenerator<FileInfo, void, undefined> {
    const limit = options?.pageSize ?? DEFAULT_PAGE_SIZE;
    let offset = 0;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.listFiles({ volume, offset, limit }, options);
      unseenFiles(seen, page.files, volume, offset);
      yield* page.files;
      offset += page.files.length;
      if (page.files.length === 0 || offset >= page.total) return;
    }
  }

  async deleteFiles(request: { volume: string; uuids: string[] }, options?: CallOptions): Promise<DeleteResult> {
    validateDeleteRequest(request);
    const call: HttpCall = {
      method: 'DELETE',
      path: FILES_PATH,
      what: request.uuids.length === 1 ? l10n.t("Deleting 1 file from volume '{0}'", request.volume) : l10n.t("Deleting {0} files from volume '{1}'", request.uuids.length, request.volume),
      json: { volume: request.volume, uuidz: request.uuids },
      accept: 'application/json',
      signal: options?.signal,
      passStatus: 404,
    };
    const { status, body, text, redact } = await this.transport.json(call);
    if (status === 404) {
      // D11: "none of these exist" is a result (already gone), not a failure; any other 404
      // (a wrong base URL, an unknown volume) stays an error.
      if (isObject(body) && Array.isArray(body.not_found)) return decodeDeleteResult({ deleted: [], not_found: body.not_found }, request.uuids);
      throw errorFromResponse({ status, headers: {}, bodyText: text, what: call.what, redact });
    }
    return decodeDeleteResult(body, request.uuids);
  }

  async createChatCompletion(request: ChatCompletionRequest, options?: CallOptions): Promise<ChatCompletion> {
    validateChatRequest(request);
    const { body, redact, secrets } = await this.transport.json({
      method: 'POST',
      path: '/v3/chat/completions',
      what: l10n.t("Chat completion with model '{0}'", request.model),
      json: { ...request, stream: false },
      accept: 'application/json',
      signal: options?.signal,
    });
    return completionRedacted(request.output_parser === 'responses' ? decodeResponsesObject(body, redact) : decodeChatCompletion(body, redact), secrets);
  }

  streamChatCompletion(request: ChatCompletionRequest, options?: CallOptions): AsyncIterable<ChatCompletionChunk> {
    validateChatRequest(request);
    const call: HttpCall = {
      method: 'POST',
      path: '/v3/chat/completions',
      what: l10n.t("Chat stream with model '{0}'", request.model),
      json: { ...request, stream: true },
      accept: 'text/event-stream',
      signal: options?.signal,
    };
    if (request.output_parser === 'responses') {
      return this.streamEvents(call, (state, redact) => responsesStreamDecoder(state, redact, this.shapes), chatChunkRedaction, 'response.completed');
    }
    return this.streamEvents(call, (state, redact) => chatChunkDecoder(state, redact, this.shapes), chatChunkRedaction, '[DONE]');
  }

  async sendAgentMessage(request: AgentRequest, options?: CallOptions): Promise<AgentMessage> {
    validateAgentRequest(request);
    const { body, redact, secrets } = await this.transport.json({
      method: 'POST',
      path: '/v1/apps/chat-messages',
      what: l10n.t("Message to agent '{0}'", request.agent_id),
      json: { ...request, stream: false },
      accept: 'application/json',
      signal: options?.signal,
    });
    return agentMessageRedacted(decodeAgentMessage(body, redact, this.shapes), secrets);
  }

  streamAgentMessage(request: AgentRequest, options?: CallOptions): AsyncIterable<AgentEvent> {
    validateAgentRequest(request);
    const call: HttpCall = {
      method: 'POST',
      path: '/v1/apps/chat-messages',
      what: l10n.t("Agent stream from '{0}'", request.agent_id),
      json: { ...request, stream: true },
      accept: 'text/event-stream',
      signal: options?.signal,
    };
    return this.streamEvents(call, (state, redact) => agentStreamDecoder(state, redact, this.shapes), agentEventRedaction, l10n.t("the 'done' event"));
  }

  /**
   * Opens a stream and decodes its events, turning a broken connection into
   * StreamCutOffError (after everything that arrived was yielded) and an abort into
   * CancelledError. Leaving early (break, error) destroys the body, so the server sees
   * the connection close. Every item passes the answer's redaction on its way out, which
   * may hold a tail of text back until the next item or the end (answerRedaction.ts).
   */
  private async *streamEvents<T>(call: HttpCall, decoderFor: DecoderFactory<T>, redactionFor: RedactionFactory<T>, terminator: string): AsyncGenerator<T, void, undefined> {
    const response = await this.transport.stream(call);
    const state: StreamState = { finished: false, receivedAny: false };
    const decoder = decoderFor(state, response.redact);
    const redaction = redactionFor(response.secrets);
    // An item as it goes out: what the redaction held and `item` ends first, then `item` without the key.
    const shown = (item: T): T[] => {
      const before = redaction.before(item);
      const passed = redaction.pass(item);
      if (before) return passed === undefined ? before : [...before, passed];
      return passed === undefined ? [] : [passed];
    };
    try {
      // The one async step per item is this generator's own yield (see readServerSentEventBatches).
      // A decoder that can merge items (Responses text deltas) yields one item per run of
      // mergeable ones within a network read: the same text, fewer async steps.
      const merge = decoder.merge?.bind(decoder);
      batches: for await (const batch of readServerSentEventBatches(response.body)) {
        let pending: T | undefined;
        for (let i = 0; i < batch.length; i++) {
          let item: T | undefined;
          try {
            item = decoder.decode(batch[i]);
          } catch (error) {
            if (pending !== undefined) for (const out of shown(pending)) yield out;
            throw error;
          }
          if (item !== undefined) {
            const merged = pending !== undefined && merge ? merge(pending, item) : undefined;
            if (merged !== undefined) pending = merged;
            else {
              if (pending !== undefined) for (const out of shown(pending)) yield out;
              pending = merge ? item : undefined;
              if (!merge) for (const out of shown(item)) yield out;
            }
          }
          if (state.finished) {
            if (pending !== undefined) for (const out of shown(pending)) yield out;
            for (const out of redaction.end()) yield out;
            break batches;
          }
        }
        if (pending !== undefined) for (const out of shown(pending)) yield out;
      }
      if (!state.finished) {
        // A clean close after an end event (message_end…) that no terminator followed.
        const last = decoder.atCleanEnd?.();
        if (last !== undefined) for (const out of shown(last)) yield out;
      }
      // What the redaction still holds goes out before the end, and before a cut-off's error.
      for (const out of redaction.end()) yield out;
      if (!state.finished) {
        throw new StreamCutOffError(l10n.t('{0} ended before {1}: the answer may be incomplete. Try again.', call.what, terminator), { receivedAny: state.receivedAny });
      }
    } catch (error) {
      if (call.signal?.aborted) throw error instanceof CancelledError ? error : new CancelledError(l10n.t('{0} was cancelled.', call.what), { cause: error });
      if (error instanceof KsmError) throw error;
      const code = codeOf(error);
      const detail = response.redact(errorMessage(error));
      const message =
        code === 'UND_ERR_BODY_TIMEOUT'
          ? l10n.t('{0} was cut off: the service sent nothing for too long. The answer may be incomplete. Try again.', call.what)
          : l10n.t('{0} was cut off: the connection broke ({1}). The answer may be incomplete. Try again.', call.what, code ? `${code}: ${detail}` : detail);
      throw new StreamCutOffError(message, { receivedAny: state.receivedAny, cause: error });
    } finally {
      if (!response.body.destroyed) response.body.destroy();
    }
  }
}
