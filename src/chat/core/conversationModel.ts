// The conversation model the chat engine owns, and the small pure operations on it. These
// types are the engine's own: nothing here knows the webview. A stored conversation is
// this model plus a schema number; the panel maps it to its view types (chat/panel/), so
// loading, answering and exporting never depend on what one front end displays.
import * as l10n from '@vscode/l10n';
import { randomBytes } from 'node:crypto';
import { MAX_TEXT_CHARS } from '../../common/core/chatText';

export type * from './conversationTypes';
import type { ChatMode, Conversation, ConversationSummary, ModelOptions, Turn } from './conversationTypes';

export const CONVERSATION_SCHEMA = 1;

export interface StoredConversation extends Conversation {
  schema: typeof CONVERSATION_SCHEMA;
  createdAt: number;
}

/** Ids become file names, so they are generated here and checked on every use. */
export const CONVERSATION_ID_PATTERN = /^c-[0-9a-f]{16}$/;
export const TURN_ID_PATTERN = /^t-[0-9a-f]{12}$/;

/** A new conversation's title until its first question names it (stored, so in the language it was created in). */
const defaultTitle = (): string => l10n.t('New chat');

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
    title: defaultTitle(),
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
    .map((line) =>
      line
        .replace(/`/g, '')
        .replace(/^[#>*\-\s]+/, '')
        .trim(),
    )
    .find((line) => line.length > 0);
  if (!firstLine) return defaultTitle();
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
