// How a conversation reads outside the chat panel: as Markdown (KSM: Export Conversation as
// Markdown) and as an entry of the conversations quick pick (KSM: Show Conversations…).
// Pure text functions, no `vscode`, so both are tested under plain mocha.
import * as l10n from '@vscode/l10n';
import { searchableText, titleFromQuestion, type Conversation, type Turn } from './conversationModel';
import { markerNumbers } from './citations';
import { questionForModel } from './requestBuilder';

export function conversationToMarkdown(conversation: Conversation): string {
  const lines: string[] = [`# ${conversation.title}`, ''];
  const how = conversation.mode === 'agent' ? l10n.t('Agent `{0}` with model `{1}`', conversation.agentId ?? '', conversation.model) : l10n.t('Model `{0}`', conversation.model);
  lines.push(`_${how} · ${new Date(conversation.updatedAt).toISOString()}_`, '');
  if (conversation.parameters.systemPrompt?.trim()) lines.push(l10n.t('**System prompt:**'), '', quote(conversation.parameters.systemPrompt), '');
  for (const turn of conversation.turns) lines.push(...turnToMarkdown(turn), '');
  return `${lines.join('\n').trimEnd()}\n`;
}

function turnToMarkdown(turn: Turn): string[] {
  if (turn.role === 'user') {
    const files = (turn.attachments ?? []).map((a) => `\`${a.filename}\``).join(', ');
    // The export is Markdown, so the code sent with the question is shown as the model read it.
    return ['## You', '', ...(files ? [`_Files: ${files}_`, ''] : []), questionForModel(turn)];
  }
  const out = ['## Assistant', ''];
  if (turn.reasoning?.trim()) out.push('<details><summary>Reasoning</summary>', '', turn.reasoning.trim(), '', '</details>', '');
  out.push(turn.content || l10n.t('_(no text)_'));
  const note = stateNote(turn);
  if (note) out.push('', `> ${note}`);
  if (turn.citations?.length) {
    out.push('', '**Sources:**', '');
    turn.citations.forEach((c, i) =>
      out.push(
        `- ${markerNumbers(c, i)
          .map((n) => `[${n}]`)
          .join('')} \`${c.filename}\`${c.volume ? ` (${c.volumeLabel ?? c.volume})` : ''}`,
      ),
    );
  }
  return out;
}

function stateNote(turn: Turn): string | undefined {
  switch (turn.state) {
    case 'stopped':
      return l10n.t('Stopped by the user.');
    case 'cut-off':
      return turn.error ?? l10n.t('The answer was cut off.');
    case 'error':
      return `Error: ${turn.error ?? 'unknown'}`;
    case 'length':
      return l10n.t('The answer reached the token limit.');
    case 'elsewhere':
      return l10n.t('Still being answered in another window.');
    default:
      return undefined;
  }
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

/**
 * The quick pick entry of a conversation: its title, its mode and date, and all its message
 * text as the detail, which the quick pick searches (`matchOnDetail`) so a question can be
 * found by any word in it.
 */
export interface ConversationPickEntry {
  id: string;
  label: string;
  description: string;
  detail: string;
}

export function conversationPickEntry(conversation: Conversation, formatDate: (epochMs: number) => string = (ms) => new Date(ms).toLocaleString()): ConversationPickEntry {
  return {
    id: conversation.id,
    label: conversation.title,
    description: `${conversation.mode === 'agent' ? 'Agent' : 'Chat'} · ${formatDate(conversation.updatedAt)}`,
    detail: searchableText(conversation),
  };
}

/**
 * The title a rename starts from, whole: a title an older version cut to 60 characters
 * (ending "…") is made whole again from the question it was taken from.
 */
export function fullTitle(conversation: Conversation): string {
  const { title } = conversation;
  const question = conversation.turns.find((turn) => turn.role === 'user');
  if (!title.endsWith('…') || !question) return title;
  const whole = titleFromQuestion(question.content);
  return whole.length >= title.length && whole.startsWith(title.slice(0, -1)) ? whole : title;
}

/** How much text a search result shows around its match. */
const SNIPPET_CHARS = 140;
const SNIPPET_LEAD = 40;

/**
 * The part of `text` around the first match of `query` (case-insensitive; else of its first
 * word that matches), so a search result shows why it matched rather than the transcript's
 * start. Undefined when nothing matches or the query is empty.
 */
export function matchSnippet(text: string, query: string): string | undefined {
  const wanted = query.trim().toLowerCase();
  if (!wanted) return undefined;
  const haystack = text.toLowerCase();
  let at = haystack.indexOf(wanted);
  if (at < 0) {
    const word = wanted.split(/\s+/).find((w) => w.length > 1 && haystack.includes(w));
    if (!word) return undefined;
    at = haystack.indexOf(word);
  }
  let start = Math.max(0, at - SNIPPET_LEAD);
  // Start at a word, not inside one.
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space >= 0 && space < at) start = space + 1;
  }
  const end = Math.min(text.length, Math.max(start + SNIPPET_CHARS, at + wanted.length));
  return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? '…' : ''}`;
}
