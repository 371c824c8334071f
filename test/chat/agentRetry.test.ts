// Agent Retry never tells the agent the same question twice (D17): an answer cut off after
// the service began it (its thread event arrived) is retried in that thread without
// re-sending the question; an answer the service refused before it began re-sends it.
// Checked on the emulator's own thread record, over real HTTP.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { KsmClient } from '../../src/api/client';
import { ChatSession } from '../../src/chat/panel/chatSession';
import { ConversationStore } from '../../src/chat/core/conversationStore';
import { RETRY_IN_THREAD_PROMPT } from '../../src/chat/core/requestBuilder';
import type { ModelOptions } from '../../src/chat/protocol';

const options: ModelOptions = { models: ['emu-chat'], reasoningModels: [], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat' };
const PATH = '/v1/apps/chat-messages';

describe('chat: agent Retry never repeats the question in the thread (D17)', () => {
  let emulator: RunningEmulator;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-agent-retry-'));
    emulator = await startEmulator({ port: 0, dataDir: join(dir, 'emulator'), testControls: true, stepMs: 5, tokenDelayMs: 2, responseWords: 40 });
  });
  afterEach(() => emulator.faults.clear());
  after(async () => {
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const newSession = () =>
    new ChatSession(
      new ConversationStore(mkdtempSync(join(dir, 'store-'))),
      {
        getService: () => new KsmClient({ baseUrl: emulator.url, apiKey: async () => emulator.apiKey }),
        getOptions: () => options,
        getVolumes: () => [],
        post: () => undefined,
        log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      },
      { flushIntervalMs: 16, checkpointMs: 50 },
    );

  async function threadQueries(threadId: string): Promise<string[]> {
    await emulator.waitForIdle();
    return ((await emulator.readThread(threadId))?.turns ?? []).map((turn) => turn.query);
  }

  it('retries an answer cut off mid-stream in its thread without sending the question again', async () => {
    const session = newSession();
    await session.newConversation('agent');
    assert.equal((await session.send('first question'))?.state, 'done');
    emulator.faults.add({ kind: 'reset', path: PATH, afterEvents: 4 });
    assert.equal((await session.send('second question'))?.state, 'cut-off');
    const conversation = await session.current();
    const failed = conversation.turns.at(-1)!;
    assert.ok(failed.threadId, 'the cut-off answer knows its thread');

    await session.handle({ type: 'retry', turnId: failed.id });
    const after = await session.current();
    assert.deepEqual(
      after.turns.map((t) => [t.role, t.role === 'user' ? t.content : t.state]),
      [
        ['user', 'first question'],
        ['assistant', 'done'],
        ['user', 'second question'],
        ['assistant', 'done'],
      ],
    );
    const queries = await threadQueries(after.threadId!);
    assert.equal(queries.filter((q) => q === 'second question').length, 1, `the thread holds the question once: ${JSON.stringify(queries)}`);
    assert.deepEqual(queries, ['first question', 'second question', RETRY_IN_THREAD_PROMPT]);
  });

  it('re-sends the question when the service refused it before the answer began', async () => {
    const session = newSession();
    await session.newConversation('agent');
    assert.equal((await session.send('first question'))?.state, 'done');
    emulator.faults.add({ kind: 'status', path: PATH, status: 503 });
    assert.equal((await session.send('second question'))?.state, 'error');
    const failed = (await session.current()).turns.at(-1)!;
    assert.equal(failed.threadId, undefined);
    await session.handle({ type: 'retry', turnId: failed.id });
    const after = await session.current();
    assert.equal(after.turns.at(-1)!.state, 'done');
    assert.deepEqual(await threadQueries(after.threadId!), ['first question', 'second question']);
  });
});
