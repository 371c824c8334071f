// The chat session end to end against the emulator over real HTTP: answers streamed,
// persisted and read back by a fresh store, agent threads continued, and every way a
// stream can end badly keeping the partial answer with the right state.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { KsmClient } from '../../src/api/client';
import { AuthenticationError } from '../../src/api/errors';
import { ChatSession, CONTINUE_PROMPT, type ChatSessionHost } from '../../src/chat/panel/chatSession';
import { ConversationStore } from '../../src/chat/core/conversationStore';
import type { HostToWebview, ModelOptions } from '../../src/chat/protocol';
import { sseHead, startRawServer } from '../api/rawServer';

const options: ModelOptions = { models: ['emu-chat', 'emu-reasoner'], reasoningModels: ['emu-reasoner'], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat' };

describe('chat session against the emulator', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let storeDir: string;
  let posted: HostToWebview[];
  let failures: unknown[];
  let apiKey: string;
  let volumes: string[];

  const client = () => new KsmClient({ baseUrl: emulator.url, apiKey: async () => apiKey });
  const newSession = () => {
    const host: ChatSessionHost = {
      getService: client,
      getOptions: () => options,
      getVolumes: () => volumes,
      post: (m) => posted.push(m),
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      onAnswerFailed: (e) => failures.push(e),
    };
    return new ChatSession(new ConversationStore(storeDir), host, { flushIntervalMs: 16, checkpointMs: 50 });
  };
  const deltasOf = (turnId: string) =>
    posted
      .filter((m): m is Extract<HostToWebview, { type: 'delta' }> => m.type === 'delta' && m.turnId === turnId)
      .map((m) => m.content ?? '')
      .join('');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-chat-session-'));
    emulator = await startEmulator({ port: 0, dataDir: join(dir, 'emulator'), testControls: true, stepMs: 5, tokenDelayMs: 2, responseWords: 60 });
  });
  beforeEach(() => {
    storeDir = mkdtempSync(join(dir, 'store-'));
    posted = [];
    failures = [];
    apiKey = emulator.apiKey;
    volumes = [];
  });
  afterEach(() => emulator.faults.clear());
  after(async () => {
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams a completion, posts it in batches, and a fresh store reads it back (history survives a reload)', async () => {
    const session = newSession();
    const outcome = await session.send('Explain volumes to me');
    assert.equal(outcome?.state, 'done');
    const conversation = await session.current();
    const answer = conversation.turns[1];
    assert.equal(answer.state, 'done');
    assert.equal(answer.finishReason, 'stop');
    assert.ok(answer.content.length > 50, answer.content);
    assert.ok(answer.usage && answer.usage.totalTokens > 0);
    assert.equal(deltasOf(answer.id), answer.content, 'the webview received exactly the answer text');
    assert.equal(conversation.title, 'Explain volumes to me');
    const busy = posted.filter((m) => m.type === 'busy').map((m) => (m as { busy: boolean }).busy);
    assert.equal(busy.at(-1), false);
    assert.ok(busy.includes(true));

    await session.idle();
    const reloaded = newSession();
    const restored = await reloaded.current();
    assert.deepEqual(restored, conversation);
    const second = await reloaded.send('And in one sentence?');
    assert.equal(second?.state, 'done');
    assert.equal((await reloaded.current()).turns.length, 4);
  });

  it('continues one agent thread across three turns with the same thread_id', async () => {
    const session = newSession();
    await session.newConversation('agent');
    const questions = ['What is in my files?', 'Tell me more about uploads', 'And about deleting?'];
    const threadIds: Array<string | null | undefined> = [];
    for (const question of questions) {
      const outcome = await session.send(question);
      assert.equal(outcome?.state, 'done', `turn "${question}"`);
      threadIds.push((await session.current()).threadId);
    }
    assert.match(threadIds[0] ?? '', /^thr_/);
    assert.deepEqual(threadIds, [threadIds[0], threadIds[0], threadIds[0]]);
    const thread = await emulator.readThread(threadIds[0]!);
    assert.deepEqual(
      thread?.turns.map((t) => t.query),
      questions,
      'the emulator saw all three questions on one thread',
    );
    const answers = (await session.current()).turns.filter((t) => t.role === 'assistant');
    assert.ok(answers.every((a) => a.state === 'done' && a.content.length > 0));
  });

  it('keeps the partial answer as cut-off when the connection resets mid-stream', async () => {
    emulator.faults.add({ kind: 'reset', afterEvents: 6, path: '/v3/chat/completions' });
    const session = newSession();
    const outcome = await session.send('Tell me a long story');
    assert.equal(outcome?.state, 'cut-off');
    const answer = (await session.current()).turns[1];
    assert.ok(answer.content.length > 0, 'the text that arrived is kept');
    assert.match(answer.error ?? '', /cut off/);
    await session.idle();
    const stored = await new ConversationStore(storeDir).load((await session.current()).id);
    assert.equal(stored?.turns[1].state, 'cut-off');
    assert.equal(stored?.turns[1].content, answer.content);
  });

  it('treats an agent stream without its done event as cut off', async () => {
    emulator.faults.add({ kind: 'no-terminator', afterEvents: 4, path: '/v1/apps/chat-messages' });
    const session = newSession();
    await session.newConversation('agent');
    const outcome = await session.send('What is in my files?');
    assert.equal(outcome?.state, 'cut-off');
    assert.match((await session.current()).threadId ?? '', /^thr_/, 'the thread id from the first event is kept');
  });

  it('stops mid-stream: aborts the request on the wire and keeps the partial answer as stopped', async () => {
    const session = newSession();
    const before = emulator.stats.abortedStreams;
    const aborted = once(emulator.events, 'stream-aborted');
    const firstDelta = new Promise<void>((resolve) => {
      const original = posted.push.bind(posted);
      posted.push = (...items: HostToWebview[]) => {
        if (items.some((m) => m.type === 'delta')) resolve();
        return original(...items);
      };
    });
    const running = session.send('Write a very long essay about streaming');
    await firstDelta;
    assert.equal(session.busy, true);
    session.stop();
    const outcome = await running;
    await aborted;
    assert.equal(outcome?.state, 'stopped');
    assert.equal(emulator.stats.abortedStreams, before + 1);
    const answer = (await session.current()).turns[1];
    assert.equal(answer.state, 'stopped');
    assert.ok(answer.content.length > 0);
    assert.equal(answer.finishReason, undefined, 'the stream never reached its end');
    await session.idle();
    assert.equal((await new ConversationStore(storeDir).load((await session.current()).id))?.turns[1].state, 'stopped');
  });

  it('shows a finish_reason "error" as an error, keeping the text before it, and Retry replaces it', async () => {
    emulator.faults.add({ kind: 'stream-error', afterEvents: 5, code: 503, message: 'upstream model overloaded', path: '/v3/chat/completions' });
    const session = newSession();
    const outcome = await session.send('Hello there');
    assert.equal(outcome?.state, 'error');
    const failed = (await session.current()).turns[1];
    assert.match(failed.error ?? '', /upstream model overloaded/);
    assert.ok(failed.content.length > 0);
    assert.equal(failures.length, 1);

    await session.handle({ type: 'retry', turnId: failed.id });
    const turns = (await session.current()).turns;
    assert.equal(turns.length, 2, 'the failed answer was replaced, not appended to');
    assert.notEqual(turns[1].id, failed.id);
    assert.equal(turns[1].state, 'done');
  });

  it('tells the user to set the API key when the service rejects it', async () => {
    apiKey = 'wrong-key';
    const session = newSession();
    const outcome = await session.send('Hello');
    assert.equal(outcome?.state, 'error');
    assert.match((await session.current()).turns[1].error ?? '', /Set your API key/);
    assert.ok(failures[0] instanceof AuthenticationError);
    assert.ok(!JSON.stringify(posted).includes('wrong-key'), 'the key never reaches the webview');
  });

  it('marks an answer that hit max tokens as length; Continue shows the same answer streaming again and extends it in place', async () => {
    const session = newSession();
    await session.handle({ type: 'setParameters', parameters: { maxTokens: 5 } });
    const outcome = await session.send('Explain everything about volumes');
    assert.equal(outcome?.state, 'length');
    const cut = structuredClone((await session.current()).turns[1]);
    assert.equal(cut.maxTokens, 5);
    await session.idle();
    posted = [];
    await session.handle({ type: 'setParameters', parameters: {} });
    await session.handle({ type: 'continue', turnId: cut.id });
    await session.idle();
    const turns = (await session.current()).turns;
    assert.equal(turns.length, 2, 'no question and no second answer');
    assert.equal(turns[1].id, cut.id);
    const snapshots = posted.filter((m): m is Extract<HostToWebview, { type: 'conversation' }> => m.type === 'conversation');
    const resumed = snapshots.at(-1)?.conversation.turns;
    assert.equal(resumed?.length, 2, 'the view never shows the continuation prompt as a question');
    assert.ok(!snapshots.some((m) => m.conversation.turns.some((t) => t.role === 'user' && t.content === CONTINUE_PROMPT)), 'no view shows the continuation prompt as a question');
    assert.equal(resumed?.[1].state, 'streaming', 'the same answer shows streaming again, with its text so far');
    assert.equal(resumed?.[1].content, cut.content);
    assert.equal(cut.content + deltasOf(cut.id), turns[1].content, 'the deltas extend it to exactly the saved text');
    const end = posted.filter((m) => m.type === 'answerUpdate' && m.turnId === cut.id).at(-1);
    assert.ok(end?.type === 'answerUpdate' && end.patch.state === 'done');
  });

  it('posts the conversation list alone when another conversation is renamed or deleted', async () => {
    const session = newSession();
    await session.send('First conversation');
    const first = await session.current();
    await session.handle({ type: 'newConversation' });
    await session.idle();
    posted = [];
    await session.rename(first.id, 'Renamed from the list');
    await session.idle();
    const lists = posted.filter((m): m is Extract<HostToWebview, { type: 'conversationList' }> => m.type === 'conversationList');
    assert.deepEqual(
      posted.map((m) => m.type),
      ['conversationList'],
    );
    assert.equal(lists[0].conversations.find((c) => c.id === first.id)?.title, 'Renamed from the list');
    assert.ok(
      lists[0].conversations.some((c) => c.id === session.currentIfLoaded?.id),
      'the open (unsaved) chat stays listed',
    );
    await session.delete(first.id);
    await session.idle();
    const after = posted.filter((m): m is Extract<HostToWebview, { type: 'conversationList' }> => m.type === 'conversationList').at(-1);
    assert.equal(
      after?.conversations.some((c) => c.id === first.id),
      false,
    );
  });

  it('sends attached files to the agent and only reveals citations the answer gave', async () => {
    const path = join(dir, 'release-notes.md');
    writeFileSync(path, 'The zebra release adds folder uploads. The zebra release also adds streaming chat.\n');
    const [uploaded] = await client().uploadFiles({ volume: 'notes', embedding: 'emu-embed', doChunking: 1, files: [{ path }] });
    assert.ok(uploaded.ok);
    await emulator.waitForIdle();
    const session = newSession();
    await session.attachForAgent([{ fileId: uploaded.info.uuid, filename: 'release-notes.md', size: uploaded.info.filesize, volume: 'notes' }]);
    const conversation = await session.current();
    assert.equal(conversation.mode, 'agent');
    assert.equal(conversation.pendingAttachments.length, 1);
    const outcome = await session.send('What does the zebra release add?');
    assert.equal(outcome?.state, 'done');
    const [question, answer] = (await session.current()).turns;
    assert.equal(question.attachments?.[0].fileId, uploaded.info.uuid);
    assert.deepEqual((await session.current()).pendingAttachments, []);
    assert.ok(
      answer.citations?.some((c) => c.fileId === uploaded.info.uuid),
      JSON.stringify(answer.citations),
    );
    assert.equal(session.hasCitation('notes', uploaded.info.uuid), true);
    assert.equal(session.hasCitation('notes', 'some-other-file'), false);
  });

  it('keeps a streaming answer as stopped when the view is disposed mid-answer', async () => {
    const session = newSession();
    const firstDelta = new Promise<void>((resolve) => {
      const original = posted.push.bind(posted);
      posted.push = (...items: HostToWebview[]) => {
        if (items.some((m) => m.type === 'delta')) resolve();
        return original(...items);
      };
    });
    const running = session.send('Write a very long essay about closing windows');
    await firstDelta;
    await session.dispose();
    assert.equal((await running)?.state, 'stopped');
    const id = (await session.current()).id;
    const stored = await new ConversationStore(storeDir).load(id);
    assert.equal(stored?.turns[1].state, 'stopped');
    assert.ok((stored?.turns[1].content.length ?? 0) > 0, 'the partial text reached the disk');
  });
});

describe('chat session: a hostile stream of citations', () => {
  it('posts the citations of 5,000 one-citation events as one list, not one growing list per event', async () => {
    // Each event posted (and cloned) every citation so far: quadratic in the events.
    const events = 5_000;
    const server = await startRawServer((_req, res) => {
      sseHead(res);
      for (let i = 0; i < events; i++) res.write(`event: retrieval\ndata: ${JSON.stringify({ thread_id: 't-1', citations: [{ file_id: `f${i}`, filename: `f${i}.md`, chunk_index: 0 }] })}\n\n`);
      res.write(`event: message\ndata: ${JSON.stringify({ thread_id: 't-1', delta: 'Sources.' })}\n\n`);
      res.end(`event: done\ndata: ${JSON.stringify({ thread_id: 't-1', status: 'stop' })}\n\n`);
    });
    const dir = mkdtempSync(join(tmpdir(), 'ksm-chat-citations-'));
    try {
      const posted: HostToWebview[] = [];
      const host: ChatSessionHost = {
        getService: () => new KsmClient({ baseUrl: server.url, apiKey: async () => 'ksm-test-key-0123456789' }),
        getOptions: () => options,
        getVolumes: () => [],
        post: (m) => posted.push(m),
        log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      };
      // Batches far apart: only the answer's end posts its citations.
      const session = new ChatSession(new ConversationStore(join(dir, 'store')), host, { flushIntervalMs: 600_000, checkpointMs: 600_000 });
      await session.newConversation('agent');
      assert.equal((await session.send('q'))?.state, 'done');
      await session.idle();
      const lists = posted.flatMap((m) => (m.type === 'answerUpdate' && m.patch.citations ? [m.patch.citations] : []));
      assert.equal(lists.length, 1, `${lists.length} citation lists were posted`);
      assert.equal(lists[0]!.length, events);
      assert.equal((await session.current()).turns[1].citations?.length, events);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('chat session: text and citations through one batch', () => {
  const event = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify({ thread_id: 't-1', ...data })}\n\n`;
  const cite = (i: number) => event('retrieval', { citations: [{ file_id: `f${i}`, filename: `f${i}.md`, chunk_index: 0 }] });
  const text = (delta: string) => event('message', { delta });
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ksm-chat-batch-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const sessionOn = (url: string, posted: HostToWebview[], flushIntervalMs: number) => {
    const host: ChatSessionHost = {
      getService: () => new KsmClient({ baseUrl: url, apiKey: async () => 'ksm-test-key-0123456789' }),
      getOptions: () => options,
      getVolumes: () => [],
      post: (m) => posted.push(m),
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    };
    return new ChatSession(new ConversationStore(join(dir, 'store')), host, { flushIntervalMs, checkpointMs: 600_000 });
  };
  const textOf = (posted: HostToWebview[]) => posted.map((m) => (m.type === 'delta' ? (m.content ?? '') : '')).join('');
  const listsOf = (posted: HostToWebview[]) => posted.flatMap((m) => (m.type === 'answerUpdate' && m.patch.citations ? [m.patch] : []));
  const until = async (condition: () => Promise<boolean> | boolean) => {
    while (!(await condition())) await new Promise((resolve) => setImmediate(resolve));
  };

  it('a citation list never reaches the view before text that came ahead of a citation in it', async () => {
    // Each list posted is checked against the text the view had then: all text that came before its last citation.
    const before = ['', 'A', 'AB'];
    let sent: () => void = () => undefined;
    const second = new Promise<void>((resolve) => (sent = resolve));
    const server = await startRawServer(async (_req, res) => {
      sseHead(res);
      res.write(cite(0) + text('A') + cite(1)); // one chunk: citation, text, citation
      await second;
      res.write(text('B') + cite(2));
      res.end(event('done', { status: 'stop' }));
    });
    try {
      const posted: HostToWebview[] = [];
      const seen: Array<{ citations: number; text: string }> = [];
      posted.push = (...items: HostToWebview[]) => {
        for (const m of items) {
          if (m.type === 'answerUpdate' && m.patch.citations && m.patch.state === undefined) seen.push({ citations: m.patch.citations.length, text: textOf(posted) });
          Array.prototype.push.call(posted, m);
          if (m.type === 'answerUpdate' && m.patch.citations?.length === 2) sent();
        }
        return posted.length;
      };
      const session = sessionOn(server.url, posted, 1);
      await session.newConversation('agent');
      assert.equal((await session.send('q'))?.state, 'done');
      await session.idle();
      assert.ok(seen.length > 0, 'citations were posted while the answer streamed');
      for (const { citations, text: shown } of seen) assert.ok(shown.startsWith(before[citations - 1]!), `a list of ${citations} citations came with "${shown}" shown`);
      assert.equal(textOf(posted), 'AB');
    } finally {
      await server.close();
    }
  });

  it('stopped, cut off or failed mid-answer: the text still waiting is posted before the final patch, which carries the citations once', async () => {
    for (const ending of ['stopped', 'cut-off', 'error'] as const) {
      let hangUp: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (hangUp = resolve));
      const server = await startRawServer(async (_req, res) => {
        sseHead(res);
        res.write(text('partial') + cite(0) + cite(1));
        await held;
        if (ending === 'error') res.end(event('error', { code: 500, message: 'the agent failed' }) + event('done', { status: 'error' }));
        else res.destroy();
      });
      try {
        const posted: HostToWebview[] = [];
        // Batches far apart: only the answer's end posts anything.
        const session = sessionOn(server.url, posted, 600_000);
        await session.newConversation('agent');
        const running = session.send('q');
        await until(async () => (await session.current()).turns[1]?.citations?.length === 2);
        assert.equal(textOf(posted), '', 'nothing posted yet');
        if (ending === 'stopped') session.stop();
        else hangUp(); // the connection dropped (cut-off), or the service's error event
        assert.equal((await running)?.state, ending);
        await session.idle();
        const delta = posted.findIndex((m) => m.type === 'delta');
        const final = posted.findIndex((m) => m.type === 'answerUpdate' && m.patch.state === ending);
        assert.equal(textOf(posted), 'partial', ending);
        assert.ok(delta >= 0 && delta < final, `${ending}: the text is posted before the final patch`);
        assert.deepEqual(
          listsOf(posted).map((p) => p.citations?.length),
          [2],
          `${ending}: one list, in the final patch`,
        );
      } finally {
        hangUp();
        await server.close();
      }
    }
  });
});
