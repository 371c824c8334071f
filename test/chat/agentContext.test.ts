// What a conversation sends and cites, end to end over HTTP against the emulator: code chips
// reach the model (and only the request: the turn keeps the typed question); a conversation
// that chose one volume makes the agent search only that volume (D18's
// search_personal_volume), remembered across a reload; and a cited passage is found by its
// answer and marker, refused for a marker no answer showed.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { KsmClient } from '../../src/api/client';
import { ChatEngine } from '../../src/chat/core/chatEngine';
import { planCitationOpen } from '../../src/chat/core/citationReveal';
import type { ModelOptions } from '../../src/chat/core/conversationModel';
import { ConversationStore } from '../../src/chat/core/conversationStore';

const options: ModelOptions = { models: ['emu-chat'], reasoningModels: [], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat' };
const quietLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const LAMPS_QUESTION = 'Which lamps does the lighting guide recommend for the reading room?';

describe('chat: context a conversation sends, and the sources it cites (emulator)', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let storeDir: string;
  const client = () => new KsmClient({ baseUrl: emulator.url, apiKey: async () => emulator.apiKey });
  const newEngine = () => new ChatEngine(new ConversationStore(storeDir), { getService: client, getOptions: () => options, getVolumes: () => ['lighting', 'reports'], log: quietLog });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-chat-context-'));
    emulator = await startEmulator({ port: 0, dataDir: join(dir, 'emulator'), stepMs: 5, tokenDelayMs: 1, responseWords: 20 });
    // The same topic in three volumes: an unrestricted question cites more than one of them.
    const seed: Array<[string, string, string]> = [
      ['lighting', 'lighting-guide.md', 'The lighting guide recommends warm LED lamps for the reading room. Reading room lamps should be dimmable.'],
      ['reports', 'lamp-report.md', 'The quarterly report lists lamps bought for the reading room and their costs. Lamps for the reading room were over budget.'],
      [`{${emulator.userId}}`, 'my-lamps.md', 'My notes on lamps: the reading room lamps flicker. The lighting guide lamps are warm.'],
    ];
    for (const [volume, name, text] of seed) {
      const path = join(dir, name);
      writeFileSync(path, `${text}\n`);
      const [uploaded] = await client().uploadFiles({ volume, embedding: 'emu-embed', doChunking: 1, files: [{ path }] });
      assert.ok(uploaded.ok, `upload of ${name}`);
    }
    await emulator.waitForIdle();
  });
  beforeEach(() => (storeDir = mkdtempSync(join(dir, 'store-'))));
  after(async () => {
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('without a choice the agent searches My files and every configured volume (the control for the next test)', async () => {
    const engine = newEngine();
    await engine.newConversation('agent');
    assert.equal((await engine.send(LAMPS_QUESTION))?.state, 'done');
    const volumes = new Set((await engine.current()).turns[1].citations?.map((c) => c.volume));
    assert.ok(volumes.size > 1, `citations from several volumes: ${[...volumes].join(', ')}`);
  });

  it('a conversation that chose one volume cites only that volume, and keeps the choice across a reload', async () => {
    const engine = newEngine();
    await engine.newConversation('agent');
    await engine.setContextVolumes([{ volume: 'lighting', label: 'lighting', personal: false }]);
    assert.equal((await engine.send(LAMPS_QUESTION))?.state, 'done');
    const conversation = await engine.current();
    const cited = conversation.turns[1].citations ?? [];
    assert.ok(cited.length > 0, 'the chosen volume answers');
    assert.deepEqual([...new Set(cited.map((c) => c.volume))], ['lighting'], JSON.stringify(cited));

    const reloaded = newEngine();
    assert.deepEqual((await reloaded.current()).contextVolumes, [{ volume: 'lighting', label: 'lighting', personal: false }], 'the choice is stored with the conversation');
    assert.equal((await reloaded.send('And which lamps are dimmable?'))?.state, 'done');
    const again = (await reloaded.current()).turns[3].citations ?? [];
    assert.deepEqual([...new Set(again.map((c) => c.volume))], ['lighting'], 'the follow-up after the reload is restricted too');
  });

  it('My files alone searches only the personal volume; removing the last chip searches everything again', async () => {
    const engine = newEngine();
    await engine.newConversation('agent');
    const personal = `{${emulator.userId}}`;
    await engine.setContextVolumes([{ volume: personal, label: 'My files', personal: true }]);
    assert.equal((await engine.send(LAMPS_QUESTION))?.state, 'done');
    assert.deepEqual([...new Set((await engine.current()).turns[1].citations?.map((c) => c.volume))], [personal]);
    await engine.removeContextVolume(personal);
    assert.equal((await engine.current()).contextVolumes, undefined, 'no chip left: back to every volume');
  });

  it('a conversation that chose files searches only those files, kept across a reload; removing them searches the volumes again', async () => {
    const listed: Array<{ uuid: string; filename: string; filesize: number }> = [];
    for await (const info of client().listAllFiles('reports')) listed.push(info);
    const report = listed.find((f) => f.filename === 'lamp-report.md');
    assert.ok(report);
    const engine = newEngine();
    await engine.newConversation('agent');
    await engine.setContextFiles([{ fileId: report.uuid, filename: report.filename, size: report.filesize, volume: 'reports' }]);
    assert.equal((await engine.send(LAMPS_QUESTION))?.state, 'done');
    assert.deepEqual([...new Set((await engine.current()).turns[1].citations?.map((c) => c.fileId))], [report.uuid]);
    const reloaded = newEngine();
    assert.equal((await reloaded.current()).contextFiles?.[0].fileId, report.uuid);
    await reloaded.removeContextFile(report.uuid);
    assert.equal((await reloaded.current()).contextFiles, undefined);
    assert.equal((await reloaded.send(LAMPS_QUESTION))?.state, 'done');
    assert.ok(new Set((await reloaded.current()).turns[3].citations?.map((c) => c.volume)).size > 1, 'all volumes again');
  });

  it('numbers the cited passages like the markers and opens one by answer and marker; an unknown marker is refused', async () => {
    const engine = newEngine();
    await engine.newConversation('agent');
    assert.equal((await engine.send(LAMPS_QUESTION))?.state, 'done');
    const answer = (await engine.current()).turns[1];
    const markers = [...answer.content.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    assert.ok(markers.length > 0, answer.content);
    for (const marker of markers) {
      const passage = engine.citedPassage(answer.id, marker);
      assert.ok(passage, `marker [${marker}] has its source`);
      // The emulator quotes "From <file> [n]: "<snippet>"": the marker's passage is that file's.
      assert.ok(answer.content.includes(`From ${passage.filename} [${marker}]: "${passage.snippet}"`), `[${marker}] → ${passage.filename}`);
      const plan = planCitationOpen(answer.id, passage);
      assert.equal(plan.kind, 'open');
      if (plan.kind !== 'open') continue;
      assert.ok(plan.passage.text.startsWith(`${passage.filename} — `), plan.passage.text);
      assert.ok(plan.passage.text.includes(passage.snippet ?? '?'));
      assert.deepEqual(plan.reveal, { kind: 'reveal', volume: passage.volume, fileId: passage.fileId });
    }
    const numbers = (answer.citations ?? []).flatMap((c) => c.markers ?? []);
    assert.deepEqual(
      [...numbers].sort((a, b) => a - b),
      numbers.map((_, i) => i + 1),
      'every citation of the stream has one number',
    );
    assert.equal(engine.citedPassage(answer.id, numbers.length + 1), undefined);
    assert.equal(planCitationOpen(answer.id, engine.citedPassage('t-000000000000', 1)).kind, 'refuse');
  });

  it('sends code chips to the model before the question, keeps the typed question in the turn, and empties the chips', async () => {
    const engine = newEngine();
    assert.equal(await engine.attachCode({ filename: 'release.py', languageId: 'python', lines: { start: 3, end: 4 }, text: 'def ship():\n    return True' }), undefined);
    assert.equal((await engine.current()).pendingCode?.length, 1);
    assert.equal((await engine.send('Why does ship return True?'))?.state, 'done');
    const [question, answer] = (await engine.current()).turns;
    assert.equal(question.content, 'Why does ship return True?');
    assert.equal(question.code?.[0].filename, 'release.py');
    assert.deepEqual((await engine.current()).pendingCode, []);
    // The emulator restates the start of the last user message it received.
    assert.ok(answer.content.startsWith('You asked: "`release.py` (lines 3-4): ```python def ship(): return True ``` Why does ship return True?"'), answer.content.slice(0, 200));
  });

  it('sends code chips in an agent question too (the thread holds the fenced code and the question)', async () => {
    const engine = newEngine();
    await engine.newConversation('agent');
    await engine.attachCode({ filename: 'lamps.ts', languageId: 'typescript', text: 'export const lamps = 3;\n' });
    assert.equal((await engine.send('How many lamps?'))?.state, 'done');
    const threadId = (await engine.current()).threadId ?? '';
    const thread = await emulator.readThread(threadId);
    assert.equal(thread?.turns[0].query, '`lamps.ts`:\n\n```typescript\nexport const lamps = 3;\n```\n\nHow many lamps?');
  });
});
