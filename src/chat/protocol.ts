// The one file of typed messages between the chat host and its webview. Both sides import
// it; it imports only types (of the engine's type-only declaration, conversationTypes.ts),
// so it compiles under the webview's `lib: dom` config and the host's Node config alike. The host treats everything arriving from the webview as
// untrusted: `parseWebviewMessage` validates shape and sizes before any handler runs.

import type {
  AnswerState,
  AttachedFile,
  ChatMode,
  ChatParameters,
  CodeContext,
  ContextVolume,
  Conversation,
  ConversationSummary,
  ModelOptions,
  SourceCitation,
  TokenUsage,
  Turn,
} from './core/conversationTypes';

// The view types are the engine's own (src/chat/core/conversationTypes.ts, one declaration):
// the host posts a structured clone of the model, so a field added to the model is in the
// view at once, and the compiler shows every place of the webview that must handle it.
export type { AnswerState, ChatMode, ChatParameters, ConversationSummary, ModelOptions };
export type UsageView = TokenUsage;
export type CitationView = SourceCitation;
/** Code sent with a question (Ask About Selection / Active File), shown as a chip. */
export type CodeContextView = CodeContext;
/** A volume an agent conversation chose to search. */
export type ContextVolumeView = ContextVolume;
export type AttachmentView = AttachedFile;
export type TurnView = Turn;
export type ConversationView = Conversation;

/**
 * What the page needs before it draws anything (issue 26): VS Code's UI language (`<html
 * lang>`, number and date formats) and the extension's string bundle for it
 * (`vscode.l10n.bundle`: keys are the English strings of `l10n.t` calls, as
 * `@vscode/l10n-dev export` writes them; absent for English). The host writes it into the
 * page as the JSON `content` of `<meta name="ksm-bootstrap">` (chat/panel/bootstrap.ts), so
 * the webview configures `@vscode/l10n` before its first string, without a message round trip.
 */
export interface WebviewBootstrap {
  language: string;
  l10n?: Record<string, string | { message: string; comment: string[] }>;
}

/** The `name` of the page's bootstrap `<meta>`. */
export const BOOTSTRAP_META_NAME = 'ksm-bootstrap';

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
