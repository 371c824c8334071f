// Turns a conversation into the wire request of its mode. Chat mode sends the whole history
// (the completions endpoint is stateless); agent mode sends only the new question with the
// thread id, because the service keeps the thread's history itself (D17).
import { chatContextNameDecision, chatContextNote, privateKeysRemoved } from '../../common/core/privateFiles';
import { DEFAULT_AGENT_ID, type AgentRequest, type ChatCompletionRequest, type ChatMessage } from '../../api/types';
import { codePrefill } from '../../common/core/chatText';
import { wireFields, type OutputFormat } from '../../api/chatParameterLimits';
import type { ChatParameters, Conversation, Turn } from './conversationModel';

/**
 * A question as the model reads it: the code chips sent with it, each as a fenced block under
 * its file name and lines, then the question. Only the request carries this; the transcript
 * shows the question and its chips.
 */
export function questionForModel(question: Pick<Turn, 'content' | 'code'>): string {
  const code = (question.code ?? [])
    .map((c) => {
      // A chip a stored conversation kept from before the rule: a private file by name (`.env`, `id_rsa`) is left out, its one line in its place.
      const byName = chatContextNameDecision(c.filename);
      return byName.send ? codePrefill(c.filename, c.languageId, c.text, c.lines) : `${chatContextNote(c.filename, byName)}\n\n`;
    })
    .join('');
  // A private key never goes (privateFiles.ts): one pasted into the question, or in a chip a stored conversation kept from before the rule.
  return privateKeysRemoved(`${code}${question.content}`).text;
}

/**
 * What an agent question searches (D18): the conversation's chosen volumes, or (none chosen)
 * the personal volume and every named volume of the settings.
 */
export function agentSearchScope(conversation: Pick<Conversation, 'contextVolumes'>, configuredVolumes: readonly string[]): { volumes: string[]; searchPersonal: boolean } {
  const chosen = conversation.contextVolumes;
  if (!chosen?.length) return { volumes: [...configuredVolumes], searchPersonal: true };
  return { volumes: chosen.filter((v) => !v.personal).map((v) => v.volume), searchPersonal: chosen.some((v) => v.personal) };
}

/** What a conversation that set nothing itself sends: the settings' defaults. */
export interface RequestDefaults {
  /** `ksm.chat.outputFormat`. */
  outputFormat?: OutputFormat;
  /** `user` of every request: `ksm.userId`, when set. */
  user?: string;
  /** `metadata` of every request (requestMetadata). */
  metadata?: Record<string, string>;
}

/**
 * The `metadata` every request carries: which client asked, and in which conversation
 * (2 of the reference's 16 pairs; values cut to its 512 characters).
 */
export function requestMetadata(client: string, conversationId?: string): Record<string, string> {
  return { client: client.slice(0, 512), ...(conversationId ? { conversation: conversationId.slice(0, 512) } : {}) };
}

export function buildChatRequest(conversation: Conversation, reasoningModels: readonly string[], defaults: RequestDefaults = {}): ChatCompletionRequest {
  const { parameters } = conversation;
  const messages: ChatMessage[] = [];
  if (parameters.systemPrompt?.trim()) messages.push({ role: 'system', content: parameters.systemPrompt });
  for (const turn of conversation.turns) {
    if (turn.role === 'user') messages.push({ role: 'user', content: questionForModel(turn) });
    // An answer that failed before any text arrived has nothing to tell the model.
    else if (turn.content.trim() !== '' && turn.state !== 'streaming' && turn.state !== 'elsewhere') messages.push({ role: 'assistant', content: turn.content });
  }
  const request: ChatCompletionRequest = { model: conversation.model, messages };
  // Every parameter the table sends as a wire field (temperature, top_p, stop, seed, the
  // penalties, response_format, output_parser…); system prompt and reasoning are shaped here.
  const values: ChatParameters = { ...(defaults.outputFormat ? { outputFormat: defaults.outputFormat } : {}), ...parameters };
  Object.assign(request, wireFields(values));
  if (defaults.user) request.user = defaults.user;
  if (defaults.metadata) request.metadata = defaults.metadata;
  // `reasoning` on a model without reasoning is a 400 (D12), so it is sent only for models
  // the user listed as reasoning models.
  if (reasoningModels.includes(conversation.model)) {
    if (parameters.reasoningEffort) request.reasoning = { effort: parameters.reasoningEffort };
    else if (parameters.reasoningBudget !== undefined) request.reasoning = { effort: null, budget_tokens: parameters.reasoningBudget };
  }
  return request;
}

/**
 * What Continue asks after an answer was cut short. It goes with the request only: the
 * transcript shows one answer growing, never this as a question.
 */
export const CONTINUE_PROMPT = 'Please continue exactly where your previous answer stopped.';

/**
 * Continue in chat mode: the whole history, the cut answer last (its text is already in it
 * as the assistant's), then the continuation request.
 */
export function buildContinueRequest(conversation: Conversation, reasoningModels: readonly string[], defaults: RequestDefaults = {}): ChatCompletionRequest {
  const request = buildChatRequest(conversation, reasoningModels, defaults);
  request.messages.push({ role: 'user', content: CONTINUE_PROMPT });
  return request;
}

/**
 * What a retry sends to an agent thread that already holds the question (the failed answer
 * got a `thread` event): the thread keeps the question once, and the agent is asked to
 * answer it again rather than told it a second time (docs/service-contract.md, D17).
 */
export const RETRY_IN_THREAD_PROMPT = 'Your answer to my last question was cut off or failed. Please answer that question again, in full.';

/** Regenerate of a finished agent answer: its thread holds the question and that answer. */
export const REGENERATE_IN_THREAD_PROMPT = 'Please answer my last question again, in full, as a new answer.';

/** A thread that already holds the question (retry, regenerate, continue), and what to ask it instead. */
export interface AskInThread {
  threadId: string;
  query: string;
}

export function buildAgentRequest(conversation: Conversation, question: Turn, volumes: readonly string[], inThread?: AskInThread): AgentRequest {
  const request: AgentRequest = {
    agent_id: conversation.agentId ?? DEFAULT_AGENT_ID,
    thread_id: inThread?.threadId ?? conversation.threadId ?? null,
    query: inThread?.query ?? questionForModel(question),
    context: { model: conversation.model, enable_thinking: conversation.enableThinking === true, volumes: [] },
  };
  const scope = agentSearchScope(conversation, volumes);
  request.context!.volumes = scope.volumes;
  // Sent only when it restricts, so a service that does not know it sees the request as before.
  if (!scope.searchPersonal) request.context!.search_personal_volume = false;
  // The question's own files and the conversation's chosen files; either restricts retrieval to files (D18).
  const files = [...(question.attachments ?? []), ...(conversation.contextFiles ?? []).filter((f) => !question.attachments?.some((a) => a.fileId === f.fileId))];
  if (files.length > 0) request.files = files.map((f) => ({ file_id: f.fileId, filename: f.filename, size: f.size }));
  return request;
}
