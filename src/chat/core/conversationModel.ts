// The stored shape of a conversation and the small pure operations on it. A stored
// conversation is exactly what the webview shows (ConversationView) plus a schema number,
// so loading, showing and exporting never translate between two models.
import { randomBytes } from 'node:crypto';
import type { ChatMode, ConversationSummary, ConversationView, ModelOptions, TurnView } from '../protocol';

export const CONVERSATION_SCHEMA = 1;

export interface StoredConversation extends ConversationView {
  schema: typeof CONVERSATION_SCHEMA;
  createdAt: number;
}

/** Ids become file names, so they are generated here and checked on every use. */
export const CONVERSATION_ID_PATTERN = /^c-[0-9a-f]{16}$/;
export const TURN_ID_PATTERN = /^t-[0-9a-f]{12}$/;

export const DEFAULT_TITLE = 'New chat';
const TITLE_LENGTH = 60;

export function newConversationId(): string {
  return `c-${randomBytes(8).toString('hex')}`;
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

/** The first line of the first question, trimmed to a readable length. */
export function titleFromQuestion(question: string): string {
  const firstLine = question
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('```'))
    .map((line) => line.replace(/`/g, '').replace(/^[#>*\-\s]+/, '').trim())
    .find((line) => line.length > 0);
  if (!firstLine) return DEFAULT_TITLE;
  return firstLine.length > TITLE_LENGTH ? `${firstLine.slice(0, TITLE_LENGTH - 1).trimEnd()}…` : firstLine;
}

export function summarize(conversation: ConversationView): ConversationSummary {
  return { id: conversation.id, title: conversation.title, mode: conversation.mode, updatedAt: conversation.updatedAt };
}

export function lastTurn(conversation: ConversationView): TurnView | undefined {
  return conversation.turns[conversation.turns.length - 1];
}

/**
 * The message text of a conversation, for searching the conversation list: the questions
 * first (short, and what people remember), then the answers, capped so a long conversation
 * does not slow the list down. Answers first would push a later question past the cap.
 */
export function searchableText(conversation: ConversationView, maxChars = 8000): string {
  const byRole = (role: TurnView['role']) => conversation.turns.filter((turn) => turn.role === role).map((turn) => turn.content.replace(/\s+/g, ' ').trim());
  const text = [...byRole('user'), ...byRole('assistant')].filter(Boolean).join(' · ');
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}

/**
 * An answer still marked `streaming` on load was interrupted by a crash or a kill of the
 * extension host: keep its text and say what happened instead of pretending it finished.
 */
export function markInterruptedAnswers(conversation: StoredConversation): boolean {
  let changed = false;
  for (const turn of conversation.turns) {
    if (turn.role === 'assistant' && turn.state === 'streaming') {
      turn.state = 'cut-off';
      turn.error = 'Interrupted: VS Code closed while this answer was streaming.';
      changed = true;
    }
  }
  return changed;
}
