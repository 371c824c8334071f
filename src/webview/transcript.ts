import * as l10n from '@vscode/l10n';
import type { ConversationView, TurnView, WebviewToHost } from '../chat/protocol';
import { el } from './dom';
import { answerTextOf, answerTextOfMarkdown, endAnnouncement, startAnnouncement } from './announcement';
import { codeOfBlock } from './markdown';
import { TurnWindow } from './turnWindow';
import { AssistantTurnElement, editQuestionButton, userTurnElement } from './turnView';

type Post = (message: WebviewToHost) => void;
type TurnPatch = Partial<Omit<TurnView, 'id' | 'role' | 'content'>>;

/**
 * Streamed text is drawn at most this often (every third frame at 60 Hz), in an animation
 * frame. Each drawing costs a style recalculation, a layout, a paint and a commit whatever
 * the amount of new text, and the host already posts text in 24 ms batches
 * (deltaBatcher.ts): drawing every 25 ms cost the main thread about twice as much as every
 * 50 ms for the same words on screen (bench/webview-render.ts). VS Code's own chat renders
 * its streamed answers on a 50 ms timer too.
 */
const STREAMED_TEXT_INTERVAL_MS = 50;

/**
 * One turn of the conversation as the transcript knows it, whether or not it is on screen:
 * the latest data (streamed text included) and the reader's own choices, so a turn that
 * scrolls out and is rebuilt later looks as the reader left it.
 */
interface TurnEntry {
  turn: TurnView;
  answer?: AssistantTurnElement;
  /** The reader opened or closed the reasoning; kept when the element is rebuilt. */
  reasoningOpen?: boolean;
  /** The answer's length when its height was last (re-)estimated. */
  estimatedChars?: number;
}

/**
 * While an answer streams out of view, its estimated height (which reads all its text) is
 * redone only once it grew by this factor: its estimates together read it a few times, not
 * once per frame.
 */
const REESTIMATE_GROWTH = 1.25;

/**
 * The scrolling list of turns. Only the turns near the viewport are in the DOM
 * (`TurnWindow`); streamed text is applied at most once per animation frame, together with
 * any mounting the scroll position needs, so a frame does its DOM writes in one place.
 */
export class Transcript {
  readonly element = el('main', { class: 'transcript', 'aria-label': l10n.t('Transcript'), tabindex: 0 });
  private entries: TurnEntry[] = [];
  private readonly indexById = new Map<string, number>();
  private readonly dirty = new Set<TurnEntry>();
  private frameRequested = false;
  private lastTextFrame = -Infinity;
  private conversationId: string | undefined;
  private readonly emptyNote = el('p', { class: 'empty-note' }, l10n.t('Ask a question to start.'));
  /**
   * The turns as a feed of articles: each carries its position, so a screen reader can say "12 of 1,000".
   * A feed must hold articles, so the list is a feed only while it has turns (`updateBusy`).
   */
  private readonly turns = el('div', { class: 'turns', 'aria-busy': 'false' });
  /** Says when an answer starts and ends; the streamed words themselves would be noise. */
  private readonly announcer = el('div', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' });
  /** The answers streaming at the last announcement: a change of this set is what is announced. */
  private streaming = new Set<string>();
  private readonly window: TurnWindow;

  constructor(
    private readonly post: Post,
    onScroll: (scrollTop: number) => void,
  ) {
    this.element.append(this.turns, this.emptyNote, this.announcer);
    this.window = new TurnWindow(
      this.element,
      this.turns,
      {
        create: (index) => this.createTurn(this.entries[index]),
        estimate: (index, width) => estimateTurnHeight(this.entries[index].turn, width),
        evicted: (index, element) => this.forget(this.entries[index], element),
        pinned: (index) => this.entries[index]?.turn.state === 'streaming' || this.dirty.has(this.entries[index]),
      },
      () => this.requestFrame(),
    );
    this.element.addEventListener('click', (event) => this.onClick(event));
    this.element.addEventListener('keydown', (event) => this.onKeyDown(event));
    this.element.addEventListener(
      'scroll',
      () => {
        this.window.onScroll();
        onScroll(this.element.scrollTop);
      },
      { passive: true },
    );
  }

  show(conversation: ConversationView): void {
    // The host sends the whole conversation again after each question: turns that did not
    // change keep their elements, so a long conversation is not rebuilt per question.
    const same = conversation.id === this.conversationId;
    let keep = 0;
    if (same) {
      while (keep < this.entries.length && keep < conversation.turns.length && sameTurn(this.entries[keep].turn, conversation.turns[keep])) keep++;
    }
    for (const entry of this.entries.slice(keep)) this.dirty.delete(entry);
    this.entries = [...this.entries.slice(0, keep), ...conversation.turns.slice(keep).map((turn) => ({ turn: { ...turn } }))];
    this.conversationId = conversation.id;
    this.indexById.clear();
    this.entries.forEach((entry, index) => this.indexById.set(entry.turn.id, index));
    this.window.splice(keep, this.entries.length - keep);
    this.markLatest();
    this.emptyNote.hidden = this.entries.length > 0;
    this.updateBusy();
    this.window.followBottom();
    // Another conversation: what streamed in the old one is not announced as ended.
    if (!same) this.streaming = new Set(this.entries.filter((entry) => entry.turn.state === 'streaming').map((entry) => entry.turn.id));
    this.announceChanges();
  }

  /**
   * The last answer gets Regenerate/Retry/Continue and the last question Edit; turns kept
   * on screen from before a new question lose theirs. Derived from `entries` alone, so a
   * turn mounted later (scrolled to) gets the same.
   */
  private markLatest(): void {
    const last = this.entries.at(-1);
    for (const entry of this.entries) entry.answer?.setLatest(entry === last);
    const question = this.lastQuestion();
    for (const edit of this.turns.querySelectorAll<HTMLElement>('.edit-question')) {
      if (edit.closest<HTMLElement>('.turn')?.dataset.turnId !== question?.turn.id) edit.remove();
    }
    const mounted = question && this.turns.querySelector<HTMLElement>(`.user-turn[data-turn-id="${CSS.escape(question.turn.id)}"]`);
    if (question && mounted && !mounted.querySelector('.edit-question')) mounted.append(editQuestionButton(question.turn));
  }

  private lastQuestion(): TurnEntry | undefined {
    return this.entries.findLast((entry) => entry.turn.role === 'user');
  }

  appendDelta(turnId: string, content?: string, reasoning?: string): void {
    let index = this.indexById.get(turnId);
    if (index === undefined) {
      // The host normally sends the new turn in a `conversation` message first; a delta for
      // an unknown turn still gets a place rather than being dropped.
      index = this.entries.length;
      this.entries.push({ turn: { id: turnId, role: 'assistant', content: '', state: 'streaming', createdAt: Date.now() } });
      this.indexById.set(turnId, index);
      this.window.splice(index, 1);
      this.emptyNote.hidden = true;
      this.updateBusy();
      this.announceChanges();
    }
    const entry = this.entries[index];
    if (content) entry.turn.content += content;
    if (reasoning) entry.turn.reasoning = (entry.turn.reasoning ?? '') + reasoning;
    entry.answer?.appendDelta(content, reasoning);
    this.markDirty(entry, index, true);
  }

  patch(turnId: string, patch: TurnPatch): void {
    const index = this.indexById.get(turnId);
    if (index === undefined) return;
    const entry = this.entries[index];
    const wasStreaming = entry.turn.state === 'streaming';
    entry.turn = { ...entry.turn, ...patch };
    entry.answer?.applyPatch(patch);
    const ended = wasStreaming && entry.turn.state !== undefined && entry.turn.state !== 'streaming';
    this.updateBusy();
    this.markDirty(entry, index);
    // Streamed text is drawn at most every STREAMED_TEXT_INTERVAL_MS; an answer that ends
    // shows all the text received before its end at once, so nothing seems to arrive after
    // "Stopped".
    if (ended && entry.answer && this.window.isMounted(index)) {
      entry.answer.render();
      this.dirty.delete(entry);
    }
    this.announceChanges();
  }

  /**
   * Tells a screen reader what changed since the last announcement: an answer that started
   * (or continued) streaming, or one that ended, with its first sentence. The region always
   * holds the latest event, so it never says "stopped" while an answer streams again.
   */
  private announceChanges(): void {
    const now = new Set(this.entries.filter((entry) => entry.turn.state === 'streaming').map((entry) => entry.turn.id));
    let message: string | undefined;
    for (const id of this.streaming) {
      const index = this.indexById.get(id);
      if (now.has(id) || index === undefined) continue;
      const entry = this.entries[index];
      const body = entry.answer && this.window.isMounted(index) ? entry.answer.element.querySelector('.answer-body') : null;
      const text = body ? answerTextOf(body) : answerTextOfMarkdown(entry.turn.content);
      message = endAnnouncement(entry.turn, text) || message;
    }
    for (const id of now) {
      if (this.streaming.has(id)) continue;
      const entry = this.entries[this.indexById.get(id)!];
      message = startAnnouncement(entry.turn.content.length > 0);
    }
    this.streaming = now;
    if (message !== undefined) this.announcer.textContent = message;
  }

  /** What the live region says now (tests and the host's Read Last Answer read the same answers). */
  get announcement(): string {
    return this.announcer.textContent ?? '';
  }

  restoreScroll(scrollTop: number): void {
    this.window.restoreScroll(scrollTop);
  }

  private createTurn(entry: TurnEntry): HTMLElement {
    if (entry.turn.role === 'user') {
      const element = userTurnElement(entry.turn);
      if (entry === this.lastQuestion()) element.append(editQuestionButton(entry.turn));
      return element;
    }
    const answer = new AssistantTurnElement(entry.turn, this.post);
    answer.setLatest(entry === this.entries.at(-1));
    entry.answer = answer;
    answer.render();
    this.dirty.delete(entry);
    if (entry.reasoningOpen !== undefined) {
      const details = answer.element.querySelector('details.reasoning');
      if (details instanceof HTMLDetailsElement) details.open = entry.reasoningOpen;
    }
    return answer.element;
  }

  /** The element is being dropped: keep what the reader chose in it. */
  private forget(entry: TurnEntry | undefined, element: HTMLElement): void {
    // A turn replaced by a new conversation has nothing to keep (and its index may already
    // belong to a turn of the new one).
    if (!entry?.answer || entry.answer.element !== element) return;
    const details = element.querySelector('details.reasoning');
    if (details instanceof HTMLDetailsElement && !details.hidden) entry.reasoningOpen = details.open;
    entry.answer = undefined;
    this.dirty.delete(entry);
  }

  private markDirty(entry: TurnEntry, index: number, streamed = false): void {
    if (entry.answer) this.dirty.add(entry);
    const chars = entry.turn.content.length;
    if (!streamed || chars >= (entry.estimatedChars ?? 0) * REESTIMATE_GROWTH) {
      entry.estimatedChars = chars;
      this.window.contentChanged(index);
    }
    this.requestFrame();
  }

  private requestFrame(): void {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame((frameTime) => this.renderFrame(frameTime));
  }

  /**
   * The next frame once STREAMED_TEXT_INTERVAL_MS have passed since the last drawing: a timer
   * rather than a frame callback every frame, so the frames in between do no work at all.
   */
  private requestTextFrame(wait: number): void {
    if (this.frameRequested) return;
    this.frameRequested = true;
    window.setTimeout(() => requestAnimationFrame((frameTime) => this.renderFrame(frameTime)), Math.max(0, wait - 8));
  }

  private renderFrame(frameTime: number): void {
    this.frameRequested = false;
    // Reads (scroll position) and mounting first, then the streamed text: one layout after.
    this.window.update();
    if (this.dirty.size === 0) return;
    // A frame's time may run a little ahead of the previous one's by a timer's drift: a few
    // ms of slack keep the drawing on every third frame instead of every fourth.
    if (frameTime - this.lastTextFrame < STREAMED_TEXT_INTERVAL_MS - 4) {
      this.requestTextFrame(STREAMED_TEXT_INTERVAL_MS - (frameTime - this.lastTextFrame));
      return;
    }
    this.lastTextFrame = frameTime;
    let heldBack = false;
    for (const entry of this.dirty) {
      const index = this.indexById.get(entry.turn.id);
      // A detached answer keeps its text queued until it is mounted again: nobody sees it.
      if (!entry.answer || index === undefined || !this.window.isMounted(index)) continue;
      entry.answer.render();
      // The end of a long open block waits for more text before it is parsed again
      // (streamingMarkdown.ts): if none comes by the next drawing, that one parses it.
      if (entry.answer.hasPendingWork) heldBack = true;
      else this.dirty.delete(entry);
    }
    if (heldBack) this.requestTextFrame(STREAMED_TEXT_INTERVAL_MS);
  }

  private updateBusy(): void {
    const busy = this.entries.some((entry) => entry.turn.state === 'streaming');
    this.turns.setAttribute('aria-busy', String(busy));
    if (this.entries.length > 0) {
      this.turns.setAttribute('role', 'feed');
      this.turns.setAttribute('aria-label', l10n.t('Messages'));
    } else {
      this.turns.removeAttribute('role');
      this.turns.removeAttribute('aria-label');
    }
  }

  /**
   * Keyboard: on a focused turn, ↑/↓ go to the previous/next turn and Home/End to the first
   * and last; Alt+↑/↓/Home/End do the same from anywhere in the transcript. Turns that are
   * not rendered yet are rendered on the way, so every turn can be reached.
   */
  private onKeyDown(event: KeyboardEvent): void {
    const target = event.target instanceof HTMLElement ? event.target : null;
    if (event.key === 'Enter' && target?.dataset.href) {
      event.preventDefault();
      this.post({ type: 'openLink', href: target.dataset.href });
      return;
    }
    if (event.key === 'Enter' && target?.dataset.citationMarker) {
      event.preventDefault();
      this.openCitation(target);
      return;
    }
    if (!target || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const onTurn = target.classList.contains('turn') && target.parentElement === this.turns;
    if (!onTurn && !event.altKey) return;
    const turn = target.closest<HTMLElement>('.turn');
    const current = turn?.parentElement === this.turns ? this.indexById.get(turn.dataset.turnId ?? '') : undefined;
    let next: number | undefined;
    if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = this.entries.length - 1;
    else if (event.key === 'ArrowUp') next = current === undefined ? this.window.firstVisibleIndex() : current - 1;
    else if (event.key === 'ArrowDown') next = current === undefined ? this.window.firstVisibleIndex() : current + 1;
    if (next === undefined || this.entries.length === 0) return;
    event.preventDefault();
    this.window.focusRow(next);
  }

  /** A marker [n] in an answer opens the same passage as its numbered source chip. */
  private openCitation(marker: HTMLElement): void {
    const turnId = marker.closest<HTMLElement>('.turn')?.dataset.turnId;
    const number = Number(marker.dataset.citationMarker);
    if (turnId && Number.isInteger(number)) this.post({ type: 'openCitation', turnId, marker: number });
  }

  private onClick(event: MouseEvent): void {
    const target = event.target instanceof Element ? event.target : null;
    const link = target?.closest<HTMLElement>('[data-href]');
    if (link) {
      event.preventDefault();
      this.post({ type: 'openLink', href: link.dataset.href ?? '' });
      return;
    }
    const marker = target?.closest<HTMLElement>('[data-citation-marker]');
    if (marker) {
      event.preventDefault();
      this.openCitation(marker);
      return;
    }
    const action = target?.closest<HTMLElement>('button[data-action]');
    const block = action?.closest('.code-block');
    if (!action || !block) return;
    const code = codeOfBlock(block);
    const language = (block as HTMLElement).dataset.language;
    if (action.dataset.action === 'copy-code') {
      this.post({ type: 'copyCode', code });
      showCopied(action);
    } else if (action.dataset.action === 'insert-code') this.post({ type: 'insertCode', code });
    else if (action.dataset.action === 'new-file-with-code') this.post({ type: 'newFileWithCode', code, ...(language ? { language } : {}) });
  }
}

/** Same id, text and metadata: the element already on screen shows exactly this turn. */
function sameTurn(known: TurnView, incoming: TurnView): boolean {
  if (known.id !== incoming.id || known.content !== incoming.content || (known.reasoning ?? '') !== (incoming.reasoning ?? '')) return false;
  return JSON.stringify({ ...known, content: '', reasoning: '' }) === JSON.stringify({ ...incoming, content: '', reasoning: '' });
}

// Rough figures of transcript.css and markdown.css at the default font size; a turn's real height
// replaces the estimate once it has been on screen, and the scroll position is corrected
// then, so being off only moves the scroll bar's thumb a little.
const LINE_PX = 20;
const CODE_LINE_PX = 18;
const CODE_BLOCK_CHROME_PX = 44;
const PARAGRAPH_GAP_PX = 10;
const AUTHOR_PX = 22;
const TURN_GAP_PX = 14;
const CHAR_PX = 7;

/** A cheap guess at a turn's slot height from its text: one pass over the lines. */
export function estimateTurnHeight(turn: TurnView, width: number): number {
  const charsPerLine = Math.max(16, Math.floor((width - 24) / CHAR_PX));
  let height = AUTHOR_PX + TURN_GAP_PX;
  if (turn.role === 'user') height += 16;
  else if (turn.usage || turn.finishReason) height += LINE_PX;
  if (turn.attachments?.length || turn.citations?.length) height += 28;
  if (turn.reasoning) height += LINE_PX + 8;
  const text = turn.content;
  let inFence = false;
  for (let start = 0; start <= text.length;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const length = end - start;
    if (text.startsWith('```', start) || text.startsWith('~~~', start)) {
      inFence = !inFence;
      if (inFence) height += CODE_BLOCK_CHROME_PX;
    } else if (inFence) height += CODE_LINE_PX;
    else if (length === 0) height += PARAGRAPH_GAP_PX;
    else height += LINE_PX * Math.ceil(length / charsPerLine);
    start = end + 1;
  }
  return height;
}

/** Brief confirmation on the button itself; the host does the actual clipboard write. */
function showCopied(copyButton: HTMLElement): void {
  const label = copyButton.textContent;
  copyButton.textContent = l10n.t({ message: '✓ Copied', comment: ['shown briefly after a copy; keep the tick'] });
  window.setTimeout(() => (copyButton.textContent = label), 1500);
}
