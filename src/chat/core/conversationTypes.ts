// The conversation model's types, declared once for the chat engine and the webview alike.
// The engine owns them (conversationModel.ts re-exports them with the operations on them);
// the host/webview protocol (src/chat/protocol.ts) derives its view types from these, so a
// field added here reaches both sides with no copy to keep in step. This file holds only
// types and imports nothing but the parameter declaration the webview bundles too
// (eslint.config.mjs: both bundles may include it).

import type { ChatParameters, OutputFormat } from '../../api/chatParameterLimits';

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

/** Per-conversation request parameters of chat mode (D12): declared by the one parameter table. */
export type { ChatParameters };

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
  /** `ksm.chat.outputFormat`: the answer format of a conversation that did not choose one. */
  outputFormat?: OutputFormat;
  /** `ksm.userId`: sent as `user` with every request, when set. */
  userId?: string;
}
