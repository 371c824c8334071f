// D13–D15: the completion object, the chunk stream, and what the local responder obeys.
import { strict as assert } from 'node:assert';
import { encode } from 'gpt-tokenizer';
import OpenAI from 'openai';
import { call, readSse, useFreshEmulator } from './support';

const PATH = '/v3/chat/completions';
const ask = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'emu-chat', messages: [{ role: 'user', content }], ...extra });

function chunksOf(messages: Array<{ data: string }>): any[] {
  assert.equal(messages[messages.length - 1].data, '[DONE]', 'ends with data: [DONE]');
  return messages.slice(0, -1).map((m) => JSON.parse(m.data));
}

describe('emulator: chat completions', () => {
  const s = useFreshEmulator({ responseWords: 40 });

  it('answers a Chat Completion object: restates the question, usage counted with the tokenizer', async () => {
    const { status, json } = await call(s.emu, 'POST', PATH, ask('What is the capital of Mongolia?'));
    assert.equal(status, 200);
    assert.match(json.id, /^chatcmpl-/);
    assert.equal(json.object, 'chat.completion');
    assert.equal(json.model, 'emu-chat');
    assert.ok(Number.isInteger(json.created));
    const [choice] = json.choices;
    assert.equal(choice.index, 0);
    assert.equal(choice.finish_reason, 'stop');
    assert.equal(choice.message.role, 'assistant');
    assert.equal(choice.message.reasoning_content, null);
    assert.match(choice.message.content, /capital of Mongolia/);
    assert.equal(json.usage.completion_tokens, encode(choice.message.content).length);
    assert.ok(json.usage.prompt_tokens >= encode('What is the capital of Mongolia?').length);
    assert.equal(json.usage.total_tokens, json.usage.prompt_tokens + json.usage.completion_tokens);
    assert.equal(json.usage.reasoning_tokens, null);
  });

  it('streams chunks with one id/created, role first, finish_reason null until the last, usage only last, then [DONE] (D13)', async () => {
    const { status, messages } = await readSse(s.emu, PATH, ask('Tell me about tides', { stream: true }));
    assert.equal(status, 200);
    const chunks = chunksOf(messages);
    assert.ok(chunks.length > 5);
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1);
    assert.equal(new Set(chunks.map((c) => c.created)).size, 1);
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'emu-chat'));
    assert.equal(chunks[0].choices[0].delta.role, 'assistant');
    const last = chunks[chunks.length - 1];
    assert.ok(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null && c.usage === null));
    assert.equal(last.choices[0].finish_reason, 'stop');
    const text = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
    assert.match(text, /^You asked: "Tell me about tides"/);
    assert.equal(last.usage.completion_tokens, encode(text).length);
  });

  it('emu-reasoner streams reasoning_content before content and reports reasoning_tokens; effort changes its length', async () => {
    const { messages } = await readSse(s.emu, PATH, { ...ask('Why is the sky blue?', { stream: true }), model: 'emu-reasoner', reasoning: { effort: 'high' } });
    const chunks = chunksOf(messages);
    const kinds = chunks.map((c) => (c.choices[0].delta.reasoning_content ? 'r' : c.choices[0].delta.content ? 'c' : '-')).join('');
    assert.match(kinds, /^-r+c+-$/);
    const reasoning = chunks.map((c) => c.choices[0].delta.reasoning_content ?? '').join('');
    assert.equal(chunks[chunks.length - 1].usage.reasoning_tokens, encode(reasoning).length);
    const low = await call(s.emu, 'POST', PATH, { ...ask('Why is the sky blue?'), model: 'emu-reasoner', reasoning: { effort: 'low' } });
    assert.ok(low.json.choices[0].message.reasoning_content.length < reasoning.length);
    const budget = await call(s.emu, 'POST', PATH, { ...ask('Why is the sky blue?'), model: 'emu-reasoner', reasoning: { budget_tokens: 5 } });
    assert.equal(budget.json.usage.reasoning_tokens, 5);
  });

  it('max_completion_tokens cuts the answer with finish_reason length, streamed or not', async () => {
    const plain = await call(s.emu, 'POST', PATH, ask('Explain photosynthesis', { max_completion_tokens: 7 }));
    assert.equal(plain.json.choices[0].finish_reason, 'length');
    assert.equal(encode(plain.json.choices[0].message.content).length, 7);
    assert.equal(plain.json.usage.completion_tokens, 7);
    const chunks = chunksOf((await readSse(s.emu, PATH, ask('Explain photosynthesis', { max_completion_tokens: 7, stream: true }))).messages);
    assert.equal(chunks[chunks.length - 1].choices[0].finish_reason, 'length');
  });

  it('a stop sequence ends generation before it, with finish_reason stop', async () => {
    const { json } = await call(s.emu, 'POST', PATH, ask('alpha beta gamma', { stop: ['beta'] }));
    assert.equal(json.choices[0].message.content, 'You asked: "alpha ');
    assert.equal(json.choices[0].finish_reason, 'stop');
  });

  it('the same seed repeats the answer; no seed varies it; temperature 0 is repeatable', async () => {
    const body = ask('Describe the ocean floor in detail please', { seed: 42 });
    const a = (await call(s.emu, 'POST', PATH, body)).json.choices[0].message.content;
    const b = (await call(s.emu, 'POST', PATH, body)).json.choices[0].message.content;
    assert.equal(a, b);
    const unseeded = new Set<string>();
    for (let i = 0; i < 5; i++) unseeded.add((await call(s.emu, 'POST', PATH, ask('Describe the ocean floor in detail please'))).json.choices[0].message.content);
    assert.ok(unseeded.size > 1, 'different results without a seed');
    const t0 = ask('Describe the ocean floor in detail please', { temperature: 0 });
    assert.equal((await call(s.emu, 'POST', PATH, t0)).json.choices[0].message.content, (await call(s.emu, 'POST', PATH, t0)).json.choices[0].message.content);
  });

  it('a prompt about code gets a fenced code block', async () => {
    const { json } = await call(s.emu, 'POST', PATH, ask('Write a python function that adds numbers'));
    assert.match(json.choices[0].message.content, /```python\n[\s\S]+\n```/);
  });

  it('json_object answers valid JSON; json_schema answers JSON matching the schema (types, required, enum, nesting)', async () => {
    const object = await call(s.emu, 'POST', PATH, ask('give me json', { response_format: { type: 'json_object' } }));
    assert.equal(typeof JSON.parse(object.json.choices[0].message.content), 'object');
    const schema = {
      type: 'object',
      required: ['title', 'count', 'level', 'tags', 'owner'],
      properties: {
        title: { type: 'string', minLength: 3 },
        count: { type: 'integer', minimum: 5 },
        level: { type: 'string', enum: ['low', 'high'] },
        tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
        owner: { type: 'object', properties: { name: { type: 'string' }, active: { type: 'boolean' } }, required: ['name', 'active'] },
      },
    };
    for (const json_schema of [schema, { name: 'thing', schema, strict: true }]) {
      const { json } = await call(s.emu, 'POST', PATH, ask('Describe "Project Apollo"', { response_format: { type: 'json_schema', json_schema } }));
      const value = JSON.parse(json.choices[0].message.content);
      assert.equal(value.title, 'Project Apollo');
      assert.ok(Number.isInteger(value.count) && value.count >= 5);
      assert.ok(['low', 'high'].includes(value.level));
      assert.ok(Array.isArray(value.tags) && value.tags.length >= 2 && value.tags.every((t: unknown) => typeof t === 'string'));
      assert.equal(typeof value.owner.name, 'string');
      assert.equal(typeof value.owner.active, 'boolean');
    }
  });

  const weatherTool = {
    type: 'function',
    function: { name: 'get_weather', description: 'weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] } },
  };

  it('calls an offered tool the prompt names (D15), streamed with index/id/type/name first', async () => {
    const plain = await call(s.emu, 'POST', PATH, ask('Please get weather for "Oslo"', { tools: [weatherTool] }));
    const [choice] = plain.json.choices;
    assert.equal(choice.finish_reason, 'tool_calls');
    const [toolCall] = choice.message.tool_calls;
    assert.equal(toolCall.type, 'function');
    assert.equal(toolCall.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(toolCall.function.arguments), { city: 'Oslo', days: 1 });
    const chunks = chunksOf((await readSse(s.emu, PATH, ask('use get_weather for "Oslo"', { tools: [weatherTool], stream: true }))).messages);
    const pieces = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
    assert.deepEqual([pieces[0].index, pieces[0].type, pieces[0].function.name], [0, 'function', 'get_weather']);
    assert.ok(pieces[0].id);
    assert.deepEqual(JSON.parse(pieces.map((p) => p.function.arguments ?? '').join('')), { city: 'Oslo', days: 1 });
    assert.equal(chunks[chunks.length - 1].choices[0].finish_reason, 'tool_calls');
    const unrelated = await call(s.emu, 'POST', PATH, ask('What is a cloud?', { tools: [weatherTool] }));
    assert.equal(unrelated.json.choices[0].finish_reason, 'stop');
  });

  it('calls the tool named last, filled from the quotes after that mention (client instructions come first)', async () => {
    const editTool = { type: 'function', function: { name: 'edit_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } };
    const prompt = '<instructions>Prefer edit_file for "a.txt" changes.</instructions> <request>Use get_weather for "Oslo"</request>';
    const answer = await call(s.emu, 'POST', PATH, ask(prompt, { tools: [editTool, weatherTool] }));
    const [toolCall] = answer.json.choices[0].message.tool_calls;
    assert.equal(toolCall.function.name, 'get_weather');
    assert.equal(JSON.parse(toolCall.function.arguments).city, 'Oslo');
  });

  it('answers a tool result message by quoting it', async () => {
    const first = await call(s.emu, 'POST', PATH, ask('get_weather in "Oslo"', { tools: [weatherTool] }));
    const toolCall = first.json.choices[0].message.tool_calls[0];
    const { json } = await call(s.emu, 'POST', PATH, {
      model: 'emu-chat',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'get_weather in "Oslo"' },
        { role: 'assistant', content: null, tool_calls: [toolCall] },
        { role: 'tool', tool_call_id: toolCall.id, content: '{"temp": -3}' },
      ],
    });
    assert.equal(json.choices[0].finish_reason, 'stop');
    assert.match(json.choices[0].message.content, /get_weather answered: \{"temp": -3\}/);
  });

  it('the official openai client reads a plain and a streamed completion', async () => {
    const client = new OpenAI({ baseURL: `${s.emu.url}/v3`, apiKey: s.emu.apiKey, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'emu-chat', messages: [{ role: 'user', content: 'hello openai' }] });
    assert.match(completion.choices[0].message.content ?? '', /hello openai/);
    const stream = await client.chat.completions.create({ model: 'emu-reasoner', stream: true, messages: [{ role: 'user', content: 'hello stream' }] });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.match(text, /hello stream/);
    assert.equal(finish, 'stop');
    await assert.rejects(client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }), (error: any) => error.status === 404);
  });
});
