// How a conversation reads outside the chat panel: as Markdown (KSM: Export Conversation as
// Markdown) and as an entry of the conversations quick pick (KSM: Show Conversations…).
// Pure text functions, no `vscode`, so both are tested under plain mocha.
import { searchableText, type Conversation, type Turn } from './conversationModel';
import { markerNumbers } from './citations';
import { questionForModel } from './requestBuilder';

export function conversationToMarkdown(conversation: Conversation): string {
  const lines: string[] = [`# ${conversation.title}`, ''];
  const how = conversation.mode === 'agent' ? `Agent \`${conversation.agentId ?? ''}\` with model \`${conversation.model}\`` : `Model \`${conversation.model}\``;
  lines.push(`_${how} · ${new Date(conversation.updatedAt).toISOString()}_`, '');
  if (conversation.parameters.systemPrompt?.trim()) lines.push('**System prompt:**', '', quote(conversation.parameters.systemPrompt), '');
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
  out.push(turn.content || '_(no text)_');
  const note = stateNote(turn);
  if (note) out.push('', `> ${note}`);
  if (turn.citations?.length) {
    out.push('', '**Sources:**', '');
    turn.citations.forEach((c, i) => out.push(`- ${markerNumbers(c, i).map((n) => `[${n}]`).join('')} \`${c.filename}\`${c.volume ? ` (${c.volumeLabel ?? c.volume})` : ''}`));
  }
  return out;
}

function stateNote(turn: Turn): string | undefined {
  switch (turn.state) {
    case 'stopped':
      return 'Stopped by the user.';
    case 'cut-off':
      return turn.error ?? 'The answer was cut off.';
    case 'error':
      return `Error: ${turn.error ?? 'unknown'}`;
    case 'length':
      return 'The answer reached the token limit.';
    case 'elsewhere':
      return 'Still being answered in another window.';
    default:
      return undefined;
  }
}

function quote(text: string): string {
  return text.split('\n').map((l) => `> ${l}`).join('\n');
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

export function conversationPickEntry(
  conversation: Conversation,
  formatDate: (epochMs: number) => string = (ms) => new Date(ms).toLocaleString(),
): ConversationPickEntry {
  return {
    id: conversation.id,
    label: conversation.title,
    description: `${conversation.mode === 'agent' ? 'Agent' : 'Chat'} · ${formatDate(conversation.updatedAt)}`,
    detail: searchableText(conversation),
  };
}
