// One answer of a KSM model to VS Code's chat, without `vscode`: the conversation goes out
// as the service's request, text is reported the moment each delta arrives (no batching:
// VS Code renders its own), tool calls are reported whole when the model finishes calling
// them, and every failure becomes one Error whose message is the panel's (never the key).
import { CancelledError, isCancellation, NotFoundError, StreamError } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { AgentRequest, ChatCompletionRequest, Citation } from '../../api/types';
import { describeAnswerFailure } from '../../common/core/answerErrors';
import type { KsmModelEntry } from './modelCatalog';
import { textOf, toServiceMessages, toServiceTools, ToolCallAssembler, type NeutralMessage, type NeutralPart, type NeutralTool } from './messageMapping';
import type { ThreadBook } from './threadBook';

export type ResponsePart = Extract<NeutralPart, { kind: 'text' | 'toolCall' }>;

export interface ModelResponseRequest {
  service: KsmService;
  model: KsmModelEntry;
  messages: readonly NeutralMessage[];
  tools?: readonly NeutralTool[];
  /** VS Code's `modelOptions`: only known numeric sampling options are passed on. */
  modelOptions?: Readonly<Record<string, unknown>>;
  /** Named volumes the agent searches besides the personal one (D18). */
  volumes: readonly string[];
  threads: ThreadBook;
  signal: AbortSignal;
  report(part: ResponsePart): void;
}

export interface ModelResponseOutcome {
  finishReason?: string;
  threadId?: string;
  stopped: boolean;
}

/**
 * Streams the answer into `report`. Resolves when it ended (also when cancelled, with
 * `stopped`); rejects with an Error carrying the same sentence the panel would show.
 */
export async function provideModelResponse(request: ModelResponseRequest): Promise<ModelResponseOutcome> {
  try {
    return request.model.kind === 'agent' ? await agentResponse(request, request.model) : await chatResponse(request);
  } catch (error) {
    if (isCancellation(error) || request.signal.aborted) return { stopped: true };
    throw toUserFacingError(error);
  }
}

/**
 * A failure as VS Code's chat shows it: the panel's sentence and nothing else. The
 * original error is kept for the log in a property of its own, not as `cause`: the chat
 * prints a cause's stack trace under the message.
 */
export class AnswerFailedError extends Error {
  constructor(
    message: string,
    readonly original: unknown,
  ) {
    super(message);
    this.name = 'AnswerFailedError';
  }
}

export function toUserFacingError(error: unknown): AnswerFailedError {
  if (error instanceof AnswerFailedError) return error;
  return new AnswerFailedError(describeAnswerFailure(error).message ?? 'The answer stopped.', error);
}

async function chatResponse(request: ModelResponseRequest): Promise<ModelResponseOutcome> {
  const body: ChatCompletionRequest = { model: request.model.serviceModel, messages: toServiceMessages(request.messages), ...samplingOptions(request.modelOptions) };
  const tools = toServiceTools(request.tools);
  if (tools) body.tools = tools;
  const calls = new ToolCallAssembler();
  let finishReason: string | undefined;
  for await (const chunk of request.service.streamChatCompletion(body, { signal: request.signal })) {
    const choice = chunk.choices[0];
    if (!choice) continue;
    // Reasoning deltas are not shown: VS Code's thinking parts are still a proposed API.
    if (choice.delta.content) request.report({ kind: 'text', text: choice.delta.content });
    if (choice.delta.tool_calls) calls.add(chunk);
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (request.signal.aborted) return { stopped: true, finishReason };
  for (const call of calls.finish()) request.report(call);
  return { stopped: false, finishReason };
}

async function agentResponse(request: ModelResponseRequest, model: Extract<KsmModelEntry, { kind: 'agent' }>): Promise<ModelResponseOutcome> {
  const lastUser = findLastIndex(request.messages, (m) => m.role === 'user');
  const question = textOf(request.messages[lastUser]).trim();
  if (lastUser < 0 || question === '') throw new StreamError('There is no question to send to the agent.');
  const known = request.threads.lookup(request.messages.slice(0, lastUser));
  const body = (threadId: string | undefined): AgentRequest => ({
    agent_id: model.agentId,
    thread_id: threadId ?? null,
    query: question,
    context: { model: model.serviceModel, volumes: [...request.volumes] },
  });
  let answer: AgentAnswer;
  try {
    answer = await streamAgent(request, body(known));
  } catch (error) {
    // A thread the server forgot (expired, other server) is not the user's problem: the
    // question is asked again in a new thread, as long as nothing was shown yet.
    if (!(known && error instanceof NotFoundError && error.param === 'thread_id')) throw error;
    request.threads.forget(known);
    answer = await streamAgent(request, body(undefined));
  }
  const sources = sourcesText(answer.citations);
  if (sources) request.report({ kind: 'text', text: sources });
  if (answer.threadId) {
    const reply: NeutralMessage = { role: 'assistant', parts: [{ kind: 'text', text: answer.text + sources }] };
    request.threads.remember([...request.messages, reply], answer.threadId);
  }
  if (answer.error) throw new StreamError(answer.error);
  return { stopped: request.signal.aborted, finishReason: answer.status, threadId: answer.threadId };
}

interface AgentAnswer {
  text: string;
  threadId?: string;
  citations: Citation[];
  status?: string;
  error?: string;
}

async function streamAgent(request: ModelResponseRequest, body: AgentRequest): Promise<AgentAnswer> {
  const answer: AgentAnswer = { text: '', citations: [] };
  for await (const event of request.service.streamAgentMessage(body, { signal: request.signal })) {
    if ('threadId' in event && event.threadId && !answer.threadId) answer.threadId = event.threadId;
    switch (event.kind) {
      case 'message':
        if (event.delta) {
          answer.text += event.delta;
          request.report({ kind: 'text', text: event.delta });
        }
        break;
      case 'retrieval':
        answer.citations.push(...event.citations);
        break;
      case 'error':
        answer.error = `The service stopped with an error: ${event.message}${event.code ? ` (code ${event.code})` : ''}`;
        break;
      case 'done':
        answer.status = event.status;
        if (event.status === 'error' && !answer.error) answer.error = 'The service stopped with an error.';
        break;
      default:
        break;
    }
  }
  if (request.signal.aborted) throw new CancelledError('cancelled');
  return answer;
}

/** The agent's citations as a Markdown list after the answer (a model provider can only send text). */
export function sourcesText(citations: readonly Citation[]): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const c of citations) {
    const key = `${c.volume ?? ''}/${c.file_id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`${lines.length + 1}. ${c.filename}${c.volume ? ` (volume ${c.volume})` : ''}`);
  }
  return lines.length ? `\n\nSources:\n${lines.join('\n')}\n` : '';
}

function samplingOptions(options: Readonly<Record<string, unknown>> | undefined): Partial<ChatCompletionRequest> {
  if (!options) return {};
  const out: Partial<ChatCompletionRequest> = {};
  const num = (key: string) => (typeof options[key] === 'number' && Number.isFinite(options[key]) ? (options[key] as number) : undefined);
  const temperature = num('temperature');
  if (temperature !== undefined && temperature >= 0 && temperature <= 2) out.temperature = temperature;
  const topP = num('top_p');
  if (topP !== undefined && topP > 0 && topP <= 1) out.top_p = topP;
  const maxTokens = num('max_tokens') ?? num('max_completion_tokens');
  if (maxTokens !== undefined && Number.isInteger(maxTokens) && maxTokens > 0) out.max_completion_tokens = maxTokens;
  return out;
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i] as T)) return i;
  return -1;
}
