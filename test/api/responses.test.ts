// The Responses output format (output_parser: "responses", contract D16), read by our client
// over real HTTP: from the emulator, and from hand-written raw streams built from OpenAI's
// published event list. Each must give the same answer events (text, reasoning, tool calls,
// usage, finish reason) as the chat format of the same content, through the one path the
// chat engine, VS Code's Chat and the CLI all use (answerStream.ask).
import { strict as assert } from 'node:assert';
import type { ServerResponse } from 'node:http';
import { KsmClient } from '../../src/api/client';
import { StreamCutOffError, StreamError } from '../../src/api/errors';
import type { ChatCompletionRequest } from '../../src/api/types';
import { ask, type AnswerEvent } from '../../src/chat/core/answerStream';
import { drain, useEmulator } from './harness';
import { sseHead, startRawServer, type RawServer } from './rawServer';

const TOOL = { type: 'function' as const, function: { name: 'lookup_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

/** The events of one answer, without the error objects behind a failure (they differ by class, not by what the user sees). */
async function answerEvents(client: KsmClient, body: ChatCompletionRequest): Promise<AnswerEvent[]> {
  const events: AnswerEvent[] = [];
  for await (const event of ask(client, { kind: 'chat', body }, new AbortController().signal)) {
    if (event.type === 'finished' && event.error) events.push({ ...event, error: { message: event.error.message, retryable: event.error.retryable } });
    else events.push(event);
  }
  return events;
}

/** Text and reasoning joined (how the pieces are cut may differ between formats), everything else in order. */
function normalized(events: AnswerEvent[]) {
  return {
    text: events
      .filter((e) => e.type === 'text')
      .map((e) => (e as { text: string }).text)
      .join(''),
    reasoning: events
      .filter((e) => e.type === 'reasoning')
      .map((e) => (e as { text: string }).text)
      .join(''),
    rest: events.filter((e) => e.type !== 'text' && e.type !== 'reasoning'),
  };
}

describe('api: the Responses output format against the emulator', () => {
  const h = useEmulator({ responseWords: 40 });
  const base = (content: string, extra: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest => ({ model: 'emu-chat', messages: [{ role: 'user', content }], seed: 7, ...extra });

  for (const [title, request] of [
    ['a plain answer', base('tell me about tides')],
    ['a reasoning model (reasoning items)', base('why is the sky blue', { model: 'emu-reasoner', reasoning: { effort: 'low' } })],
    ['a tool call with its arguments in pieces', base('use lookup_weather for "Paris"', { tools: [TOOL] })],
    ['an answer cut at max tokens (response.incomplete)', base('write at length about rivers', { max_completion_tokens: 5 })],
  ] as const) {
    it(`streams the same answer events as the chat format: ${title}`, async () => {
      const chat = await answerEvents(h.client(), request);
      const responses = await answerEvents(h.client(), { ...request, output_parser: 'responses' });
      assert.deepEqual(normalized(responses), normalized(chat));
      assert.ok(normalized(chat).text.length > 0 || chat.some((e) => e.type === 'toolCall'), 'the answer has content');
    });
  }

  it('reads the plain Response object into the same completion as the chat format', async () => {
    for (const request of [base('hello plain'), base('think plain', { model: 'emu-reasoner', reasoning: { effort: 'low' } }), base('use lookup_weather for "Oslo"', { tools: [TOOL] })]) {
      const chat = await h.client().createChatCompletion(request);
      const responses = await h.client().createChatCompletion({ ...request, output_parser: 'responses' });
      assert.equal(responses.outputFormat, 'responses');
      assert.deepEqual(responses.choices[0].message.content, chat.choices[0].message.content);
      assert.deepEqual(responses.choices[0].message.reasoning_content, chat.choices[0].message.reasoning_content);
      assert.deepEqual(responses.choices[0].message.tool_calls ?? [], chat.choices[0].message.tool_calls ?? []);
      assert.equal(responses.choices[0].finish_reason, chat.choices[0].finish_reason);
      assert.deepEqual(responses.usage, chat.usage);
    }
  });

  it('a Responses stream cut before response.completed is a broken answer, its text kept', async () => {
    h.emulator.faults.add({ kind: 'no-terminator', path: '/v3/chat/completions' });
    const events = await answerEvents(h.client(), { ...base('cut me'), output_parser: 'responses' });
    const end = events.at(-1)!;
    assert.equal(end.type, 'finished');
    assert.equal((end as { reason: string }).reason, 'cut-off');
    assert.ok(normalized(events).text.length > 0);
  });

  it("an error mid-stream ends the answer as an error naming the service's message", async () => {
    h.emulator.faults.add({ kind: 'stream-error', path: '/v3/chat/completions', afterEvents: 8, code: 503, message: 'upstream unavailable' });
    const { items, error } = await drain(h.client().streamChatCompletion({ ...base('fail me'), output_parser: 'responses' }));
    assert.ok(error instanceof StreamError, String(error));
    assert.match((error as Error).message, /upstream unavailable/);
    assert.ok(items.length > 0, 'what arrived before the error was yielded');
  });
});

// ---- Hand-written raw streams, from OpenAI's published Responses streaming events ----

type Fields = Record<string, unknown>;
const RESPONSE = { id: 'resp_1', object: 'response', created_at: 1700000000, model: 'm', status: 'in_progress', output: [] };
const USAGE = { input_tokens: 11, output_tokens: 22, output_tokens_details: { reasoning_tokens: 5 }, total_tokens: 33 };

/** `event:` + `data:` lines; `dataOnly` leaves the event line out (the type is in the data). */
function sse(events: Array<[string, Fields]>, options: { dataOnly?: boolean } = {}): string {
  return events.map(([type, fields], i) => `${options.dataOnly ? '' : `event: ${type}\n`}data: ${JSON.stringify({ type, sequence_number: i, ...fields })}\n\n`).join('');
}

/** The content of the raw streams: reasoning summary, text with a file annotation, a function call with its arguments in three pieces. */
const FULL: Array<[string, Fields]> = [
  ['response.created', { response: RESPONSE }],
  ['response.in_progress', { response: RESPONSE }],
  ['response.output_item.added', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }],
  ['response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'Think ' }],
  ['response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'first.' }],
  ['response.output_item.done', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Think first.' }] } }],
  ['response.output_item.added', { output_index: 1, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } }],
  ['response.content_part.added', { item_id: 'msg_1', output_index: 1, content_index: 0, part: { type: 'output_text', text: '' } }],
  ['response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Hello ' }],
  ['response.some_future_event', { whatever: true }],
  ['response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'world [1].' }],
  [
    'response.output_text.annotation.added',
    { item_id: 'msg_1', output_index: 1, content_index: 0, annotation_index: 0, annotation: { type: 'file_citation', file_id: 'f-1', filename: 'guide.md', index: 11 } },
  ],
  [
    'response.output_text.annotation.added',
    { item_id: 'msg_1', output_index: 1, content_index: 0, annotation_index: 1, annotation: { type: 'url_citation', url: 'https://example.com', title: 'x', start_index: 0, end_index: 1 } },
  ],
  ['response.output_text.done', { item_id: 'msg_1', output_index: 1, content_index: 0, text: 'Hello world [1].' }],
  ['response.output_item.added', { output_index: 2, item: { id: 'fc_1', type: 'function_call', call_id: 'call_9', name: 'lookup_weather', arguments: '' } }],
  ['response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: '{"ci' }],
  ['response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: 'ty":"Pa' }],
  ['response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: 'ris"}' }],
  ['response.function_call_arguments.done', { item_id: 'fc_1', output_index: 2, arguments: '{"city":"Paris"}' }],
  ['response.output_item.done', { output_index: 2, item: { id: 'fc_1', type: 'function_call', call_id: 'call_9', name: 'lookup_weather', arguments: '{"city":"Paris"}' } }],
  ['response.completed', { response: { ...RESPONSE, status: 'completed', usage: USAGE } }],
];

/** The same content in the chat format (D13, D15). */
function chatStream(): string {
  const chunk = (delta: Fields, finish: string | null = null, usage: unknown = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], usage })}\n\n`;
  return [
    chunk({ role: 'assistant', content: '' }),
    chunk({ reasoning_content: 'Think ' }),
    chunk({ reasoning_content: 'first.' }),
    chunk({ content: 'Hello ' }),
    chunk({ content: 'world [1].' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'lookup_weather', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Pa' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'ris"}' } }] }),
    chunk({}, 'tool_calls', { prompt_tokens: 11, completion_tokens: 22, reasoning_tokens: 5, total_tokens: 33 }),
    'data: [DONE]\n\n',
  ].join('');
}

describe('api: hand-written Responses streams read as the chat format of the same content', () => {
  let raw: RawServer;
  let answer = '';
  before(async () => {
    raw = await startRawServer((_req, res: ServerResponse) => {
      sseHead(res);
      res.end(answer);
    });
  });
  after(() => raw.close());
  const client = () => new KsmClient({ baseUrl: raw.url, apiKey: async () => 'k-raw', retry: { retries: 0 } });
  const request = (format?: 'responses'): ChatCompletionRequest => ({ model: 'm', messages: [{ role: 'user', content: 'q' }], ...(format ? { output_parser: format } : {}) });
  const run = async (stream: string, format?: 'responses') => {
    answer = stream;
    return answerEvents(client(), request(format));
  };

  it('sends output_parser: "responses" on the wire', async () => {
    await run(sse(FULL), 'responses');
    assert.equal(JSON.parse(raw.requests.at(-1)!.body).output_parser, 'responses');
  });

  it('gives the same events: reasoning summary, text, a function call in pieces, usage, tool_calls; the file annotation as a citation', async () => {
    const chat = await run(chatStream());
    const responses = await run(sse(FULL), 'responses');
    const citations = responses.filter((e) => e.type === 'citations');
    assert.deepEqual(citations, [{ type: 'citations', citations: [{ fileId: 'f-1', filename: 'guide.md', volume: undefined, snippet: undefined, score: undefined, markers: [1] }] }]);
    assert.deepEqual(normalized(responses.filter((e) => e.type !== 'citations')), normalized(chat));
    assert.deepEqual(responses.at(-1), { type: 'finished', reason: 'done', finishReason: 'tool_calls' });
  });

  it('reads data-only events (the type in the data), and ends without [DONE]', async () => {
    const withDone = await run(`${sse(FULL)}data: [DONE]\n\n`, 'responses');
    const dataOnly = await run(sse(FULL, { dataOnly: true }), 'responses');
    assert.deepEqual(dataOnly, withDone);
  });

  it('response.incomplete (max_output_tokens) is a length end with the text kept', async () => {
    const events = await run(
      sse([...FULL.slice(0, 9), ['response.incomplete', { response: { ...RESPONSE, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: USAGE } }]]),
      'responses',
    );
    assert.equal(normalized(events).text, 'Hello ');
    assert.deepEqual(events.at(-1), { type: 'finished', reason: 'length', finishReason: 'length' });
  });

  it("response.failed and an error event end the answer as an error with the service's message", async () => {
    const failed = await run(
      sse([...FULL.slice(0, 9), ['response.failed', { response: { ...RESPONSE, status: 'failed', error: { code: 'server_error', message: 'the model crashed' } } }]]),
      'responses',
    );
    assert.equal(normalized(failed).text, 'Hello ');
    const end = failed.at(-1) as Extract<AnswerEvent, { type: 'finished' }>;
    assert.equal(end.reason, 'error');
    assert.match(end.error!.message, /the model crashed/);
    const errored = await run(sse([...FULL.slice(0, 9), ['error', { code: '503', message: 'overloaded', param: null }]]), 'responses');
    const errorEnd = errored.at(-1) as Extract<AnswerEvent, { type: 'finished' }>;
    assert.equal(errorEnd.reason, 'error');
    assert.match(errorEnd.error!.message, /overloaded/);
  });

  it('a stream cut without response.completed is broken, not finished, even after [DONE]', async () => {
    for (const cut of [sse(FULL.slice(0, 11)), `${sse(FULL.slice(0, 11))}data: [DONE]\n\n`]) {
      const events = await run(cut, 'responses');
      assert.equal(normalized(events).text, 'Hello world [1].');
      assert.equal((events.at(-1) as { reason: string }).reason, 'cut-off');
    }
    answer = sse(FULL.slice(0, 11));
    const { error } = await drain(client().streamChatCompletion(request('responses')));
    assert.ok(error instanceof StreamCutOffError);
  });

  it('a server that ignores output_parser and answers in the chat format is read as the chat format', async () => {
    assert.deepEqual(await run(chatStream(), 'responses'), await run(chatStream()));
  });

  it('a function call whose arguments come only whole (at done) is still complete', async () => {
    const whole = FULL.filter(([type]) => type !== 'response.function_call_arguments.delta');
    const events = await run(sse(whole), 'responses');
    assert.deepEqual(
      events.filter((e) => e.type === 'toolCall'),
      [{ type: 'toolCall', callId: 'call_9', name: 'lookup_weather', arguments: '{"city":"Paris"}' }],
    );
  });
});
