// Writes server-sent events with backpressure, notices a client that goes away (so the
// generator stops: "Stop" must stop the server too), and plays stream faults (D22).
import type { RequestContext } from './context';
import { formatSseEvent } from './dialects';
import type { FaultRule } from './faults';

export interface SseEvent {
  event?: string;
  data: string;
}

type StreamFault = Extract<FaultRule, { kind: 'reset' | 'malformed-sse' | 'no-terminator' | 'stream-error' }>;

export interface SseOptions {
  /** What ends a healthy stream: `data: [DONE]`, or the agent's `done` event. */
  terminator: () => SseEvent[];
  /** What the stream sends for an error after it started (D14, D19), terminator included. */
  errorEvents: (code: number, message: string) => SseEvent[];
}

export class SseWriter {
  private sent = 0;
  private ended = false;
  private fault: StreamFault | undefined;
  private corked = false;

  constructor(
    private readonly ctx: RequestContext,
    private readonly options: SseOptions,
  ) {
    this.fault = ctx.shared.faults.take(ctx.path, ctx.method, ['reset', 'malformed-sse', 'no-terminator', 'stream-error']);
    const { res } = ctx;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
    res.flushHeaders();
    res.on('close', () => {
      if (!this.ended) {
        this.ended = true;
        ctx.shared.stats.abortedStreams += 1;
        ctx.shared.events.emit('stream-aborted', { path: ctx.path });
      }
    });
  }

  /** False once the stream is over (client gone, or a fault ended it): stop generating. */
  get open(): boolean {
    return !this.ended;
  }

  async send(event: SseEvent): Promise<boolean> {
    if (this.ended) return false;
    const fault = this.fault;
    if (fault && fault.kind !== 'no-terminator' && this.sent >= (fault.afterEvents ?? 1)) {
      this.fault = undefined;
      if (!(await this.playFault(fault))) return false;
    }
    if (fault?.kind === 'no-terminator' && fault.afterEvents !== undefined && this.sent >= fault.afterEvents) {
      this.endQuietly();
      return false;
    }
    await this.write(event);
    this.sent += 1;
    return !this.ended;
  }

  /** Ends a healthy stream; a fault not yet played (its afterEvents beyond the length) plays now. */
  async finish(): Promise<void> {
    if (this.ended) return;
    const fault = this.fault;
    this.fault = undefined;
    if (fault?.kind === 'no-terminator') return this.endQuietly();
    if (fault && !(await this.playFault(fault))) return;
    const ending = this.options.terminator();
    for (const [i, event] of ending.entries()) await this.write(event, i === ending.length - 1);
    this.endQuietly();
  }

  /** Ends the stream with an error (D14/D19), for example when the upstream fails. */
  async fail(code: number, message: string): Promise<void> {
    if (this.ended) return;
    const ending = this.options.errorEvents(code, message);
    for (const [i, event] of ending.entries()) await this.write(event, i === ending.length - 1);
    this.endQuietly();
  }

  /** Returns whether the stream goes on after the fault. */
  private async playFault(fault: StreamFault): Promise<boolean> {
    switch (fault.kind) {
      case 'reset':
        this.ended = true;
        this.ctx.res.socket?.destroy();
        return false;
      case 'malformed-sse':
        await this.writeRaw('data: {"broken\n\n');
        return true;
      case 'stream-error':
        await this.fail(fault.code ?? 500, fault.message ?? 'injected stream error');
        return false;
      default:
        return true;
    }
  }

  private endQuietly(): void {
    this.ended = true;
    this.ctx.res.end();
  }

  /** `last`: the stream's final event, which a dialect may end without its blank line. */
  private async write(event: SseEvent, last = false): Promise<void> {
    await this.writeRaw(formatSseEvent(this.ctx.shared.dialect, event, last));
  }

  private async writeRaw(text: string): Promise<void> {
    const { res } = this.ctx;
    if (res.destroyed) return;
    // Writes made in the same turn of the event loop go out as one packet; a paced stream
    // (tokenDelayMs > 0) still sends each event at once.
    if (!this.corked) {
      this.corked = true;
      res.cork();
      setImmediate(() => {
        this.corked = false;
        res.uncork();
      });
    }
    if (!res.write(text)) await drainOrClose(res);
  }
}

/** Waits for 'drain' or 'close', whichever first, and removes both listeners. */
function drainOrClose(res: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
