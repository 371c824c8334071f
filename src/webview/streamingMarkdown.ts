import { BlockSplitter, type FenceOpen, quotePrefix } from './blockSplitter';
import { ChunkedText, cutPoint, el } from './dom';
import { highlightBudget, type HighlightBudget } from './highlightBudget';
import { type CitationMarkers, markCitations, renderMarkdown } from './markdown';

/**
 * Finished blocks are grouped so that layout and paint, which visit an element's children
 * each frame, see a few groups plus one open group instead of every block of a long answer.
 */
const BLOCKS_PER_GROUP = 24;

// The model's text is hostile input, and markdown-it, though linear, takes up to ~2.5 µs a
// character on some shapes (a paragraph of `a [`, long lists and tables): a 1 MB block with
// no blank line cost seconds per parse. So the open block's parses are rationed.

/**
 * The open block is parsed while it streams up to this size (one parse then costs at most
 * ~40 ms at markdown-it's slowest); past it, its new text is added as text, and it is
 * parsed once more when it is finished.
 */
export const LIVE_MARKDOWN_MAX_CHARS = 16_000;
/**
 * The open block is parsed again once it has grown by 1/REPARSE_GROWTH of its length since
 * its last parse (or when the stream pauses): its parses together then cost at most
 * REPARSE_GROWTH times its length, however small the pieces, instead of its length once
 * per frame. A block of normal size at a normal pace is still parsed every frame.
 */
export const REPARSE_GROWTH = 32;
/** A finished block is parsed up to this many characters (about 0.3 s at the slowest); the rest is added as text. */
export const FINISHED_MARKDOWN_MAX_CHARS = 131_072;
/**
 * Code fences opened in the open block past its last parse are drawn as code blocks while
 * they stream, up to this many per block (each adds a toolbar); the others stay text until
 * the block's parse.
 */
const MAX_STREAMED_FENCES = 64;

/**
 * The body of one answer. Text arrives in pieces; `render` (called at most once per
 * animation frame) renders each newly finished block once and keeps it as DOM, and
 * re-parses only the open last block, rationed as above, so an answer's cost grows
 * linearly with its length whatever its shape.
 */
export class StreamingMarkdown {
  readonly element = el('div', { class: 'answer-body' });
  private readonly finishedBlocks = el('div', { class: 'finished-blocks' });
  private readonly openBlock = el('div', { class: 'md-block md-open' });
  private readonly splitter = new BlockSplitter();
  private pending = '';
  private finished = false;
  private anyText = false;
  /** Characters passed to the splitter so far. */
  private streamed = 0;
  /** The open block on screen: where it starts in the stream, how much of it is shown and how much of that was parsed. */
  private openStart = 0;
  private openShown = 0;
  private openParsed = 0;
  /** The splitter's fence count at the last parse (to tell whether new text is inside the same code fence). */
  private openParsedFences = 0;
  /** What is left of the answer's highlighting (HIGHLIGHT_LIMITS), spent by its finished blocks in order. */
  private readonly highlightBudget = highlightBudget();
  /** Code blocks started for fences opened past the last parse (MAX_STREAMED_FENCES). */
  private openFencesStarted = 0;
  /** Where text of the open block beyond its last parse goes: the deepest last block of the parse (a paragraph, a list item, a code block's code). */
  private openTail: ChunkedText | undefined;
  /** The parsed text ended in white space, which the parse dropped (outside code): the added text starts with a space. */
  private openParsedSpace = false;
  /**
   * The code fence `openTail` adds to, while it is open: its number (the splitter's fence
   * count), the spaces its code lines lose when parsed, and how many of them the current
   * line may still lose (its text so far is all spaces).
   */
  private openCode: { fence: number; indent: number; lineIndent: number; quote: number; atLineStart: boolean } | undefined;
  /** Characters of the open block held back from its code: a line that may become the closing fence. */
  private openHeld = 0;
  /** The long unfinished line held as a backtick fence's opening line: read up to `read`, a backtick found (fenceOpeningHeld). */
  private openingLine = { lineStart: -1, read: 0, backtick: false };
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

  /** Text received but not on screen yet: new text, or the open block's end held back until it is parsed. */
  get hasPendingWork(): boolean {
    if (this.finished) return false;
    return this.pending.length > 0 || this.splitter.openBlockStart() !== this.openStart || this.splitter.openBlockLength() !== this.openShown + this.openHeld;
  }

  /**
   * Applies pending text to the DOM. Called with no new text (the stream paused), it parses
   * an open block whose end was held back, so nothing received stays hidden.
   */
  render(): void {
    if (this.finished) return;
    const text = this.pending;
    this.pending = '';
    const textStart = this.streamed;
    this.streamed += text.length;
    for (const block of this.splitter.append(text)) this.appendFinished(block);
    const start = this.splitter.openBlockStart();
    const length = this.splitter.openBlockLength();
    if (start !== this.openStart) {
      this.openStart = start;
      this.openShown = this.openParsed = 0;
      this.openTail = undefined;
      this.openParsedSpace = false;
      this.openCode = undefined;
      this.openFencesStarted = 0;
      this.openBlock.replaceChildren();
    }
    this.openHeld = 0;
    if (length === this.openShown) return;
    const live = length <= LIVE_MARKDOWN_MAX_CHARS;
    if (live && (text === '' || (length - this.openParsed) * REPARSE_GROWTH >= length)) {
      // An unfinished line that may close the open fence is left out of the parse, as it is
      // held back from streamed code: markdown-it would close the fence at "```" of a
      // "```js" still arriving, and the rest of that line, added to the code, lost its marks.
      // So is a carriage return at the end (a CRLF line break cut in two): markdown-it reads a
      // lone "\r" as a line break, and the "\n" after it, added as code, made a second one.
      const closing = this.closingLineHeld(start + length) || (this.splitter.slice(start + length - 1, start + length) === '\r' ? 1 : 0);
      const source = this.splitter.slice(start, start + length - closing);
      // Parsed again next frame: highlighted against a copy of the answer's budget, which only a finished block spends.
      this.openBlock.replaceChildren(this.rendered(source, { highlight: !this.splitter.isInsideFence(), budget: { ...this.highlightBudget } }));
      this.openShown = this.openParsed = length - closing;
      this.openHeld = closing;
      this.openParsedFences = this.splitter.fenceCount;
      const container = lastTextContainer(this.openBlock);
      this.openTail = container && new ChunkedText(container);
      this.openParsedSpace = /\s/.test(source.slice(-1));
      this.openCode = undefined;
      if (this.openTail?.inCode && this.splitter.isInsideFence()) {
        const indent = this.splitter.fenceIndent();
        const lastLine = source.slice(source.lastIndexOf('\n', source.length - 1) + 1);
        const lineIndent = /^ *$/.test(lastLine) ? Math.max(0, indent - lastLine.length) : 0;
        this.openCode = { fence: this.splitter.fenceCount, indent, lineIndent, quote: this.splitter.fenceQuote(), atLineStart: lastLine === '' };
      }
      return;
    }
    // Text inside the code fence that was open at the last parse is shown as it will be
    // parsed: added to the code. Other text of a block of normal size waits for its parse
    // (a list item or table row added as text would show its marks for a moment).
    const sameFence = this.splitter.isInsideFence() && this.splitter.fenceCount === this.openParsedFences && this.openTail?.inCode;
    if (live && !sameFence) return;
    let from = start + this.openShown;
    const end = start + length;
    for (;;) {
      if (this.openCode && this.openTail) {
        // Text of the open fence goes into its code, up to where the fence ended; the text
        // after it goes after the code element (a list item may go on), as text.
        const close = this.splitter.fenceClose(this.openCode.fence);
        // In a block quote, whole lines only: the next line may lack the quote marks and end the code.
        const codeEnd = close?.codeEnd ?? (this.openCode.quote > 0 ? Math.max(from, this.splitter.unfinishedLineStart()) : end - this.heldBack(from, end));
        if (from < codeEnd) this.openTail.append(this.codeText(this.splitter.slice(from, codeEnd)));
        if (!close) {
          this.openShown = Math.max(from, codeEnd) - start;
          this.openHeld = length - this.openShown;
          return;
        }
        from = Math.max(from, codeEnd, close.after);
        const raw = rawTextBlock();
        const code = this.openTail.container.closest('.code-block') ?? this.openTail.container.closest('pre');
        if (code?.parentElement) code.after(raw);
        else this.openBlock.append(raw);
        this.openTail = new ChunkedText(raw);
        this.openCode = undefined;
        this.openParsedSpace = false;
      }
      // A fence opened after the text shown (past the live limit, or after the fence of the
      // last parse) starts a code block of its own, so its code is drawn as code while it streams.
      // (At most MAX_STREAMED_FENCES of them: a hostile stream of fences would add a toolbar each; the others stay text until the parse.)
      const opened = this.splitter.fenceOpen(this.openParsedFences + 1);
      if (!opened) break;
      this.openParsedFences++;
      if (this.openFencesStarted >= MAX_STREAMED_FENCES) continue;
      this.openFencesStarted++;
      if (from < opened.lineStart) this.appendText(from, opened.lineStart, start, text, textStart);
      this.startCode(opened, from > opened.lineStart);
      from = Math.max(from, opened.codeStart);
    }
    // An unfinished line that may become a fence's opening line is held back, as the closing one is from the code.
    const held = this.openTail?.inCode ? 0 : this.fenceOpeningHeld(from, end);
    if (from < end - held) this.appendText(from, end - held, start, text, textStart);
    this.openShown = Math.max(from, end - held) - start;
    this.openHeld = length - this.openShown;
  }

  /** Adds the open block's text [from, to) as text, where the last parse ended (`text` is this render's new text, from `textStart`). */
  private appendText(from: number, to: number, start: number, text: string, textStart: number): void {
    let fresh = from >= textStart ? text.slice(from - textStart, to - textStart) : this.splitter.slice(from, to);
    if (from === start + this.openParsed && this.openParsedSpace && !this.openTail?.inCode) fresh = ` ${fresh}`;
    this.openTail ??= new ChunkedText(this.openBlock.appendChild(rawTextBlock()));
    this.openTail.append(fresh);
  }

  /**
   * Starts the code block of a fence opened past the last parse: its opening line rendered
   * alone (an empty code block of its language, as its parse starts), after the text shown
   * (in the list item it is in; at the top of the open block for a fence in no item).
   */
  private startCode(opened: FenceOpen, lineShown: boolean): void {
    this.openCode = { fence: this.openParsedFences, indent: opened.indent, lineIndent: opened.indent, quote: opened.quote, atLineStart: true };
    // The parse ended inside its opening line: it drew the (empty) code block already.
    if (lineShown && this.openTail?.inCode) return;
    const block = renderMarkdown(`${opened.opening}\n`, { highlight: false });
    const code = block.querySelector('pre code') ?? block.querySelector('pre');
    if (!code) return;
    const container = this.openTail?.container;
    let item: Element | null | undefined = opened.item > 0 ? container?.closest('li') : opened.quote > 0 ? container?.closest('blockquote') : null;
    // A fence in an outer list item goes into that item, not into the innermost one the text
    // shown ends in: the item at its depth among the parse's list items (when the parse has as
    // many; outside quotes, whose items the splitter counts apart).
    const outer = item && opened.quote === 0 && opened.item > 0 ? outerItem(item, opened.item, this.openBlock) : undefined;
    if (outer) item = outer;
    const inline = container?.closest('.code-block') ?? container?.closest('pre') ?? container?.closest('p, h1, h2, h3, h4, h5, h6');
    if (item && (outer || !inline || !item.contains(inline))) item.append(block);
    else if (item && inline) inline.after(block);
    else this.openBlock.append(block);
    this.openTail = new ChunkedText(code);
  }

  /**
   * How many characters at the end of [from, end) to hold back from the text: an unfinished
   * last line that may become a fence's opening line, so its marks are never drawn as text.
   * Its first 256 characters are read; a longer line is held once its info string began, and,
   * for a backtick fence, while that has no backtick: only what arrived since the last render
   * is read for one, so a hostile long line costs each character once.
   */
  private fenceOpeningHeld(from: number, end: number): number {
    const lineStart = this.splitter.unfinishedLineStart();
    if (lineStart < from) return 0;
    const length = end - lineStart;
    const opening = fenceOpening(this.splitter.slice(lineStart, lineStart + Math.min(length, 256)));
    if (opening === undefined) return 0;
    if (length <= 256) return length;
    // (A long line of spaces or quote marks is not held.)
    if (opening === '') return 0;
    if (opening === '`') {
      const seen = this.openingLine.lineStart === lineStart;
      if (seen && this.openingLine.backtick) return 0;
      const backtick = this.splitter.slice(seen ? this.openingLine.read : lineStart + 256, end).includes('`');
      this.openingLine = { lineStart, read: end, backtick };
      if (backtick) return 0;
    }
    return length;
  }

  /**
   * How many characters at the end of [from, end) to hold back from the code: an unfinished
   * last line of spaces and fence marks may be the closing fence (looked for in the last 256
   * characters only, so a hostile long line costs nothing per frame). A line that ends the
   * fence's list item ends it as soon as its indentation is known (blockSplitter.ts).
   */
  private heldBack(from: number, end: number): number {
    const match = /\n([ `~\r]+)$/.exec(this.splitter.slice(Math.max(this.openStart, end - 257), end));
    return match ? Math.min(match[1].length, end - from) : 0;
  }

  /**
   * The length of the unfinished last line, if the open block is inside a fence and that
   * line is spaces, quote marks and fence marks only (at most 256 characters): it may be the
   * fence's closing line.
   */
  private closingLineHeld(end: number): number {
    if (!this.splitter.isInsideFence()) return 0;
    const lineStart = this.splitter.unfinishedLineStart();
    if (end - lineStart > 256) return 0;
    const line = this.splitter.slice(lineStart, end);
    for (const char of line) if (char !== ' ' && char !== '\t' && char !== '>' && char !== '`' && char !== '~' && char !== '\r') return 0;
    return line.length;
  }

  /** Code text as its parse shows it: each line loses its quote marks, and up to the fence's indentation in leading spaces. */
  private codeText(text: string): string {
    const code = this.openCode;
    if (code && code.quote > 0) {
      // Whole lines (see render), but for the rest of the line the last parse ended in.
      const lines = text.split('\n');
      for (let i = code.atLineStart ? 0 : 1; i < lines.length; i++) {
        const prefix = quotePrefix(lines[i], code.quote);
        let at = Math.max(0, prefix);
        const indentEnd = at + code.indent;
        while (at < indentEnd && lines[i][at] === ' ') at++;
        if (at > 0) lines[i] = lines[i].slice(at);
      }
      code.atLineStart = text.endsWith('\n');
      return lines.join('\n');
    }
    if (!code || code.indent === 0) return text;
    let out = text;
    if (code.lineIndent > 0) {
      const spaces = /^ */.exec(out)?.[0].length ?? 0;
      const strip = Math.min(spaces, code.lineIndent);
      out = out.slice(strip);
      code.lineIndent = spaces === text.length ? code.lineIndent - strip : 0;
    }
    const lastBreak = out.lastIndexOf('\n');
    if (lastBreak === -1) return out;
    const lastLine = out.slice(lastBreak + 1);
    const leading = /^ */.exec(lastLine)?.[0].length ?? 0;
    code.lineIndent = leading === lastLine.length ? code.indent - Math.min(leading, code.indent) : 0;
    return stripLineIndents(out, code.indent);
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
    // Straight to finished blocks: drawing the open block first would parse it twice.
    for (const block of [...this.splitter.append(this.pending), ...this.splitter.finish()]) this.appendFinished(block);
    this.pending = '';
    this.openBlock.replaceChildren();
    this.openBlock.remove();
    this.finished = true;
  }

  private appendFinished(block: string): void {
    const wrapper = el('div', { class: 'md-block' });
    if (block.length <= FINISHED_MARKDOWN_MAX_CHARS) wrapper.append(this.rendered(block));
    else appendGiantBlock(wrapper, block, (source) => this.rendered(source));
    if (!this.group || this.group.childElementCount >= BLOCKS_PER_GROUP) {
      this.group = el('div', { class: 'md-group' });
      this.finishedBlocks.append(this.group);
    }
    this.group.append(wrapper);
  }

  private rendered(source: string, options: { highlight?: boolean; budget?: HighlightBudget } = {}): DocumentFragment {
    const fragment = renderMarkdown(source, { budget: this.highlightBudget, ...options });
    if (this.citations.size) markCitations(fragment, this.citations);
    return fragment;
  }
}

/**
 * A block too long to parse whole: its first FINISHED_MARKDOWN_MAX_CHARS (to a line's end
 * when there is one) are parsed, the rest is added as text where the parse ended, so a huge
 * code block stays one code block (without its closing fence line).
 */
function appendGiantBlock(wrapper: HTMLElement, block: string, render: (source: string) => DocumentFragment): void {
  let cut = block.lastIndexOf('\n', FINISHED_MARKDOWN_MAX_CHARS - 1) + 1;
  if (cut === 0) {
    // No line break: cut before white space (a parse drops it at a paragraph's end), never
    // between the two halves of a surrogate pair.
    cut = cutPoint(block, FINISHED_MARKDOWN_MAX_CHARS);
    while (cut > 0 && /\s/.test(block[cut - 1])) cut--;
  }
  wrapper.append(render(block.slice(0, cut)));
  const tail = new ChunkedText(lastTextContainer(wrapper) ?? wrapper.appendChild(rawTextBlock()));
  let rest = block.slice(cut);
  if (tail.inCode) {
    const end = rest.trimEnd();
    const lastLine = end.slice(end.lastIndexOf('\n') + 1);
    if (/^ {0,3}(?:`{3,}|~{3,})$/.test(lastLine)) rest = end.slice(0, end.length - lastLine.length);
  } else if (block[cut - 1] === '\n') rest = `\n${rest}`;
  tail.append(rest);
}

/**
 * Elements that hold a block's text, so more text can be added at their end; inline ones (a
 * link, an inline code span) are not entered: text added to a paragraph's `code` went in
 * before the text after it, and as code.
 */
const TEXT_CONTAINERS = 'p, li, ul, ol, blockquote, h1, h2, h3, h4, h5, h6, .code-block, pre, pre > code, .table-scroll, table, thead, tbody, tr, th, td';

function lastTextContainer(root: Element): Element | undefined {
  let container: Element | undefined;
  for (let child = root.lastElementChild; child?.matches(TEXT_CONTAINERS) && isLastContent(child); child = child.lastElementChild) container = child;
  return container;
}

/** Whether nothing but white space follows `element` in its parent (markdown-it writes a line break after each block). */
function isLastContent(element: Element): boolean {
  for (let next = element.nextSibling; next; next = next.nextSibling) if (next.nodeType !== 3 || next.textContent?.trim()) return false;
  return true;
}

/**
 * The list item at `depth` (1: the outermost) among `innermost` and the items around it in
 * `root`, if it is not `innermost` itself and no block quote is between them; else undefined.
 */
function outerItem(innermost: Element, depth: number, root: Element): Element | undefined {
  const items: Element[] = [];
  for (let item: Element | null | undefined = innermost; item && root.contains(item); item = item.parentElement?.closest('li, blockquote')) {
    if (item.matches('blockquote')) return undefined;
    items.push(item);
  }
  return depth < items.length ? items[items.length - depth] : undefined;
}

/** Text of a block shown as written, line breaks kept, until it is parsed. */
function rawTextBlock(): HTMLElement {
  return el('p', { class: 'md-raw' });
}

/**
 * Whether an unfinished line may still become a code fence's opening line: indentation and
 * quote marks, a list item's marker, then nothing yet, or fewer than three marks (''), or a
 * fence's marks and an info string with no backtick after backticks (the mark); else undefined.
 */
function fenceOpening(line: string): string | undefined {
  let at = 0;
  while (line[at] === ' ' || line[at] === '\t' || line[at] === '>') at++;
  const marker = /^(?:[-+*]|\d{1,9}[.)]?)(?= |$)/.exec(line.slice(at));
  if (marker) {
    at += marker[0].length;
    while (line[at] === ' ') at++;
  }
  const mark = line[at];
  if (mark === undefined) return '';
  if (mark !== '`' && mark !== '~') return undefined;
  let marks = at;
  while (line[marks] === mark) marks++;
  if (marks === line.length) return '';
  return marks - at >= 3 && (mark === '~' || !line.includes('`', marks)) ? mark : undefined;
}

/** Every line after the first loses up to `indent` leading spaces (a loop: a pattern built from a count would be one more regex to hold to linear time). */
function stripLineIndents(text: string, indent: number): string {
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    let spaces = 0;
    while (spaces < indent && line.charCodeAt(spaces) === 32) spaces++;
    if (spaces) lines[i] = line.slice(spaces);
  }
  return lines.join('\n');
}
