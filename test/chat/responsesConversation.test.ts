// A chat conversation in the Responses format (D16), through the engine against the emulator
// over real HTTP, with a recording pass-through in front of it so the test sees each wire
// request: the setting's format applies until a conversation chooses its own, every request
// carries `user` and `metadata`, the Advanced parameters reach the wire, and the answer
// (text, reasoning, usage, Stop, Continue) comes out as in the chat format.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { KsmClient } from '../../src/api/client';
import { ChatEngine } from '../../src/chat/core/chatEngine';
import type { ModelOptions } from '../../src/chat/core/conversationModel';
import { ConversationStore } from '../../src/chat/core/conversationStore';
import { startRecordingProxy, type RawServer } from '../api/rawServer';

const quietLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('chat engine: a conversation in the Responses format', () => {
  let emulator: RunningEmulator;
  let proxy: RawServer;
  let dir: string;
  let options: ModelOptions;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-responses-conv-'));
    emulator = await startEmulator({ port: 0, dataDir: join(dir, 'emulator'), testControls: true, stepMs: 5, tokenDelayMs: 2, responseWords: 60 });
    proxy = await startRecordingProxy(() => emulator.url);
  });
  after(async () => {
    await proxy.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    options = {
      models: ['emu-chat', 'emu-reasoner'],
      reasoningModels: ['emu-reasoner'],
      defaultModel: 'emu-chat',
      agentId: 'rag-agent',
      agentModel: 'emu-chat',
      outputFormat: 'responses',
      userId: 'dev',
    };
  });

  const engine = () =>
    new ChatEngine(
      new ConversationStore(join(dir, `store-${Math.random().toString(16).slice(2)}`)),
      { getService: () => new KsmClient({ baseUrl: proxy.url, apiKey: async () => emulator.apiKey }), getOptions: () => options, getVolumes: () => [], log: quietLog },
      { checkpointMs: 50 },
    );
  const lastBody = () => JSON.parse(proxy.requests.at(-1)!.body) as Record<string, unknown>;

  it("answers in the setting's format with reasoning and usage, and sends user and metadata", async () => {
    const chat = engine();
    const conversation = await chat.newConversation('chat');
    await chat.setModel('emu-reasoner');
    await chat.setParameters({ reasoningEffort: 'low' });
    assert.equal((await chat.send('Why do tides happen?'))?.state, 'done');
    const turn = (await chat.current()).turns[1];
    assert.match(turn.content, /Why do tides happen/);
    assert.ok(turn!.reasoning && turn!.reasoning.length > 0, 'the reasoning item was shown');
    assert.ok((turn!.usage?.reasoningTokens ?? 0) > 0);
    const body = lastBody();
    assert.equal(body.output_parser, 'responses');
    assert.equal(body.user, 'dev');
    assert.deepEqual(body.metadata, { client: 'ksm-assistant/chat-panel', conversation: conversation.id });
  });

  it("a conversation's own choice wins over the setting, and the Advanced parameters reach the wire", async () => {
    const chat = engine();
    await chat.newConversation('chat');
    await chat.setParameters({ outputFormat: 'chat', stop: ['zzz'], seed: 5, frequencyPenalty: 0.5, repetitionPenalty: 1.2 });
    assert.equal((await chat.send('hello'))?.state, 'done');
    const body = lastBody();
    assert.equal(body.output_parser, undefined);
    assert.deepEqual([body.stop, body.seed, body.frequency_penalty, body.repetition_penalty], [['zzz'], 5, 0.5, 1.2]);
    options = { ...options, outputFormat: 'chat', userId: '' };
    await chat.setParameters({ outputFormat: 'responses' });
    assert.equal((await chat.send('again'))?.state, 'done');
    assert.equal(lastBody().output_parser, 'responses');
    assert.equal(lastBody().user, undefined, 'no user id set: no user sent');
  });

  it('Stop ends a Responses answer as stopped; an answer cut at max tokens (response.incomplete) continues in place', async () => {
    const chat = engine();
    await chat.newConversation('chat');
    let stopped = false;
    chat.subscribe((event) => {
      if (event.type === 'answer' && event.event.type === 'text' && !stopped) {
        stopped = true;
        chat.stop();
      }
    });
    assert.equal((await chat.send('Write a very long essay about streaming'))?.state, 'stopped');
    assert.equal(lastBody().output_parser, 'responses');

    const second = engine();
    await second.newConversation('chat');
    await second.setParameters({ maxTokens: 5 });
    assert.equal((await second.send('Explain everything about volumes'))?.state, 'length');
    const cut = structuredClone((await second.current()).turns[1]);
    await second.setParameters({});
    assert.equal((await second.continueAnswer(cut.id))?.state, 'done');
    const answer = (await second.current()).turns[1];
    assert.equal(answer.id, cut.id);
    assert.ok(answer.content.startsWith(cut.content) && answer.content.length > cut.content.length, 'the answer grew in place');
    assert.equal(lastBody().output_parser, 'responses');
  });
});
