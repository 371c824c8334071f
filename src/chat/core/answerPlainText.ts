// An answer as plain text, for KSM: Read Last Answer (issue 26): what a screen-reader user
// reads line by line in a read-only editor, the way VS Code's Accessible View shows its own
// chat. The Markdown is parsed with markdown-it (the same parser the panel renders with) and
// its marks are dropped: headings, emphasis, links (their text and address), list bullets as
// "-" or "1.", code blocks as their code between "Code (ts):" and "End of code.".
import * as l10n from '@vscode/l10n';
import MarkdownIt from 'markdown-it';
import { markerNumbers } from './citations';
import type { Conversation, Turn } from './conversationModel';

const parser = new MarkdownIt({ html: false, linkify: false });
type Token = ReturnType<typeof parser.parse>[number];

/** The conversation's last answer that has any text, or undefined. */
export function lastAnswer(conversation: Pick<Conversation, 'turns'>): Turn | undefined {
  return conversation.turns.findLast((turn) => turn.role === 'assistant' && (turn.content.trim() !== '' || turn.state === 'error'));
}

/** The whole answer as plain text: its text, how it ended if not well, and its sources. */
export function answerPlainText(turn: Turn): string {
  const parts = [markdownToPlainText(turn.content)];
  const ending = endingNote(turn);
  if (ending) parts.push(ending);
  if (turn.citations?.length) {
    const sources = turn.citations.map((citation, index) => {
      const markers = markerNumbers(citation, index)
        .map((n) => `[${n}]`)
        .join('');
      const where = citation.volume ? ` (volume ${citation.volumeLabel ?? citation.volume})` : '';
      return `${markers} ${citation.filename}${where}`;
    });
    parts.push(['Sources:', ...sources].join('\n'));
  }
  return `${parts
    .filter((part) => part.trim() !== '')
    .join('\n\n')
    .trim()}\n`;
}

function endingNote(turn: Turn): string | undefined {
  switch (turn.state) {
    case 'stopped':
      return l10n.t('(Stopped before the end.)');
    case 'length':
      return l10n.t('(Cut short by the length limit.)');
    case 'cut-off':
      return turn.error ? l10n.t('(Cut off: {0})', turn.error) : l10n.t('(Cut off.)');
    case 'error':
      return `(Failed${turn.error ? `: ${turn.error}` : '.'})`;
    case 'streaming':
      return l10n.t('(Still being answered: this is the text so far.)');
    default:
      return undefined;
  }
}

export function markdownToPlainText(markdown: string): string {
  const tokens = parser.parse(markdown, {});
  const blocks: string[] = [];
  const lists: { ordered: boolean; next: number }[] = [];
  let line = '';
  let quoteDepth = 0;
  const flush = () => {
    if (line.trim() !== '') blocks.push(`${'> '.repeat(quoteDepth)}${line.trimEnd()}`);
    line = '';
  };
  for (const token of tokens) {
    switch (token.type) {
      case 'bullet_list_open':
        lists.push({ ordered: false, next: 1 });
        break;
      case 'ordered_list_open':
        lists.push({ ordered: true, next: Number(token.attrGet('start') ?? 1) });
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists.pop();
        break;
      case 'list_item_open': {
        flush();
        const list = lists.at(-1);
        const bullet = list?.ordered ? `${list.next++}.` : '-';
        line = `${'  '.repeat(Math.max(0, lists.length - 1))}${bullet} `;
        break;
      }
      case 'blockquote_open':
        flush();
        quoteDepth++;
        break;
      case 'blockquote_close':
        flush();
        quoteDepth--;
        break;
      case 'inline':
        line += inlineText(token.children ?? []);
        break;
      case 'paragraph_close':
      case 'heading_close':
        flush();
        break;
      case 'fence':
      case 'code_block': {
        flush();
        const language = token.info.trim().split(/\s+/)[0];
        blocks.push(language ? l10n.t('Code ({0}):\n{1}\nEnd of code.', language, token.content.replace(/\n$/, '')) : l10n.t('Code:\n{0}\nEnd of code.', token.content.replace(/\n$/, '')));
        break;
      }
      case 'hr':
        flush();
        break;
      case 'tr_close':
        line = line.replace(/ \| $/, '');
        flush();
        break;
      case 'th_close':
      case 'td_close':
        line += ' | ';
        break;
      default:
        break;
    }
  }
  flush();
  return blocks.join('\n\n');
}

function inlineText(children: Token[]): string {
  let text = '';
  let href: string | undefined;
  let linkText = '';
  for (const child of children) {
    const piece = child.type === 'text' || child.type === 'code_inline' ? child.content : child.type === 'softbreak' || child.type === 'hardbreak' ? '\n' : child.type === 'image' ? child.content : '';
    if (child.type === 'link_open') {
      href = String(child.attrGet('href') ?? '');
      linkText = '';
      continue;
    }
    if (child.type === 'link_close') {
      text += href && href !== linkText ? `${linkText} (${href})` : linkText;
      href = undefined;
      continue;
    }
    if (href !== undefined) linkText += piece;
    else text += piece;
  }
  return text;
}
