// What the transcript's live region says when an answer starts and ends (issue 26): a
// screen-reader user hears that an answer began, and when it ends, its first sentence (or
// "Answer ready, N words"), or how it ended. The streamed words themselves would be noise.
import * as l10n from '@vscode/l10n';
import type { TurnView } from '../chat/protocol';
import { formatNumber } from './locale';

/** A first sentence longer than this is not read out; the word count is said instead. */
const SENTENCE_MAX_CHARS = 200;

/** Said when an answer starts streaming: a new one, or one that continues (Continue). */
export function startAnnouncement(continuing: boolean): string {
  return continuing ? l10n.t('Continuing the answer…') : l10n.t('Answering…');
}

/**
 * Said when an answer stops streaming. `text` is the answer as shown (the rendered body's
 * text, code toolbars left out), so markup and fences are not read out.
 */
export function endAnnouncement(turn: Pick<TurnView, 'state' | 'error'>, text: AnswerText): string {
  const words = wordCount(text.all);
  const counted = words === 1 ? l10n.t('1 word') : l10n.t('{0} words', formatNumber(words));
  switch (turn.state) {
    case 'done': {
      const sentence = firstSentence(text.prose);
      return sentence ?? l10n.t({ message: 'Answer ready, {0}.', args: [counted], comment: ['{0} is a word count such as "12 words"'] });
    }
    case 'stopped':
      return l10n.t({ message: 'Answer stopped after {0}.', args: [counted], comment: ['{0} is a word count such as "12 words"'] });
    case 'length':
      return l10n.t({ message: 'Answer cut short by the length limit after {0}.', args: [counted], comment: ['{0} is a word count such as "12 words"'] });
    case 'cut-off':
      return turn.error
        ? l10n.t({ message: 'Answer cut off after {0}: {1}', args: [counted, turn.error], comment: ['{0} is a word count such as "12 words"; {1} is the reason, a sentence'] })
        : l10n.t({ message: 'Answer cut off after {0}.', args: [counted], comment: ['{0} is a word count such as "12 words"'] });
    case 'error':
      return turn.error ? l10n.t({ message: 'Answer failed: {0}', args: [turn.error], comment: ['{0} is the reason, a sentence'] }) : l10n.t('Answer failed.');
    default:
      return '';
  }
}

export interface AnswerText {
  /** Everything shown, code included. */
  all: string;
  /** The answer's first block of prose (a paragraph, list item or heading), if it starts with one. */
  prose: string;
}

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** The first sentence of prose, when there is one short enough to be read out. */
export function firstSentence(prose: string): string | undefined {
  const text = prose.replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  const match = /^.+?[.!?…](?=\s|$)/u.exec(text);
  const sentence = match ? match[0] : text;
  return sentence.length <= SENTENCE_MAX_CHARS ? sentence : undefined;
}

/** The text of a rendered answer body, for `endAnnouncement`. */
export function answerTextOf(body: Element): AnswerText {
  const clone = body.cloneNode(true) as Element;
  for (const chrome of Array.from(clone.querySelectorAll('.code-toolbar'))) chrome.remove();
  const first = clone.querySelector('p, li, h1, h2, h3, h4, h5, h6, blockquote, pre, table');
  const prose = first && !first.matches('pre, table') && !first.closest('pre, table') ? (first.textContent ?? '') : '';
  return { all: clone.textContent ?? '', prose };
}

/**
 * The same from Markdown source, for an answer that is not on screen: its first line of prose
 * with the Markdown marks taken off (a fence first means there is no prose to read).
 */
export function answerTextOfMarkdown(markdown: string): AnswerText {
  const firstLine = markdown.split('\n').find((line) => line.trim() !== '') ?? '';
  const prose = /^\s*(```|~~~|\|)/.test(firstLine)
    ? ''
    : firstLine
        .replace(/^\s*(#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)/, '')
        // A link's parts exclude their own opening bracket, so an unclosed '[' or '(' ends its
        // match at the next one: a line of a million '[' is read once, not once from each.
        .replace(/!?\[([^[\]]*)\]\([^()]*\)/g, '$1')
        .replace(/[*_`~]+/g, '');
  // Indentation never spans a line break: `^\s*` re-read every following blank line from each line start.
  return { all: markdown.replace(/^[^\S\r\n\u2028\u2029]*(```|~~~).*$/gm, ''), prose };
}
