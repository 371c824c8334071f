// Chat stores written by earlier versions load in this one without loss, and a store a newer
// version wrote is left as it is (a downgrade never clobbers it). The fixtures under
// test/fixtures/chat-store/ were written by the old code itself (`v-<commit>`: that
// commit's ConversationStore.save, run from a worktree of it; see its README.md), or, for
// `newer/`, by hand in the shape a later version might write.
import { strict as assert } from 'node:assert';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConversationStore, INTERRUPTED_MESSAGE, type StoreProblem } from '../../src/chat/core/conversationStore';

const FIXTURES = join(__dirname, '..', 'fixtures', 'chat-store');

const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

describe('chat: stores written by earlier and later versions', () => {
  let root: string;
  let problems: StoreProblem[];
  const store = () => new ConversationStore(root, (p) => problems.push(p));
  const copy = (fixture: string) => cpSync(join(FIXTURES, fixture), root, { recursive: true });
  const file = (id: string) => join(root, 'conversations', `${id}.json`);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'ksm-chat-compat-'));
    problems = [];
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  for (const fixture of ['v-e8035d4', 'v-86e8d3c']) {
    it(`${fixture}: every conversation, message, citation, thread id, title and parameter loads, and survives a save`, async () => {
      copy(fixture);
      const ids = readdirSync(join(root, 'conversations')).map((n) => n.slice(0, -'.json'.length));
      const original = new Map(ids.map((id) => [id, readJson(file(id))]));

      const s = store();
      const listed = await s.list();
      assert.deepEqual(listed.map((c) => c.title).sort(), [...original.values()].map((c) => c.title).sort());
      for (const [id, written] of original) {
        const loaded = (await s.load(id)) as unknown as Record<string, unknown>;
        // Shown as the old version would show it after a restart: a streaming answer whose writer is gone is interrupted.
        const expected = structuredClone(written) as { turns: Record<string, unknown>[] };
        for (const turn of expected.turns) if (turn.state === 'streaming') Object.assign(turn, { state: 'cut-off', error: INTERRUPTED_MESSAGE });
        assert.deepEqual(loaded, expected, `${fixture} ${id} loads as written`);
      }

      // A rename (a save through the merge) keeps every other field on disk.
      const renamed = (await s.load(ids[0]))!;
      renamed.title = 'Renamed';
      await s.save(renamed);
      const after = readJson(file(ids[0]));
      assert.deepEqual({ ...after, title: undefined }, { ...original.get(ids[0]), title: undefined });
      assert.equal(after.title, 'Renamed');
      assert.deepEqual(problems, []);
    });
  }

  it('a conversation a newer version wrote stays in place unchanged, reported once with what to do; the rest loads', async () => {
    copy('newer');
    const newerFile = file('c-00000000000000f2');
    const newerBytes = readFileSync(newerFile, 'utf8');

    const s = store();
    assert.deepEqual(
      (await s.list()).map((c) => c.id),
      ['c-00000000000000f1'],
    );
    assert.equal(await s.load('c-00000000000000f2'), undefined);
    await s.list();
    assert.equal(readFileSync(newerFile, 'utf8'), newerBytes, 'left unchanged where the newer version looks for it');
    assert.deepEqual(readdirSync(root).sort(), ['conversations', 'index.json']);
    const newer = problems.filter((p) => p.keptInPlace === 'newer');
    assert.equal(newer.length, 1, 'reported once');
    assert.equal(newer[0].file, newerFile);
    assert.match(newer[0].reason, /newer version.*schema 2.*update the extension/);

    // This version never writes over it, even when asked to save a conversation with its id.
    const over = (await s.load('c-00000000000000f1'))!;
    await assert.rejects(s.save({ ...over, id: 'c-00000000000000f2' }), /newer version/);
    assert.equal(readFileSync(newerFile, 'utf8'), newerBytes);
  });

  it("a newer version's conversation is read once, not at every listing, and the index is not rewritten for it; read again once it changes", async () => {
    copy('newer');
    const s = store();
    await s.list(); // the fixture's index may predate the stamps: this first listing settles it
    const spied = s as unknown as { readConversation: (...args: unknown[]) => Promise<unknown> };
    const read = spied.readConversation.bind(s);
    const readIds: unknown[] = [];
    spied.readConversation = (...args) => {
      readIds.push(args[0]);
      return read(...args);
    };
    const indexPath = join(root, 'index.json');
    const indexBefore = statSync(indexPath, { bigint: true });
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(
        (await s.list()).map((c) => c.id),
        ['c-00000000000000f1'],
      );
    }
    assert.deepEqual(readIds, [], 'the newer file is not read again while unchanged');
    const indexAfter = statSync(indexPath, { bigint: true });
    assert.equal(`${indexAfter.ino}:${indexAfter.mtimeNs}`, `${indexBefore.ino}:${indexBefore.mtimeNs}`, 'the index is not rewritten');

    // The newer version writes it again: this store reads it once more (and still does not list it).
    const newerFile = file('c-00000000000000f2');
    writeFileSync(newerFile, readFileSync(newerFile, 'utf8') + ' ');
    await s.list();
    await s.list();
    assert.deepEqual(readIds, ['c-00000000000000f2']);
    assert.equal(problems.filter((p) => p.keptInPlace === 'newer').length, 1, 'still reported once');
  });

  it('fields a later version added, and a chip list in a shape this version does not know, stay on disk through a save (reported once)', async () => {
    copy('newer');
    const s = store();
    const c = (await s.load('c-00000000000000f1'))!;
    assert.equal(c.pendingCode, undefined, 'a chip list it cannot show is not shown');
    c.title = 'Renamed';
    await s.save(c);
    await s.load('c-00000000000000f1');
    const onDisk = readJson(file('c-00000000000000f1')) as Record<string, unknown> & { turns: Record<string, unknown>[]; parameters: Record<string, unknown> };
    assert.equal(onDisk.title, 'Renamed');
    assert.deepEqual(onDisk.pendingCode, [{ id: 'x-0000000000e3', file: 'later-shape.ts', text: 'x' }]);
    assert.deepEqual(onDisk.laterField, ['kept']);
    assert.deepEqual(onDisk.turns[0].laterTurnField, { kept: true });
    assert.equal(onDisk.parameters.laterParameter, 7);
    const partly = problems.filter((p) => p.keptInPlace === 'partly');
    assert.equal(partly.length, 1);
    assert.match(partly[0].reason, /pendingCode.*left unchanged/);
  });

  it('a half-written index (a crash mid-save) is rebuilt from the files: nothing is lost', async () => {
    copy('v-86e8d3c');
    writeFileSync(join(root, 'index.json'), '[{"id":"c-0000000000000002","title":"What does the hand');
    const listed = await store().list();
    assert.deepEqual(
      listed.map((c) => c.id),
      ['c-0000000000000002', 'c-0000000000000001'],
    );
    assert.equal((readJson(join(root, 'index.json')) as unknown as unknown[]).length, 2, 'the index is whole again');
  });

  it('an index that lists a file that is gone and forgets one that is there: the files are the truth', async () => {
    copy('v-e8035d4');
    writeFileSync(
      join(root, 'index.json'),
      JSON.stringify([
        { id: 'c-0000000000000001', title: 'How do I rotate logs?', mode: 'chat', updatedAt: 1763776803000 },
        { id: 'c-00000000000000aa', title: 'Gone', mode: 'chat', updatedAt: 1763776999000 },
      ]),
    );
    const s = store();
    const listed = await s.list();
    assert.deepEqual(listed.map((c) => c.title).sort(), ['How do I rotate logs?', 'What does the handbook say about leave?']);
    assert.equal((await s.loadAll()).length, 2);
    assert.deepEqual(problems, []);
  });
});
