// Splits a growing markdown source into finished top-level blocks and the open last one,
// so a streaming answer renders each finished block once and re-parses only the tail.
// Hand-written because markdown-it has no incremental mode; the rule is deliberately
// conservative: a block ends at a blank line (outside a fenced code block) that is
// followed by a line starting in column 0, and at the closing line of a fence opened in
// column 0 (such a fence is in no list item or quote, so nothing after it can continue it;
// models often write text right below a closing fence). Indented lines after a blank line
// may belong to a list item or indented code, so they stay in the open block. Cost: each
// character is scanned once, and finished text is dropped.
//
// A fence in a list item is indented to the item's content (CommonMark 5.2): the splitter
// keeps the content columns of the list items of the open block, so such a fence is known to
// be open and where it closes (its closing line is indented at most 3 spaces past the item's
// content; a line indented less than the fence's own indentation minus 3 ends the item, and
// the fence with it). The streaming render uses that to draw text below a closed fence
// outside its code (streamingMarkdown.ts). The item columns are a heuristic (a lazy
// continuation line can look like an item), so they never decide a cut on their own.
//
// A fence in a block quote (`> ````) is followed too, for the render alone: its code lines
// start with its quote marks, and any line without them (a blank one too) ends the quote and
// the fence; list items in quoted lines are followed as outside quotes. It never changes a cut: a blank line ends every quote, and a fence line at the
// margin is in none.

// The info string runs to the line's end or a carriage return (CRLF text). No `$`: with one,
// a line of backticks ending in '\r' failed after trying every fence length (quadratic).
const FENCE_OPEN = /^( *)(`{3,}|~{3,})(.*)/;
const FENCE_CLOSE = /^( *)(`{3,}|~{3,})\s*$/;
/** List items the splitter follows inside one another (markdown-it's default maxNesting). */
const MAX_ITEM_DEPTH = 100;
/** A list item's marker and the spaces after it (at most 5 are read: more mean indented code in the item). */
const LIST_ITEM = /^( *)([-+*]|\d{1,9}[.)])( {1,5}|$)/;

/**
 * Text kept as the pieces it arrived in, so that appending never copies what is already
 * there: with one string, `+=` and then a search or a slice flattened the whole open block,
 * a copy of it at every frame. Pieces are joined only for what is read (a line once it
 * ends, a block once it is finished or parsed); positions count from the first character
 * not dropped.
 */
class PieceText {
  private parts: string[] = [];
  /** Where each part starts, counted from the first character ever appended. */
  private starts: number[] = [];
  /** The first part not dropped (parts before it are cleared in bulk, not shifted out one by one). */
  private first = 0;
  /** Characters dropped from the start. */
  private origin = 0;
  private end = 0;

  get length(): number {
    return this.end - this.origin;
  }

  append(text: string): void {
    if (!text) return;
    this.parts.push(text);
    this.starts.push(this.end);
    this.end += text.length;
  }

  charAt(index: number): string | undefined {
    const at = this.origin + index;
    if (index < 0 || at >= this.end) return undefined;
    const part = this.partAt(at);
    return this.parts[part][at - this.starts[part]];
  }

  /** The position of the first `char` at or after `from`, or -1. */
  indexOf(char: string, from: number): number {
    const at = this.origin + Math.max(0, from);
    if (at >= this.end) return -1;
    for (let part = this.partAt(at); part < this.parts.length; part++) {
      const found = this.parts[part].indexOf(char, Math.max(0, at - this.starts[part]));
      if (found !== -1) return this.starts[part] + found - this.origin;
    }
    return -1;
  }

  slice(from: number, to: number): string {
    const start = this.origin + Math.max(0, from);
    const end = Math.min(this.end, this.origin + to);
    if (start >= end) return '';
    let part = this.partAt(start);
    const last = this.partAt(end - 1);
    if (part === last) return this.parts[part].slice(start - this.starts[part], end - this.starts[part]);
    const out = [this.parts[part].slice(start - this.starts[part])];
    for (part++; part < last; part++) out.push(this.parts[part]);
    out.push(this.parts[last].slice(0, end - this.starts[last]));
    return out.join('');
  }

  /** Drops the first `count` characters. */
  drop(count: number): void {
    const at = Math.min(this.end, this.origin + count);
    while (this.first < this.parts.length && this.starts[this.first] + this.parts[this.first].length <= at) this.first++;
    if (this.first < this.parts.length && this.starts[this.first] < at) {
      this.parts[this.first] = this.parts[this.first].slice(at - this.starts[this.first]);
      this.starts[this.first] = at;
    }
    this.origin = at;
    // Compacted once half the parts are dropped: each part is moved a bounded number of times.
    if (this.first > 32 && this.first * 2 > this.parts.length) {
      this.parts = this.parts.slice(this.first);
      this.starts = this.starts.slice(this.first);
      this.first = 0;
    }
  }

  /** The part holding position `at` (counted from the first character ever appended; origin <= at < end). */
  private partAt(at: number): number {
    let low = this.first;
    let high = this.parts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle] <= at) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

/** Where a code fence of the stream ended, as offsets in the whole stream. */
export interface FenceClose {
  /** The end of its code: the start of its closing line, or of the line that ended its list item. */
  codeEnd: number;
  /** Where the text after it starts. */
  after: number;
}

/** Where a code fence of the stream opened, as offsets in the whole stream. */
export interface FenceOpen {
  /** The start of its opening line. */
  lineStart: number;
  /** Where its code starts: after its opening line. */
  codeStart: number;
  /** Its marks (three of them) and the start of its info string (at most 256 characters): rendered, an empty code block of its language. */
  opening: string;
  /** The spaces before its marks, which its code lines lose (up to as many) when parsed. */
  indent: number;
  /** The list item it is in, as its depth among the list items open around it (1: the outermost; 0: none, it is a block of its own at the open block's top level, or in a quote). */
  item: number;
  /** The block quotes it is in: each of its code lines starts with as many quote marks, which its parse strips. */
  quote: number;
}

export class BlockSplitter {
  /** The open block plus any unscanned text; finished blocks are dropped from it. */
  private readonly source = new PieceText();
  /** Start of the first line not yet scanned (always at a line start). */
  private scanned = 0;
  /** Start of the open block within `source`, until the next trim. */
  private openStart = 0;
  /** Where `source` starts in the whole stream (text before it was finished and dropped). */
  private dropped = 0;
  /** `source` has no line break between `scanned` and this: a long unfinished line is searched once, not once per append. */
  private searched = 0;
  /**
   * The fence the open block is inside; `atMargin`: it opened in column 0; `indent`: the
   * spaces before it (after its quote marks); `container`: the content column of the list item
   * it is in (0: none); `quote`: the block quotes it is in (their `>` marks start each of its lines).
   */
  private fence: { char: string; length: number; atMargin: boolean; indent: number; container: number; quote: number } | null = null;
  private fencesOpened = 0;
  /**
   * A fence indented 1 to 3 spaces that the item columns ended (endItemFence): if the item was
   * not one (a lazy line that looks like an item), it is still open at the top level, so the
   * open block is not cut until a line that would close it there.
   */
  private uncertainFence: { char: string; length: number } | null = null;
  /** The list items of the open block's last quoted lines, counted from their `levels` quote marks (a heuristic, as `items`). */
  private quoteItems: { levels: number; items: number[]; blank: boolean } = { levels: 0, items: [], blank: false };
  /** The content columns of the open block's list items, outermost first (a heuristic, see above). */
  private items: number[] = [];
  /** Where the fences opened in the open block ended: fence number `closesBase + 1 + i` at `closes[i]`. */
  private closes: FenceClose[] = [];
  /** Where the fences opened in the open block opened, numbered as `closes`. */
  private opens: FenceOpen[] = [];
  private closesBase = 0;
  private sawBlankLine = false;
  /** The unfinished line's leading white space read so far (unfinishedLineEndsFence). */
  private head = { lineStart: -1, read: 0, column: 0 };

  /** Appends text; returns the blocks it finished, in order. */
  append(text: string): string[] {
    this.source.append(text);
    const finished: string[] = [];
    let lineEnd: number;
    while ((lineEnd = this.source.indexOf('\n', Math.max(this.scanned, this.searched))) !== -1) {
      const lineStart = this.scanned;
      this.scanLine(this.source.slice(lineStart, lineEnd), lineStart, finished);
      this.scanned = lineEnd + 1;
    }
    this.searched = this.source.length;
    // The first character of a line after a blank line is enough to know a block ended;
    // waiting for the line's end would hold a finished block back for a whole line.
    const next = this.source.charAt(this.scanned);
    // The unfinished line's indentation is known once it has other text: if it ends a fence
    // indented 4 or more (see scanLine), the code ends now, not at the line's end.
    const fence = this.fence;
    if (fence && fence.quote === 0 && (fence.indent >= 4 || fence.container > 0) && this.unfinishedLineEndsFence(Math.max(fence.indent - 3, fence.container))) {
      this.endItemFence(fence, this.scanned, this.head.column);
    }
    // (A fence indented 4 or more ends there too: its list item ends, see scanLine.)
    if (this.sawBlankLine && !this.uncertainFence && (!this.fence || this.fence.indent >= 4) && next !== undefined && !/\s/.test(next)) {
      this.fence = null;
      this.cut(this.scanned, finished);
      this.sawBlankLine = false;
    }
    if (this.openStart > 0) {
      // Keeping only the open block keeps every later scan and slice proportional to it,
      // not to the whole answer.
      this.source.drop(this.openStart);
      this.scanned -= this.openStart;
      this.searched -= this.openStart;
      this.dropped += this.openStart;
      this.openStart = 0;
    }
    return finished;
  }

  /** The text of the block still being written. */
  openBlock(): string {
    return this.source.slice(this.openStart, this.source.length);
  }

  /** Where the open block starts in the whole stream: it changes when a block is finished. */
  openBlockStart(): number {
    return this.dropped + this.openStart;
  }

  /** The open block's length, without copying it. */
  openBlockLength(): number {
    return this.source.length - this.openStart;
  }

  /**
   * Whether the unfinished line has text before column `limit`. Reads only what arrived since
   * the last call (its leading white space so far is remembered): a hostile line of spaces
   * under a deeply indented fence costs each character once, not once per append.
   */
  private unfinishedLineEndsFence(limit: number): boolean {
    const lineStart = this.dropped + this.scanned;
    if (this.head.lineStart !== lineStart) this.head = { lineStart, read: 0, column: 0 };
    let at = this.scanned + this.head.read;
    let column = this.head.column;
    while (at < this.source.length && column < limit) {
      const char = this.source.charAt(at);
      if (char === ' ') column++;
      else if (char === '\t') column += 4 - (column % 4);
      else break;
      at++;
    }
    this.head.read = at - this.scanned;
    this.head.column = column;
    // Other white space (a carriage return, a no-break space) leaves it to the line's end, where scanLine decides as for a line that came whole.
    return at < this.source.length && column < limit && !/\s/.test(this.source.charAt(at) ?? '');
  }

  /** Text of the open block between two offsets in the whole stream. */
  slice(from: number, to: number): string {
    return this.source.slice(from - this.dropped, to - this.dropped);
  }

  /** Ends the stream: the open block, if any, is finished too. */
  finish(): string[] {
    const rest = this.source.slice(this.openStart, this.source.length);
    this.dropped += this.source.length;
    this.source.drop(this.source.length);
    this.openStart = 0;
    this.scanned = 0;
    this.searched = 0;
    return isBlank(rest) ? [] : [rest];
  }

  isInsideFence(): boolean {
    return this.fence !== null;
  }

  /** The block quotes the open fence is in (0: none). */
  fenceQuote(): number {
    return this.fence?.quote ?? 0;
  }

  /** Where the unfinished last line starts in the whole stream. */
  unfinishedLineStart(): number {
    return this.dropped + this.scanned;
  }

  /** The spaces before the open fence's marks, which its code lines lose (up to as many) when parsed. */
  fenceIndent(): number {
    return this.fence?.indent ?? 0;
  }

  /** Where fence number `fence` (see fenceCount) of the open block ended, if it did. */
  fenceClose(fence: number): FenceClose | undefined {
    return fence > this.closesBase ? this.closes[fence - this.closesBase - 1] : undefined;
  }

  /** Where fence number `fence` (see fenceCount) of the open block opened, if it did. */
  fenceOpen(fence: number): FenceOpen | undefined {
    return fence > this.closesBase ? this.opens[fence - this.closesBase - 1] : undefined;
  }

  /** How many code fences were opened so far: the same count and still inside one means the same fence. */
  get fenceCount(): number {
    return this.fencesOpened;
  }

  private cut(at: number, finished: string[]): void {
    const block = this.source.slice(this.openStart, at);
    if (!isBlank(block)) finished.push(block);
    this.openStart = at;
    this.items = [];
    this.quoteItems = { levels: 0, items: [], blank: false };
    this.closes = [];
    this.opens = [];
    this.closesBase = this.fencesOpened;
  }

  /** Reads a line inside the open fence; false: the line ended the fence (and its item or quote) and is read as a line outside it. */
  private scanFenceLine(line: string, lineStart: number, finished: string[]): boolean {
    const fence = this.fence!;
    let body = line;
    if (fence.quote > 0) {
      // A fence in a block quote takes only lines with its quote marks (no lazy lines in code):
      // any other line, a blank one too, ends the quote and its fence.
      const prefix = quotePrefix(line, fence.quote);
      if (prefix === -1) {
        this.fence = null;
        this.closes.push({ codeEnd: this.dropped + lineStart, after: this.dropped + lineStart });
        return false;
      }
      body = line.slice(prefix);
    }
    const close = FENCE_CLOSE.exec(body);
    if (close && close[2][0] === fence.char && close[2].length >= fence.length && close[1].length <= fence.container + 3) {
      this.fence = null;
      const at = this.dropped + lineStart;
      this.closes.push({ codeEnd: at, after: at + line.length + 1 });
      // Finished now: the code is drawn as a finished block, and text written right below
      // the fence starts a block of its own instead of waiting in the code's.
      if (fence.atMargin && !this.uncertainFence) this.cut(lineStart + line.length + 1, finished);
      this.sawBlankLine = false;
      return true;
    }
    // A fence indented 4 or more is in a list item whose content starts at most 3 columns
    // before it; a line indented less than that ends the item and its fence (no lazy lines
    // in code). Whether the line before it was blank decides a cut there, as outside a fence.
    // (In a block quote, the same from its quote marks.)
    const blank = isBlank(body);
    const indent = blank ? 0 : indentOf(body);
    if (blank || (indent >= fence.indent - 3 && indent >= fence.container)) {
      this.sawBlankLine = blank;
      return true;
    }
    this.endItemFence(fence, lineStart, indent);
    return false;
  }

  /**
   * Ends a fence in a list item at a line (starting at `lineStart`, its text at column
   * `indent`) indented less than the item's content: no lazy lines in code. Below the fence's
   * own indentation minus 3 that is certain; between that and the item's content column it
   * rests on the item columns (a heuristic), so a fence that may be at the top level (indented
   * 3 or less) is kept as `uncertainFence`: no cut until a line that would close it there.
   */
  private endItemFence(fence: NonNullable<BlockSplitter['fence']>, lineStart: number, indent: number): void {
    this.fence = null;
    this.closes.push({ codeEnd: this.dropped + lineStart, after: this.dropped + lineStart });
    // (A fence in a quote never decides a cut: a blank line ends every quote.)
    if (indent >= fence.indent - 3 && fence.indent <= 3 && fence.quote === 0) this.uncertainFence = { char: fence.char, length: fence.length };
  }

  private scanLine(line: string, lineStart: number, finished: string[]): void {
    const uncertain = this.uncertainFence;
    if (uncertain) {
      const close = FENCE_CLOSE.exec(line);
      if (close && close[2][0] === uncertain.char && close[2].length >= uncertain.length && close[1].length <= 3) this.uncertainFence = null;
    }
    if (this.fence && this.scanFenceLine(line, lineStart, finished)) return;
    if (isBlank(line)) {
      this.sawBlankLine = true;
      return;
    }
    const indent = indentOf(line);
    if (this.sawBlankLine && !/^[ \t]/.test(line) && !this.uncertainFence) this.cut(lineStart, finished);
    // After a blank line, a line indented less than an item's content ends that item.
    if (this.sawBlankLine) closeItems(this.items, indent);
    this.sawBlankLine = false;
    // A fence in a block quote (`> ````): its code lines keep the quote marks, which the render
    // strips. The list items of quoted lines are followed as outside quotes, counted from the
    // quote marks, while the lines keep as many of them.
    const quote = quoteDepth(line);
    const quoted = this.quoteItems;
    if (quote.levels > 0) {
      const body = line.slice(quote.prefix);
      if (quoted.levels !== quote.levels) this.quoteItems = { levels: quote.levels, items: [], blank: false };
      if (isBlank(body)) {
        this.quoteItems.blank = true;
        return;
      }
      if (this.quoteItems.blank) closeItems(this.quoteItems.items, indentOf(body));
      this.quoteItems.blank = false;
      this.itemLine(body, quote.prefix, lineStart, this.quoteItems.items, quote.levels);
      return;
    }
    if (quoted.levels > 0) this.quoteItems = { levels: 0, items: [], blank: false };
    this.itemLine(line, 0, lineStart, this.items, 0);
  }

  /** Reads a line (`text`, from character `offset` of the line, after `quote` quote marks) for a fence or a list item of `items`. */
  private itemLine(text: string, offset: number, lineStart: number, items: number[], quote: number): void {
    if (this.openFence(text, offset, 0, lineStart, items, quote)) return;
    const item = LIST_ITEM.exec(text);
    if (!item) return;
    const markerEnd = item[1].length + item[2].length;
    const content = item[3].length === 0 || item[3].length === 5 ? markerEnd + 1 : markerEnd + item[3].length;
    closeItems(items, item[1].length);
    // markdown-it nests blocks 100 deep at most (its default maxNesting); deeper item lines are
    // text to it, and a bounded list keeps each fence line's search for its item bounded.
    if (items.length >= MAX_ITEM_DEPTH) return;
    items.push(content);
    // A fence may start on the item's own line (`- ```bash`).
    if (item[3].length > 0 && item[3].length < 5) this.openFence(text.slice(content), offset + content, content, lineStart, items, quote);
  }

  /**
   * Opens a fence if `text` (from character `offset` of the line at `lineStart` in `source`,
   * at column `column` after its `quote` quote marks) is one, in a list item of `items`.
   */
  private openFence(text: string, offset: number, column: number, lineStart: number, items: number[], quote: number): boolean {
    const open = FENCE_OPEN.exec(text);
    // A backtick fence's info string may not contain backticks (CommonMark 4.5).
    if (!open || (open[2][0] === '`' && open[3].includes('`'))) return false;
    // In a block quote, its indentation counts from the quote marks.
    const indent = column + open[1].length;
    // Its container: the innermost list item whose content it is indented at most 3 past; indented 4 or more past all of them it is code.
    let container = 0;
    let depth = 0;
    for (let i = items.length - 1; i >= 0; i--) {
      if (items[i] <= indent && indent <= items[i] + 3) {
        container = items[i];
        depth = i + 1;
        break;
      }
    }
    if (container === 0 && indent > 3) return false;
    this.fence = { char: open[2][0], length: open[2].length, atMargin: indent === 0 && quote === 0, indent, container, quote };
    this.fencesOpened++;
    // A list item's marker and indentation are spaces (LIST_ITEM): one character a column.
    const at = this.dropped + lineStart;
    this.opens.push({ lineStart: at, codeStart: at + offset + text.length + 1, opening: open[2].slice(0, 3) + open[3].slice(0, 256), indent, item: depth, quote });
    return true;
  }
}

/** Ends the list items (content columns, outermost first) that a line indented `indent` is not in. */
function closeItems(items: number[], indent: number): void {
  while (items.length > 0 && items[items.length - 1] > indent) items.pop();
}

/** Where `levels` block quote marks at `from` in `line` end (each: up to 3 spaces, `>` and a space), or -1 if it has fewer. */
export function quotePrefix(line: string, levels: number, from = 0): number {
  let at = from;
  for (let level = 0; level < levels; level++) {
    const start = at;
    while (at - start < 3 && line[at] === ' ') at++;
    if (line[at] !== '>') return -1;
    at++;
    if (line[at] === ' ') at++;
  }
  return at;
}

/** How many block quote marks start `line`, and the characters they take (at most 100 levels, markdown-it's nesting limit). */
function quoteDepth(line: string): { levels: number; prefix: number } {
  let levels = 0;
  let prefix = 0;
  while (levels < MAX_ITEM_DEPTH) {
    const next = quotePrefix(line, 1, prefix);
    if (next === -1) break;
    prefix = next;
    levels++;
  }
  return { levels, prefix };
}

/** A line's indentation in columns (a tab goes to the next multiple of 4). */
/**
 * A blank line as markdown-it reads one: spaces and tabs only (a carriage return before the
 * line break aside). Not `trim()`: a line of no-break spaces is text to markdown-it, and
 * taking it for blank cut a paragraph in two that the whole answer renders as one.
 */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return false;
  }
  return true;
}

function indentOf(line: string): number {
  let column = 0;
  for (const char of line) {
    if (char === ' ') column++;
    else if (char === '\t') column += 4 - (column % 4);
    else break;
  }
  return column;
}
