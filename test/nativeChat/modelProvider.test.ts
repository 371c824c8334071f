// VS Code's Chat on KSM models, through the vscode-free core and real HTTP against the
// emulator: the part mapping (text, tool call, tool result round trip), streaming,
// cancellation on the wire, the panel's error sentences, agent threads across turns, and
// token counts from a real tokenizer.
import { strict as assert } from 'node:assert';
import type { ChatMessage } from '../../src/api/types';
import { toServiceMessages, type NeutralMessage } from '../../src/nativeChat/core/messageMapping';
import { findModel, modelCatalog, type CatalogSettings, type KsmModelEntry } from '../../src/nativeChat/core/modelCatalog';
import { provideModelResponse, sourcesText, type ResponsePart } from '../../src/nativeChat/core/modelResponse';
import { ThreadBook } from '../../src/nativeChat/core/threadBook';
import { countMessageTokens, countTextTokens } from '../../src/nativeChat/core/tokenCount';
import { TOOL_INPUT_SCHEMAS, TOOL_NAMES } from '../../src/nativeChat/core/volumeTools';
import { ask } from '../../src/chat/core/answerStream';
import { drain, nextEvent, useEmulator, type Harness } from '../api/harness';

const CATALOG: CatalogSettings = { show: true, models: ['emu-chat', 'emu-reasoner'], agentId: 'rag-agent', agentModel: 'emu-chat' };
const chatModel = findModel(CATALOG, 'emu-chat')!;
const agentModel = findModel(CATALOG, 'agent:rag-agent')!;
const user = (text: string): NeutralMessage => ({ role: 'user', parts: [{ kind: 'text', text }] });
const assistant = (text: string): NeutralMessage => ({ role: 'assistant', parts: [{ kind: 'text', text }] });
const SEARCH_TOOL = { name: TOOL_NAMES.search, description: 'search', inputSchema: TOOL_INPUT_SCHEMAS[TOOL_NAMES.search] };

async function respond(
  h: Harness,
  model: KsmModelEntry,
  messages: NeutralMessage[],
  extra: { tools?: (typeof SEARCH_TOOL)[]; threads?: ThreadBook; signal?: AbortSignal; client?: ReturnType<Harness['client']> } = {},
) {
  const parts: ResponsePart[] = [];
  const outcome = await provideModelResponse({
    service: extra.client ?? h.client(),
    model,
    messages,
    tools: extra.tools,
    language: 'en',
    volumes: [],
    threads: extra.threads ?? new ThreadBook(),
    signal: extra.signal ?? new AbortController().signal,
    report: (part) => parts.push(part),
  });
  const text = parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
  return { parts, text, outcome };
}

/** The emulator's stored threads holding `query` (D17, read from its store). */
async function threadsWith(h: Harness, query: string): Promise<Array<{ turns: Array<{ query: string }> }>> {
  return (await h.emulator.readThreads()).filter((t) => t.turns.some((turn) => turn.query === query));
}

describe('vscode chat core: the message mapping', () => {
  it('maps text, tool calls and tool results to the service messages (D15), tool results right after their call', () => {
    const messages: NeutralMessage[] = [
      { role: 'system', parts: [{ kind: 'text', text: 'Be brief.' }] },
      user('Find the checklist'),
      {
        role: 'assistant',
        parts: [
          { kind: 'text', text: 'Searching.' },
          { kind: 'toolCall', callId: 'call_1', name: 'ksm_search_volumes', input: { query: 'checklist' } },
        ],
      },
      {
        role: 'user',
        parts: [
          { kind: 'toolResult', callId: 'call_1', text: 'Found 1 passage' },
          { kind: 'text', text: 'Summarise it.' },
        ],
      },
      { role: 'assistant', parts: [{ kind: 'toolCall', callId: 'call_2', name: 'ksm_list_files', input: {} }] },
      { role: 'user', parts: [{ kind: 'toolResult', callId: 'call_2', text: 'no files' }] },
    ];
    const expected: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Find the checklist' },
      { role: 'assistant', content: 'Searching.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ksm_search_volumes', arguments: '{"query":"checklist"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Found 1 passage' },
      { role: 'user', content: 'Summarise it.' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'ksm_list_files', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_2', content: 'no files' },
    ];
    assert.deepEqual(toServiceMessages(messages), expected);
  });

  it('lists every ksm.chat.models entry plus the agent, and nothing when the picker setting is off', () => {
    assert.deepEqual(
      modelCatalog(CATALOG).map((m) => [m.id, m.kind, m.toolCalling]),
      [
        ['emu-chat', 'chat', true],
        ['emu-reasoner', 'chat', true],
        ['agent:rag-agent', 'agent', false],
      ],
    );
    assert.deepEqual(modelCatalog({ ...CATALOG, show: false }), []);
    assert.equal(modelCatalog({ ...CATALOG, models: [], agentModel: '' }).length, 0, 'no agent entry without a model to answer with');
  });
});

describe('vscode chat core: KSM models answering over HTTP', () => {
  const h = useEmulator({ responseWords: 40, tokenDelayMs: 2 });

  it('streams a chat model answer as many text parts, in order, equal to the service answer', async () => {
    const { parts, text, outcome } = await respond(h, chatModel, [user('What is a lamp?')]);
    assert.ok(parts.length > 5, `the answer arrived in pieces, not at the end (${parts.length} parts)`);
    assert.ok(parts.every((p) => p.kind === 'text'));
    assert.match(text, /^You asked: "What is a lamp\?"/);
    assert.equal(outcome.finishReason, 'stop');
  });

  it('round-trips a tool call: the call comes back as a tool call part, its result goes out as role tool and is answered', async () => {
    const question = user('Use ksm_search_volumes to find "release checklist"');
    const first = await respond(h, chatModel, [question], { tools: [SEARCH_TOOL] });
    const calls = first.parts.filter((p) => p.kind === 'toolCall');
    assert.equal(calls.length, 1, 'one tool call part');
    const call = calls[0] as Extract<ResponsePart, { kind: 'toolCall' }>;
    assert.equal(call.name, TOOL_NAMES.search);
    assert.equal((call.input as { query: string }).query, 'release checklist', 'arguments arrive parsed into an object');
    assert.equal(first.outcome.finishReason, 'tool_calls');

    const history: NeutralMessage[] = [
      question,
      { role: 'assistant', parts: [call] },
      { role: 'user', parts: [{ kind: 'toolResult', callId: call.callId, text: 'Found 1 passage(s): [1] release-process.md (volume: My files)' }] },
    ];
    const second = await respond(h, chatModel, history, { tools: [SEARCH_TOOL] });
    assert.equal(second.parts.filter((p) => p.kind === 'toolCall').length, 0);
    assert.match(second.text, /The tool ksm_search_volumes answered: Found 1 passage\(s\): \[1\] release-process\.md/, 'the service matched the result to its call by id');
  });

  it('never sends a private key another participant put in the messages (a #file, a read_file tool result): cut out, and the answer says so', async () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ==\n-----END OPENSSH PRIVATE KEY-----';
    const question = user(`What is this file?\n${key}`);
    const chat = await respond(h, chatModel, [question]);
    assert.ok(chat.text.startsWith('(KSM left 1 private key(s) out of this request: private keys are never sent.)\n\n'), chat.text);
    assert.match(chat.text, /You asked: "What is this file\?\s\[a private key was left out: private keys are never sent\]"/, 'the service saw the note, not the key');
    assert.ok(!chat.text.includes('b3BlbnNz'), chat.text);
    // A tool's result (Copilot's read_file of ~/.ssh/id_ed25519, say) is cut the same way.
    const call = { kind: 'toolCall' as const, callId: 'call_1', name: 'read_file', input: { path: 'id_ed25519' } };
    const viaTool = await respond(h, chatModel, [user('Read my key'), { role: 'assistant', parts: [call] }, { role: 'user', parts: [{ kind: 'toolResult', callId: 'call_1', text: key }] }], {
      tools: [{ name: 'read_file', description: 'read', inputSchema: { type: 'object', properties: {} } }] as never,
    });
    assert.ok(!viaTool.text.includes('b3BlbnNz'), viaTool.text);
    assert.match(viaTool.text, /^\(KSM left 1 private key/);
    // The agent model: the thread the service stored holds no key.
    const agent = await respond(h, agentModel, [user(`Whose key is this?\n${key}`)]);
    assert.match(agent.text, /^\(KSM left 1 private key/);
    const threads = (await h.emulator.readThreads()).filter((t) => t.turns.some((turn) => turn.query.startsWith('Whose key is this?')));
    assert.equal(threads.length, 1);
    assert.ok(
      threads[0]!.turns.every((turn) => !turn.query.includes('b3BlbnNz')),
      'the stored query has no key',
    );
  });

  it('aborts on the wire when VS Code cancels: the emulator sees the stream closed, the answer ends as stopped', async () => {
    const controller = new AbortController();
    const aborted = nextEvent(h.emulator, 'stream-aborted');
    const before = h.emulator.stats.abortedStreams;
    const parts: ResponsePart[] = [];
    const outcome = await provideModelResponse({
      service: h.client(),
      model: chatModel,
      messages: [user('Tell me a long story')],
      language: 'en',
      volumes: [],
      threads: new ThreadBook(),
      signal: controller.signal,
      report: (part) => {
        parts.push(part);
        if (parts.length === 2) controller.abort();
      },
    });
    await aborted;
    assert.equal(outcome.stopped, true);
    assert.equal(h.emulator.stats.abortedStreams, before + 1);
    assert.ok(parts.length < 20, 'no text after the stop');
  });

  it('fails with the panel\u2019s sentences and never shows the key', async () => {
    const wrongKey = 'sk-wrong-key-1234567890';
    const wrongKeyClient = h.client({ apiKey: async () => wrongKey });
    // What the chat engine (and so the panel) says for the same failure of the same call.
    const { items } = await drain(ask(wrongKeyClient, { kind: 'chat', body: { model: 'emu-chat', messages: [{ role: 'user', content: 'hi' }] } }, new AbortController().signal));
    const panel = (items.at(-1) as { error?: { message: string } }).error?.message;
    assert.ok(panel);
    await assert.rejects(respond(h, chatModel, [user('hi')], { client: wrongKeyClient }), (e: Error) => {
      assert.equal(e.message, panel);
      assert.match(e.message, /API key.*Set API Key/);
      assert.ok(!e.message.includes(wrongKey));
      return true;
    });
    const unknown: KsmModelEntry = { ...chatModel, id: 'no-such-model', serviceModel: 'no-such-model' };
    await assert.rejects(respond(h, unknown, [user('hi')]), /Pick another model\.$/);
    h.emulator.faults.add({ kind: 'stream-error', path: '/v3/chat/completions', afterEvents: 3, code: 503, message: 'upstream unavailable' });
    await assert.rejects(respond(h, chatModel, [user('hi')]), /The service reported an error during the answer \(503\): upstream unavailable/);
    h.emulator.faults.add({ kind: 'no-terminator', path: '/v3/chat/completions', afterEvents: 3 });
    await assert.rejects(respond(h, chatModel, [user('hi')]), /The answer was cut off/);
  });

  it('answers as the agent and keeps one server thread across turns of the same VS Code conversation', async () => {
    const path = h.file('lamps.md', '# Lamps\n\nThe lamp inventory lists brass lamps and desk lamps for the office.\n');
    const client = h.client();
    await client.uploadFiles({ volume: `{${h.emulator.userId}}`, embedding: 'emu-embed', doChunking: 1, files: [{ path }] });
    await h.emulator.waitForIdle();
    const threads = new ThreadBook();

    const first = await respond(h, agentModel, [user('What does the lamp inventory list?')], { threads });
    assert.match(first.text, /lamps\.md/);
    assert.match(first.text, /Sources:\n1\. lamps\\\.md \(volume \\\{/, 'citations follow the answer as a Sources list (names escaped as Markdown text)');
    assert.ok(first.outcome.threadId);

    const conversation = [user('What does the lamp inventory list?'), assistant(first.text), user('And which lamps are brass?')];
    const second = await respond(h, agentModel, conversation, { threads });
    assert.equal(second.outcome.threadId, first.outcome.threadId, 'the follow-up continued the same thread');
    assert.match(second.text, /^\(Turn 2 of this thread/);
    // The emulator writes a turn just after it sent `done`: poll briefly for the second one.
    let stored = await threadsWith(h, 'What does the lamp inventory list?');
    for (let i = 0; i < 50 && stored[0]?.turns.length !== 2; i++) {
      await new Promise((r) => setTimeout(r, 20));
      stored = await threadsWith(h, 'What does the lamp inventory list?');
    }
    assert.equal(stored.length, 1, 'the emulator holds one thread for both turns, not two');
    assert.deepEqual(
      stored[0]!.turns.map((t) => t.query),
      ['What does the lamp inventory list?', 'And which lamps are brass?'],
    );

    const fresh = await respond(h, agentModel, [user('And which lamps are brass?')], { threads });
    assert.notEqual(fresh.outcome.threadId, first.outcome.threadId, 'another conversation gets its own thread');
  });

  it('asks again in a new thread when the server forgot the remembered one', async () => {
    const threads = new ThreadBook();
    const history = [user('first')];
    threads.remember([...history, assistant('old answer')], 'thr_forgotten');
    const { text, outcome } = await respond(h, agentModel, [...history, assistant('old answer'), user('second')], { threads });
    assert.ok(outcome.threadId && outcome.threadId !== 'thr_forgotten');
    assert.doesNotMatch(text, /Turn 2/);
  });

  it('counts tokens with a real BPE tokenizer, not length / 4', async () => {
    assert.equal(await countTextTokens('hello world'), 2);
    assert.equal(await countTextTokens('antidisestablishmentarianism'), 6);
    const message: NeutralMessage = {
      role: 'assistant',
      parts: [
        { kind: 'text', text: 'hello world' },
        { kind: 'toolCall', callId: 'c', name: 'ksm_list_files', input: {} },
      ],
    };
    assert.equal(await countMessageTokens(message), 3 + 2 + (await countTextTokens('ksm_list_files')) + (await countTextTokens('{}')));
  });
});

describe('vscode chat core: the agent model\u2019s Sources list shows file names as text', () => {
  it('escapes a hostile file name and volume: no link, image, heading, extra line or bidi control', () => {
    const text = sourcesText([
      { fileId: 'f1', filename: '[Verify your account](https://evil.example)\n# Done ![x](https://evil.example/p.png)\u202E', volume: 'docs\n2. forged.md', chunkIndex: 0 },
      { fileId: 'f2', filename: 'guide.md', volume: 'docs' },
    ]);
    assert.equal(/(?<!\\)\[[^\]]*(?<!\\)\]\(/.exec(text), null, text);
    assert.ok(!text.includes('\u202E'), text);
    assert.deepEqual(
      text
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.slice(0, 3)),
      ['1. ', '2. '],
      `one line per file: ${text}`,
    );
  });
});
