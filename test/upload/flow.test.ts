// Upload of folders, duplicate names and cancellation against a real emulator over HTTP:
// folder expansion → duplicate planning → upload run → what the volume then lists.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { basename, join } from 'node:path';
import type { FileInfo } from '../../src/api/types';
import { planUploads, type DuplicateDecider, type DuplicateQuestion } from '../../src/upload/core/duplicatePlanning';
import { expandSelection } from '../../src/common/core/folderExpansion';
import { ReplacementTracker, type PendingReplacement, type ReplacementStorage } from '../../src/upload/core/pendingReplacements';
import { runUpload } from '../../src/upload/core/uploadRun';
import { sha256OfFile, UploadedContents } from '../../src/upload/core/uploadedContents';
import { allIdentical, summaryLine } from '../../src/upload/core/uploadMessages';
import { stat, writeFile } from 'node:fs/promises';
import { freshVolume, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

async function listAll(fx: EmulatorFixture, volume: string): Promise<FileInfo[]> {
  const files: FileInfo[] = [];
  for await (const f of fx.client.listAllFiles(volume)) files.push(f);
  return files;
}

function memoryStorage(): ReplacementStorage {
  let held: PendingReplacement[] = [];
  return { get: () => held, set: async (pending) => void (held = pending) };
}

const never: DuplicateDecider = async () => assert.fail('no duplicate expected');

describe('upload: folders, duplicates and cancel against the emulator', function () {
  let fx: EmulatorFixture;
  before(async () => {
    fx = await startFixture(5);
  });
  after(async () => fx.close());

  it('uploads a folder without .gitignore-d, excluded, oversized or binary files, nor the .gitignore files, keeping paths in names (D24), and a file selected twice once', async () => {
    const root = join(fx.workDir, 'ws1');
    await writeTree(root, {
      '.gitignore': 'build/\n*.log\n',
      'project/docs/guide.md': '# Guide\n',
      'project/src/main.ts': 'export const x = 1;\n',
      'project/src/.gitignore': 'generated.ts\n',
      'project/src/generated.ts': 'ignored by the nested .gitignore',
      'project/build/out.js': 'ignored by the root .gitignore',
      'project/debug.log': 'ignored by *.log',
      'project/node_modules/dep/index.js': 'excluded by a glob',
      'project/notes.tmp': 'excluded by files.exclude-like glob',
      'project/data/table.csv': 'a,b\n1,2\n',
      'project/huge.txt': 'x'.repeat(5000),
      'project/image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    });
    const expansion = await expandSelection([join(root, 'project'), join(root, 'project/docs/guide.md')], {
      excludeGlobs: ['**/node_modules/**', '**/*.tmp'],
      maxFileSizeBytes: 1000,
      workspaceRoots: [root],
    });
    const picked = expansion.files.map((f) => f.displayPath).sort();
    assert.deepEqual(picked, ['project/data/table.csv', 'project/docs/guide.md', 'project/src/main.ts']);
    const reasons = new Map(expansion.skipped.map((s) => [s.path.slice(root.length + 1), s.reason]));
    assert.match(reasons.get('project/build')!, /\.gitignore/);
    assert.match(reasons.get('project/debug.log')!, /\.gitignore/);
    assert.match(reasons.get('project/src/generated.ts')!, /\.gitignore/);
    assert.match(reasons.get('project/src/.gitignore')!, /not uploaded/, 'the rules are applied, never uploaded themselves');
    assert.match(reasons.get('project/node_modules')!, /exclude/);
    assert.match(reasons.get('project/notes.tmp')!, /exclude/);
    assert.match(reasons.get('project/huge.txt')!, /larger than/);
    assert.match(reasons.get('project/image.png')!, /binary/);

    const volume = freshVolume('folder');
    const plan = await planUploads(expansion.files, [], never);
    const summary = await runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: 0, plan });
    assert.equal(summary.uploaded, 3);
    assert.equal(summary.failed, 0);
    const listed = (await listAll(fx, volume)).map((f) => f.filename).sort();
    assert.deepEqual(listed, ['data__table.csv', 'docs__guide.md', 'src__main.ts'], 'paths below the selected folder stay in the name, as folder sync names them');
  });

  it('asks once per clashing name until "apply to all": replace, then keep both for the rest', async () => {
    const volume = freshVolume('dup');
    const old = await writeTree(join(fx.workDir, 'old'), { 'a.md': 'old a', 'b.md': 'old b', 'c.md': 'old c' });
    await runUpload({
      service: fx.client,
      volume,
      embedding: 'emu-embed',
      doChunking: 0,
      plan: await planUploads(
        old.map((path) => ({ path, size: 5, displayPath: path })),
        [],
        never,
      ),
    });
    const existing = await listAll(fx, volume);
    const oldA = existing.find((f) => f.filename === 'a.md')!;

    const fresh = await writeTree(join(fx.workDir, 'new'), { 'a.md': 'new a!', 'b.md': 'new b!', 'c.md': 'new c!', 'd.md': 'new d!' });
    const questions: DuplicateQuestion[] = [];
    const answers = [
      { choice: 'replace' as const, applyToAll: false },
      { choice: 'keepBoth' as const, applyToAll: true },
    ];
    const plan = await planUploads(
      fresh.map((path) => ({ path, size: 6, displayPath: path })),
      existing,
      async (q) => {
        questions.push(q);
        return answers.shift();
      },
    );
    assert.deepEqual(
      questions.map((q) => [q.filename, q.remaining]),
      [
        ['a.md', 3],
        ['b.md', 2],
      ],
    );
    assert.deepEqual(
      plan.uploads.map((u) => u.source.filename),
      ['a.md', 'b (2).md', 'c (2).md', 'd.md'],
    );

    const summary = await runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: 0, plan });
    assert.equal(summary.uploaded, 4);
    const a = summary.results.find((r) => r.filename === 'a.md');
    assert.ok(a?.outcome === 'uploaded' && a.replacing === 1);
    assert.ok(
      (await listAll(fx, volume)).some((f) => f.uuid === oldA.uuid),
      'the older copy stays until the new one is processed',
    );
    const tracker = new ReplacementTracker({ service: () => fx.client, storage: memoryStorage(), onSettled: () => undefined, pollMs: 10 });
    await tracker.add(summary.replacements);
    await tracker.idle();
    const after = await listAll(fx, volume);
    assert.deepEqual(after.map((f) => f.filename).sort(), ['a.md', 'b (2).md', 'b.md', 'c (2).md', 'c.md', 'd.md']);
    assert.ok(!after.some((f) => f.uuid === oldA.uuid), 'the replaced file is gone');
    assert.equal(after.find((f) => f.filename === 'a.md')!.filesize, 6, 'the kept a.md is the new one');

    const skipAll = await planUploads(
      fresh.map((path) => ({ path, size: 6, displayPath: path })),
      after,
      async () => ({ choice: 'skip', applyToAll: true }),
    );
    assert.deepEqual(skipAll.uploads, [], 'every name now exists; "skip all" sends nothing');
    assert.equal(skipAll.skipped.length, 4);
    await assert.rejects(
      planUploads(
        fresh.map((path) => ({ path, size: 6, displayPath: path })),
        after,
        async () => undefined,
      ),
      /cancelled/,
    );
  });

  it('a re-upload of what this workspace uploaded, byte for byte, is skipped as "already there, identical" without a question; a changed file is still asked about', async () => {
    const volume = freshVolume('same');
    const dir = join(fx.workDir, 'same');
    const [guide, notes] = await writeTree(dir, { 'guide.md': '# Guide\nsame bytes\n', 'notes.md': 'first notes\n' });
    const selected = (paths: string[]) => Promise.all(paths.map(async (path) => ({ path, size: (await stat(path)).size, displayPath: path })));
    let stored: unknown;
    const known = new UploadedContents(undefined, (entries) => (stored = JSON.parse(JSON.stringify(entries))));
    const first = await runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: 0, plan: await planUploads(await selected([guide, notes]), [], never) });
    // What the extension does after an upload: remember each file's bytes by the id the service gave it.
    known.remember(
      await Promise.all(
        first.results.map(async (r) => {
          assert.equal(r.outcome, 'uploaded');
          return { uuid: (r as { info: FileInfo }).info.uuid, volume, sha256: await sha256OfFile(r.path), size: (r as { info: FileInfo }).info.filesize };
        }),
      ),
    );

    await writeFile(notes, 'changed notes\n');
    // Read back from storage as after a reload (entries it cannot read are not used).
    const reloaded = new UploadedContents([...(stored as unknown[]), { uuid: 'x', volume, sha256: 'not-a-hash', size: 1 }, 'junk', null]);
    const identicalCheck = async (file: { path: string }, clash: readonly FileInfo[]) =>
      reloaded.knowsAny(volume, clash) && reloaded.identical(volume, clash, await sha256OfFile(file.path)) !== undefined;
    const questions: string[] = [];
    const plan = await planUploads(
      await selected([guide, notes]),
      await listAll(fx, volume),
      async (q) => {
        questions.push(`${q.filename} ${q.remaining}`);
        return { choice: 'skip', applyToAll: false };
      },
      identicalCheck,
    );
    assert.deepEqual(questions, ['notes.md 1'], 'only the changed file is asked about, and it is the only clash counted');
    const summary = await runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: 0, plan });
    const guideResult = summary.results.find((r) => r.filename === 'guide.md')!;
    assert.equal(guideResult.outcome, 'skipped');
    assert.match((guideResult as { reason: string }).reason, /^already there, identical/);
    assert.equal(summaryLine(summary, 'My files'), '0 uploaded, 1 already there, identical, 1 skipped — My files');
    assert.equal((await listAll(fx, volume)).length, 2, 'nothing was sent');

    // Everything identical: one calm line, not a warning about skipped files.
    const again = await runUpload({
      service: fx.client,
      volume,
      embedding: 'emu-embed',
      doChunking: 0,
      plan: await planUploads(await selected([guide]), await listAll(fx, volume), never, identicalCheck),
    });
    assert.equal(summaryLine(again, 'My files'), '"guide.md" is already in My files, identical: nothing to upload.');
    assert.equal(allIdentical(again), true);

    // The folder again, with a .gitignore: what its own rules leave out (the ignore file, the ignored notes) is neither "skipped" nor a reason to warn.
    await writeFile(join(dir, '.gitignore'), 'notes.md\n');
    const expansion = await expandSelection([dir], { excludeGlobs: [], maxFileSizeBytes: 0, workspaceRoots: [] });
    assert.deepEqual(
      expansion.skipped.map((s) => [basename(s.path), s.excluded]),
      [
        ['.gitignore', true],
        ['notes.md', true],
      ],
    );
    const folderPlan = await planUploads(expansion.files, await listAll(fx, volume), never, identicalCheck);
    folderPlan.skipped.unshift(...expansion.skipped);
    const folderAgain = await runUpload({ service: fx.client, volume, embedding: 'emu-embed', doChunking: 0, plan: folderPlan });
    assert.equal(summaryLine(folderAgain, 'My files'), '"guide.md" is already in My files, identical: nothing to upload.');
    assert.deepEqual([folderAgain.skipped, folderAgain.excluded], [1, 2]);
  });

  it('cancel mid-upload: answered batches are listed whole, nothing else, and every file has an outcome', async () => {
    const volume = freshVolume('cancel');
    const contents: Record<string, string> = {};
    for (let i = 0; i < 9; i++) contents[`f${i}.txt`] = `content ${i}`;
    const paths = await writeTree(join(fx.workDir, 'cancel'), contents);
    const plan = await planUploads(
      paths.map((path) => ({ path, size: 9, displayPath: path })),
      [],
      never,
    );
    const controller = new AbortController();
    let slowed = false;
    let hungUploadDropped: Promise<unknown> | undefined;
    const summary = await runUpload({
      service: fx.client,
      volume,
      embedding: 'emu-embed',
      doChunking: 0,
      plan,
      batch: { maxFiles: 3 },
      signal: controller.signal,
      progressIntervalMs: 0,
      onProgress: (p) => {
        if (p.filesDone === 3 && !slowed) {
          // The second batch now hangs in the emulator; the user cancels while it does.
          slowed = true;
          hungUploadDropped = once(fx.emulator.events, 'upload-aborted');
          fx.emulator.faults.add({ kind: 'latency', ms: 800, method: 'POST', path: '/ksm/rag/v5/files' });
          setTimeout(() => controller.abort(), 100);
        }
      },
    });
    fx.emulator.faults.clear();
    assert.equal(summary.wasCancelled, true);
    assert.equal(summary.uploaded, 3);
    assert.equal(summary.cancelled, 6);
    assert.equal(summary.results.length, 9);
    await hungUploadDropped; // the hung request reached the handler, whose client is gone, and was dropped
    const listed = await listAll(fx, volume);
    const uploadedIds = summary.results.flatMap((r) => (r.outcome === 'uploaded' ? [r.info.uuid] : []));
    assert.deepEqual(listed.map((f) => f.uuid).sort(), uploadedIds.sort(), 'exactly the answered batch is listed');
    assert.ok(
      listed.every((f) => f.filesize === 9),
      'no file is stored partly',
    );
  });
});
