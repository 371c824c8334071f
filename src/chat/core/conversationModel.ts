// The conversation model the chat engine owns, and the small pure operations on it. These
// types are the engine's own: nothing here knows the webview. A stored conversation is
// this model plus a schema number; the panel maps it to its view types (chat/panel/), so
// loading, answering and exporting never depend on what one front end displays.
import { randomBytes } from 'node:crypto';
import { MAX_TEXT_CHARS } from '../../common/core/chatText';

export type ChatMode = 'chat' | 'agent';

/** How an answer stands: streaming, or how it ended. */
/** `elsewhere`: another window (sharing this store) is streaming this answer right now. */
export type AnswerState = 'streaming' | 'elsewhere' | 'done' | 'stopped' | 'error' | 'cut-off' | 'length';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens?: number | null;
  totalTokens: number;
}

/** A passage the agent cited (its `retrieval` event), as the engine keeps it. */
export interface SourceCitation {
  fileId: string;
  filename: string;
  volume?: string;
  snippet?: string;
  score?: number;
  /** The chunk of the file the passage comes from, when the service says. */
  chunkIndex?: number;
  /** The answer's markers [n] that point at this passage (citations.ts); absent in conversations saved before numbering. */
  markers?: number[];
  /** How the volume is shown ("My files" for the personal one). */
  volumeLabel?: string;
}

/**
 * Code from an editor sent with a question (Ask About Selection / Active File): shown as a
 * chip, put in front of the question only in the request the model sees (requestBuilder.questionForModel).
 */
export interface CodeContext {
  id: string;
  filename: string;
  languageId: string;
  /** 1-based and inclusive; absent for a whole file. */
  lines?: { start: number; end: number };
  text: string;
}

/** A volume the agent searches in a conversation that chose its volumes (D18). */
export interface ContextVolume {
  /** The service's name: `{<user_id>}` for the personal volume. */
  volume: string;
  /** As volumeTargets.ts labels it ("My files" for the personal volume). */
  label: string;
  personal: boolean;
}

/** A volume file sent with an agent question (`files[]`). */
export interface AttachedFile {
  fileId: string;
  filename: string;
  size: number;
  volume: string;
}

/** Per-conversation request parameters of chat mode (D12). */
export interface ChatParameters {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  systemPrompt?: string;
  responseFormat?: 'text' | 'json_object';
  reasoningEffort?: 'low' | 'medium' | 'high';
  reasoningBudget?: number;
}

export interface Turn {
  id: string;
  role: 'user' | 'assistant';
  /** Markdown source of the question or answer. */
  content: string;
  reasoning?: string;
  state?: AnswerState;
  /** Short, user-facing error text when state is 'error' or 'cut-off'. */
  error?: string;
  finishReason?: string;
  usage?: TokenUsage;
  citations?: SourceCitation[];
  attachments?: AttachedFile[];
  /** Code sent with this question (shown as chips, never pasted into its text). */
  code?: CodeContext[];
  /**
   * Agent answers: the service thread the answer was given in (from its `thread` event).
   * A thread that holds the answer also holds its question, so a retry does not ask it again.
   */
  threadId?: string;
  /**
   * The max-tokens limit the user had set (⚙) when the request that last wrote this answer
   * was sent: a `length` end under it was the user's own limit, which the panel says.
   */
  maxTokens?: number;
  createdAt: number;
}

export interface Conversation {
  id: string;
  title: string;
  mode: ChatMode;
  model: string;
  agentId?: string;
  threadId?: string | null;
  enableThinking?: boolean;
  parameters: ChatParameters;
  turns: Turn[];
  pendingAttachments: AttachedFile[];
  /** Code waiting to be sent with the next question. */
  pendingCode?: CodeContext[];
  /** Agent mode: the volumes this conversation searches; absent = My files and every volume of `ksm.volumes.list`. */
  contextVolumes?: ContextVolume[];
  /** Agent mode: files this conversation searches instead of whole volumes (sent as `files[]` with every question, D18). */
  contextFiles?: AttachedFile[];
  updatedAt: number;
}

export interface ConversationSummary {
  id: string;
  title: string;
  mode: ChatMode;
  updatedAt: number;
}

/** The models and agent the settings offer; new conversations start from their defaults. */
export interface ModelOptions {
  models: string[];
  reasoningModels: string[];
  defaultModel: string;
  agentId: string;
  agentModel: string;
}

export const CONVERSATION_SCHEMA = 1;

export interface StoredConversation extends Conversation {
  schema: typeof CONVERSATION_SCHEMA;
  createdAt: number;
}

/** Ids become file names, so they are generated here and checked on every use. */
export const CONVERSATION_ID_PATTERN = /^c-[0-9a-f]{16}$/;
export const TURN_ID_PATTERN = /^t-[0-9a-f]{12}$/;

export const DEFAULT_TITLE = 'New chat';

/** The longest question (or system prompt) the chat sends: one source for both chat front ends. */
export { MAX_TEXT_CHARS };
/** Titles are kept whole up to this length (the same cap as a rename); views shorten them for display. */
export const MAX_TITLE_CHARS = 200;

export function newConversationId(): string {
  return `c-${randomBytes(8).toString('hex')}`;
}

export const CODE_CONTEXT_ID_PATTERN = /^x-[0-9a-f]{12}$/;

export function newCodeContextId(): string {
  return `x-${randomBytes(6).toString('hex')}`;
}

export function newTurnId(): string {
  return `t-${randomBytes(6).toString('hex')}`;
}

export function createConversation(mode: ChatMode, options: ModelOptions, now = Date.now()): StoredConversation {
  return {
    schema: CONVERSATION_SCHEMA,
    id: newConversationId(),
    title: DEFAULT_TITLE,
    mode,
    model: mode === 'agent' ? options.agentModel : options.defaultModel,
    ...(mode === 'agent' ? { agentId: options.agentId } : {}),
    threadId: null,
    enableThinking: false,
    parameters: {},
    turns: [],
    pendingAttachments: [],
    createdAt: now,
    updatedAt: now,
  };
}

/** The first line of the first question, whole (views shorten it), capped at MAX_TITLE_CHARS. */
export function titleFromQuestion(question: string): string {
  const firstLine = question
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('```'))
    .map((line) => line.replace(/`/g, '').replace(/^[#>*\-\s]+/, '').trim())
    .find((line) => line.length > 0);
  if (!firstLine) return DEFAULT_TITLE;
  return firstLine.length > MAX_TITLE_CHARS ? `${firstLine.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…` : firstLine;
}

export function summarize(conversation: Conversation): ConversationSummary {
  return { id: conversation.id, title: conversation.title, mode: conversation.mode, updatedAt: conversation.updatedAt };
}

export function lastTurn(conversation: Conversation): Turn | undefined {
  return conversation.turns[conversation.turns.length - 1];
}

/**
 * The message text of a conversation, for searching the conversation list: the questions
 * first (short, and what people remember), then the answers, capped so a long conversation
 * does not slow the list down. Answers first would push a later question past the cap.
 */
export function searchableText(conversation: Conversation, maxChars = 8000): string {
  const byRole = (role: Turn['role']) => conversation.turns.filter((turn) => turn.role === role).map((turn) => turn.content.replace(/\s+/g, ' ').trim());
  const text = [...byRole('user'), ...byRole('assistant')].filter(Boolean).join(' · ');
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}
