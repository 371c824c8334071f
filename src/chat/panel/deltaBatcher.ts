// Streams arrive as many tiny events; posting each one to the webview makes long answers
// lag (a known complaint of chat extensions). Text deltas and citation changes are collected
// and posted together at most every `intervalMs`, or at once when `maxPendingChars` of text
// have piled up: one timer and one flush for both, so the view gets them in order (a
// flush's text before its citations: a list never reaches the view ahead of text that
// came before a citation in it, as it did on a timer of its own).
/** How long deltas are collected before they are posted (ms); the webview's bench streams at this pace too. */
export const DELTA_BATCH_INTERVAL_MS = 24;
/** Posted at once when this many characters are waiting. */
export const DELTA_BATCH_MAX_CHARS = 4096;

export interface DeltaBatch {
  content: string;
  reasoning: string;
  /** The answer's citations changed since the last flush (the poster sends the whole list once, after the text). */
  citations: boolean;
}

export class DeltaBatcher {
  private content = '';
  private reasoning = '';
  private citations = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly post: (batch: DeltaBatch) => void,
    private readonly intervalMs = DELTA_BATCH_INTERVAL_MS,
    private readonly maxPendingChars = DELTA_BATCH_MAX_CHARS,
  ) {}

  add(delta: Partial<DeltaBatch>): void {
    this.content += delta.content ?? '';
    this.reasoning += delta.reasoning ?? '';
    if (delta.citations) this.citations = true;
    if (this.content.length + this.reasoning.length >= this.maxPendingChars) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  /**
   * Posts what is waiting, now. `dropCitations`: the caller posts the citations itself (an
   * answer's final patch carries them), so a waiting change is forgotten, not posted twice.
   */
  flush(options: { dropCitations?: boolean } = {}): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (options.dropCitations) this.citations = false;
    if (!this.content && !this.reasoning && !this.citations) return;
    const batch = { content: this.content, reasoning: this.reasoning, citations: this.citations };
    this.content = '';
    this.reasoning = '';
    this.citations = false;
    this.post(batch);
  }
}
