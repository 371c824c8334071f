import { BlockSplitter } from './blockSplitter';
import { el } from './dom';
import { type CitationMarkers, markCitations, renderMarkdown } from './markdown';

/**
 * Finished blocks are grouped so that layout and paint, which visit an element's children
 * each frame, see a few groups plus one open group instead of every block of a long answer.
 */
const BLOCKS_PER_GROUP = 24;

/**
 * The body of one answer. Text arrives in pieces; `render` (called at most once per
 * animation frame) renders each newly finished block once and keeps it as DOM, and
 * re-parses only the open last block, so an answer's cost grows linearly with its length.
 */
export class StreamingMarkdown {
  readonly element = el('div', { class: 'answer-body' });
  private readonly finishedBlocks = el('div', { class: 'finished-blocks' });
  private readonly openBlock = el('div', { class: 'md-block md-open' });
  private readonly splitter = new BlockSplitter();
  private pending = '';
  private finished = false;
  private anyText = false;
  private openRendered = '';
  private group: HTMLElement | undefined;
  private citations: CitationMarkers = new Map();

  constructor() {
    this.element.append(this.finishedBlocks, this.openBlock);
  }

  append(text: string): void {
    if (this.finished) return;
    this.pending += text;
    if (text.trim()) this.anyText = true;
  }

  /** Whether any visible text arrived (an answer that failed before its first word has nothing to copy). */
  get hasText(): boolean {
    return this.anyText;
  }

  get hasPendingWork(): boolean {
    return this.pending.length > 0;
  }

  /** Applies pending text to the DOM. */
  render(): void {
    if (this.finished) return;
    const text = this.pending;
    this.pending = '';
    for (const block of this.splitter.append(text)) this.appendFinished(block);
    const open = this.splitter.openBlock();
    if (open === this.openRendered) return;
    this.openRendered = open;
    this.openBlock.replaceChildren(this.rendered(open, { highlight: !this.splitter.isInsideFence() }));
  }

  /** The answer's sources changed: its [n] markers link to the new ones (new text is marked as it is rendered). */
  setCitations(citations: CitationMarkers): void {
    if (citations.size === 0 && this.citations.size === 0) return;
    this.citations = citations;
    markCitations(this.element, citations);
  }

  /** The stream ended: the open block becomes a finished one. */
  finish(): void {
    if (this.finished) return;
    this.render();
    for (const block of this.splitter.finish()) this.appendFinished(block);
    this.openBlock.replaceChildren();
    this.openBlock.remove();
    this.finished = true;
  }

  private appendFinished(block: string): void {
    const wrapper = el('div', { class: 'md-block' });
    wrapper.append(this.rendered(block));
    if (!this.group || this.group.childElementCount >= BLOCKS_PER_GROUP) {
      this.group = el('div', { class: 'md-group' });
      this.finishedBlocks.append(this.group);
    }
    this.group.append(wrapper);
  }

  private rendered(source: string, options?: { highlight?: boolean }): DocumentFragment {
    const fragment = renderMarkdown(source, options);
    if (this.citations.size) markCitations(fragment, this.citations);
    return fragment;
  }
}
