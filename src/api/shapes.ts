// What the client saw of the service's answers, for the shapes the reference leaves "not
// shown": which events and fields arrived and which tolerant reading path was used. The
// decoders report here; the session log warns once about a shape nothing could read, and
// "KSM: Check Connection" lists everything it saw in its report. Values are redacted and
// cut to a few characters before any observer gets them, so no observer can leak the key.
import type { Redactor } from './redact';
import type { ClientLogger } from './types';

export interface ShapeObservation {
  /** Which answer: 'agent stream', 'chat stream', 'agent answer', 'error body'. */
  source: string;
  /** The event kind as sent (SSE `event:` name or the `event`/`type` field), if any. */
  event?: string;
  /** The fields with their values cut short, for example `{thread_id: "thr…", delta: "He…"}`. */
  shape: string;
  /** How the client read it, for example `kind from the 'type' field`, `text from 'content'`. */
  paths: string[];
  /** Set when nothing known could be read from it: why. */
  unknown?: string;
}

export interface ShapeObserver {
  observe(observation: ShapeObservation): void;
}

const VALUE_CHARS = 3;
const MAX_FIELDS = 12;

/**
 * A JSON value reduced to its shape: field names kept, strings cut to a few characters,
 * arrays as their length, nesting to two levels. Secrets are removed before cutting, so
 * not even the start of the key survives.
 */
export function describeShape(value: unknown, redact: Redactor, depth = 0): string {
  if (typeof value === 'string') {
    const clean = redact(value);
    return JSON.stringify(clean.length > VALUE_CHARS ? `${clean.slice(0, VALUE_CHARS)}…` : clean);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return depth >= 2 ? `[${value.length} items]` : `[${describeShape(value[0], redact, depth + 1)}${value.length > 1 ? `, … ${value.length} items` : ''}]`;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value as object);
    if (depth >= 2) return `{${keys.length} fields}`;
    const shown = keys.slice(0, MAX_FIELDS).map((key) => `${redact(key).slice(0, 40)}: ${describeShape((value as Record<string, unknown>)[key], redact, depth + 1)}`);
    if (keys.length > MAX_FIELDS) shown.push(`… ${keys.length - MAX_FIELDS} more`);
    return `{${shown.join(', ')}}`;
  }
  return typeof value;
}

/** Text (not JSON) reduced the same way: its length and first characters. */
export function describeText(text: string, redact: Redactor): string {
  const clean = redact(text.replace(/\s+/g, ' ').trim());
  return `text (${text.length} chars) ${JSON.stringify(clean.length > 12 ? `${clean.slice(0, 12)}…` : clean)}`;
}

export const CHECK_CONNECTION_HINT = "Run 'KSM: Check Connection' and send its report to the service's administrators.";

/**
 * The extension's per-session observer: the first shape nothing could read is logged once
 * as a warning with the hint to run Check Connection; later ones only at debug level, so a
 * chatty stream cannot flood the log.
 */
export class SessionShapeLog implements ShapeObserver {
  private warned = false;

  constructor(private readonly logger: () => ClientLogger | undefined) {}

  observe(observation: ShapeObservation): void {
    if (!observation.unknown) return;
    const seen = `${observation.source} sent ${observation.event ? `event '${observation.event}' ` : ''}${observation.shape}: ${observation.unknown}`;
    if (this.warned) {
      this.logger()?.debug(`unknown shape again: ${seen}`);
      return;
    }
    this.warned = true;
    this.logger()?.warn(`The ${seen}. What could be read is shown; this version may miss part of the answer. ${CHECK_CONNECTION_HINT}`);
  }
}

/** Passes every observation to each observer (Check Connection records and keeps the session log). */
export function teeShapes(...observers: Array<ShapeObserver | undefined>): ShapeObserver {
  return { observe: (o) => observers.forEach((observer) => observer?.observe(o)) };
}
