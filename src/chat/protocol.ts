// The one file of typed messages between the chat host and its webview. Both sides import
// it; it imports nothing, so it compiles under the webview's `lib: dom` config and the
// host's Node config alike. The host treats everything arriving from the webview as
// untrusted: `parseWebviewMessage` validates shape and sizes before any handler runs.

export type ChatMode = 'chat' | 'agent';

/** `elsewhere`: another window (sharing this store) is streaming this answer right now. */
export type AnswerState = 'streaming' | 'elsewhere' | 'done' | 'stopped' | 'error' | 'cut-off' | 'length';

export interface UsageView {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens?: number | null;
  totalTokens: number;
}

export interface CitationView {
  fileId: string;
  filename: string;
  volume?: string;
  snippet?: string;
  score?: number;
  chunkIndex?: number;
  /** The answer's markers [n] that point at this source; absent in conversations saved before numbering (then its position + 1). */
  markers?: number[];
  /** How the volume is shown ("My files" for the personal one). */
  volumeLabel?: string;
}

/** Code sent with a question (Ask About Selection / Active File), shown as a chip. */
export interface CodeContextView {
  id: string;
  filename: string;
  languageId: string;
  lines?: { start: number; end: number };
  text: string;
}

/** A volume an agent conversation chose to search. */
export interface ContextVolumeView {
  volume: string;
  label: string;
  personal: boolean;
}

export interface AttachmentView {
  fileId: string;
  filename: string;
  size: number;
  volume: string;
}

export interface ChatParameters {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  systemPrompt?: string;
  responseFormat?: 'text' | 'json_object';
  reasoningEffort?: 'low' | 'medium' | 'high';
  reasoningBudget?: number;
}

export interface TurnView {
  id: string;
  role: 'user' | 'assistant';
  /** Markdown source. The webview renders it sanitized; it is never trusted as HTML. */
  content: string;
  reasoning?: string;
  state?: AnswerState;
  /** Short, user-facing error text when state is 'error' or 'cut-off'. */
  error?: string;
  finishReason?: string;
  usage?: UsageView;
  citations?: CitationView[];
  attachments?: AttachmentView[];
  code?: CodeContextView[];
  /**
   * Agent answers: the service thread the answer was given in (from its `thread` event).
   * A thread that holds the answer also holds its question, so a retry does not ask it again.
   */
  threadId?: string;
  /** The user's max-tokens limit when this answer was (last) requested: a `length` end under it was the user's own limit. */
  maxTokens?: number;
  createdAt: number;
}

export interface ConversationView {
  id: string;
  title: string;
  mode: ChatMode;
  model: string;
  agentId?: string;
  threadId?: string | null;
  enableThinking?: boolean;
  parameters: ChatParameters;
  turns: TurnView[];
  pendingAttachments: AttachmentView[];
  pendingCode?: CodeContextView[];
  /** Agent mode: the chosen volumes; absent = My files and every configured volume. */
  contextVolumes?: ContextVolumeView[];
  /** Agent mode: files searched instead of whole volumes, with every question. */
  contextFiles?: AttachmentView[];
  updatedAt: number;
}

export interface ConversationSummary {
  id: string;
  title: string;
  mode: ChatMode;
  updatedAt: number;
}

export interface ModelOptions {
  models: string[];
  reasoningModels: string[];
  defaultModel: string;
  agentId: string;
  agentModel: string;
}

/** Host → webview. */
export type HostToWebview =
  | { type: 'init'; conversation: ConversationView; conversations: ConversationSummary[]; options: ModelOptions }
  | { type: 'conversation'; conversation: ConversationView; conversations: ConversationSummary[] }
  | { type: 'options'; options: ModelOptions }
  /** The saved conversations changed (one that is not open was renamed or deleted). */
  | { type: 'conversationList'; conversations: ConversationSummary[] }
  /** Appends streamed text to the open answer; the host batches deltas before posting. */
  | { type: 'delta'; turnId: string; content?: string; reasoning?: string }
  | { type: 'answerUpdate'; turnId: string; patch: Partial<Omit<TurnView, 'id' | 'role' | 'content'>> }
  | { type: 'busy'; busy: boolean }
  /** Pre-fills the composer (Ask About Selection). */
  | { type: 'prefill'; text: string; attachments?: AttachmentView[] }
  | { type: 'focusComposer' }
  /** Whether a service is set up (address and key): the empty chat then shows example questions, else the two ways to connect. */
  | { type: 'connection'; connected: boolean };

/** The ways to connect the in-chat welcome offers (run as the commands of the same names). */
export type ConnectAction = 'setApiKey' | 'useLocalEmulator';

/** Webview → host. Every field is validated by the host before use. */
export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'stop' }
  | { type: 'retry'; turnId: string }
  | { type: 'continue'; turnId: string }
  /** Asks the last question again in place of the last answer (which ended, well or not). */
  | { type: 'regenerate'; turnId: string }
  /** Replaces the last question (`turnId`) and its answer with `text`, and asks it. */
  | { type: 'editQuestion'; turnId: string; text: string }
  /** Copies an answer's Markdown source to the clipboard (the host reads it from the conversation). */
  | { type: 'copyAnswer'; turnId: string }
  /** Opens the model picker (a quick pick: recent models, the configured ones, free entry). */
  | { type: 'pickModel' }
  /** Alt+F2: opens the last answer as plain text in a read-only editor (KSM: Read Last Answer). */
  | { type: 'readLastAnswer' }
  | { type: 'setMode'; mode: ChatMode }
  | { type: 'setModel'; model: string }
  | { type: 'setThinking'; enabled: boolean }
  | { type: 'setParameters'; parameters: ChatParameters }
  | { type: 'removeAttachment'; fileId: string }
  /** Removes a code chip waiting above the composer. */
  | { type: 'removeCode'; id: string }
  /** Opens the host's picker of volumes the agent searches in this conversation. */
  | { type: 'chooseContextVolumes' }
  | { type: 'removeContextVolume'; volume: string }
  /** Opens the host's picker of files (of one volume) the agent searches in this conversation. */
  | { type: 'chooseContextFiles' }
  | { type: 'removeContextFile'; fileId: string }
  | { type: 'newConversation' }
  | { type: 'openConversation'; id: string }
  | { type: 'copyCode'; code: string }
  | { type: 'insertCode'; code: string }
  | { type: 'newFileWithCode'; code: string; language?: string }
  | { type: 'openLink'; href: string }
  /** A source chip (or marker) of answer `turnId`: opens its passage and reveals its file. */
  | { type: 'openCitation'; turnId: string; marker: number }
  | { type: 'connect'; action: ConnectAction };

export type WebviewMessageType = WebviewToHost['type'];

/**
 * One handler per message type of a union: `satisfies HandlerMap<WebviewToHost>` makes a
 * message type added here without a handler on that side fail to compile.
 */
export type HandlerMap<M extends { type: string }, R = void> = { [K in M['type']]: (message: Extract<M, { type: K }>) => R };
