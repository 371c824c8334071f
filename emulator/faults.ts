// Fault injection (D22): rules added by tests, consumed by the request they match.
// Each kind is consumed only where it can act: `latency`/`status` when the request
// arrives, `reset` while an upload body is received or as a stream/JSON answer goes out,
// stream kinds by the SSE writer, `truncate-json` by a JSON answer. `hold` keeps a request
// waiting on arrival (before its body is read) until the test releases it (`release()`,
// `POST /_emulator/faults/release`) or its connection closes: a condition, not a time.
import { badRequest } from './httpErrors';

export type FaultRule = { path?: string; method?: string; times?: number } & (
  | { kind: 'latency'; ms: number }
  | { kind: 'status'; status: number; retryAfter?: number; body?: 'json' | 'html' }
  | { kind: 'reset'; afterEvents?: number; afterBytes?: number }
  | { kind: 'malformed-sse'; afterEvents?: number }
  | { kind: 'truncate-json' }
  | { kind: 'no-terminator'; afterEvents?: number }
  | { kind: 'stream-error'; afterEvents?: number; code?: number; message?: string }
  | { kind: 'hold' }
);

export type FaultKind = FaultRule['kind'];

const KINDS: ReadonlySet<string> = new Set(['latency', 'status', 'reset', 'malformed-sse', 'truncate-json', 'no-terminator', 'stream-error', 'hold']);

export class FaultBook {
  private rules: Array<FaultRule & { remaining: number }> = [];

  add(rule: FaultRule): void {
    this.rules.push({ ...rule, remaining: rule.times ?? 1 });
  }

  /** Removes every rule and lets held requests go on. */
  clear(): void {
    this.rules = [];
    this.release();
  }

  private readonly holding = new Set<() => void>();

  /** Requests held now (a test waits for its request to be held). */
  get held(): number {
    return this.holding.size;
  }

  /** Waits until `release` (or `closed`). */
  hold(closed: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.holding.delete(done);
        closed.removeEventListener('abort', done);
        resolve();
      };
      this.holding.add(done);
      closed.addEventListener('abort', done, { once: true });
    });
  }

  /** Lets every held request go on; the number released. */
  release(): number {
    const waiting = [...this.holding];
    for (const done of waiting) done();
    return waiting.length;
  }

  /** The first rule of one of `kinds` matching the request; consumes one of its `times`. */
  take<K extends FaultKind>(path: string, method: string, kinds: readonly K[]): Extract<FaultRule, { kind: K }> | undefined {
    const index = this.rules.findIndex(
      (rule) => (kinds as readonly string[]).includes(rule.kind) && (!rule.path || path === rule.path || path.startsWith(rule.path)) && (!rule.method || rule.method.toUpperCase() === method),
    );
    if (index < 0) return undefined;
    const rule = this.rules[index];
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.rules.splice(index, 1);
    return rule as unknown as Extract<FaultRule, { kind: K }>;
  }
}

const optionalNumber = (body: Record<string, unknown>, key: string, min: number): void => {
  const value = body[key];
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) throw badRequest(`${key} must be a number >= ${min}`, key);
};

/**
 * Checks a rule sent to `POST /_emulator/faults`. JSON has no Infinity, so `times` may be
 * `-1` or `"always"` for a rule that never runs out.
 */
export function parseFaultRule(body: Record<string, unknown>): FaultRule {
  if (typeof body.kind !== 'string' || !KINDS.has(body.kind)) {
    throw badRequest(`kind must be one of ${[...KINDS].join(', ')}`, 'kind');
  }
  for (const key of ['path', 'method'] as const) {
    if (body[key] !== undefined && typeof body[key] !== 'string') throw badRequest(`${key} must be a string`, key);
  }
  let times: number | undefined;
  if (body.times === -1 || body.times === 'always' || body.times === 'Infinity') times = Infinity;
  else if (body.times !== undefined && body.times !== null) {
    if (!Number.isInteger(body.times) || (body.times as number) < 1) throw badRequest('times must be a positive integer, -1 or "always"', 'times');
    times = body.times as number;
  }
  for (const key of ['ms', 'afterEvents', 'afterBytes', 'retryAfter', 'code']) optionalNumber(body, key, 0);
  if (body.kind === 'latency' && typeof body.ms !== 'number') throw badRequest('latency needs ms', 'ms');
  if (body.kind === 'status' && (!Number.isInteger(body.status) || (body.status as number) < 400 || (body.status as number) > 599)) {
    throw badRequest('status must be an integer 400..599', 'status');
  }
  if (body.body !== undefined && body.body !== 'json' && body.body !== 'html') throw badRequest('body must be "json" or "html"', 'body');
  if (body.message !== undefined && typeof body.message !== 'string') throw badRequest('message must be a string', 'message');
  return { ...body, times } as FaultRule;
}
