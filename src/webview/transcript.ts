import type { ConversationView, TurnView, WebviewToHost } from '../chat/protocol';
import { el } from './dom';
import { codeOfBlock } from './markdown';
import { AssistantTurnElement, userTurnElement } from './turnView';

type Post = (message: WebviewToHost) => void;

/** Distance from the bottom (px) within which the user still counts as "following". */
const FOLLOW_SLACK = 32;

/** The scrolling list of turns. Streamed text is applied at most once per animation frame. */
export class Transcript {
  readonly element = el('main', { class: 'transcript', 'aria-label': 'Transcript', tabindex: 0 });
  private readonly answers = new Map<string, AssistantTurnElement>();
  private readonly dirty = new Set<AssistantTurnElement>();
  private frameRequested = false;
  private following = true;
  private programmaticScrollTop = -1;
  private readonly emptyNote = el('p', { class: 'empty-note' }, 'Ask a question to start.');
  private readonly turns = el('div', { class: 'turns' });

  constructor(private readonly post: Post, onScroll: (scrollTop: number) => void) {
    this.element.append(this.turns, this.emptyNote);
    // Following is applied after layout, whenever the turns or the viewport change size: no
    // forced layout in the render frame, and an expanded block or a resized panel still
    // ends at the bottom.
    const follow = new ResizeObserver(() => {
      if (this.following) this.scrollToBottom();
    });
    follow.observe(this.turns);
    follow.observe(this.element);
    this.element.addEventListener('click', (event) => this.onClick(event));
    this.element.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && event.target instanceof HTMLElement && event.target.dataset.href) {
        event.preventDefault();
        this.post({ type: 'openLink', href: event.target.dataset.href });
      }
    });
    this.element.addEventListener(
      'scroll',
      () => {
        const top = this.element.scrollTop;
        // Only the reader's own scrolling changes whether we follow; our own scrolls do not.
        if (Math.abs(top - this.programmaticScrollTop) > 1) this.following = this.isAtBottom();
        onScroll(top);
      },
      { passive: true },
    );
  }

  show(conversation: ConversationView): void {
    this.answers.clear();
    this.dirty.clear();
    this.turns.replaceChildren(...conversation.turns.map((turn) => this.createTurn(turn)));
    this.emptyNote.hidden = conversation.turns.length > 0;
    for (const answer of this.answers.values()) answer.render();
    this.following = true;
    this.scrollToBottom();
  }

  appendDelta(turnId: string, content?: string, reasoning?: string): void {
    let answer = this.answers.get(turnId);
    if (!answer) {
      // The host normally sends the new turn in a `conversation` message first; a delta for
      // an unknown turn still gets a place rather than being dropped.
      this.turns.append(this.createTurn({ id: turnId, role: 'assistant', content: '', state: 'streaming', createdAt: Date.now() }));
      this.emptyNote.hidden = true;
      answer = this.answers.get(turnId)!;
    }
    answer.appendDelta(content, reasoning);
    this.markDirty(answer);
  }

  patch(turnId: string, patch: Partial<Omit<TurnView, 'id' | 'role' | 'content'>>): void {
    const answer = this.answers.get(turnId);
    if (!answer) return;
    answer.applyPatch(patch);
    this.markDirty(answer);
  }

  restoreScroll(scrollTop: number): void {
    this.element.scrollTop = scrollTop;
    this.following = this.isAtBottom();
  }

  private createTurn(turn: TurnView): HTMLElement {
    if (turn.role === 'user') return userTurnElement(turn);
    const answer = new AssistantTurnElement(turn, this.post);
    this.answers.set(turn.id, answer);
    return answer.element;
  }

  private markDirty(answer: AssistantTurnElement): void {
    this.dirty.add(answer);
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(() => this.renderFrame());
  }

  private renderFrame(): void {
    this.frameRequested = false;
    for (const answer of this.dirty) answer.render();
    this.dirty.clear();
  }

  private isAtBottom(): boolean {
    const { scrollHeight, scrollTop, clientHeight } = this.element;
    return scrollHeight - scrollTop - clientHeight <= FOLLOW_SLACK;
  }

  private scrollToBottom(): void {
    this.element.scrollTop = this.element.scrollHeight;
    this.programmaticScrollTop = this.element.scrollTop;
  }

  private onClick(event: MouseEvent): void {
    const target = event.target instanceof Element ? event.target : null;
    const link = target?.closest<HTMLElement>('[data-href]');
    if (link) {
      event.preventDefault();
      this.post({ type: 'openLink', href: link.dataset.href ?? '' });
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
    }
    else if (action.dataset.action === 'insert-code') this.post({ type: 'insertCode', code });
    else if (action.dataset.action === 'new-file-with-code') this.post({ type: 'newFileWithCode', code, ...(language ? { language } : {}) });
  }
}

/** Brief confirmation on the button itself; the host does the actual clipboard write. */
function showCopied(copyButton: HTMLElement): void {
  const label = copyButton.textContent;
  copyButton.textContent = '✓ Copied';
  window.setTimeout(() => (copyButton.textContent = label), 1500);
}
