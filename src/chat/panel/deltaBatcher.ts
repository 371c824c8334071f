// Streams arrive as many tiny deltas; posting each one to the webview makes long answers
// lag (a known complaint of chat extensions). Deltas are collected and posted together at
// most every `intervalMs`, or at once when `maxPendingChars` have piled up.
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
    private readonly intervalMs = 24,
    private readonly maxPendingChars = 4096,
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
