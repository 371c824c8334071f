// Conversations on disk: a fresh store reads back exactly what was saved (history survives a
// reload), unreadable files are kept aside and reported, and the index is only a cache.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConversation, newTurnId, summarize, type StoredConversation } from '../../src/chat/core/conversationModel';
import { ConversationStore, type StoreProblem } from '../../src/chat/core/conversationStore';
import type { ModelOptions } from '../../src/chat/core/conversationModel';

const options: ModelOptions = { models: ['emu-chat'], reasoningModels: [], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat' };

function conversationWith(question: string, answer: string, updatedAt: number): StoredConversation {
  const c = createConversation('chat', options, updatedAt);
  c.title = question;
  c.turns.push({ id: newTurnId(), role: 'user', content: question, createdAt: updatedAt });
  c.turns.push({ id: newTurnId(), role: 'assistant', content: answer, state: 'done', createdAt: updatedAt });
  return c;
}

/** Counts the conversation files `store` reads (its private reader, wrapped). */
function countReads(store: ConversationStore): () => number {
  const spied = store as unknown as { readConversation: (...args: unknown[]) => Promise<unknown> };
  const read = spied.readConversation.bind(store);
  let reads = 0;
  spied.readConversation = (...args) => {
    reads++;
    return read(...args);
  };
  return () => reads;
}

describe('chat: conversation store', () => {
  let root: string;
  let problems: StoreProblem[];
  const store = () => new ConversationStore(root, (p) => problems.push(p));

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'ksm-chat-store-'));
    problems = [];
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads back in a fresh instance exactly what was saved, newest first', async () => {
    const older = conversationWith('first question', 'first answer', 1000);
    const newer = conversationWith('second question', 'second answer', 2000);
    newer.parameters = { temperature: 0.2, systemPrompt: 'Be brief' };
    await store().save(older);
    await store().save(newer);

    const reloaded = store();
    assert.deepEqual(
      (await reloaded.list()).map((s) => s.id),
      [newer.id, older.id],
    );
    assert.deepEqual(await reloaded.load(newer.id), newer);
    assert.deepEqual(await reloaded.load(older.id), older);
    assert.deepEqual(problems, []);
  });

  it('reads back the context chips (code, chosen volumes), and drops a damaged chip list instead of the conversation', async () => {
    const c = conversationWith('q', 'a', 1000);
    c.pendingCode = [{ id: 'x-000000000001', filename: 'a.py', languageId: 'python', lines: { start: 1, end: 2 }, text: 'x = 1\ny = 2' }];
    c.contextVolumes = [{ volume: 'lamps', label: 'lamps', personal: false }];
    c.contextFiles = [{ fileId: 'f1', filename: 'lamps.md', size: 3, volume: 'lamps' }];
    await store().save(c);
    assert.deepEqual(await store().load(c.id), c);
    const file = join(root, 'conversations', `${c.id}.json`);
    const damaged = { ...JSON.parse(readFileSync(file, 'utf8')), pendingCode: 'not a list', contextVolumes: [{ volume: 7 }], contextFiles: {} };
    writeFileSync(file, JSON.stringify(damaged));
    const loaded = await store().load(c.id);
    assert.equal(loaded?.turns.length, 2, 'the conversation still loads');
    assert.equal(loaded?.pendingCode, undefined);
    assert.equal(loaded?.contextVolumes, undefined);
    assert.equal(loaded?.contextFiles, undefined);
    // Reported for the log (not as an unreadable conversation); the lists stay in the file.
    assert.deepEqual(
      problems.map((p) => p.keptInPlace),
      ['partly', 'partly', 'partly'],
    );
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).pendingCode, 'not a list');
  });

  it('leaves no temp files behind and overwrites in place', async () => {
    const s = store();
    const c = conversationWith('q', 'a', 1000);
    await s.save(c);
    c.title = 'renamed';
    await s.save(c);
    await s.flush();
    assert.deepEqual(readdirSync(join(root, 'conversations')), [`${c.id}.json`]);
    assert.equal((await store().load(c.id))?.title, 'renamed');
  });

  it('keeps an unreadable conversation file aside, reports it, and still lists the others', async () => {
    const good = conversationWith('good', 'kept', 1000);
    const bad = conversationWith('bad', 'broken', 2000);
    await store().save(good);
    await store().save(bad);
    const badFile = join(root, 'conversations', `${bad.id}.json`);
    const brokenText = readFileSync(badFile, 'utf8').slice(0, 40);
    writeFileSync(badFile, brokenText);
    rmSync(join(root, 'index.json'));

    const s = store();
    assert.deepEqual(
      (await s.list()).map((c) => c.id),
      [good.id],
    );
    assert.equal(problems.length, 1);
    assert.equal(problems[0].file, badFile);
    assert.match(problems[0].reason, /not valid JSON/);
    assert.ok(problems[0].keptAt && existsSync(problems[0].keptAt), 'the broken file is kept, not deleted');
    assert.equal(readFileSync(problems[0].keptAt!, 'utf8'), brokenText);
  });

  it('keeps aside a file that is JSON but not a conversation', async () => {
    const c = conversationWith('q', 'a', 1000);
    await store().save(c);
    writeFileSync(join(root, 'conversations', `${c.id}.json`), JSON.stringify({ schema: 1, id: c.id, turns: 'nope' }));
    assert.equal(await store().load(c.id), undefined);
    assert.equal(problems.length, 1);
    assert.ok(problems[0].keptAt);
  });

  it('rebuilds a missing or corrupt index from the conversation files', async () => {
    const a = conversationWith('a', 'a', 1000);
    const b = conversationWith('b', 'b', 2000);
    await store().save(a);
    await store().save(b);
    writeFileSync(join(root, 'index.json'), '{ torn');
    assert.deepEqual(
      (await store().list()).map((c) => c.id),
      [b.id, a.id],
    );
    rmSync(join(root, 'index.json'));
    const s = store();
    assert.deepEqual(
      (await s.list()).map((c) => c.id),
      [b.id, a.id],
    );
    await s.flush();
    assert.equal(JSON.parse(readFileSync(join(root, 'index.json'), 'utf8')).length, 2, 'the index was written again');
  });

  it('lists the new title and order of a conversation saved just before a crash, before its index entry was written', async () => {
    const a = conversationWith('first title', 'a', 1000);
    const b = conversationWith('b', 'b', 2000);
    const c = conversationWith('c', 'c', 3000);
    for (const conversation of [a, b, c]) await store().save(conversation);
    // What save() writes, renamed into place as it does, and then the extension host died:
    // the index still holds the old summaries.
    const write = (conversation: StoredConversation) => {
      const file = join(root, 'conversations', `${conversation.id}.json`);
      writeFileSync(`${file}.tmp`, JSON.stringify(conversation));
      renameSync(`${file}.tmp`, file);
    };
    const indexBefore = readFileSync(join(root, 'index.json'), 'utf8');
    write({ ...a, title: 'renamed, then answered', updatedAt: 4000 });
    write({ ...b, title: 'renamed only' }); // a rename keeps updatedAt
    assert.equal(readFileSync(join(root, 'index.json'), 'utf8'), indexBefore);

    const s = store();
    const reads = countReads(s);
    const listed = await s.list();
    assert.deepEqual(
      listed.map((summary) => [summary.id, summary.title]),
      [
        [a.id, 'renamed, then answered'],
        [c.id, 'c'],
        [b.id, 'renamed only'],
      ],
    );
    assert.equal(reads(), 2, 'only the two changed files are read');
    assert.deepEqual(listed[0], { id: a.id, title: 'renamed, then answered', mode: 'chat', updatedAt: 4000 }, 'a summary, nothing of the index entry');
    // The index caught up: the next listing (any window) reads nothing.
    const again = store();
    const readsAgain = countReads(again);
    assert.deepEqual(await again.list(), listed);
    assert.equal(readsAgain(), 0);
    assert.deepEqual(problems, []);
  });

  it('reads no conversation file to list an unchanged store; an index an earlier version wrote costs one read per file, once', async () => {
    const conversations = [1000, 2000, 3000].map((t) => conversationWith(`q${t}`, 'a', t));
    for (const conversation of conversations) await store().save(conversation);
    const expected = conversations.map((c) => c.id).reverse();

    const s = store();
    const reads = countReads(s);
    assert.deepEqual(
      (await s.list()).map((summary) => summary.id),
      expected,
    );
    assert.deepEqual(
      (await s.list()).map((summary) => summary.id),
      expected,
    );
    assert.equal(reads(), 0);

    // Entries as versions before the file stamps wrote them.
    const indexPath = join(root, 'index.json');
    const old = (JSON.parse(readFileSync(indexPath, 'utf8')) as Record<string, unknown>[]).map(({ fileStamp: _stamp, ...entry }) => entry);
    writeFileSync(indexPath, JSON.stringify(old));
    const upgraded = store();
    const upgradedReads = countReads(upgraded);
    assert.deepEqual(
      (await upgraded.list()).map((summary) => summary.id),
      expected,
    );
    assert.equal(upgradedReads(), 3);
    assert.deepEqual(
      (await upgraded.list()).map((summary) => summary.id),
      expected,
    );
    assert.equal(upgradedReads(), 3, 'the index got the stamps');
    assert.deepEqual(problems, []);
  });

  it('never reads through a symbolic link planted at a conversation file or the index: kept aside as found, reported without its content', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'ksm-chat-store-outside-'));
    try {
      const a = conversationWith('a', 'a', 1000);
      const b = conversationWith('b', 'b', 2000);
      await store().save(a);
      await store().save(b);
      // A conversation file replaced by a link to a secret, another by a link to a valid conversation that is not ours.
      const secret = join(outside, '.env');
      writeFileSync(secret, 'API_TOKEN=s3cret\n');
      const foreign = join(outside, 'foreign.json');
      writeFileSync(foreign, JSON.stringify({ ...b, title: 'FROM THE LINK' }));
      const aFile = join(root, 'conversations', `${a.id}.json`);
      const bFile = join(root, 'conversations', `${b.id}.json`);
      rmSync(aFile);
      symlinkSync(secret, aFile);
      rmSync(bFile);
      symlinkSync(foreign, bFile);
      // The index replaced by a link to a file of summaries.
      const fakeIndex = join(outside, 'index.json');
      writeFileSync(fakeIndex, JSON.stringify([{ ...summarize(a), title: 'INDEX FROM THE LINK' }]));
      rmSync(join(root, 'index.json'));
      symlinkSync(fakeIndex, join(root, 'index.json'));

      const s = store();
      assert.deepEqual(await s.list(), []);
      assert.equal(await s.load(a.id), undefined);
      await s.flush();
      const byFile = new Map(problems.map((p) => [p.file, p]));
      assert.equal(problems.length, 3, JSON.stringify(problems));
      for (const file of [aFile, bFile, join(root, 'index.json')]) {
        const problem = byFile.get(file);
        assert.ok(problem, `${file} reported`);
        assert.match(problem.reason, /symbolic link.*not followed/);
        assert.ok(problem.keptAt && lstatSync(problem.keptAt).isSymbolicLink(), 'the link itself is kept aside, as found');
      }
      assert.equal(byFile.get(join(root, 'index.json'))!.index, true);
      assert.ok(!JSON.stringify(problems).includes('s3cret'), 'nothing the link leads to is quoted');
      assert.equal(readFileSync(secret, 'utf8'), 'API_TOKEN=s3cret\n');
      assert.equal(JSON.parse(readFileSync(fakeIndex, 'utf8'))[0].title, 'INDEX FROM THE LINK', 'the linked file is not written either');
      assert.ok(!lstatSync(join(root, 'index.json')).isSymbolicLink(), 'a real index replaces the link');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('marks an answer that was streaming when VS Code died as cut off, keeping its text', async () => {
    const c = conversationWith('q', 'partial ans', 1000);
    c.turns[1].state = 'streaming';
    await store().save(c);
    // The window that wrote it died: its live mark names a process that no longer runs.
    const mark = join(root, 'live', `${c.id}.json`);
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(mark, JSON.stringify({ ...JSON.parse(readFileSync(mark, 'utf8')), pid: deadPid }));
    const loaded = await store().load(c.id);
    assert.equal(loaded?.turns[1].state, 'cut-off');
    assert.equal(loaded?.turns[1].content, 'partial ans');
    assert.match(loaded?.turns[1].error ?? '', /Interrupted/);
  });

  it('deletes a conversation and its index entry, and refuses ids that are not ours', async () => {
    const c = conversationWith('q', 'a', 1000);
    const s = store();
    await s.save(c);
    await s.delete(c.id);
    assert.deepEqual(await s.list(), []);
    assert.equal(await s.load(c.id), undefined);
    assert.equal(await s.load('../index'), undefined);
    await assert.rejects(s.save({ ...c, id: '../escape' }), /Invalid conversation id/);
  });
});
