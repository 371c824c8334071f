// Windowing for the transcript: only the turns near the viewport are in the DOM, the rest
// are two spacers whose heights are the sum of the turns they stand for (measured once a
// turn has been on screen, estimated before). Opening a 1,000-turn conversation therefore
// renders about as much markdown as a 10-turn one, and scrolling lays out a few turns.
//
// Written here rather than taken from a library: the one framework-free, well-kept
// candidate, @tanstack/virtual-core, positions rows absolutely and leaves what a chat needs
// to the caller: sticking to the bottom while an answer streams, and not jumping when rows
// above the reader get measured while they scroll up (TanStack/virtual issues #659, #28,
// pull request #400). That anchoring is most of this file; the rest (prefix sums, a binary
// search, mounting a contiguous range) is small. Ideas follow react-virtuoso and virtua:
// measure with a ResizeObserver before paint, and correct scrollTop by the height change of
// everything above the first visible row, never by guesses.

/** What the window needs to know about the rows it shows. */
export interface TurnWindowSource {
  /** Builds a row's element; the window keeps it (mounted or detached) until it evicts it. */
  create(index: number): HTMLElement;
  /** A row's height before it was ever measured, for the current width of the list. */
  estimate(index: number, width: number): number;
  /** The window dropped the row's element to bound memory; the next `create` rebuilds it. */
  evicted(index: number, element: HTMLElement): void;
  /** Rows that must keep their element while detached (a streaming answer). */
  pinned(index: number): boolean;
}

interface Row {
  index: number;
  /** Slot height: border box plus vertical margins, so rows stack to exactly the prefix sums. */
  height: number;
  measured: boolean;
  element?: HTMLElement;
}

/** Distance from the bottom (px) within which the reader still counts as "following". */
export const FOLLOW_SLACK = 32;
/** Rendered beyond each edge of the viewport, so a scroll step rarely shows an unrendered row. */
const MIN_OVERSCAN_PX = 600;
/** Rows beyond the viewport rendered for the first time in one frame. */
const NEW_OVERSCAN_ROWS_PER_FRAME = 1;
/** Idle time (ms) left to the browser when rendering rows ahead of the scroll. */
const PREFETCH_RESERVE_MS = 3;
/** Detached row elements kept for quick re-mounting (and their state, like an open reasoning). */
const DETACHED_CACHE = 150;

export class TurnWindow {
  private rows: Row[] = [];
  private readonly topSpacer = spacer('turn-spacer-top');
  private readonly bottomSpacer = spacer('turn-spacer-bottom');
  /**
   * The spacers' heights live in a constructed style sheet, not in `style` attributes: the
   * webview's DOM then carries no inline style at all (the hostile-payload suite refuses
   * any), and the CSP has nothing to say about it.
   */
  private readonly spacerRules = spacerStyleSheet();
  /** Mounted rows are [start, end). */
  private start = 0;
  private end = 0;
  private prefix: number[] = [0];
  /**
   * prefix[0..validPrefix) are right: a changed row invalidates only the sums after it, so the
   * streaming answer at the end, measured every frame, costs one sum, not one per turn.
   */
  private validPrefix = 1;
  private readonly rowOf = new WeakMap<Element, Row>();
  /** Detached-or-mounted elements in least-recently-mounted order, for eviction. */
  private readonly cached = new Set<Row>();
  private readonly reestimate = new Set<Row>();
  private readonly observer: ResizeObserver;
  private marginPx: number | undefined;
  private width = 0;
  private following = true;
  private programmaticScrollTop = -1;
  private prefetchScheduled = false;

  constructor(
    private readonly scroller: HTMLElement,
    private readonly list: HTMLElement,
    private readonly source: TurnWindowSource,
    private readonly requestUpdate: () => void,
  ) {
    list.append(this.topSpacer, this.bottomSpacer);
    // Runs after layout and before paint: heights are corrected in the frame they change,
    // so the reader never sees a jump. It never changes an observed size (only scrollTop),
    // so it cannot loop.
    this.observer = new ResizeObserver((entries) => this.onResize(entries));
    this.observer.observe(scroller);
    this.observer.observe(list);
  }

  isMounted(index: number): boolean {
    return index >= this.start && index < this.end;
  }

  /** Keeps rows [0, keep) with their elements, drops the rest and adds `added` new rows. */
  splice(keep: number, added: number): void {
    this.unmountAll();
    for (const row of this.rows.slice(keep)) this.drop(row);
    this.rows.length = Math.min(keep, this.rows.length);
    for (let i = 0; i < added; i++) {
      const index = this.rows.length;
      this.rows.push({ index, height: this.source.estimate(index, this.currentWidth()), measured: false });
    }
    this.invalidatePrefix(keep);
    this.requestUpdate();
  }

  /** The row's content changed while it may be detached: its estimate is redone next frame. */
  contentChanged(index: number): void {
    const row = this.rows[index];
    if (row && !this.isMounted(index)) this.reestimate.add(row);
  }

  /** After new turns arrive or the conversation is opened: show the end and follow it. */
  followBottom(): void {
    this.following = true;
    this.update();
    this.scrollToBottom();
  }

  restoreScroll(scrollTop: number): void {
    this.setScrollTop(scrollTop);
    this.following = this.isAtBottom();
    this.update();
  }

  /** The scroll listener: only the reader's own scrolling decides whether we follow. */
  onScroll(): void {
    if (Math.abs(this.scroller.scrollTop - this.programmaticScrollTop) > 1) this.following = this.isAtBottom();
    this.requestUpdate();
  }

  /** The first row whose slot reaches below the top of the viewport. */
  firstVisibleIndex(): number {
    return this.indexAt(this.scroller.scrollTop - this.list.offsetTop);
  }

  /** Mounts the row, scrolls its top into view and focuses it (keyboard navigation). */
  focusRow(index: number): void {
    if (this.rows.length === 0) return;
    index = Math.max(0, Math.min(this.rows.length - 1, index));
    this.ensurePrefix();
    const listTop = this.list.offsetTop;
    const top = listTop + this.prefix[index];
    const viewTop = this.scroller.scrollTop;
    const viewBottom = viewTop + this.scroller.clientHeight;
    // Already fully in view: focus without moving; otherwise bring its top to the top.
    if (!(this.isMounted(index) && top >= viewTop && top + this.rows[index].height <= viewBottom)) {
      this.setScrollTop(top);
      this.following = index === this.rows.length - 1 && this.isAtBottom();
    }
    this.update();
    this.rows[index].element?.focus({ preventScroll: true });
  }

  /** Mounts the rows the viewport needs and sizes the spacers; runs once per frame at most. */
  update(): void {
    this.applyEstimates();
    this.ensurePrefix();
    const count = this.rows.length;
    if (count === 0) return this.setRange(0, 0);
    const viewTop = this.scroller.scrollTop - this.list.offsetTop;
    const viewHeight = this.scroller.clientHeight;
    const overscan = Math.max(MIN_OVERSCAN_PX, viewHeight);
    const wantFirst = this.indexAt(viewTop - overscan);
    const wantLast = this.indexAt(viewTop + viewHeight + overscan);
    // What is on screen is rendered now; the overscan grows outward by a few never-rendered
    // rows a frame (rows rendered before cost nothing), so a fast scroll spreads the
    // markdown work over frames instead of stalling one.
    let first = this.indexAt(viewTop);
    let last = this.indexAt(viewTop + viewHeight);
    let budget = NEW_OVERSCAN_ROWS_PER_FRAME;
    for (let grew = true; grew && (first > wantFirst || last < wantLast);) {
      grew = false;
      if (last < wantLast && (this.rows[last + 1].element || budget-- > 0)) {
        last++;
        grew = true;
      }
      if (first > wantFirst && (this.rows[first - 1].element || budget-- > 0)) {
        first--;
        grew = true;
      }
    }
    this.setRange(first, last + 1);
    if (first > wantFirst || last < wantLast) {
      this.requestUpdate();
      this.prefetch(wantFirst, wantLast);
    }
  }

  /**
   * Renders the overscan's missing rows while the main thread is idle between frames
   * (nearest to the viewport first), so the frames that mount them only attach elements.
   */
  private prefetch(wantFirst: number, wantLast: number): void {
    if (this.prefetchScheduled || typeof requestIdleCallback !== 'function') return;
    this.prefetchScheduled = true;
    requestIdleCallback((deadline) => {
      this.prefetchScheduled = false;
      let below = this.end;
      let above = this.start - 1;
      let created = false;
      while (deadline.timeRemaining() > PREFETCH_RESERVE_MS && (below <= wantLast || above >= wantFirst)) {
        const row = below <= wantLast && (below - this.end <= this.start - 1 - above || above < wantFirst) ? this.rows[below++] : this.rows[above--];
        if (!row || row.element) continue;
        this.createElement(row);
        this.cached.add(row);
        created = true;
      }
      if (created) this.requestUpdate();
    });
  }

  private applyEstimates(): void {
    if (this.reestimate.size === 0) return;
    const width = this.currentWidth();
    this.keepAnchor(() => {
      let first = Infinity;
      for (const row of this.reestimate) {
        if (this.rows[row.index] === row && !this.isMounted(row.index)) {
          row.height = this.source.estimate(row.index, width);
          row.measured = false;
          first = Math.min(first, row.index);
        }
      }
      this.reestimate.clear();
      return first;
    });
  }

  private setRange(start: number, end: number): void {
    if (start === this.start && end === this.end) return this.sizeSpacers();
    const disjoint = end <= this.start || start >= this.end || this.start === this.end;
    for (let i = this.start; i < this.end; i++) {
      if (disjoint || i < start || i >= end) this.unmount(this.rows[i]);
    }
    if (disjoint) {
      this.topSpacer.after(...this.elements(start, end));
    } else {
      if (start < this.start) this.topSpacer.after(...this.elements(start, this.start));
      if (end > this.end) this.bottomSpacer.before(...this.elements(this.end, end));
    }
    this.start = start;
    this.end = end;
    this.sizeSpacers();
    this.evictDetached();
  }

  private elements(from: number, to: number): HTMLElement[] {
    const elements: HTMLElement[] = [];
    for (let i = from; i < to; i++) {
      const row = this.rows[i];
      const element = row.element ?? this.createElement(row);
      element.setAttribute('aria-posinset', String(i + 1));
      element.setAttribute('aria-setsize', String(this.rows.length));
      this.cached.delete(row);
      this.cached.add(row);
      this.observer.observe(element);
      elements.push(element);
    }
    return elements;
  }

  private createElement(row: Row): HTMLElement {
    const element = this.source.create(row.index);
    element.tabIndex = -1;
    this.rowOf.set(element, row);
    row.element = element;
    return element;
  }

  private unmount(row: Row | undefined): void {
    if (!row?.element) return;
    this.observer.unobserve(row.element);
    row.element.remove();
  }

  private unmountAll(): void {
    for (let i = this.start; i < this.end; i++) this.unmount(this.rows[i]);
    this.start = this.end = 0;
  }

  private drop(row: Row): void {
    this.cached.delete(row);
    this.reestimate.delete(row);
    if (row.element) {
      this.observer.unobserve(row.element);
      row.element.remove();
      this.source.evicted(row.index, row.element);
      row.element = undefined;
    }
  }

  private evictDetached(): void {
    if (this.cached.size <= DETACHED_CACHE) return;
    for (const row of this.cached) {
      if (this.cached.size <= DETACHED_CACHE) break;
      if (this.isMounted(row.index) || this.source.pinned(row.index)) continue;
      this.drop(row);
    }
  }

  private sizeSpacers(): void {
    this.ensurePrefix();
    const total = this.prefix[this.rows.length];
    setHeight(this.spacerRules.top, this.prefix[this.start]);
    setHeight(this.spacerRules.bottom, total - this.prefix[this.end]);
  }

  private onResize(entries: ResizeObserverEntry[]): void {
    let viewportChanged = false;
    const measured: [Row, number][] = [];
    for (const entry of entries) {
      if (entry.target === this.scroller || entry.target === this.list) {
        viewportChanged ||= entry.target === this.scroller;
        continue;
      }
      const row = this.rowOf.get(entry.target);
      if (!row || !this.isMounted(row.index)) continue;
      const height = (entry.borderBoxSize?.[0]?.blockSize ?? (entry.target as HTMLElement).offsetHeight) + this.margin(entry.target);
      if (!row.measured || Math.abs(height - row.height) > 0.1) measured.push([row, height]);
    }
    if (viewportChanged && this.width !== this.scroller.clientWidth) {
      // Another width wraps every row differently: measured heights of detached rows are stale.
      this.width = this.scroller.clientWidth;
      for (const row of this.rows) if (!this.isMounted(row.index)) this.reestimate.add(row);
    }
    if (measured.length > 0) {
      this.keepAnchor(() => {
        let first = Infinity;
        for (const [row, height] of measured) {
          row.height = height;
          row.measured = true;
          first = Math.min(first, row.index);
        }
        return first;
      });
      this.sizeSpacers();
    }
    if (this.following) this.scrollToBottom();
    if (measured.length > 0 || viewportChanged || this.reestimate.size > 0) this.requestUpdate();
  }

  /**
   * Changes row heights without moving what the reader looks at: the row at the top of the
   * viewport keeps its offset, whatever changed above it. While following, the bottom wins.
   */
  private keepAnchor(change: () => number): void {
    this.ensurePrefix();
    const listTop = this.list.offsetTop;
    const viewTop = this.scroller.scrollTop - listTop;
    const anchor = this.indexAt(viewTop);
    const offset = viewTop - this.prefix[anchor];
    this.invalidatePrefix(change());
    this.ensurePrefix();
    if (this.following || this.rows.length === 0) return;
    const top = listTop + this.prefix[anchor] + offset;
    if (Math.abs(top - this.scroller.scrollTop) > 0.5) {
      this.sizeSpacers();
      this.setScrollTop(top);
    }
  }

  private margin(element: Element): number {
    if (this.marginPx === undefined) {
      const style = getComputedStyle(element);
      this.marginPx = (parseFloat(style.marginTop) || 0) + (parseFloat(style.marginBottom) || 0);
    }
    return this.marginPx;
  }

  private currentWidth(): number {
    if (!this.width) this.width = this.scroller.clientWidth;
    return this.width;
  }

  private ensurePrefix(): void {
    const length = this.rows.length + 1;
    if (this.validPrefix >= length && this.prefix.length === length) return;
    this.prefix.length = length;
    for (let i = Math.min(this.validPrefix, length) - 1; i < this.rows.length; i++) this.prefix[i + 1] = this.prefix[i] + this.rows[i].height;
    this.validPrefix = length;
  }

  /** Rows from `index` on changed (height, or which rows there are): the sums after it are redone. */
  private invalidatePrefix(index: number): void {
    this.validPrefix = Math.min(this.validPrefix, index + 1);
  }

  /** The row whose slot contains `y` (list coordinates), clamped to the rows there are. */
  private indexAt(y: number): number {
    this.ensurePrefix();
    let low = 0;
    let high = this.rows.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.prefix[middle] <= y) low = middle;
      else high = middle - 1;
    }
    return Math.max(0, low);
  }

  private isAtBottom(): boolean {
    const { scrollHeight, scrollTop, clientHeight } = this.scroller;
    return scrollHeight - scrollTop - clientHeight <= FOLLOW_SLACK;
  }

  private scrollToBottom(): void {
    this.setScrollTop(this.scroller.scrollHeight);
  }

  private setScrollTop(top: number): void {
    this.scroller.scrollTop = top;
    this.programmaticScrollTop = this.scroller.scrollTop;
  }
}

function spacer(name: string): HTMLElement {
  const element = document.createElement('div');
  element.className = `turn-spacer ${name}`;
  element.setAttribute('aria-hidden', 'true');
  return element;
}

function spacerStyleSheet(): { top: CSSStyleRule; bottom: CSSStyleRule } {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync('.turn-spacer-top { height: 0px; } .turn-spacer-bottom { height: 0px; }');
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  return { top: sheet.cssRules[0] as CSSStyleRule, bottom: sheet.cssRules[1] as CSSStyleRule };
}

function setHeight(rule: CSSStyleRule, px: number): void {
  const value = `${Math.max(0, px)}px`;
  if (rule.style.height !== value) rule.style.height = value;
}
