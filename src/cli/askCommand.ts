// `ksm ask`: one question to a chat model (streamed /v3/chat/completions, in the chat or the
// Responses format) or, with --agent, to the RAG agent (streamed /v1/apps/chat-messages),
// through the chat engine's single-request entry point (answerStream.ask), so the answer
// events are the panel's and VS Code's Chat's. The answer goes to stdout as it arrives;
// reasoning, sources and the thread id go to stderr so stdout stays the answer. Every flag
// is judged by the one parameter table (src/api/chatParameterLimits.ts) before any request:
// a bad value is a usage error (exit 2) naming the flag and its range. Text piped to stdin
// (`git diff | ksm ask "review this"`) goes with the question as context.
import { privateKeysRemoved } from '../common/core/privateFiles';
import { readFile } from 'node:fs/promises';
import { OUTPUT_FORMATS, parametersProblem, wireFields, type ChatParameterName } from '../api/chatParameterLimits';
import { ConfigurationError, NotFoundError } from '../api/errors';
import { DEFAULT_AGENT_ID, type AgentRequest, type ChatCompletionRequest, type ChatMessage } from '../api/types';
import { ask, type AnswerEvent, type AnswerRequest, type SourceCitation, type TokenUsage } from '../chat/core/answerStream';
import { codePrefill, MAX_CODE_CONTEXT_CHARS } from '../common/core/chatText';
import { checkVolumeArgument, EXIT, UsageError, type CliEnvironment } from './environment';
import { shown, shownText, type Output } from './output';

export interface AskFlags {
  model?: string;
  agent?: boolean;
  /** The agent id, from its own option (so `ksm ask --agent "question"` works as written). */
  agentId?: string;
  thread?: string;
  volume: string[];
  system?: string;
  temperature?: string;
  topP?: string;
  maxTokens?: string;
  stop: string[];
  seed?: string;
  frequencyPenalty?: string;
  repetitionPenalty?: string;
  jsonSchema?: string;
  jsonObject?: boolean;
  reasoningEffort?: string;
  outputFormat?: string;
}

/** How `metadata` names this client on every request. */
const CLI_CLIENT = 'ksm-cli';

/** The flags of the parameter table, by parameter: what `ksm ask --help` lists and how a problem names the flag. */
const PARAMETER_FLAGS: Partial<Record<ChatParameterName, { flag: string; key: keyof AskFlags; number?: boolean }>> = {
  systemPrompt: { flag: '--system', key: 'system' },
  temperature: { flag: '--temperature', key: 'temperature', number: true },
  topP: { flag: '--top-p', key: 'topP', number: true },
  maxTokens: { flag: '--max-tokens', key: 'maxTokens', number: true },
  stop: { flag: '--stop', key: 'stop' },
  seed: { flag: '--seed', key: 'seed', number: true },
  frequencyPenalty: { flag: '--frequency-penalty', key: 'frequencyPenalty', number: true },
  repetitionPenalty: { flag: '--repetition-penalty', key: 'repetitionPenalty', number: true },
  reasoningEffort: { flag: '--reasoning-effort', key: 'reasoningEffort' },
  outputFormat: { flag: '--output-format', key: 'outputFormat' },
};

/** The parameters the flags set, each checked by the table; throws UsageError naming the flag. */
export function parametersFromFlags(flags: AskFlags): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(PARAMETER_FLAGS) as Array<[ChatParameterName, NonNullable<(typeof PARAMETER_FLAGS)[ChatParameterName]>]>) {
    const raw = flags[spec.key];
    if (raw === undefined || (Array.isArray(raw) && raw.length === 0)) continue;
    // Text that is not a number gets the same sentence as a number out of range.
    parameters[name] = spec.number ? (String(raw).trim() === '' ? Number.NaN : Number(raw)) : raw;
  }
  const problem = parametersProblem(parameters);
  if (problem) {
    const spec = PARAMETER_FLAGS[problem.name as ChatParameterName];
    throw new UsageError(`${spec ? `${spec.flag}: ` : ''}${problem.message}`);
  }
  return parameters;
}

async function responseFormatFrom(flags: AskFlags): Promise<ChatCompletionRequest['response_format']> {
  if (flags.jsonSchema !== undefined && flags.jsonObject) throw new UsageError('--json-schema and --json-object: give one of the two.');
  if (flags.jsonObject) return { type: 'json_object' };
  if (flags.jsonSchema === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(flags.jsonSchema, 'utf8');
  } catch (error) {
    throw new UsageError(`--json-schema: cannot read ${flags.jsonSchema} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch {
    throw new UsageError(`--json-schema: ${flags.jsonSchema} is not JSON.`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new UsageError(`--json-schema: ${flags.jsonSchema} must hold a JSON Schema object.`);
  return { type: 'json_schema', json_schema: schema as Record<string, unknown> };
}

/** Text piped to stdin (never a terminal), bounded like the panel's code context; '' when none. */
export async function readPipedContext(stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.length > MAX_CODE_CONTEXT_CHARS)
    throw new UsageError(`stdin: the piped context has ${text.length.toLocaleString('en-US')} characters; at most ${MAX_CODE_CONTEXT_CHARS.toLocaleString('en-US')} go with one question.`);
  return text.trim() ? text : '';
}

/** The one request `ksm ask` sends; throws UsageError for any bad flag, before anything is sent. */
export async function askRequest(question: string, flags: AskFlags, context: string, env: { model?: string; userId?: string; agentId?: string }): Promise<AnswerRequest> {
  if (!question.trim()) throw new UsageError('Ask a question: ksm ask "What does the release process say about hotfixes?"');
  if (flags.outputFormat !== undefined && !(OUTPUT_FORMATS as readonly string[]).includes(flags.outputFormat)) {
    // The flag's own values, not the panel's labels ("Chat completions"), which the flag refuses.
    throw new UsageError(`--output-format: the answer format must be chat or responses, not '${shown(flags.outputFormat)}'.`);
  }
  const parameters = parametersFromFlags(flags);
  const responseFormat = await responseFormatFrom(flags);
  const model = flags.model?.trim() || env.model?.trim() || '';
  const query = context ? `${codePrefill('stdin', '', context)}${question}` : question;
  const user = env.userId?.trim() || undefined;
  if (!flags.agent && !flags.agentId) {
    // A chat model keeps no thread and searches no volume: sent to one, these were dropped without a word
    // (`--thread` as the agent's own "continue with" line gave it lost the conversation).
    const agentOnly = [...(flags.thread !== undefined ? ['--thread'] : []), ...(flags.volume.length ? ['--volume'] : [])];
    if (agentOnly.length) throw new UsageError(`${agentOnly.join(', ')}: for the agent only; add --agent (or --agent-id <id>).`);
  }
  if (flags.agent || flags.agentId) {
    const chatOnly = Object.keys(parameters).map((name) => PARAMETER_FLAGS[name as ChatParameterName]!.flag);
    if (responseFormat) chatOnly.push(flags.jsonObject ? '--json-object' : '--json-schema');
    if (chatOnly.length) throw new UsageError(`${chatOnly.join(', ')}: for chat models only; the agent takes --model, --thread and --volume.`);
    flags.volume.forEach(checkVolumeArgument);
    if (flags.thread !== undefined && !flags.thread.trim()) throw new UsageError('--thread: give the id an earlier answer printed after "Thread:", or leave out --thread to start a new one.');
    // The same agent `ksm search`, `fetch` and `mcp` use when KSM_AGENT_ID names one; --agent-id wins.
    const agentId = flags.agentId?.trim() || env.agentId?.trim() || DEFAULT_AGENT_ID;
    // Checked here, before the client's own validation would refuse it: this says the command line's fix, and exits 3 like a chat without a model.
    if (agentId === DEFAULT_AGENT_ID && !model) throw new ConfigurationError(`No model for the agent: ${DEFAULT_AGENT_ID} answers with a chat model. Pass --model <id> or set KSM_MODEL.`);
    const body: AgentRequest = {
      agent_id: agentId,
      query,
      thread_id: flags.thread ?? null,
      context: { model, ...(flags.volume.length ? { volumes: flags.volume } : {}) },
      ...(user ? { user } : {}),
    };
    return { kind: 'agent', body };
  }
  // Not "or use --agent": rag-agent answers with a chat model too, so that only fails again.
  if (!model) throw new ConfigurationError('No model: pass --model <id> or set KSM_MODEL.');
  const messages: ChatMessage[] = [];
  if (typeof parameters.systemPrompt === 'string') messages.push({ role: 'system', content: parameters.systemPrompt });
  messages.push({ role: 'user', content: query });
  const body: ChatCompletionRequest = { model, messages, ...(wireFields(parameters) as Partial<ChatCompletionRequest>), metadata: { client: CLI_CLIENT } };
  if (responseFormat) body.response_format = responseFormat;
  if (typeof parameters.reasoningEffort === 'string') body.reasoning = { effort: parameters.reasoningEffort as 'low' | 'medium' | 'high' };
  if (user) body.user = user;
  return { kind: 'chat', body };
}

export async function askCommand(env: CliEnvironment, out: Output, question: string, flags: AskFlags, signal: AbortSignal): Promise<number> {
  let request: AnswerRequest;
  try {
    // Piping a file is the user's explicit choice, so its text goes; a private key in it never does (the chat-context rule, privateFiles.ts).
    const piped = privateKeysRemoved(await readPipedContext());
    if (piped.removed > 0) process.stderr.write(`ksm: left ${piped.removed} private key(s) out of the piped context: private keys are never sent.\n`);
    request = await askRequest(question, flags, piped.text, { model: process.env.KSM_MODEL, userId: process.env.KSM_USER_ID, agentId: process.env.KSM_AGENT_ID });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`ksm: ${shownText(error.message)}\n`);
    if (out.json) out.document({ error: { kind: 'usage', message: error.message } });
    return EXIT.usage;
  }
  // The answer quotes the volume's files (untrusted): control characters escaped as `ksm fetch` prints a passage,
  // line breaks and tabs kept (an escape sequence split over two chunks is harmless: its ESC is escaped).
  const write = (text: string) => {
    if (!out.json) process.stdout.write(shownText(text));
  };
  let answer = '';
  let reasoning = '';
  let usage: TokenUsage | undefined;
  let threadId: string | undefined;
  const sources: SourceCitation[] = [];
  let finished: Extract<AnswerEvent, { type: 'finished' }> | undefined;
  let reasoningShown = false;
  for await (const event of ask(env.client, request, signal)) {
    switch (event.type) {
      case 'text':
        answer += event.text;
        write(event.text);
        break;
      case 'reasoning':
        reasoning += event.text;
        // Reasoning is not the answer: stderr, so a pipe gets the answer alone.
        if (!out.json && process.stderr.isTTY) {
          if (!reasoningShown) process.stderr.write('Reasoning: ');
          process.stderr.write(shownText(event.text));
        }
        reasoningShown = true;
        break;
      case 'citations':
        sources.push(...event.citations);
        break;
      case 'thread':
        threadId = event.threadId;
        break;
      case 'usage':
        usage = event.usage;
        break;
      case 'finished':
        finished = event;
        break;
      default:
        break;
    }
  }
  if (reasoningShown && !out.json && process.stderr.isTTY) process.stderr.write('\n');
  write('\n');
  if (finished?.reason === 'stopped') throw Object.assign(new Error('The answer was cancelled.'), { kind: 'cancelled' });
  if (finished?.reason === 'error' || finished?.reason === 'cut-off') {
    const cause = finished.error?.cause;
    // The editor's sentence says "Start a new chat"; here the fix is the flag.
    if (cause instanceof NotFoundError && cause.param === 'thread_id') throw new UsageError('--thread: the service no longer knows this agent thread. Leave out --thread to start a new one.');
    // The engine's sentence, with the cause's kind so the exit code says what failed (a refused key is 3).
    const kind = (cause as { kind?: unknown } | undefined)?.kind;
    throw Object.assign(new Error(finished.error?.message ?? 'The answer stopped.', { cause: finished.error?.cause }), typeof kind === 'string' ? { kind } : {});
  }
  if (out.json) {
    out.document({
      ...(request.kind === 'agent'
        ? { agent: request.body.agent_id, model: request.body.context?.model, threadId }
        : { model: request.body.model, outputFormat: request.body.output_parser === 'responses' ? 'responses' : 'chat' }),
      answer,
      reasoning: reasoning || null,
      usage: usage ?? null,
      finishReason: finished?.finishReason ?? null,
      ...(request.kind === 'agent' ? {} : { threadId: null }),
      sources: sources.map((s) => ({ filename: s.filename, volume: s.volume ?? null, fileId: s.fileId, passage: s.snippet ?? null, markers: s.markers ?? [] })),
    });
  } else {
    // Names from the volume and an id from the service: escaped, as every name the CLI prints.
    const names = [...new Set(sources.map((s) => `${shown(s.filename)}${s.volume ? ` (${shown(s.volume)})` : ''}`))];
    if (names.length) process.stderr.write(`Sources: ${names.join(', ')}\n`);
    const agentFlag = flags.agentId?.trim() ? `--agent-id ${shown(flags.agentId.trim())}` : '--agent';
    if (threadId) process.stderr.write(`Thread: ${shown(threadId)} (continue with ${agentFlag} --thread ${shown(threadId)})\n`);
    if (finished?.reason === 'length') process.stderr.write("The answer reached the token limit (--max-tokens or the model's own).\n");
  }
  return EXIT.ok;
}
