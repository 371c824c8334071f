// Streams arrive as many tiny deltas; posting each one to the webview makes long answers
// lag (a known complaint of chat extensions). Deltas are collected and posted together at
// most every `intervalMs`, or at once when `maxPendingChars` have piled up.
/** How long deltas are collected before they are posted (ms); the webview's bench streams at this pace too. */
export const DELTA_BATCH_INTERVAL_MS = 24;
/** Posted at once when this many characters are waiting. */
export const DELTA_BATCH_MAX_CHARS = 4096;

export interface DeltaBatch {
  content: string;
  reasoning: string;
}

export class DeltaBatcher {
  private content = '';
  private reasoning = '';
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly post: (batch: DeltaBatch) => void,
    private readonly intervalMs = DELTA_BATCH_INTERVAL_MS,
    private readonly maxPendingChars = DELTA_BATCH_MAX_CHARS,
  ) {}

  add(delta: Partial<DeltaBatch>): void {
    this.content += delta.content ?? '';
    this.reasoning += delta.reasoning ?? '';
    if (this.content.length + this.reasoning.length >= this.maxPendingChars) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.content && !this.reasoning) return;
    const batch = { content: this.content, reasoning: this.reasoning };
    this.content = '';
    this.reasoning = '';
    this.post(batch);
  }
}
