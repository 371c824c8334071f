import * as l10n from '@vscode/l10n';
import type { AnswerState, AttachmentView, CitationView, TurnView, UsageView, WebviewToHost } from '../chat/protocol';
import { button, ChunkedText, el, userText, withUserText } from './dom';
import { formatNumber } from './locale';
import { citationChips, codeChips, markersOf } from './contextChips';
import { StreamingMarkdown } from './streamingMarkdown';

type Post = (message: WebviewToHost) => void;
type TurnPatch = Partial<Omit<TurnView, 'id' | 'role' | 'content'>>;

/**
 * DOM events a turn raises for what the panel around it does (the composer, ⚙), so a turn
 * needs no reference to them. Both bubble to the document.
 */
export const EDIT_QUESTION_EVENT = 'ksm-edit-question';
export const RAISE_MAX_TOKENS_EVENT = 'ksm-raise-max-tokens';
export type EditQuestionDetail = { turnId: string; text: string };

/**
 * The Edit button of the last question (the transcript adds it to that turn only): puts the
 * question back into the composer, where sending replaces it and its answer.
 */
export function editQuestionButton(turn: TurnView): HTMLButtonElement {
  const edit = button(l10n.t('Edit and resend'), l10n.t({ message: '✎ Edit', comment: ['edits the last question; keep the pencil'] }), 'ghost-button turn-action edit-question');
  edit.addEventListener('click', () => edit.dispatchEvent(new CustomEvent<EditQuestionDetail>(EDIT_QUESTION_EVENT, { bubbles: true, detail: { turnId: turn.id, text: turn.content } })));
  return edit;
}

export function userTurnElement(turn: TurnView): HTMLElement {
  return el(
    'article',
    { class: 'turn user-turn', 'data-role': 'user', 'data-turn-id': turn.id, 'aria-label': l10n.t({ message: 'You', comment: ['the author of a question in the chat'] }) },
    el('div', { class: 'turn-author' }, l10n.t({ message: 'You', comment: ['the author of a question in the chat'] })),
    // The user's own words are shown as typed: plain text, never markup.
    turn.code?.length ? codeChips(turn.code) : null,
    userText('div', { class: 'user-text' }, turn.content),
    turn.attachments?.length ? attachmentChips(turn.attachments) : null,
  );
}

export function attachmentChips(attachments: AttachmentView[], onRemove?: (fileId: string) => void): HTMLElement {
  const list = el('ul', { class: 'chips', 'aria-label': l10n.t('Attachments') });
  for (const attachment of attachments) {
    const chip = el('li', { class: 'chip', title: `${attachment.filename} (${attachment.volume})` }, userText('span', {}, attachment.filename));
    if (onRemove) {
      const remove = button(l10n.t({ message: 'Remove attachment {0}', args: [attachment.filename], comment: ['{0} is a file name'] }), '×', 'chip-remove');
      remove.addEventListener('click', () => onRemove(attachment.fileId));
      chip.append(remove);
    }
    list.append(chip);
  }
  return list;
}

/** One assistant answer: reasoning, streamed body, status, citations and usage footer. */
export class AssistantTurnElement {
  readonly element: HTMLElement;
  private readonly body = new StreamingMarkdown();
  private readonly reasoning = el('details', { class: 'reasoning', hidden: true });
  private readonly reasoningSummary = el('summary', {});
  private readonly reasoningText = userText('div', { class: 'reasoning-text' });
  private readonly reasoningChunks = new ChunkedText(this.reasoningText);
  private readonly status = el('div', { class: 'turn-status' });
  private readonly citations = el('div', { class: 'citations', 'data-testid': 'citations', hidden: true });
  private readonly footer = el('div', { class: 'turn-footer' });
  private readonly actions = el('div', { class: 'turn-actions', role: 'group', 'aria-label': l10n.t('Answer actions') });
  /** Only the conversation's last answer can be regenerated, retried or continued. */
  private latest = false;
  /** An action was clicked and its answer has not come back yet: no second click. */
  private actionSent = false;
  private pendingReasoning = '';
  private answerStarted = false;
  /**
   * Reasoning opens by itself while the model thinks and closes by itself when the answer
   * starts, until the reader opens or closes it: from then on it stays as they left it.
   */
  private reasoningFollowsStream = true;
  private turn: TurnView;

  constructor(
    turn: TurnView,
    private readonly post: Post,
  ) {
    this.turn = { ...turn, content: '' };
    // The model's words are not translated (their code toolbars are ours again: markdown.ts).
    this.body.element.translate = false;
    this.reasoning.append(this.reasoningSummary, this.reasoningText);
    // A click (or Enter/Space, which click the summary) is the reader's choice; the
    // `toggle` event would also fire for our own changes.
    this.reasoningSummary.addEventListener('click', () => (this.reasoningFollowsStream = false));
    this.element = el(
      'article',
      { class: 'turn assistant-turn', 'data-role': 'assistant', 'data-turn-id': turn.id, 'aria-label': l10n.t({ message: 'Assistant', comment: ['the author of an answer in the chat'] }) },
      el('div', { class: 'turn-author' }, l10n.t({ message: 'Assistant', comment: ['the author of an answer in the chat'] })),
      this.reasoning,
      this.body.element,
      this.status,
      this.citations,
      this.actions,
      this.footer,
    );
    this.appendDelta(turn.content, turn.reasoning);
    this.applyPatch(turn);
  }

  get id(): string {
    return this.turn.id;
  }

  /** Marks this answer as the conversation's last (or not): the last one gets Regenerate, Retry and Continue. */
  setLatest(latest: boolean): void {
    if (this.latest === latest) return;
    this.latest = latest;
    this.renderActions(this.turn.state ?? 'done');
  }

  get hasPendingWork(): boolean {
    return this.body.hasPendingWork || this.pendingReasoning.length > 0;
  }

  appendDelta(content?: string, reasoning?: string): void {
    if (content) {
      this.body.append(content);
      this.answerStarted = true;
    }
    if (reasoning) this.pendingReasoning += reasoning;
  }

  /** Applies queued text; the transcript calls this at most once per animation frame. */
  render(): void {
    if (this.pendingReasoning) {
      this.reasoning.hidden = false;
      this.reasoningChunks.append(this.pendingReasoning);
      this.pendingReasoning = '';
    }
    if (this.reasoningFollowsStream && !this.reasoning.hidden) {
      // Live while thinking, out of the way once the answer is being written.
      const open = !this.answerStarted && this.turn.state === 'streaming';
      if (this.reasoning.open !== open) this.reasoning.open = open;
    }
    // An ended answer's text goes straight into finished blocks: drawing its open block
    // first would parse that block twice.
    if (this.turn.state && this.turn.state !== 'streaming') this.body.finish();
    else this.body.render();
  }

  applyPatch(patch: TurnPatch): void {
    this.turn = { ...this.turn, ...patch };
    if (patch.state) this.actionSent = false;
    const state: AnswerState = this.turn.state ?? 'done';
    this.element.dataset.state = state;
    this.element.setAttribute('aria-busy', String(state === 'streaming'));
    this.renderReasoningSummary();
    this.renderStatus(state);
    this.renderActions(state);
    if ('citations' in patch) this.renderCitations(this.turn.citations ?? []);
    this.renderFooter(this.turn.usage, this.turn.finishReason);
  }

  private renderReasoningSummary(): void {
    const tokens = this.turn.usage?.reasoningTokens;
    this.reasoningSummary.textContent = tokens
      ? l10n.t({ message: 'Reasoning · {0} tokens', args: [formatNumber(tokens)], comment: ["the model's reasoning, folded; {0} is how many tokens it took"] })
      : l10n.t({ message: 'Reasoning', comment: ["the model's reasoning, folded"] });
  }

  /** What happened to the answer, in words; the buttons that act on it are in `renderActions`. */
  private renderStatus(state: AnswerState): void {
    this.status.replaceChildren();
    if (state === 'streaming') {
      this.status.append(el('span', { class: 'typing', 'aria-label': l10n.t('Answering') }, '●●●'));
    } else if (state === 'length') {
      const limit = this.turn.maxTokens;
      if (limit !== undefined) {
        // The user's own ⚙ limit cut it: say so, and offer to raise it.
        const raise = button(l10n.t('Raise the Max tokens limit'), l10n.t('Raise limit…'), 'secondary-button turn-action');
        raise.addEventListener('click', () => raise.dispatchEvent(new CustomEvent(RAISE_MAX_TOKENS_EVENT, { bubbles: true })));
        this.status.append(
          el('span', { class: 'status-note length-note' }, l10n.t({ message: 'Cut at your Max tokens limit ({0}, set in ⚙).', args: [formatNumber(limit)], comment: ['⚙ is the parameters button'] })),
          raise,
        );
      } else {
        this.status.append(el('span', { class: 'status-note length-note' }, l10n.t("Cut by the model's token limit.")));
      }
    } else if (state === 'error' || state === 'cut-off') {
      const fallback = state === 'cut-off' ? l10n.t('The answer was cut off.') : l10n.t('The answer failed.');
      this.status.append(el('div', { class: 'turn-error', role: 'alert' }, `⚠ ${this.turn.error || fallback}`));
    } else if (state === 'stopped') {
      this.status.append(el('span', { class: 'status-note stopped-note' }, l10n.t({ message: '■ Stopped', comment: ['an answer the user stopped; keep the square'] })));
    } else if (state === 'elsewhere') {
      this.status.append(el('span', { class: 'status-note' }, l10n.t('Answering in another window…')));
    }
  }

  /**
   * Copy on every answer that ended; on the last answer also Continue (cut short), Retry
   * (ended badly) or Regenerate (ended well). A clicked action disables them all until the
   * answer changes, so a double click never asks twice.
   */
  private renderActions(state: AnswerState): void {
    this.actions.replaceChildren();
    const ended = state !== 'streaming' && state !== 'elsewhere';
    if (!ended) return;
    const add = (label: string, text: string, message: WebviewToHost | (() => void), className = 'ghost-button turn-action') => {
      const action = button(label, text, className, this.actionSent ? { disabled: true } : {});
      action.addEventListener('click', () => {
        if (typeof message === 'function') return message();
        this.actionSent = true;
        for (const other of this.actions.querySelectorAll('button')) other.disabled = true;
        this.post(message);
      });
      this.actions.append(action);
    };
    const turnId = this.turn.id;
    if (this.latest && (state === 'length' || state === 'stopped' || state === 'cut-off')) add(l10n.t('Continue'), l10n.t('Continue'), { type: 'continue', turnId }, 'secondary-button turn-action');
    if (this.latest && state !== 'done' && state !== 'length') add(l10n.t('Retry'), l10n.t('Retry'), { type: 'retry', turnId }, 'secondary-button turn-action');
    if (this.latest && (state === 'done' || state === 'length'))
      add(l10n.t('Regenerate'), l10n.t({ message: '↻ Regenerate', comment: ['asks the last question again; keep the arrow'] }), { type: 'regenerate', turnId });
    if (this.body.hasText) {
      const copyText = l10n.t({ message: 'Copy', comment: ['copies an answer'] });
      add(
        l10n.t('Copy answer'),
        copyText,
        () => {
          this.post({ type: 'copyAnswer', turnId });
          const copy = this.actions.querySelector<HTMLButtonElement>('.copy-answer');
          if (!copy) return;
          copy.textContent = l10n.t({ message: '✓ Copied', comment: ['shown briefly after a copy; keep the tick'] });
          window.setTimeout(() => (copy.textContent = copyText), 1500);
        },
        'ghost-button turn-action copy-answer',
      );
    }
  }

  private renderCitations(citations: CitationView[]): void {
    this.body.setCitations(new Map(citations.flatMap((citation, i) => markersOf(citation, i).map((n) => [n, citation.filename] as const))));
    this.citations.replaceChildren();
    this.citations.hidden = citations.length === 0;
    if (citations.length === 0) return;
    this.citations.append(el('span', { class: 'citations-label' }, l10n.t({ message: 'Sources', comment: ["label before an answer's numbered sources"] })));
    this.citations.append(...citationChips(this.turn.id, citations, this.post));
  }

  private renderFooter(usage: UsageView | undefined, finishReason: string | undefined): void {
    // Each part is a sentence; a value that is not ours (the finish reason) is its own element.
    const parts: (string | HTMLElement)[][] = [];
    if (usage) {
      // Literal comments: `l10n-dev export` reads them from the call to build the key.
      parts.push(
        [l10n.t({ message: 'prompt {0}', args: [formatNumber(usage.promptTokens)], comment: ['token usage in an answer footer'] })],
        [l10n.t({ message: 'completion {0}', args: [formatNumber(usage.completionTokens)], comment: ['token usage in an answer footer'] })],
      );
      if (usage.reasoningTokens) parts.push([l10n.t({ message: 'reasoning {0}', args: [formatNumber(usage.reasoningTokens)], comment: ['token usage in an answer footer'] })]);
      parts.push([l10n.t({ message: 'total {0} tokens', args: [formatNumber(usage.totalTokens)], comment: ['token usage in an answer footer'] })]);
    }
    // The finish reason is the service's own word (stop, length), shown as it came.
    if (finishReason) parts.push(withUserText([finishReason], ([reason]) => l10n.t({ message: 'finish: {0}', args: [reason], comment: ['{0} is the service\'s finish reason, such as "stop"'] })));
    this.footer.replaceChildren(...parts.flatMap((part, i) => (i === 0 ? part : [' · ', ...part])));
    this.footer.hidden = parts.length === 0;
  }
}
