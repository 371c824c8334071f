// Server-sent events from a byte stream. Parsing is eventsource-parser's (it follows the
// WHATWG EventSource rules: CR, LF and CRLF line ends, comments, multi-line `data:`); this
// file only decodes bytes (TextDecoder in streaming mode keeps UTF-8 sequences split across
// reads intact and drops a leading BOM) and hands the parser's events on. One tolerance
// beyond the rules: a stream that closes cleanly right after its last event's data, without
// the final blank line, still delivers that event (marked `unterminated`), because servers
// that end with `data: [DONE]` and no newline exist.
import * as l10n from '@vscode/l10n';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { BadResponseError } from './errors';

/**
 * One event (its lines up to the blank line that ends it) may hold at most this many
 * characters: far above any real chunk or agent event, and a stream whose line never ends
 * (a hostile or broken server) is stopped instead of buffered into memory without end.
 */
export const SSE_EVENT_LIMIT = 16 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

export type ServerSentEvent = EventSourceMessage & {
  /** Set on an event the stream closed in without its blank line; its data may be cut short. */
  unterminated?: boolean;
};

/**
 * Yields, per network read, the events it completed (often many). Batches keep the
 * per-event path synchronous: a stream of 100,000 small chunks then pays one promise
 * round trip per read, not one per event per layer. An event still incomplete when the
 * bytes end cleanly is delivered with `unterminated` set (the rules would drop it);
 * errors of the byte stream (a reset) propagate after the events before them were yielded.
 */
export async function* readServerSentEventBatches(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<ServerSentEvent[], void, undefined> {
  const decoder = new TextDecoder('utf-8');
  let pending: ServerSentEvent[] = [];
  // Characters fed since the last event or comment ended: what the parser holds (exact to one read).
  let held = 0;
  let ended = false;
  const parser = createParser({
    onEvent: (event) => {
      ended = true;
      pending.push(event);
    },
    onComment: () => {
      ended = true;
    },
  });
  // Every line end is fed as LF: the parser looks for the next CR from each line of a read
  // that holds one, reading to the read's end each time when no other CR follows (a read of
  // one CR and 60,000 LF lines took half a second, a bigger one grew with its square).
  let afterCr = false;
  const lineEndsAsLf = (raw: string): string => {
    let text = raw;
    if (afterCr && text.charCodeAt(0) === LF) {
      text = text.slice(1); // the LF of a CRLF split between reads
      afterCr = false;
    }
    if (!text) return text;
    afterCr = text.charCodeAt(text.length - 1) === CR;
    return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
  };
  for await (const piece of body) {
    const text = lineEndsAsLf(typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true }));
    ended = false;
    parser.feed(text);
    held = ended ? text.length - 1 - text.lastIndexOf('\n') : held + text.length;
    if (held > SSE_EVENT_LIMIT) {
      if (pending.length > 0) yield pending;
      throw new BadResponseError(l10n.t('The service sent a stream event larger than {0} MiB, so the stream was stopped.', SSE_EVENT_LIMIT / (1024 * 1024)));
    }
    if (pending.length === 0) continue;
    const ready = pending;
    pending = [];
    yield ready;
  }
  const rest = lineEndsAsLf(decoder.decode());
  if (rest) parser.feed(rest);
  const complete = pending.length;
  // Two line ends finish a last line and its event, if any; a stream that ended properly
  // has nothing pending, so they dispatch nothing.
  parser.feed('\n\n');
  for (let i = complete; i < pending.length; i++) pending[i] = { ...pending[i], unterminated: true };
  if (pending.length > 0) yield pending;
}

/** The same events one at a time, for callers that do not care about batches. */
export async function* readServerSentEvents(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<ServerSentEvent, void, undefined> {
  for await (const batch of readServerSentEventBatches(body)) yield* batch;
}
