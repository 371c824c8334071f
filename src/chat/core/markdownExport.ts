// Conversation → Markdown (KSM: Export Conversation as Markdown), and the composer prefill
// for "Ask About Selection/File". Pure text functions, no `vscode`.
import type { ConversationView, TurnView } from '../protocol';

export function conversationToMarkdown(conversation: ConversationView): string {
  const lines: string[] = [`# ${conversation.title}`, ''];
  const how = conversation.mode === 'agent' ? `Agent \`${conversation.agentId ?? ''}\` with model \`${conversation.model}\`` : `Model \`${conversation.model}\``;
  lines.push(`_${how} · ${new Date(conversation.updatedAt).toISOString()}_`, '');
  if (conversation.parameters.systemPrompt?.trim()) lines.push('**System prompt:**', '', quote(conversation.parameters.systemPrompt), '');
  for (const turn of conversation.turns) lines.push(...turnToMarkdown(turn), '');
  return `${lines.join('\n').trimEnd()}\n`;
}

function turnToMarkdown(turn: TurnView): string[] {
  if (turn.role === 'user') {
    const files = (turn.attachments ?? []).map((a) => `\`${a.filename}\``).join(', ');
    return ['## You', '', ...(files ? [`_Files: ${files}_`, ''] : []), turn.content];
  }
  const out = ['## Assistant', ''];
  if (turn.reasoning?.trim()) out.push('<details><summary>Reasoning</summary>', '', turn.reasoning.trim(), '', '</details>', '');
  out.push(turn.content || '_(no text)_');
  const note = stateNote(turn);
  if (note) out.push('', `> ${note}`);
  if (turn.citations?.length) {
    out.push('', '**Sources:**', '');
    for (const c of turn.citations) out.push(`- \`${c.filename}\`${c.volume ? ` (${c.volume})` : ''}`);
  }
  return out;
}

function stateNote(turn: TurnView): string | undefined {
  switch (turn.state) {
    case 'stopped':
      return 'Stopped by the user.';
    case 'cut-off':
      return turn.error ?? 'The answer was cut off.';
    case 'error':
      return `Error: ${turn.error ?? 'unknown'}`;
    case 'length':
      return 'The answer reached the token limit.';
    default:
      return undefined;
  }
}

function quote(text: string): string {
  return text.split('\n').map((l) => `> ${l}`).join('\n');
}

/**
 * Above this, "Ask About File" asks before pasting the whole file (many tokens). Files too
 * big for one message (MAX_TEXT_CHARS) are refused with a pointer to upload + agent instead.
 */
export const LARGE_FILE_CHARS = 50 * 1024;

/**
 * The composer text for a piece of code: the file name, then a fenced block tagged with the
 * language. The fence is longer than any backtick run inside the code, so code that itself
 * contains ``` stays one block.
 */
export function codePrefill(fileName: string, languageId: string, code: string, lineRange?: { start: number; end: number }): string {
  const longestRun = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const where = lineRange ? ` (lines ${lineRange.start}-${lineRange.end})` : '';
  const body = code.endsWith('\n') ? code : `${code}\n`;
  return `\`${fileName}\`${where}:\n\n${fence}${languageId}\n${body}${fence}\n\n`;
}
