// One answer of a KSM model to VS Code's chat, without `vscode`: the conversation goes out
// as the service's request through the chat engine's `ask()` (the same stream, settings,
// key and client as the panel), text is reported the moment each delta arrives (no
// batching: VS Code renders its own), tool calls are reported whole when the model
// finished calling them, and a failure becomes one Error carrying the engine's sentence
// (the panel's, never the key).
import * as l10n from '@vscode/l10n';
import { wireFields, type ChatParameterName } from '../../api/chatParameterLimits';
import { NotFoundError } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { AgentRequest, ChatCompletionRequest } from '../../api/types';
import { parametersProblemText } from '../../common/core/parameterText';
import { markdownText, shownInput } from '../../common/core/untrustedText';
import { ask, type AnswerEvent, type AnswerRequest, type SourceCitation } from '../../chat/core/answerStream';
import type { KsmModelEntry } from './modelCatalog';
import { parseToolArguments, textOf, toServiceMessages, toServiceTools, withoutPrivateKeys, type NeutralMessage, type NeutralPart, type NeutralTool } from './messageMapping';
import type { ThreadBook } from './threadBook';

export type ResponsePart = Extract<NeutralPart, { kind: 'text' | 'toolCall' }>;

export interface ModelResponseRequest {
  service: KsmService;
  model: KsmModelEntry;
  messages: readonly NeutralMessage[];
  tools?: readonly NeutralTool[];
  /** VS Code's `modelOptions`: only known numeric sampling options are passed on. */
  modelOptions?: Readonly<Record<string, unknown>>;
  /** VS Code's UI language (`vscode.env.language`): numbers and lists of a refusal are written in it. */
  language: string;
  /** Named volumes the agent searches besides the personal one (D18). */
  volumes: readonly string[];
  /** `ksm.userId`, sent as `user` with every request when set. */
  user?: string;
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
 * A failure as VS Code's chat shows it: the engine's sentence and nothing else. The
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

/**
 * Streams the answer into `report`. Resolves when it ended (also when cancelled, with
 * `stopped`); rejects with an AnswerFailedError carrying the engine's sentence.
 */
export async function provideModelResponse(request: ModelResponseRequest): Promise<ModelResponseOutcome> {
  // A private key never goes, whoever composed the messages: cut out, and said so at the answer's start.
  const { messages, removed } = withoutPrivateKeys(request.messages);
  if (removed > 0) request.report({ kind: 'text', text: `${privateKeysLeftOutNote(removed)}\n\n` });
  const safe = { ...request, messages };
  return safe.model.kind === 'agent' ? agentResponse(safe, safe.model) : chatResponse(safe);
}

/** The one line an answer starts with when keys were cut from what it was asked. */
export function privateKeysLeftOutNote(count: number): string {
  return l10n.t('(KSM left {0} private key(s) out of this request: private keys are never sent.)', count);
}

interface StreamResult {
  text: string;
  threadId?: string;
  citations: SourceCitation[];
  finished: Extract<AnswerEvent, { type: 'finished' }>;
}

/** Runs one request through the engine, reporting text as it comes; tool calls go to `onToolCall`. */
async function run(request: ModelResponseRequest, body: AnswerRequest, onToolCall?: (call: Extract<AnswerEvent, { type: 'toolCall' }>) => void): Promise<StreamResult> {
  const result: Partial<StreamResult> & { text: string; citations: SourceCitation[] } = { text: '', citations: [] };
  for await (const event of ask(request.service, body, request.signal)) {
    switch (event.type) {
      case 'text':
        result.text += event.text;
        request.report({ kind: 'text', text: event.text });
        break;
      case 'thread':
        result.threadId = event.threadId;
        break;
      case 'citations':
        result.citations.push(...event.citations);
        break;
      case 'toolCall':
        onToolCall?.(event);
        break;
      case 'finished':
        result.finished = event;
        break;
      default:
        // Reasoning is not shown: VS Code's thinking parts are still a proposed API.
        break;
    }
  }
  if (!result.finished) throw new AnswerFailedError(l10n.t('The answer stopped.'), undefined);
  return result as StreamResult;
}

function failed(finished: StreamResult['finished']): AnswerFailedError {
  return new AnswerFailedError(finished.error?.message ?? l10n.t('The answer stopped.'), finished.error?.cause);
}

async function chatResponse(request: ModelResponseRequest): Promise<ModelResponseOutcome> {
  const body: ChatCompletionRequest = {
    model: request.model.serviceModel,
    messages: toServiceMessages(request.messages),
    ...samplingOptions(request.modelOptions, request.language),
    metadata: { client: 'ksm-assistant/vscode-chat' },
    ...(request.user ? { user: request.user } : {}),
  };
  const tools = toServiceTools(request.tools);
  if (tools) body.tools = tools;
  const calls: ResponsePart[] = [];
  const result = await run(request, { kind: 'chat', body }, (call) => calls.push({ kind: 'toolCall', callId: call.callId, name: call.name, input: parseToolArguments(call.name, call.arguments) }));
  const { reason, finishReason } = result.finished;
  if (reason === 'stopped') return { stopped: true, finishReason };
  if (reason === 'error' || reason === 'cut-off') throw failed(result.finished);
  for (const call of calls) request.report(call);
  return { stopped: false, finishReason };
}

async function agentResponse(request: ModelResponseRequest, model: Extract<KsmModelEntry, { kind: 'agent' }>): Promise<ModelResponseOutcome> {
  const lastUser = findLastIndex(request.messages, (m) => m.role === 'user');
  const question = textOf(request.messages[lastUser]).trim();
  if (lastUser < 0 || question === '') throw new AnswerFailedError(l10n.t('There is no question to send to the agent.'), undefined);
  const known = request.threads.lookup(request.messages.slice(0, lastUser));
  const body = (threadId: string | undefined): AnswerRequest => ({
    kind: 'agent',
    body: {
      agent_id: model.agentId,
      thread_id: threadId ?? null,
      query: question,
      context: { model: model.serviceModel, volumes: [...request.volumes] },
      ...(request.user ? { user: request.user } : {}),
    } satisfies AgentRequest,
  });
  let result = await run(request, body(known));
  // A thread the server forgot (expired, another server) is not the user's problem: the
  // question is asked again in a new thread; nothing was shown, the request failed first.
  const cause = result.finished.error?.cause;
  if (known && result.text === '' && cause instanceof NotFoundError && cause.param === 'thread_id') {
    request.threads.forget(known);
    result = await run(request, body(undefined));
  }
  const { reason, finishReason } = result.finished;
  if (reason === 'stopped') return { stopped: true, finishReason, threadId: result.threadId };
  if (reason === 'error' || reason === 'cut-off') throw failed(result.finished);
  const sources = sourcesText(result.citations);
  if (sources) request.report({ kind: 'text', text: sources });
  if (result.threadId) {
    const reply: NeutralMessage = { role: 'assistant', parts: [{ kind: 'text', text: result.text + sources }] };
    request.threads.remember([...request.messages, reply], result.threadId);
  }
  return { stopped: false, finishReason, threadId: result.threadId };
}

/**
 * The agent's citations as a Markdown list after the answer (a model provider can only send
 * text; VS Code's Chat renders it as Markdown). A file name or volume is whoever uploaded the
 * file's words: escaped (markdownText), so it starts no link, image or heading and adds no line.
 */
export function sourcesText(citations: readonly SourceCitation[]): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const c of citations) {
    const key = `${c.volume ?? ''}/${c.fileId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`${lines.length + 1}. ${markdownText(shownInput(c.filename, 200))}${c.volume ? ` (volume ${markdownText(shownInput(c.volume, 200))})` : ''}`);
  }
  return lines.length ? `\n\nSources:\n${lines.join('\n')}\n` : '';
}

/**
 * VS Code's option names (and the service's) for the chat parameters a caller may set on a
 * KSM model; other options (VS Code passes its own) are not ours and are left out.
 */
const MODEL_OPTION_NAMES: Readonly<Record<string, ChatParameterName>> = {
  temperature: 'temperature',
  top_p: 'topP',
  topP: 'topP',
  max_tokens: 'maxTokens',
  max_completion_tokens: 'maxTokens',
  maxTokens: 'maxTokens',
  stop: 'stop',
  seed: 'seed',
  frequency_penalty: 'frequencyPenalty',
  frequencyPenalty: 'frequencyPenalty',
  repetition_penalty: 'repetitionPenalty',
  repetitionPenalty: 'repetitionPenalty',
};

/**
 * The caller's `modelOptions` as wire fields, judged by the one parameter table (as the
 * panel's ⚙ and the client judge them): a value out of range is refused with the sentence
 * that names it, never dropped silently or sent to fail at the service. The sentence is the
 * panel's too (src/common/core/parameterText.ts), in the UI language (`language` for its
 * numbers and lists, the configured bundle for its words).
 */
export function samplingOptions(options: Readonly<Record<string, unknown>> | undefined, language: string): Partial<ChatCompletionRequest> {
  if (!options) return {};
  const parameters: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    const name = Object.hasOwn(MODEL_OPTION_NAMES, key) ? MODEL_OPTION_NAMES[key] : undefined;
    if (!name || value === undefined || value === null) continue;
    parameters[name] = name === 'stop' && typeof value === 'string' ? [value] : value;
  }
  const problem = parametersProblemText(parameters, language);
  if (problem) throw new AnswerFailedError(l10n.t('The model option is not valid: {0}', problem.message), undefined);
  return wireFields(parameters) as Partial<ChatCompletionRequest>;
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i] as T)) return i;
  return -1;
}
