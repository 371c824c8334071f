// The SSE decoding the client relies on, against the EventSource parsing cases browsers
// must pass: line endings, comments, multi-line data, a BOM, and events split across reads
// at every byte boundary (including inside a UTF-8 sequence and between CR and LF).
import { strict as assert } from 'node:assert';
import { readServerSentEvents, type ServerSentEvent } from '../../src/api/sse';

async function* pieces(bytes: Buffer, cuts: number[]): AsyncGenerator<Uint8Array> {
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.subarray(start, cut);
    start = cut;
  }
}

async function decode(bytes: Buffer, cuts: number[] = []): Promise<Array<Pick<ServerSentEvent, 'event' | 'data' | 'id'>>> {
  const events = [];
  for await (const e of readServerSentEvents(pieces(bytes, cuts))) events.push({ event: e.event, data: e.data, id: e.id });
  return events;
}

const STREAM = Buffer.from(
  '\uFEFF: a comment line\r\n' +
    'event: message\r\n' +
    'id: 7\r\n' +
    'data: {"text":"héllo 😀"}\r\n' +
    '\r\n' +
    'data: line one\r' +
    'data: line two\r' +
    '\r' +
    ':keepalive\n' +
    'event: done\n' +
    'data:no-space\n' +
    '\n',
  'utf8',
);
const EXPECTED = [
  { event: 'message', data: '{"text":"héllo 😀"}', id: '7' },
  // eventsource-parser reports the id of each event (no carried-over lastEventId); the
  // client does not use ids, as nothing here reconnects.
  { event: undefined, data: 'line one\nline two', id: undefined },
  { event: 'done', data: 'no-space', id: undefined },
];

describe('SSE decoding', () => {
  it('handles a BOM, comments, CRLF, CR and LF line ends, multi-line data and ids in one read', async () => {
    assert.deepEqual(await decode(STREAM), EXPECTED);
  });

  it('gives the same events when the bytes are split at every single boundary', async () => {
    for (let cut = 1; cut < STREAM.length; cut++) {
      assert.deepEqual(await decode(STREAM, [cut]), EXPECTED, `split at byte ${cut}`);
    }
  });

  it('gives the same events when every byte arrives in its own read', async () => {
    assert.deepEqual(
      await decode(
        STREAM,
        Array.from({ length: STREAM.length - 1 }, (_, i) => i + 1),
      ),
      EXPECTED,
    );
  });

  it('delivers, marked unterminated, an event the bytes end in without its blank line or newline', async () => {
    const collect = async (text: string) => {
      const events = [];
      for await (const e of readServerSentEvents(pieces(Buffer.from(text), []))) events.push({ data: e.data, unterminated: e.unterminated });
      return events;
    };
    const whole = { data: 'whole', unterminated: undefined };
    assert.deepEqual(await collect('data: whole\n\ndata: partial\n'), [whole, { data: 'partial', unterminated: true }]);
    assert.deepEqual(await collect('data: whole\n\ndata: [DONE]'), [whole, { data: '[DONE]', unterminated: true }]);
    assert.deepEqual(await collect('data: whole\r\rdata: [DONE]\r'), [whole, { data: '[DONE]', unterminated: true }]);
    assert.deepEqual(await collect('data: whole\r\n\r\n'), [whole], 'a properly ended stream gains nothing');
    assert.deepEqual(await collect('data: whole\r\r'), [whole]);
  });

  it('strips only one leading space of a value and keeps an empty data line', async () => {
    assert.deepEqual(await decode(Buffer.from('data:  two spaces\ndata:\n\n')), [{ event: undefined, data: ' two spaces\n', id: undefined }]);
  });

  it('reads a read of one CR and a million LF lines in time linear in its length', async () => {
    // The parser looked for the next CR from each line of a read holding one: to the read's
    // end every time, as none followed (quadratic in the read's length).
    let count = 0;
    for await (const e of readServerSentEvents(pieces(Buffer.from(`: a CR line end\r${'data: x\n\n'.repeat(1_000_000)}`), []))) if (e.data === 'x') count++;
    assert.equal(count, 1_000_000);
  });

  it('propagates a broken byte stream to the caller', async () => {
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('data: one\n\n');
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    }
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of readServerSentEvents(broken())) seen.push(e.data);
      })(),
      /socket hang up/,
    );
    assert.deepEqual(seen, ['one']);
  });
});
