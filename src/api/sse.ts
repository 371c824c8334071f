// Server-sent events from a byte stream. Parsing is eventsource-parser's (it follows the
// WHATWG EventSource rules: CR, LF and CRLF line ends, comments, multi-line `data:`); this
// file only decodes bytes (TextDecoder in streaming mode keeps UTF-8 sequences split across
// reads intact and drops a leading BOM) and turns the parser's callbacks into an iterator.
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export type ServerSentEvent = EventSourceMessage;

/**
 * Yields each complete event in order. An event still incomplete when the bytes end is
 * dropped, as the EventSource rules say; errors of the byte stream (a reset) propagate.
 */
export async function* readServerSentEvents(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<ServerSentEvent, void, undefined> {
  const decoder = new TextDecoder('utf-8');
  let pending: ServerSentEvent[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  for await (const piece of body) {
    parser.feed(typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true }));
    if (pending.length === 0) continue;
    // Swap rather than copy: the per-read path allocates nothing beyond the parser's events.
    const ready = pending;
    pending = [];
    for (let i = 0; i < ready.length; i++) yield ready[i];
  }
  const rest = decoder.decode();
  if (rest) parser.feed(rest);
  for (const event of pending) yield event;
}
