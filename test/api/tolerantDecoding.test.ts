// Every form the client reads beyond our own decisions, one by one (the same forms are
// served over HTTP by the emulator's dialects in test/api/dialects.test.ts).
import { strict as assert } from 'node:assert';
import { agentStreamDecoder, readText, readThreadId } from '../../src/api/agentDecoding';
import { errorFromResponse, readErrorBody } from '../../src/api/httpErrors';
import { redactorFor } from '../../src/api/redact';
import { describeShape, type ShapeObservation } from '../../src/api/shapes';
import type { AgentEvent } from '../../src/api/types';

function decodeAll(events: Array<{ event?: string; data: string; unterminated?: boolean }>) {
  const state = { finished: false, receivedAny: false };
  const seen: ShapeObservation[] = [];
  const decoder = agentStreamDecoder(state, redactorFor(['sk-secret-1234']), { observe: (o) => seen.push(o) });
  const out: AgentEvent[] = [];
  for (const event of events) {
    const item = decoder.decode({ id: undefined, event: event.event, data: event.data, unterminated: event.unterminated });
    if (item) out.push(item);
  }
  const last = state.finished ? undefined : decoder.atCleanEnd();
  if (last) out.push(last);
  return { out, seen, finished: state.finished };
}

describe('tolerant decoding of the open shapes', () => {
  it('reads answer text under every accepted field', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ delta: 'a' }, 'delta'],
      [{ content: 'a' }, 'content'],
      [{ answer: 'a' }, 'answer'],
      [{ text: 'a' }, 'text'],
      [{ delta: { text: 'a' } }, 'delta.text'],
      [{ delta: { content: 'a' } }, 'delta.content'],
      [{ choices: [{ delta: { content: 'a' } }] }, 'choices[0].delta.content'],
      [{ choices: [{ message: { content: 'a' } }] }, 'choices[0].message.content'],
    ];
    for (const [data, path] of cases) assert.deepEqual(readText(data), { value: 'a', path }, JSON.stringify(data));
    assert.deepEqual(readText({ choices: [{ delta: { reasoning_content: 'r' } }] }, true), { value: 'r', path: 'choices[0].delta.reasoning_content' });
    assert.equal(readText({ words: 'a' }), undefined);
  });

  it('reads the thread id under every accepted name, at the top or one level down', () => {
    for (const data of [
      { thread_id: 't' },
      { threadId: 't' },
      { conversation_id: 't' },
      { conversationId: 't' },
      { data: { thread_id: 't' } },
      { metadata: { conversation_id: 't' } },
      { thread: { id: 't' } },
    ]) {
      assert.equal(readThreadId(data)?.value, 't', JSON.stringify(data));
    }
    assert.equal(readThreadId({ data: { data: { thread_id: 't' } } }), undefined, 'only one level of nesting');
  });

  it('takes the kind from the event: name, an event or type field, or a wrapped payload', () => {
    const { out, seen, finished } = decodeAll([
      { event: 'thread', data: '{"thread_id":"t"}' },
      { data: '{"type":"retrieval","thread_id":"t","retriever_resources":[{"file_id":"f","filename":"a.md"}]}' },
      { data: '{"event":"agent_thought","thread_id":"t","thought":"x","text":"thinking"}' },
      { event: 'message', data: '{"event":"message","data":{"delta":"Hi "}}' },
      { data: '{"thread_id":"t","content":"there"}' },
      { data: '{"type":"done","thread_id":"t","status":"stop","metadata":{"usage":{"prompt_tokens":1,"completion_tokens":2}}}' },
    ]);
    assert.ok(finished);
    assert.deepEqual(
      out.map((e) => e.kind),
      ['thread', 'retrieval', 'reasoning', 'message', 'message', 'done'],
    );
    assert.deepEqual((out[1] as Extract<AgentEvent, { kind: 'retrieval' }>).citations, [{ file_id: 'f', filename: 'a.md' }]);
    assert.equal((out[2] as { delta: string }).delta, 'thinking');
    assert.equal((out[3] as { delta: string }).delta + (out[4] as { delta: string }).delta, 'Hi there');
    assert.deepEqual((out[5] as Extract<AgentEvent, { kind: 'done' }>).usage, { prompt_tokens: 1, completion_tokens: 2, reasoning_tokens: null, total_tokens: 3 });
    const paths = seen.flatMap((o) => o.paths);
    for (const path of [
      "kind from the 'type' field",
      "kind from the 'event' field",
      'fields under data',
      "text from 'content'",
      "citations from 'retriever_resources'",
      "usage from 'metadata.usage'",
    ]) {
      assert.ok(paths.includes(path), `${path} in ${JSON.stringify(paths)}`);
    }
  });

  it('ends on an end event only at a clean close, lets a later done win, and ignores a cut-off last event', () => {
    const ended = decodeAll([
      { event: 'message', data: '{"thread_id":"t","delta":"x"}' },
      { event: 'message_end', data: '{"thread_id":"t","usage":{"prompt_tokens":2,"completion_tokens":3}}' },
    ]);
    assert.deepEqual(
      ended.out.map((e) => e.kind),
      ['message', 'done'],
    );
    assert.equal((ended.out[1] as Extract<AgentEvent, { kind: 'done' }>).usage?.total_tokens, 5);
    const both = decodeAll([
      { event: 'end', data: '{"thread_id":"t","usage":{"prompt_tokens":2,"completion_tokens":3}}' },
      { event: 'done', data: '{"thread_id":"t","status":"length"}' },
    ]);
    assert.deepEqual(
      both.out.map((e) => e.kind),
      ['done'],
      'one done, not two',
    );
    assert.equal((both.out[0] as Extract<AgentEvent, { kind: 'done' }>).status, 'length');
    assert.equal((both.out[0] as Extract<AgentEvent, { kind: 'done' }>).usage?.total_tokens, 5, 'usage of the end event kept');
    const cut = decodeAll([
      { event: 'message', data: '{"thread_id":"t","delta":"x"}' },
      { event: 'done', data: '{"thread_id":"t","sta', unterminated: true },
    ]);
    assert.equal(cut.finished, false, 'a cut-off last event is a cut-off stream');
    const openai = decodeAll([{ data: '{"choices":[{"delta":{"content":"x"}}]}' }, { data: '[DONE]' }]);
    assert.deepEqual(
      openai.out.map((e) => e.kind),
      ['message', 'done'],
    );
  });

  it('reports a shape nothing reads as unknown, redacted and cut short, and still yields the rest', () => {
    const { out, seen } = decodeAll([
      { event: 'tool_call', data: '{"thread_id":"t","args":"sk-secret-1234 and more"}' },
      { event: 'message', data: '{"thread_id":"t","payload":"lost"}' },
      { data: '{"type":"citation_update","thread_id":"t"}' },
    ]);
    assert.deepEqual(
      out.map((e) => e.kind),
      ['unknown', 'message', 'unknown'],
    );
    assert.deepEqual((out[2] as Extract<AgentEvent, { kind: 'unknown' }>).event, 'citation_update');
    const unknown = seen.filter((o) => o.unknown);
    assert.equal(unknown.length, 3);
    assert.ok(
      unknown.every((o) => !o.shape.includes('sk-secret') && !o.shape.includes('and more')),
      JSON.stringify(unknown),
    );
    assert.equal(
      describeShape({ key: 'sk-secret-1234', n: 3, list: [1, 2], deep: { a: { b: 1 } } }, redactorFor(['sk-secret-1234'])),
      '{key: "***", n: 3, list: [1, … 2 items], deep: {a: {1 fields}}}',
    );
  });

  it('reduces every error body form to one sentence', () => {
    const forms: Array<[string, string]> = [
      [JSON.stringify({ code: 400, message: 'temperature  must\nbe <= 2', error: { type: 'invalid_request', param: 'temperature', message: 'x' } }), 'temperature must be <= 2'],
      [JSON.stringify({ code: 400, message: 'bad temperature' }), 'bad temperature'],
      [JSON.stringify({ error: { message: 'bad temperature', type: 'invalid_request_error', param: 'temperature' } }), 'bad temperature'],
      [JSON.stringify({ error: 'bad temperature' }), 'bad temperature'],
      [JSON.stringify({ detail: 'bad temperature' }), 'bad temperature'],
      [JSON.stringify({ detail: [{ loc: ['body', 'temperature'], msg: 'must be <= 2' }] }), 'body.temperature: must be <= 2'],
      [JSON.stringify('bad temperature'), 'bad temperature'],
      ['bad temperature', 'bad temperature'],
      ['<html><head><title>400 Bad Request</title></head><body><h1>Bad</h1><p>bad temperature</p></body></html>', '400 Bad Request Bad bad temperature'],
    ];
    for (const [body, sentence] of forms) {
      const error = errorFromResponse({ status: 400, headers: {}, bodyText: body, what: 'Chat', redact: redactorFor([]) });
      assert.equal(error.message, `Chat was refused (HTTP 400)${error.param ? ` (field '${error.param}')` : ''}: ${sentence}.`, body);
      assert.ok(!error.message.includes('\n'));
    }
    assert.equal(readErrorBody({ detail: [{ loc: ['body', 'temperature'], msg: 'x' }] }).param, 'temperature');
    assert.equal(readErrorBody({ error: { message: 'm', type: 't', param: 'p' } }).param, 'p');
  });
});
