// D17–D20: the rag-agent, its validation, retrieval, events and threads.
import { strict as assert } from 'node:assert';
import { assertErrorBody, call, readSse, upload, useFreshEmulator } from './support';

const PATH = '/v1/apps/chat-messages';
const ask = (query: string, extra: Record<string, unknown> = {}) => ({ agent_id: 'rag-agent', query, context: { model: 'emu-chat' }, ...extra });

describe('emulator: rag-agent', () => {
  const s = useFreshEmulator({ apiKeys: { 'key-dev': 'dev', 'key-bob': 'bob' } });
  const files: Record<string, string> = {};

  before(async () => {
    const [lamps] = await upload(s.emu, '{dev}', [{ name: 'lamps.md', content: 'Street lamps in the old town switch on at dusk. The lamps use sodium bulbs.' }], 1);
    const [ferry, bread] = await upload(
      s.emu,
      'team',
      [
        { name: 'ferry.txt', content: 'The harbour ferry leaves every forty minutes from pier seven.' },
        { name: 'bread.txt', content: 'Sourdough bread needs a starter fed with flour and water.' },
      ],
      1,
    );
    const [hidden] = await upload(s.emu, '{dev}', [{ name: 'ferry-draft.txt', content: 'The harbour ferry draft timetable.' }], 2);
    Object.assign(files, { lamps: lamps.uuid, ferry: ferry.uuid, bread: bread.uuid, hidden: hidden.uuid });
    await s.emu.waitForIdle();
  });

  const invalid: Array<[string, Record<string, unknown>, number, string]> = [
    ['no agent_id', { agent_id: undefined }, 400, 'agent_id'],
    ['an unknown agent', { agent_id: 'sql-agent' }, 404, 'agent_id'],
    ['an empty query', { query: '  ' }, 400, 'query'],
    ['no context', { context: undefined }, 400, 'context.model'],
    ['no context.model', { context: {} }, 400, 'context.model'],
    ['an unknown context.model', { context: { model: 'gpt-9' } }, 404, 'context.model'],
    ['a string enable_thinking', { context: { model: 'emu-chat', enable_thinking: 'yes' } }, 400, 'context.enable_thinking'],
    ['context.tools not objects', { context: { model: 'emu-chat', tools: ['x'] } }, 400, 'context.tools'],
    ['a bad volume in context.volumes', { context: { model: 'emu-chat', volumes: ['bad name'] } }, 400, 'context.volumes[0]'],
    ["another user's personal volume", { context: { model: 'emu-chat', volumes: ['{bob}'] } }, 403, 'context.volumes[0]'],
    ['a string search_personal_volume', { context: { model: 'emu-chat', search_personal_volume: 'no' } }, 400, 'context.search_personal_volume'],
    ['files not an array', { files: 'x' }, 400, 'files'],
    ['a file without file_id', { files: [{ filename: 'a', size: 1 }] }, 400, 'files[0].file_id'],
    ['a file with a string size', { files: [{ file_id: 'a', filename: 'a', size: '1' }] }, 400, 'files[0].size'],
    ['an unknown file id', { files: [{ file_id: 'gone', filename: 'a', size: 1 }] }, 404, 'files[0].file_id'],
    ['a numeric thread_id', { thread_id: 5 }, 400, 'thread_id'],
    ['an unknown thread_id', { thread_id: 'thr_000000000000000000000000' }, 404, 'thread_id'],
    ['stream as a string', { stream: 'no' }, 400, 'stream'],
  ];
  for (const [label, patch, status, param] of invalid) {
    it(`${label} → ${status} param ${param}`, async () => {
      assertErrorBody(await call(s.emu, 'POST', PATH, { ...ask('hello'), ...patch }), status, param);
    });
  }

  it('streams D19 events: thread first, retrieval, message deltas, done last; every event carries thread_id', async () => {
    const { status, messages } = await readSse(s.emu, PATH, ask('When do the street lamps switch on?'));
    assert.equal(status, 200);
    const names = messages.map((m) => m.event);
    assert.equal(names[0], 'thread');
    assert.equal(names[1], 'retrieval');
    assert.equal(names[names.length - 1], 'done');
    assert.ok(names.slice(2, -1).every((n) => n === 'message'));
    const data = messages.map((m) => JSON.parse(m.data));
    const threadId = data[0].thread_id;
    assert.match(threadId, /^thr_/);
    assert.ok(data.every((d) => d.thread_id === threadId));
    assert.equal(data[0].agent_id, 'rag-agent');
    const citations = data[1].citations;
    assert.equal(citations[0].file_id, files.lamps);
    assert.equal(citations[0].filename, 'lamps.md');
    assert.equal(citations[0].volume, '{dev}');
    assert.equal(citations[0].chunk_index, 0);
    assert.ok(citations[0].score > 0 && citations[0].score <= 1);
    assert.match(citations[0].snippet, /switch on at dusk/);
    const text = data
      .slice(2, -1)
      .map((d) => d.delta)
      .join('');
    assert.match(text, /lamps\.md/);
    assert.match(text, /switch on at dusk/);
    const done = data[data.length - 1];
    assert.equal(done.status, 'stop');
    assert.equal(done.message_id, data[0].message_id);
    assert.equal(done.usage.total_tokens, done.usage.prompt_tokens + done.usage.completion_tokens);
  });

  it('enable_thinking adds reasoning events before the message', async () => {
    const { messages } = await readSse(s.emu, PATH, ask('street lamps bulbs', { context: { model: 'emu-chat', enable_thinking: true } }));
    const names = messages.map((m) => m.event).join(',');
    assert.match(names, /^thread,retrieval,(reasoning,)+(message,)+done$/);
    const done = JSON.parse(messages[messages.length - 1].data);
    assert.ok(done.usage.reasoning_tokens > 0);
  });

  it('searches the personal volume plus context.volumes, only done files, and only the given files when files is set (D18)', async () => {
    const personalOnly = await call(s.emu, 'POST', PATH, ask('harbour ferry pier', { stream: false }));
    assert.ok(!personalOnly.json.citations.some((c: any) => c.file_id === files.ferry), 'team volume not searched unless asked');
    assert.ok(!personalOnly.json.citations.some((c: any) => c.file_id === files.hidden), 'na (do_chunking=2) files are never found');
    const withTeam = await call(s.emu, 'POST', PATH, ask('harbour ferry pier', { stream: false, context: { model: 'emu-chat', volumes: ['team', 'never-made'] } }));
    assert.equal(withTeam.json.citations[0].file_id, files.ferry);
    const restricted = await call(
      s.emu,
      'POST',
      PATH,
      ask('harbour ferry pier', { stream: false, files: [{ file_id: files.bread, filename: 'bread.txt', size: 10 }], context: { model: 'emu-chat', volumes: ['team'] } }),
    );
    assert.ok(restricted.json.citations.every((c: any) => c.file_id === files.bread));
    const teamOnly = await call(s.emu, 'POST', PATH, ask('harbour ferry pier bread', { stream: false, context: { model: 'emu-chat', volumes: ['team'], search_personal_volume: false } }));
    assert.ok(teamOnly.json.citations.length > 0);
    assert.ok(
      teamOnly.json.citations.every((c: any) => c.volume === 'team'),
      'search_personal_volume: false leaves the personal volume out',
    );
  });

  it('answers that nothing was found when no file matches', async () => {
    const { json } = await call(s.emu, 'POST', PATH, ask('quantum chromodynamics', { stream: false }));
    assert.deepEqual(json.citations, []);
    assert.match(json.content, /found nothing/);
  });

  it('answers an AIMessage when stream is false (D20)', async () => {
    const { status, json } = await call(s.emu, 'POST', PATH, ask('sodium bulbs', { stream: false, context: { model: 'emu-reasoner', enable_thinking: true } }));
    assert.equal(status, 200);
    assert.match(json.id, /^msg_/);
    assert.equal(json.object, 'agent.message');
    assert.equal(json.agent_id, 'rag-agent');
    assert.match(json.thread_id, /^thr_/);
    assert.equal(json.role, 'assistant');
    assert.equal(json.status, 'stop');
    assert.equal(typeof json.reasoning_content, 'string');
    assert.equal(json.citations[0].filename, 'lamps.md');
    assert.match(json.content, /sodium bulbs/);
    assert.equal(json.usage.total_tokens, json.usage.prompt_tokens + json.usage.completion_tokens);
  });

  it('continues a thread: the next turn sees the earlier question; another user or agent cannot use it (D17)', async () => {
    const first = await call(s.emu, 'POST', PATH, ask('How often does the ferry leave?', { stream: false, context: { model: 'emu-chat', volumes: ['team'] } }));
    const threadId = first.json.thread_id;
    assert.doesNotMatch(first.json.content, /Turn/);
    const { messages } = await readSse(s.emu, PATH, ask('And from which pier?', { thread_id: threadId, context: { model: 'emu-chat', volumes: ['team'] } }));
    const data = messages.map((m) => JSON.parse(m.data));
    assert.equal(data[0].thread_id, threadId);
    const text = data
      .filter((_, i) => messages[i].event === 'message')
      .map((d) => d.delta)
      .join('');
    assert.match(text, /Turn 2/);
    assert.match(text, /How often does the ferry leave\?/);
    const third = await call(s.emu, 'POST', PATH, ask('Thanks', { thread_id: threadId, stream: false }));
    assert.match(third.json.content, /Turn 3/);
    const bob = await call(s.emu, 'POST', PATH, ask('peek', { thread_id: threadId }), { key: 'key-bob' });
    assertErrorBody(bob, 404, 'thread_id');
  });
});
