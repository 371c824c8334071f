// The conversation list as KSM: Conversations shows it, what its Rename and Delete buttons
// and the citation links do, and the Markdown export of an agent answer, on a real store on
// disk with answers the emulator gave over real HTTP.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { KsmClient } from '../../src/api/client';
import { ChatSession } from '../../src/chat/panel/chatSession';
import { planCitationReveal } from '../../src/chat/core/citationReveal';
import { createConversation, newTurnId } from '../../src/chat/core/conversationModel';
import { ConversationStore } from '../../src/chat/core/conversationStore';
import { conversationPickEntry, conversationToMarkdown } from '../../src/chat/core/conversationText';
import type { HostToWebview, ModelOptions } from '../../src/chat/protocol';

const options: ModelOptions = { models: ['emu-chat'], reasoningModels: [], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat' };

describe('chat: conversation list, rename, delete and citation links', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let storeDir: string;
  let posted: HostToWebview[];

  const newSession = () =>
    new ChatSession(new ConversationStore(storeDir), {
      getService: () => new KsmClient({ baseUrl: emulator.url, apiKey: async () => emulator.apiKey }),
      getOptions: () => options,
      getVolumes: () => [],
      post: (m) => posted.push(m),
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    });
  const fileOf = (id: string) => join(storeDir, 'conversations', `${id}.json`);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-chat-conversations-'));
    emulator = await startEmulator({ port: 0, dataDir: join(dir, 'emulator'), testControls: true, stepMs: 5, tokenDelayMs: 1, responseWords: 30 });
  });
  beforeEach(() => {
    storeDir = mkdtempSync(join(dir, 'store-'));
    posted = [];
  });
  after(async () => {
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Two answered conversations, the second (newest) in agent mode. */
  async function twoConversations(session: ChatSession): Promise<{ chatId: string; agentId: string }> {
    assert.equal((await session.send('Where is the deployment checklist?\nIt mentions a blue-green switchover.'))?.state, 'done');
    const chatId = (await session.current()).id;
    await session.newConversation('agent');
    assert.equal((await session.send('Which volumes hold invoices?'))?.state, 'done');
    return { chatId, agentId: (await session.current()).id };
  }

  it('lists every saved conversation newest first with its title, mode, date and all its message text', async () => {
    const session = newSession();
    const { chatId, agentId } = await twoConversations(session);
    await session.newConversation();
    const entries = (await newSession().conversationsForSearch()).map((c) => conversationPickEntry(c, (ms) => `at ${ms}`));
    assert.deepEqual(
      entries.map((e) => e.id),
      [agentId, chatId],
      'newest first, the empty new chat not listed',
    );
    const [agent, chat] = entries;
    const stored = JSON.parse(readFileSync(fileOf(chatId), 'utf8')) as { updatedAt: number; turns: Array<{ content: string }> };
    assert.equal(chat.label, 'Where is the deployment checklist?');
    assert.equal(chat.description, `Chat · at ${stored.updatedAt}`);
    assert.equal(agent.label, 'Which volumes hold invoices?');
    assert.match(agent.description, /^Agent · at \d+$/);
    // The quick pick searches the detail (matchOnDetail): a word only in the question's second
    // line, or only in the answer, must be in it.
    assert.ok(chat.detail.includes('blue-green switchover'), chat.detail);
    const answer = stored.turns[1].content.replace(/\s+/g, ' ');
    assert.ok(answer.length > 20 && chat.detail.includes(answer.slice(-20)), `the answer's text is searchable: ${chat.detail}`);
    assert.ok(!agent.detail.includes('blue-green'), 'each entry holds only its own messages');
  });

  it('keeps every question searchable even after long answers (the detail is capped, questions come first)', async () => {
    const store = new ConversationStore(storeDir);
    const conversation = createConversation('chat', options);
    const longAnswer = 'The indexer rebuilds every shard in order. '.repeat(200);
    conversation.turns.push(
      { id: newTurnId(), role: 'user', content: 'How is the index rebuilt?', createdAt: 1 },
      { id: newTurnId(), role: 'assistant', content: longAnswer, state: 'done', createdAt: 2 },
      { id: newTurnId(), role: 'user', content: 'And what about the zucchini cache?', createdAt: 3 },
      { id: newTurnId(), role: 'assistant', content: longAnswer, state: 'done', createdAt: 4 },
    );
    await store.save(conversation);
    const [entry] = (await newSession().conversationsForSearch()).map((c) => conversationPickEntry(c));
    assert.ok(entry.detail.includes('zucchini cache'), `the second question is searchable: ${entry.detail.slice(0, 300)}…`);
    assert.ok(entry.detail.startsWith('How is the index rebuilt? · And what about the zucchini cache? · The indexer'), entry.detail.slice(0, 200));
    assert.ok(entry.detail.length < longAnswer.length * 2, 'the detail is capped');
  });

  it('renames a conversation on disk (Rename button), trimmed, and keeps an empty rename from blanking it', async () => {
    const session = newSession();
    const { chatId, agentId } = await twoConversations(session);
    await session.rename(chatId, '  Deployment notes  ');
    await session.rename(agentId, '   ');
    const fresh = new ConversationStore(storeDir);
    assert.equal((await fresh.load(chatId))?.title, 'Deployment notes');
    assert.equal((await fresh.load(agentId))?.title, 'Which volumes hold invoices?');
    assert.equal((await fresh.list()).find((s) => s.id === chatId)?.title, 'Deployment notes', 'the index shows the new title');
    assert.equal((await fresh.load(chatId))?.turns.length, 2, 'renaming keeps the messages');
    const shown = posted.filter((m): m is Extract<HostToWebview, { type: 'conversation' }> => m.type === 'conversation').at(-1);
    assert.equal(shown?.conversation.id, agentId, 'the open conversation is still shown');
    assert.equal(shown?.conversations.find((s) => s.id === agentId)?.title, 'Which volumes hold invoices?');
  });

  it('deletes a conversation from disk (Delete button); deleting the open one opens a new chat', async () => {
    const session = newSession();
    const { chatId, agentId } = await twoConversations(session);
    await session.delete(chatId);
    assert.equal(existsSync(fileOf(chatId)), false);
    assert.deepEqual(
      (await new ConversationStore(storeDir).list()).map((s) => s.id),
      [agentId],
    );
    assert.equal((await session.current()).id, agentId, 'deleting another conversation leaves the open one open');
    await session.delete(agentId);
    assert.equal(existsSync(fileOf(agentId)), false);
    const now = await session.current();
    assert.notEqual(now.id, agentId);
    assert.equal(now.turns.length, 0, 'a new empty chat is open');
    assert.deepEqual(await new ConversationStore(storeDir).list(), []);
  });

  it('reveals a cited file by its own volume, by a same-id attachment when the citation has none, else explains; refuses what no answer cited', async () => {
    const store = new ConversationStore(storeDir);
    const conversation = createConversation('agent', options);
    conversation.title = 'Cited';
    conversation.turns.push(
      { id: newTurnId(), role: 'user', content: 'q', createdAt: 1, attachments: [{ fileId: 'f-attached', filename: 'plan.md', size: 3, volume: 'team' }] },
      {
        id: newTurnId(),
        role: 'assistant',
        content: 'a',
        state: 'done',
        createdAt: 2,
        citations: [
          { fileId: 'f-docs', filename: 'guide.md', volume: 'docs' },
          { fileId: 'f-attached', filename: 'plan.md' },
          { fileId: 'f-nowhere', filename: 'orphan.md' },
        ],
      },
    );
    await store.save(conversation);
    const session = newSession();
    assert.equal(await session.openConversation(conversation.id), true);
    assert.deepEqual(session.citedFile('docs', 'f-docs'), { fileId: 'f-docs', filename: 'guide.md', volume: 'docs' });
    assert.deepEqual(session.citedFile('', 'f-attached'), { fileId: 'f-attached', filename: 'plan.md', volume: 'team' });
    assert.deepEqual(session.citedFile('', 'f-nowhere'), { fileId: 'f-nowhere', filename: 'orphan.md' });
    // Only what an answer cited: a made-up id or a volume the citation did not name is refused.
    assert.equal(session.citedFile('', 'f-docs'), undefined);
    assert.equal(session.citedFile('team', 'f-nowhere'), undefined);
    assert.equal(session.citedFile('', 'f-unknown'), undefined);
    // What the click then does: reveal where the volume is known, else say why not, and
    // refuse anything no answer cited.
    const reveal = (volume: string, fileId: string) => planCitationReveal(session.citedFile(volume, fileId));
    assert.deepEqual(reveal('docs', 'f-docs'), { kind: 'reveal', volume: 'docs', fileId: 'f-docs' });
    assert.deepEqual(reveal('', 'f-attached'), { kind: 'reveal', volume: 'team', fileId: 'f-attached' });
    const explained = reveal('', 'f-nowhere');
    assert.equal(explained.kind, 'explain');
    assert.match(explained.kind === 'explain' ? explained.message : '', /did not say which volume "orphan\.md" is in/);
    assert.deepEqual(reveal('', 'f-unknown'), { kind: 'refuse' });
  });

  it('exports an agent answer with its question, reasoning, answer text and sources (KSM: Export Conversation as Markdown)', async () => {
    const path = join(dir, 'runbook.md');
    writeFileSync(path, 'The kestrel runbook says: restart the indexer before the nightly backup. Kestrel backups run at two.\n');
    const client = new KsmClient({ baseUrl: emulator.url, apiKey: async () => emulator.apiKey });
    const [uploaded] = await client.uploadFiles({ volume: 'ops', embedding: 'emu-embed', doChunking: 1, files: [{ path }] });
    assert.ok(uploaded.ok);
    await emulator.waitForIdle();
    const session = newSession();
    await session.attachForAgent([{ fileId: uploaded.info.uuid, filename: 'runbook.md', size: uploaded.info.filesize, volume: 'ops' }]);
    await session.handle({ type: 'setThinking', enabled: true });
    assert.equal((await session.send('What does the kestrel runbook say about backups?'))?.state, 'done');
    const conversation = await session.current();
    const answer = conversation.turns[1];
    assert.ok(answer.reasoning && answer.citations?.length, `the emulator gave reasoning and sources: ${JSON.stringify(answer)}`);
    const md = conversationToMarkdown(conversation);
    assert.ok(md.startsWith('# What does the kestrel runbook say about backups?\n'), md.slice(0, 200));
    const parts = [
      '## You\n\n_Files: `runbook.md`_\n\nWhat does the kestrel runbook say about backups?',
      `<details><summary>Reasoning</summary>\n\n${answer.reasoning.trim()}\n\n</details>`,
      answer.content,
      '**Sources:**\n\n- [1] `runbook.md` (ops)',
      'Agent `rag-agent` with model `emu-chat`',
    ];
    for (const part of parts) assert.ok(md.includes(part), `missing ${JSON.stringify(part.slice(0, 80))} in\n${md}`);
    assert.ok(md.indexOf('## You') < md.indexOf('<summary>Reasoning') && md.indexOf('<summary>Reasoning') < md.indexOf(answer.content), 'question, reasoning, answer in order');
  });
});
