// The chat engine through its event interface only, against the emulator over real HTTP:
// `ask` (one request, no conversation: what VS Code's Chat uses) and `ChatEngine` (a whole
// conversation: chat and agent, stop, retry, continue, cut-off, the thread kept across
// turns, citations, and what is on disk when each event is reported). No webview or
// protocol type is imported here: the engine must be usable without the panel.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { KsmClient } from '../../src/api/client';
import { AuthenticationError } from '../../src/api/errors';
import { COMMAND } from '../../src/common/core/contributionIds';
import { ask, type AnswerEvent, type AnswerRequest } from '../../src/chat/core/answerStream';
import { ChatEngine, CONTINUE_PROMPT, type ChatEngineEvent } from '../../src/chat/core/chatEngine';
import type { ModelOptions, StoredConversation } from '../../src/chat/core/conversationModel';
import { ConversationStore } from '../../src/chat/core/conversationStore';

const options: ModelOptions = { models: ['emu-chat', 'emu-reasoner'], reasoningModels: ['emu-reasoner'], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat' };
const quietLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

type Finished = Extract<AnswerEvent, { type: 'finished' }>;

describe('chat engine: answer events against the emulator', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let apiKey: string;

  const client = () => new KsmClient({ baseUrl: emulator.url, apiKey: async () => apiKey });
  const chat = (content: string, extra: Partial<Extract<AnswerRequest, { kind: 'chat' }>['body']> = {}): AnswerRequest => ({
    kind: 'chat',
    body: { model: 'emu-chat', messages: [{ role: 'user', content }], ...extra },
  });
  const agent = (query: string, threadId: string | null = null): AnswerRequest => ({
    kind: 'agent',
    body: { agent_id: 'rag-agent', thread_id: threadId, query, context: { model: 'emu-chat', volumes: [] } },
  });
  async function collect(request: AnswerRequest, signal = new AbortController().signal): Promise<{ events: AnswerEvent[]; text: string; finished: Finished }> {
    const events: AnswerEvent[] = [];
    for await (const event of ask(client(), request, signal)) events.push(event);
    const finished = events.at(-1);
    assert.equal(finished?.type, 'finished', 'every answer ends in exactly one finished event');
    assert.equal(events.filter((e) => e.type === 'finished').length, 1);
    return { events, text: textOf(events), finished: finished as Finished };
  }

  /** The questions the emulator stored on a thread (it commits a turn before its `done`; the wait covers an answer still ending). */
  async function threadQueries(threadId: string, count: number): Promise<string[]> {
    for (;;) {
      const queries = ((await emulator.readThread(threadId))?.turns ?? []).map((t) => t.query);
      if (queries.length >= count) return queries;
      await sleep(10);
    }
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-chat-engine-'));
    emulator = await startEmulator({ port: 0, dataDir: join(dir, 'emulator'), testControls: true, stepMs: 5, tokenDelayMs: 2, responseWords: 60 });
  });
  beforeEach(() => (apiKey = emulator.apiKey));
  afterEach(() => emulator.faults.clear());
  after(async () => {
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('ask: one request, no conversation', () => {
    it('streams a chat answer as text deltas, then usage, then finished{done, stop}', async () => {
      const { events, text, finished } = await collect(chat('Explain volumes to me'));
      assert.ok(events.filter((e) => e.type === 'text').length > 5, 'text arrives as many deltas, not one block');
      assert.ok(text.length > 50, text);
      const usage = events.find((e) => e.type === 'usage');
      assert.ok(usage && usage.usage.totalTokens > 0);
      assert.deepEqual(finished, { type: 'finished', reason: 'done', finishReason: 'stop' });
    });

    it('streams reasoning separately from the answer text for a reasoning model', async () => {
      const { events, text } = await collect(chat('Why is the sky blue?', { model: 'emu-reasoner', reasoning: { effort: 'low' } }));
      const reasoning = events
        .filter((e): e is Extract<AnswerEvent, { type: 'reasoning' }> => e.type === 'reasoning')
        .map((e) => e.text)
        .join('');
      assert.ok(reasoning.length > 0, 'reasoning arrived');
      assert.ok(text.length > 0 && !text.includes(reasoning), 'reasoning is not answer text');
    });

    it('reports the length cut as finished{length}', async () => {
      const { finished } = await collect(chat('Explain everything about volumes', { max_completion_tokens: 5 }));
      assert.equal(finished.reason, 'length');
      assert.equal(finished.finishReason, 'length');
    });

    it('assembles a streamed tool call into one toolCall event (D15)', async () => {
      const request = chat('Please use search_volumes to look for "zebra release"', {
        tools: [{ type: 'function', function: { name: 'search_volumes', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } }],
      });
      const { events, finished } = await collect(request);
      const calls = events.filter((e): e is Extract<AnswerEvent, { type: 'toolCall' }> => e.type === 'toolCall');
      assert.equal(calls.length, 1, JSON.stringify(events));
      assert.equal(calls[0].name, 'search_volumes');
      assert.match(calls[0].callId, /^call_/);
      assert.equal(typeof (JSON.parse(calls[0].arguments) as { query: unknown }).query, 'string');
      assert.equal(finished.reason, 'done');
      assert.equal(finished.finishReason, 'tool_calls');
    });

    it('stops on abort: the request is closed on the wire and the stream ends in finished{stopped}', async () => {
      const controller = new AbortController();
      const before = emulator.stats.abortedStreams;
      const aborted = once(emulator.events, 'stream-aborted');
      const events: AnswerEvent[] = [];
      for await (const event of ask(client(), chat('Write a very long essay about streaming'), controller.signal)) {
        events.push(event);
        if (event.type === 'text') controller.abort();
      }
      await aborted;
      assert.equal(emulator.stats.abortedStreams, before + 1);
      assert.deepEqual(events.at(-1), { type: 'finished', reason: 'stopped' });
      assert.ok(textOf(events).length > 0, 'the text before the stop was reported');
    });

    it('reports a connection reset mid-stream as finished{cut-off} with a retryable error, after the text that arrived', async () => {
      emulator.faults.add({ kind: 'reset', afterEvents: 6, path: '/v3/chat/completions' });
      const { text, finished } = await collect(chat('Tell me a long story'));
      assert.ok(text.length > 0);
      assert.equal(finished.reason, 'cut-off');
      assert.match(finished.error?.message ?? '', /cut off/);
      assert.equal(finished.error?.retryable, true);
      assert.equal(finished.error?.fix, undefined);
    });

    it("reports the service's stream error with its text, retryable", async () => {
      emulator.faults.add({ kind: 'stream-error', afterEvents: 5, code: 503, message: 'upstream model overloaded', path: '/v3/chat/completions' });
      const { finished } = await collect(chat('Hello there'));
      assert.equal(finished.reason, 'error');
      assert.match(finished.error?.message ?? '', /upstream model overloaded/);
      assert.equal(finished.error?.retryable, true);
    });

    it('reports a rejected key as an error whose one-click fix is Set API Key (errorFixes.ts), never echoing the key', async () => {
      apiKey = 'wrong-key-0123456789';
      const { events, finished } = await collect(chat('Hello'));
      assert.equal(finished.reason, 'error');
      assert.equal(finished.error?.fix?.action.command, COMMAND.setApiKey);
      assert.equal(finished.error?.retryable, false);
      assert.match(finished.error?.message ?? '', /Set your API key/);
      assert.ok(finished.error?.cause instanceof AuthenticationError);
      assert.ok(!JSON.stringify(events, (k, v: unknown) => (k === 'cause' ? undefined : v)).includes('wrong-key'), 'the key is in no event');
    });

    it('reports an unknown model as a non-retryable error that says to pick another model', async () => {
      const { finished } = await collect(chat('Hello', { model: 'no-such-model' }));
      assert.equal(finished.reason, 'error');
      assert.match(finished.error?.message ?? '', /Pick another model/);
      assert.equal(finished.error?.retryable, false);
      assert.equal(finished.error?.fix, undefined, 'no one-click fix: the user picks the model');
    });

    it('agent: reports the thread once, first; a second ask with that thread_id continues the same thread', async () => {
      const first = await collect(agent('What is in my files?'));
      const threads = first.events.filter((e): e is Extract<AnswerEvent, { type: 'thread' }> => e.type === 'thread');
      assert.equal(threads.length, 1);
      assert.equal(first.events[0].type, 'thread', 'the thread id comes before any text');
      const threadId = threads[0].threadId;
      assert.match(threadId, /^thr_/);
      assert.equal(first.finished.reason, 'done');
      assert.ok(first.text.length > 0);

      const second = await collect(agent('Tell me more', threadId));
      assert.equal(second.finished.reason, 'done');
      assert.deepEqual(await threadQueries(threadId, 2), ['What is in my files?', 'Tell me more'], 'the emulator saw both questions on one thread');
    });

    it('agent: a stream without its done event is cut off, keeping the thread it named', async () => {
      emulator.faults.add({ kind: 'no-terminator', afterEvents: 4, path: '/v1/apps/chat-messages' });
      const { events, finished } = await collect(agent('What is in my files?'));
      assert.equal(finished.reason, 'cut-off');
      assert.ok(events.some((e) => e.type === 'thread'));
    });

    it('agent: an unknown thread is a non-retryable error that says to start a new chat', async () => {
      const { finished } = await collect(agent('Hello again', 'thr_doesnotexist0000'));
      assert.equal(finished.reason, 'error');
      assert.match(finished.error?.message ?? '', /Start a new chat/);
      assert.equal(finished.error?.retryable, false);
    });
  });

  describe('ChatEngine: a whole conversation through subscribe', () => {
    let storeDir: string;
    let volumes: string[];
    beforeEach(() => {
      storeDir = mkdtempSync(join(dir, 'store-'));
      volumes = [];
    });

    const newEngine = (checkpointMs = 50) =>
      new ChatEngine(new ConversationStore(storeDir), { getService: client, getOptions: () => options, getVolumes: () => volumes, log: quietLog }, { checkpointMs });
    const onDisk = (id: string) => JSON.parse(readFileSync(join(storeDir, 'conversations', `${id}.json`), 'utf8')) as StoredConversation;

    /** Every event, and for each `finished` what the disk held at that moment. */
    function record(engine: ChatEngine) {
      const events: ChatEngineEvent[] = [];
      const diskAtFinish: StoredConversation[] = [];
      engine.subscribe((event) => {
        events.push(event);
        if (event.type === 'answer' && event.event.type === 'finished') diskAtFinish.push(onDisk(event.conversationId));
      });
      const answerEvents = (turnId: string) => events.flatMap((e) => (e.type === 'answer' && e.turnId === turnId ? [e.event] : []));
      return { events, diskAtFinish, answerEvents };
    }

    it('first run: a question before connecting says "not connected" with both ways to connect (not "No model is set"); after connecting, Retry takes the default model and answers', async () => {
      let connected = false;
      let current: ModelOptions = { models: [], reasoningModels: [], defaultModel: '', agentId: 'rag-agent', agentModel: '' };
      const engine = new ChatEngine(
        new ConversationStore(storeDir),
        { getService: client, getOptions: () => current, getVolumes: () => volumes, isConnected: async () => connected, log: quietLog },
        { checkpointMs: 50 },
      );
      const { answerEvents } = record(engine);
      const first = await engine.send('Hello before connecting');
      assert.equal(first?.state, 'error');
      assert.match(first?.error?.message ?? '', /^Not connected to a KSM service\./);
      assert.doesNotMatch(first?.error?.message ?? '', /No model/);
      assert.equal(first?.error?.retryable, true, 'Retry is offered');
      assert.deepEqual([first?.error?.fix?.action.command, ...(first?.error?.fix?.alternatives ?? []).map((a) => a.command)], [COMMAND.setApiKey, COMMAND.useLocalEmulator], 'the two ways to connect');
      const failed = (await engine.current()).turns[1];
      assert.equal((await engine.current()).model, '', 'the chat was begun with no model');
      await engine.adoptDefaultModel();
      assert.equal((await engine.current()).model, '', 'still none while settings name none');
      // Connect to Local Emulator: settings now list models, the key is stored; the open chat shows the default at once.
      connected = true;
      current = options;
      await engine.adoptDefaultModel();
      assert.equal((await engine.current()).model, 'emu-chat');
      const retried = await engine.retry(failed.id);
      assert.equal(retried?.state, 'done');
      const conversation = await engine.current();
      assert.equal(conversation.model, 'emu-chat', 'the same conversation picked up the default model');
      assert.equal(conversation.turns.length, 2, 'the failed answer was replaced in place');
      assert.ok(answerEvents(conversation.turns[1].id).some((e) => e.type === 'text'));
    });

    it('chat: turnStarted, the answer events, then finished once the answer is on disk; the turn equals what the events said', async () => {
      const engine = newEngine();
      const { events, diskAtFinish, answerEvents } = record(engine);
      const outcome = await engine.send('Explain volumes to me');
      assert.equal(outcome?.state, 'done');
      const conversation = await engine.current();
      const [question, answer] = conversation.turns;
      const started = events.find((e) => e.type === 'turnStarted');
      assert.ok(started && started.type === 'turnStarted');
      assert.equal(started.question.id, question.id);
      assert.equal(started.answer.id, answer.id);
      assert.ok(events.indexOf(started) < events.findIndex((e) => e.type === 'answer'), 'turnStarted comes first');
      const streamed = answerEvents(answer.id);
      assert.equal(textOf(streamed), answer.content, 'the saved answer is exactly the text the events carried');
      assert.deepEqual(streamed.at(-1), { type: 'finished', reason: 'done', finishReason: 'stop' });
      assert.equal(answer.state, 'done');
      assert.equal(conversation.title, 'Explain volumes to me');
      assert.equal(engine.busy, false);
      // The persistence checkpoint: when `finished` is reported, the finished answer is on disk.
      assert.equal(diskAtFinish.length, 1);
      assert.equal(diskAtFinish[0].turns[1].state, 'done');
      assert.equal(diskAtFinish[0].turns[1].content, answer.content);
      // A fresh engine on the same store continues the conversation with its history.
      await engine.idle();
      const reloaded = newEngine();
      assert.deepEqual(await reloaded.current(), conversation);
      assert.equal((await reloaded.send('And in one sentence?'))?.state, 'done');
      assert.equal((await reloaded.current()).turns.length, 4);
    });

    it('checkpoints a streaming answer to disk while it streams', async () => {
      const engine = newEngine(20);
      let checkpoint: StoredConversation | undefined;
      let id = '';
      engine.subscribe((event) => {
        if (event.type === 'turnStarted') id = event.conversation.id;
        if (checkpoint || event.type !== 'answer' || event.event.type !== 'text') return;
        const saved = onDisk(id);
        if (saved.turns[1]?.state === 'streaming' && saved.turns[1].content.length > 0) checkpoint = saved;
      });
      await engine.send('Write a very long essay about checkpoints');
      assert.ok(checkpoint, 'a checkpoint with partial text was on disk while the answer streamed');
      assert.ok((await engine.current()).turns[1].content.startsWith(checkpoint.turns[1].content));
    });

    it('stop: aborts on the wire; the partial answer ends stopped, on disk too', async () => {
      const engine = newEngine();
      const aborted = once(emulator.events, 'stream-aborted');
      engine.subscribe((event) => {
        if (event.type === 'answer' && event.event.type === 'text') engine.stop();
      });
      const outcome = await engine.send('Write a very long essay about streaming');
      await aborted;
      assert.equal(outcome?.state, 'stopped');
      const conversation = await engine.current();
      assert.equal(conversation.turns[1].state, 'stopped');
      assert.ok(conversation.turns[1].content.length > 0);
      await engine.idle();
      assert.equal(onDisk(conversation.id).turns[1].state, 'stopped');
    });

    it('cut-off, then retry: the failed answer is replaced by a new one, and retry of a good answer is refused', async () => {
      emulator.faults.add({ kind: 'reset', afterEvents: 6, path: '/v3/chat/completions' });
      const engine = newEngine();
      const { answerEvents } = record(engine);
      assert.equal((await engine.send('Tell me a long story'))?.state, 'cut-off');
      const failed = (await engine.current()).turns[1];
      assert.ok(failed.content.length > 0, 'the text that arrived is kept');
      assert.match(failed.error ?? '', /cut off/);
      const failedEnd = answerEvents(failed.id).at(-1);
      assert.ok(failedEnd?.type === 'finished' && failedEnd.error?.retryable === true);

      assert.equal((await engine.retry(failed.id))?.state, 'done');
      const turns = (await engine.current()).turns;
      assert.equal(turns.length, 2, 'replaced, not appended');
      assert.notEqual(turns[1].id, failed.id);
      assert.equal(turns[1].state, 'done');
      assert.equal(await engine.retry(turns[1].id), undefined, 'a finished answer is not retried');
    });

    it('max tokens, then continue: the same answer grows in place, the continuation prompt goes only with the request, usage adds up', async () => {
      const engine = newEngine();
      const { events, answerEvents } = record(engine);
      await engine.setParameters({ maxTokens: 5 });
      assert.equal((await engine.send('Explain everything about volumes'))?.state, 'length');
      const cut = structuredClone((await engine.current()).turns[1]);
      assert.equal(cut.finishReason, 'length');
      assert.equal(cut.maxTokens, 5, "the answer records that the user's own limit was in force");
      await engine.setParameters({});
      assert.equal((await engine.continueAnswer(cut.id))?.state, 'done');
      const turns = (await engine.current()).turns;
      assert.equal(turns.length, 2, 'no question and no second answer were added');
      const [question, answer] = turns;
      assert.equal(question.content, 'Explain everything about volumes');
      assert.equal(answer.id, cut.id, 'the same answer');
      assert.ok(answer.content.startsWith(cut.content) && answer.content.length > cut.content.length, 'it grew from where it stopped');
      // The emulator restates the last user message: the request carried the continuation prompt.
      assert.ok(answer.content.slice(cut.content.length).includes(CONTINUE_PROMPT), answer.content);
      assert.equal(answer.state, 'done');
      assert.equal(answer.finishReason, 'stop');
      assert.equal(answer.maxTokens, undefined, 'no user limit on the continuation');
      assert.ok(answer.usage && cut.usage && answer.usage.completionTokens > cut.usage.completionTokens, 'usage counts both requests');
      const resumed = events.filter((e) => e.type === 'answerResumed');
      assert.equal(resumed.length, 1);
      assert.equal(events.filter((e) => e.type === 'turnStarted').length, 1, 'only the first question started a turn');
      assert.equal(answerEvents(cut.id).filter((e) => e.type === 'finished').length, 2);
      await engine.idle();
      assert.deepEqual(onDisk((await engine.current()).id).turns, turns);
      assert.equal(await engine.continueAnswer(cut.id), undefined, 'a finished answer is not continued again');
    });

    it('continue of a stopped answer extends it; continue of an older answer or while answering is refused', async () => {
      const engine = newEngine();
      const stopOnText = engine.subscribe((event) => {
        if (event.type === 'answer' && event.event.type === 'text') engine.stop();
      });
      assert.equal((await engine.send('Write a very long essay about streaming'))?.state, 'stopped');
      stopOnText.dispose();
      const stopped = structuredClone((await engine.current()).turns[1]);
      const running = engine.continueAnswer(stopped.id);
      assert.equal(await engine.continueAnswer(stopped.id), undefined, 'one answer at a time');
      assert.equal((await running)?.state, 'done');
      const grown = (await engine.current()).turns[1];
      assert.equal(grown.id, stopped.id);
      assert.ok(grown.content.startsWith(stopped.content) && grown.content.length > stopped.content.length);
      await engine.setParameters({ maxTokens: 5 });
      assert.equal((await engine.send('Another question'))?.state, 'length');
      assert.equal(await engine.continueAnswer(stopped.id), undefined, 'only the last answer continues');
    });

    it('regenerate replaces the last answer however it ended (done included); retry replaces a stopped one; older answers are refused', async () => {
      const engine = newEngine();
      const { events } = record(engine);
      assert.equal((await engine.send('First question'))?.state, 'done');
      const older = (await engine.current()).turns[1];
      assert.equal((await engine.send('Second question'))?.state, 'done');
      const done = (await engine.current()).turns[3];
      assert.equal(await engine.retry(done.id), undefined, 'Retry is for answers that ended badly');
      assert.equal(await engine.regenerate(older.id), undefined, 'only the last answer is regenerated');
      assert.equal((await engine.regenerate(done.id))?.state, 'done');
      let turns = (await engine.current()).turns;
      assert.equal(turns.length, 4, 'replaced, not appended');
      assert.equal(turns[1].id, older.id, 'older turns stay');
      assert.notEqual(turns[3].id, done.id);
      assert.equal(turns[2].content, 'Second question', 'the same question, asked once');
      const started = events.filter((e) => e.type === 'turnStarted').at(-1);
      assert.ok(started?.type === 'turnStarted' && started.question.id === turns[2].id);

      const stopOnText = engine.subscribe((event) => {
        if (event.type === 'answer' && event.event.type === 'text') engine.stop();
      });
      assert.equal((await engine.regenerate(turns[3].id))?.state, 'stopped');
      stopOnText.dispose();
      const stopped = (await engine.current()).turns[3];
      assert.equal((await engine.retry(stopped.id))?.state, 'done', 'a stopped answer can be retried');
      turns = (await engine.current()).turns;
      assert.equal(turns.length, 4);
      assert.equal(turns[3].state, 'done');
    });

    it('edit and resend replaces the last question and its answer; older turns stay; a first question retitles an automatic title', async () => {
      const engine = newEngine();
      assert.equal((await engine.send('Waht are volumes?'))?.state, 'done');
      const [firstQuestion] = (await engine.current()).turns;
      assert.equal((await engine.editLastQuestion(firstQuestion.id, 'What are volumes?'))?.state, 'done');
      let conversation = await engine.current();
      assert.equal(conversation.turns.length, 2);
      assert.equal(conversation.turns[0].content, 'What are volumes?');
      assert.match(conversation.turns[1].content, /What are volumes\?/, 'the answer is to the edited question');
      assert.equal(conversation.title, 'What are volumes?', 'the automatic title follows the edit');

      await engine.rename(conversation.id, 'My volumes chat');
      assert.equal((await engine.send('How do I upload?'))?.state, 'done');
      const kept = structuredClone((await engine.current()).turns.slice(0, 2));
      const second = (await engine.current()).turns[2];
      assert.equal(await engine.editLastQuestion(firstQuestion.id, 'x'), undefined, 'an older question is not edited');
      assert.equal(await engine.editLastQuestion(conversation.turns[0].id, 'x'), undefined, 'an older question is not edited');
      assert.equal((await engine.editLastQuestion(second.id, 'How do I upload a folder?'))?.state, 'done');
      conversation = await engine.current();
      assert.equal(conversation.turns.length, 4);
      assert.deepEqual(conversation.turns.slice(0, 2), kept, 'older turns stay as they were');
      assert.equal(conversation.turns[2].content, 'How do I upload a folder?');
      assert.notEqual(conversation.turns[2].id, second.id);
      assert.equal(conversation.title, 'My volumes chat', 'a title the user chose stays');
      await engine.idle();
      assert.deepEqual(onDisk(conversation.id).turns, conversation.turns);
    });

    it('agent: continue and regenerate ask in the same thread without repeating the question', async () => {
      const engine = newEngine();
      await engine.newConversation('agent');
      const stopOnText = engine.subscribe((event) => {
        if (event.type === 'answer' && event.event.type === 'text') engine.stop();
      });
      assert.equal((await engine.send('Tell me about my files'))?.state, 'stopped');
      stopOnText.dispose();
      const stopped = structuredClone((await engine.current()).turns[1]);
      assert.equal((await engine.continueAnswer(stopped.id))?.state, 'done');
      const conversation = await engine.current();
      assert.equal(conversation.turns.length, 2);
      assert.ok(conversation.turns[1].content.startsWith(stopped.content));
      assert.equal((await engine.regenerate(conversation.turns[1].id))?.state, 'done');
      const queries = await threadQueries(conversation.threadId ?? '', 3);
      assert.equal(queries[0], 'Tell me about my files');
      assert.equal(queries[1], CONTINUE_PROMPT);
      assert.equal(queries.filter((q) => q === 'Tell me about my files').length, 1, JSON.stringify(queries));
      assert.equal((await engine.current()).turns.length, 2);
    });

    it('Copy reads the Markdown source of an answer of the open conversation', async () => {
      const engine = newEngine();
      await engine.send('Write a typescript function snippet that adds two numbers');
      const [question, answer] = (await engine.current()).turns;
      assert.equal(engine.turnMarkdown(answer.id), answer.content);
      assert.match(engine.turnMarkdown(answer.id) ?? '', /```/, 'fences and all');
      assert.equal(engine.turnMarkdown(question.id), question.content);
      assert.equal(engine.turnMarkdown('t-000000000000'), undefined);
    });

    it('renaming or deleting a conversation that is not open reports the list change', async () => {
      const engine = newEngine();
      const { events } = record(engine);
      await engine.send('First conversation');
      const first = await engine.current();
      await engine.newConversation();
      await engine.send('Second conversation');
      const before = events.length;
      await engine.rename(first.id, 'Renamed elsewhere');
      assert.deepEqual(
        events.slice(before).map((e) => e.type),
        ['listChanged'],
      );
      assert.equal((await engine.summaries()).find((c) => c.id === first.id)?.title, 'Renamed elsewhere');
      await engine.delete(first.id);
      assert.deepEqual(
        events.slice(before).map((e) => e.type),
        ['listChanged', 'listChanged'],
      );
      assert.equal(
        (await engine.summaries()).some((c) => c.id === first.id),
        false,
      );
    });

    it('agent: one thread across three turns, each answer reporting it, the emulator seeing one thread', async () => {
      const engine = newEngine();
      const { events } = record(engine);
      await engine.newConversation('agent');
      const questions = ['What is in my files?', 'Tell me more about uploads', 'And about deleting?'];
      for (const question of questions) assert.equal((await engine.send(question))?.state, 'done', question);
      const conversation = await engine.current();
      const threadEvents = events.flatMap((e) => (e.type === 'answer' && e.event.type === 'thread' ? [e.event.threadId] : []));
      assert.equal(threadEvents.length, 3);
      assert.deepEqual(threadEvents, [conversation.threadId, conversation.threadId, conversation.threadId]);
      assert.deepEqual(await threadQueries(conversation.threadId ?? '', 3), questions);
    });

    it('agent: attached files go with the question; citations arrive as events and land on the answer', async () => {
      const path = join(dir, 'release-notes.md');
      writeFileSync(path, 'The zebra release adds folder uploads. The zebra release also adds streaming chat.\n');
      const [uploaded] = await client().uploadFiles({ volume: 'notes', embedding: 'emu-embed', doChunking: 1, files: [{ path }] });
      assert.ok(uploaded.ok);
      await emulator.waitForIdle();
      volumes = ['notes'];
      const engine = newEngine();
      const { answerEvents } = record(engine);
      await engine.attachForAgent([{ fileId: uploaded.info.uuid, filename: 'release-notes.md', size: uploaded.info.filesize, volume: 'notes' }]);
      assert.equal((await engine.send('What does the zebra release add?'))?.state, 'done');
      const [question, answer] = (await engine.current()).turns;
      assert.equal(question.attachments?.[0].fileId, uploaded.info.uuid);
      const cited = answerEvents(answer.id).flatMap((e) => (e.type === 'citations' ? e.citations : []));
      assert.ok(
        cited.some((c) => c.fileId === uploaded.info.uuid && c.volume === 'notes'),
        JSON.stringify(cited),
      );
      assert.deepEqual(answer.citations, cited, 'the answer keeps exactly the citations reported');
      assert.deepEqual(engine.citedFile('notes', uploaded.info.uuid), { fileId: uploaded.info.uuid, filename: 'release-notes.md', volume: 'notes' });
      assert.equal(engine.citedFile('notes', 'some-other-file'), undefined);
    });

    it('reports opened, new and changed conversations as conversation events, and refuses a question while answering', async () => {
      const engine = newEngine();
      const { events } = record(engine);
      const first = await engine.current();
      await engine.setModel('emu-reasoner');
      const running = engine.send('Write a long essay');
      assert.equal(await engine.send('A second question at once'), undefined, 'one answer at a time');
      await running;
      const second = await engine.newConversation('agent');
      assert.equal(await engine.openConversation(first.id), true);
      const shown = events.flatMap((e) => (e.type === 'conversation' ? [e.conversation.id] : []));
      assert.deepEqual(shown, [first.id, second.id, first.id]);
      assert.equal((await engine.current()).model, 'emu-reasoner');
    });
  });
});

function textOf(events: readonly AnswerEvent[]): string {
  return events.map((e) => (e.type === 'text' ? e.text : '')).join('');
}
