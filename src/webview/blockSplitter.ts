// Splits a growing markdown source into finished top-level blocks and the open last one,
// so a streaming answer renders each finished block once and re-parses only the tail.
// Hand-written because markdown-it has no incremental mode; the rule is deliberately
// conservative: a block ends at a blank line (outside a fenced code block) that is
// followed by a line starting in column 0. Indented lines after a blank line may belong
// to a list item or indented code, so they stay in the open block. Cost: each character
// is scanned once.

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

export class BlockSplitter {
  private source = '';
  /** Start of the first line not yet scanned (always at a line start). */
  private scanned = 0;
  /** Start of the open block. */
  private openStart = 0;
  private fence: { char: string; length: number } | null = null;
  private sawBlankLine = false;

  /** Appends text; returns the blocks it finished, in order. */
  append(text: string): string[] {
    this.source += text;
    const finished: string[] = [];
    let lineEnd: number;
    while ((lineEnd = this.source.indexOf('\n', this.scanned)) !== -1) {
      const lineStart = this.scanned;
      this.scanLine(this.source.slice(lineStart, lineEnd), lineStart, finished);
      this.scanned = lineEnd + 1;
    }
    return finished;
  }

  /** The text of the block still being written. */
  openBlock(): string {
    return this.source.slice(this.openStart);
  }

  /** Ends the stream: the open block, if any, is finished too. */
  finish(): string[] {
    const rest = this.source.slice(this.openStart);
    this.openStart = this.source.length;
    this.scanned = this.source.length;
    return rest.trim() ? [rest] : [];
  }

  isInsideFence(): boolean {
    return this.fence !== null;
  }

  private scanLine(line: string, lineStart: number, finished: string[]): void {
    if (this.fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === this.fence.char && close[1].length >= this.fence.length) this.fence = null;
      return;
    }
    if (line.trim() === '') {
      this.sawBlankLine = true;
      return;
    }
    if (this.sawBlankLine && !/^[ \t]/.test(line)) {
      const block = this.source.slice(this.openStart, lineStart);
      if (block.trim()) finished.push(block);
      this.openStart = lineStart;
    }
    this.sawBlankLine = false;
    const open = FENCE_OPEN.exec(line);
    // A backtick fence's info string may not contain backticks (CommonMark 4.5).
    if (open && !(open[1][0] === '`' && open[2].includes('`'))) {
      this.fence = { char: open[1][0], length: open[1].length };
    }
  }
}
