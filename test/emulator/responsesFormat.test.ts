// D16: with `output_parser: "responses"` the emulator answers in OpenAI's Responses interface
// format. The official `openai` package reads it: its Responses stream helper accumulates
// every event into a typed `Response` (it throws on an event out of order, an unknown output
// index or a content part of the wrong type) and its plain call returns a typed `Response`.
// The package's requests go to `/responses` with `input`; a small fetch adapter sends them
// to the completions endpoint with `messages` and `output_parser`, and changes nothing back.
import { strict as assert } from 'node:assert';
import OpenAI from 'openai';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { readSse, useFreshEmulator } from './support';

describe('emulator: the Responses output format read by the official openai package', () => {
  const s = useFreshEmulator({ responseWords: 30 });

  function openai(): OpenAI {
    const fetchToCompletions: typeof fetch = async (url, init) => {
      const body = JSON.parse(String(init?.body)) as { model: string; input: string; stream?: boolean; reasoning?: unknown; tools?: unknown[] };
      const request = {
        model: body.model,
        messages: [{ role: 'user', content: body.input }],
        stream: body.stream ?? false,
        output_parser: 'responses',
        ...(body.reasoning ? { reasoning: body.reasoning } : {}),
        ...(body.tools ? { tools: body.tools } : {}),
      };
      assert.match(String(url), /\/responses$/);
      return fetch(`${s.emu.url}/v3/chat/completions`, { ...init, body: JSON.stringify(request) });
    };
    return new OpenAI({ baseURL: `${s.emu.url}/v3`, apiKey: s.emu.apiKey, maxRetries: 0, fetch: fetchToCompletions });
  }

  it('streams events the openai Responses stream helper accumulates into a completed Response, reasoning item first', async () => {
    const stream = openai().responses.stream({ model: 'emu-reasoner', input: 'why do tides happen', reasoning: { effort: 'low' } });
    const types: Array<ResponseStreamEvent['type']> = [];
    let text = '';
    let reasoning = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.reasoning_summary_text.delta') reasoning += event.delta;
    }
    const final: Response = await stream.finalResponse();
    assert.equal(final.status, 'completed');
    assert.equal(types[0], 'response.created');
    assert.equal(types.at(-1), 'response.completed');
    assert.deepEqual(
      final.output.map((item) => item.type),
      ['reasoning', 'message'],
    );
    assert.match(text, /why do tides happen/);
    const message = final.output.find((item) => item.type === 'message');
    assert.ok(message && message.type === 'message');
    assert.equal(message.content.map((part) => (part.type === 'output_text' ? part.text : '')).join(''), text);
    assert.ok(reasoning.length > 0);
    assert.ok((final.usage?.output_tokens_details.reasoning_tokens ?? 0) > 0);
    assert.equal(final.usage?.total_tokens, (final.usage?.input_tokens ?? 0) + (final.usage?.output_tokens ?? 0));
  });

  it('streams a function call the helper assembles from its argument pieces', async () => {
    const tool = { type: 'function' as const, name: 'lookup_weather', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
    // The completions endpoint takes the chat format's tool shape; the adapter passes tools as given.
    const chatTool = { type: 'function', function: { name: tool.name, parameters: tool.parameters } };
    const stream = openai().responses.stream({ model: 'emu-chat', input: 'use lookup_weather for "Paris"', tools: [chatTool as never] });
    const final = await stream.finalResponse();
    const call = final.output.find((item) => item.type === 'function_call');
    assert.ok(call && call.type === 'function_call');
    assert.equal(call.name, 'lookup_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
  });

  it('answers a plain Response the package reads (output_text, usage); no [DONE] in the stream, a sequence_number on every event', async () => {
    const response = await openai().responses.create({ model: 'emu-chat', input: 'hello responses' });
    assert.equal(response.object, 'response');
    assert.equal(response.status, 'completed');
    assert.match(response.output_text, /hello responses/);
    const { messages } = await readSse(s.emu, '/v3/chat/completions', { model: 'emu-chat', messages: [{ role: 'user', content: 'x' }], stream: true, output_parser: 'responses' });
    assert.ok(messages.every((m) => m.data !== '[DONE]'));
    const sequence = messages.map((m) => (JSON.parse(m.data) as { sequence_number: number }).sequence_number);
    assert.deepEqual(
      sequence,
      sequence.map((_, i) => i),
    );
    assert.ok(
      messages.every((m) => m.event === (JSON.parse(m.data) as { type: string }).type),
      'every event names its type on the event: line',
    );
  });

  it('ends an answer cut at max tokens with response.incomplete (max_output_tokens)', async () => {
    const { messages } = await readSse(s.emu, '/v3/chat/completions', {
      model: 'emu-chat',
      messages: [{ role: 'user', content: 'write at length about rivers' }],
      stream: true,
      output_parser: 'responses',
      max_completion_tokens: 5,
    });
    const last = JSON.parse(messages.at(-1)!.data) as Extract<ResponseStreamEvent, { type: 'response.incomplete' }>;
    assert.equal(last.type, 'response.incomplete');
    assert.equal(last.response.incomplete_details?.reason, 'max_output_tokens');
  });
});
