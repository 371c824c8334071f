// "Replace" keeps a searchable copy (issue 11): the older copy is deleted only once the new
// copy reached `done`; a new copy that ends `na` leaves the older, searchable copy in place
// and says so; pending replacements are remembered in storage and settled after a reload.
// Against the emulator over real HTTP (its processing pipeline decides done / na).
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import type { DoChunking, FileInfo } from '../../src/api/types';
import type { KsmService } from '../../src/api/service';
import { planUploads } from '../../src/upload/core/duplicatePlanning';
import { ReplacementTracker, type PendingReplacement, type ReplacementStorage, type SettledReplacement } from '../../src/upload/core/pendingReplacements';
import { runUpload } from '../../src/upload/core/uploadRun';
import { freshVolume, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

/** Stands in for VS Code's globalState: survives the tracker (the "window") that wrote it. */
function persistentStorage(): ReplacementStorage & { raw: () => string } {
  let saved = '[]';
  return {
    get: () => JSON.parse(saved) as PendingReplacement[],
    set: async (pending) => void (saved = JSON.stringify(pending)),
    raw: () => saved,
  };
}

describe('upload: Replace keeps a searchable copy until the new one is processed', function () {
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => fx.close());

  async function listAll(volume: string): Promise<FileInfo[]> {
    const files: FileInfo[] = [];
    for await (const f of fx.client.listAllFiles(volume)) files.push(f);
    return files;
  }

  async function waitFinal(volume: string): Promise<FileInfo[]> {
    await fx.emulator.waitForIdle();
    return listAll(volume);
  }

  /** Uploads `report.md` once (processed to done), then replaces it with new content. */
  async function replaceReport(volume: string, newChunking: DoChunking) {
    const [first] = await writeTree(join(fx.workDir, `${volume}-old`), { 'report.md': '# Report\nThe old, searchable version of the quarterly report.\n' });
    await runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: 1, plan: await planUploads([{ path: first, size: 10, displayPath: first }], [], async () => undefined) });
    const [old] = await waitFinal(volume);
    assert.equal(old.status, 'done');
    const [second] = await writeTree(join(fx.workDir, `${volume}-new`), { 'report.md': '# Report\nThe new version of the quarterly report, with more text.\n' });
    const plan = await planUploads([{ path: second, size: 10, displayPath: second }], [old], async () => ({ choice: 'replace', applyToAll: false }));
    const summary = await runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: newChunking, plan });
    assert.equal(summary.uploaded, 1);
    assert.equal(summary.replacements.length, 1);
    const listed = await listAll(volume);
    assert.ok(
      listed.some((f) => f.uuid === old.uuid && f.status === 'done'),
      'right after the upload the older copy is still there and searchable',
    );
    return { old, summary };
  }

  it('deletes the older copy once the new one reached done', async () => {
    const volume = freshVolume('replace-done');
    const { old, summary } = await replaceReport(volume, 1);
    const settled: SettledReplacement[] = [];
    const tracker = new ReplacementTracker({ service: () => fx.client, storage: persistentStorage(), onSettled: (s) => settled.push(s), pollMs: 10 });
    await tracker.add(summary.replacements);
    await tracker.idle();
    assert.deepEqual(
      settled.map((s) => s.outcome),
      ['replaced'],
    );
    const after = await listAll(volume);
    assert.deepEqual(
      after.map((f) => [f.uuid, f.status]),
      [[summary.replacements[0].uuid, 'done']],
    );
    assert.ok(!after.some((f) => f.uuid === old.uuid));
  });

  it('keeps the older, searchable copy when the new one ends na, and says so', async () => {
    const volume = freshVolume('replace-na');
    // do_chunking 0: stored as is, never searchable (the emulator ends it `na`).
    const { old, summary } = await replaceReport(volume, 0);
    const settled: SettledReplacement[] = [];
    const tracker = new ReplacementTracker({ service: () => fx.client, storage: persistentStorage(), onSettled: (s) => settled.push(s), pollMs: 10 });
    await tracker.add(summary.replacements);
    await tracker.idle();
    assert.deepEqual(
      settled.map((s) => s.outcome),
      ['kept-old'],
    );
    assert.match(settled[0].message, /report\.md.*could not be processed.*older, searchable copy was kept/);
    const after = await listAll(volume);
    assert.ok(
      after.some((f) => f.uuid === old.uuid && f.status === 'done'),
      'the searchable copy is still there',
    );
    assert.ok(after.some((f) => f.uuid === summary.replacements[0].uuid && f.status === 'na'));
  });

  it('remembers a pending replacement across a reload and settles it in the next window', async () => {
    const volume = freshVolume('replace-reload');
    const { old, summary } = await replaceReport(volume, 1);
    const storage = persistentStorage();
    // The first window records the replacement and closes before looking at the listing.
    const first = new ReplacementTracker({ service: () => fx.client, storage, onSettled: () => assert.fail('not settled by the closed window'), pollMs: 10 });
    first.dispose();
    await first.add(summary.replacements);
    assert.equal(JSON.parse(storage.raw()).length, 1, 'the pending replacement is in storage');
    assert.ok((await listAll(volume)).some((f) => f.uuid === old.uuid));

    const settled: SettledReplacement[] = [];
    const next = new ReplacementTracker({ service: () => fx.client, storage, onSettled: (s) => settled.push(s), pollMs: 10 });
    next.resume();
    await next.idle();
    assert.deepEqual(
      settled.map((s) => s.outcome),
      ['replaced'],
    );
    assert.deepEqual(JSON.parse(storage.raw()), []);
    assert.ok(!(await listAll(volume)).some((f) => f.uuid === old.uuid));
  });
});

describe('upload: a settled Replace tells its outcome with the service\u2019s words as text', () => {
  const LINK = /\[[^\]]+\]\((?:https?:\/\/|command:|file:)[^)\s]+\)/i;
  const settle = async (detail: string, deleteError?: Error) => {
    let stored: PendingReplacement[] = [{ volume: 'team', uuid: 'new', filename: 'report.md', replaces: ['old'] }];
    const listed: FileInfo[] = [
      { uuid: 'new', filename: 'report.md', status: 'na', statusDetail: detail, filesize: 1, date: '', isdir: 0 },
      { uuid: 'old', filename: 'report.md', status: deleteError ? 'na' : 'done', filesize: 1, date: '', isdir: 0 },
    ];
    const service = {
      async *listAllFiles() {
        yield* listed;
      },
      deleteFiles: async () => {
        throw deleteError;
      },
    } as unknown as KsmService;
    const tracker = new ReplacementTracker({ service: () => service, storage: { get: () => stored, set: async (p) => void (stored = p) }, onSettled: () => undefined });
    const [settled] = await tracker.settleOnce();
    return settled!.message;
  };

  it('quotes a hostile processing detail without a link or a bidi control, and bounded', async () => {
    const message = await settle(`[Restore the old copy](command:workbench.action.terminal.sendSequence?%7B%7D) \u202E${'x'.repeat(100_000)}`);
    assert.match(message, /could not be processed/);
    assert.equal(LINK.exec(message), null, message.slice(0, 200));
    assert.ok(!message.includes('\u202E'));
    assert.ok(message.length < 600, 'a 100 KB detail is cut');
  });

  it("quotes a failed delete's error by its first line, as text", async () => {
    const message = await settle('no text', new Error('[Retry](command:x.y) failed\nstack detail for the log'));
    assert.match(message, /could not be deleted/);
    assert.equal(LINK.exec(message), null, message);
    assert.ok(!message.includes('stack detail'), message);
  });
});
