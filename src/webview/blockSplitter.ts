// Splits a growing markdown source into finished top-level blocks and the open last one,
// so a streaming answer renders each finished block once and re-parses only the tail.
// Hand-written because markdown-it has no incremental mode; the rule is deliberately
// conservative: a block ends at a blank line (outside a fenced code block) that is
// followed by a line starting in column 0, and at the closing line of a fence opened in
// column 0 (such a fence is in no list item or quote, so nothing after it can continue it;
// models often write text right below a closing fence). Indented lines after a blank line
// may belong to a list item or indented code, so they stay in the open block. Cost: each
// character is scanned once, and finished text is dropped.

// The info string runs to the line's end or a carriage return (CRLF text). No `$`: with one,
// a line of backticks ending in '\r' failed after trying every fence length (quadratic).
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)/;

export class BlockSplitter {
  /** The open block plus any unscanned text; finished blocks are dropped from it. */
  private source = '';
  /** Start of the first line not yet scanned (always at a line start). */
  private scanned = 0;
  /** Start of the open block within `source`, until the next trim. */
  private openStart = 0;
  /** Where `source` starts in the whole stream (text before it was finished and dropped). */
  private dropped = 0;
  /** `source` has no line break between `scanned` and this: a long unfinished line is searched once, not once per append. */
  private searched = 0;
  /** The fence the open block is inside; `atMargin`: it opened in column 0. */
  private fence: { char: string; length: number; atMargin: boolean } | null = null;
  private fencesOpened = 0;
  private sawBlankLine = false;

  /** Appends text; returns the blocks it finished, in order. */
  append(text: string): string[] {
    this.source += text;
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
    const next = this.source[this.scanned];
    if (this.sawBlankLine && !this.fence && next !== undefined && !/\s/.test(next)) {
      this.cut(this.scanned, finished);
      this.sawBlankLine = false;
    }
    if (this.openStart > 0) {
      // Keeping only the open block keeps every later scan and slice proportional to it,
      // not to the whole answer.
      this.source = this.source.slice(this.openStart);
      this.scanned -= this.openStart;
      this.searched -= this.openStart;
      this.dropped += this.openStart;
      this.openStart = 0;
    }
    return finished;
  }

  /** The text of the block still being written. */
  openBlock(): string {
    return this.source.slice(this.openStart);
  }

  /** Where the open block starts in the whole stream: it changes when a block is finished. */
  openBlockStart(): number {
    return this.dropped + this.openStart;
  }

  /** The open block's length, without copying it. */
  openBlockLength(): number {
    return this.source.length - this.openStart;
  }

  /** Ends the stream: the open block, if any, is finished too. */
  finish(): string[] {
    const rest = this.source.slice(this.openStart);
    this.dropped += this.source.length;
    this.source = '';
    this.openStart = 0;
    this.scanned = 0;
    this.searched = 0;
    return rest.trim() ? [rest] : [];
  }

  isInsideFence(): boolean {
    return this.fence !== null;
  }

  /** How many code fences were opened so far: the same count and still inside one means the same fence. */
  get fenceCount(): number {
    return this.fencesOpened;
  }

  private cut(at: number, finished: string[]): void {
    const block = this.source.slice(this.openStart, at);
    if (block.trim()) finished.push(block);
    this.openStart = at;
  }

  private scanLine(line: string, lineStart: number, finished: string[]): void {
    if (this.fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === this.fence.char && close[1].length >= this.fence.length) {
        const atMargin = this.fence.atMargin;
        this.fence = null;
        // Finished now: the code is drawn as a finished block, and text written right below
        // the fence starts a block of its own instead of waiting in the code's.
        if (atMargin) this.cut(lineStart + line.length + 1, finished);
      }
      return;
    }
    if (line.trim() === '') {
      this.sawBlankLine = true;
      return;
    }
    if (this.sawBlankLine && !/^[ \t]/.test(line)) this.cut(lineStart, finished);
    this.sawBlankLine = false;
    const open = FENCE_OPEN.exec(line);
    // A backtick fence's info string may not contain backticks (CommonMark 4.5).
    if (open && !(open[1][0] === '`' && open[2].includes('`'))) {
      this.fence = { char: open[1][0], length: open[1].length, atMargin: line[0] === open[1][0] };
      this.fencesOpened++;
    }
  }
}
