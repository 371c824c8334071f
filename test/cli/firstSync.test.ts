// `ksm sync`'s first sync into an empty volume (sent while the folder is read, issue 21)
// through the built CLI as a child process against the emulator over real HTTP: the files of
// every folder arrive once, the manifest records them and the next run has nothing to do; a
// configuration-class answer still ends the run with exit 3 and no request after the ones
// already in flight.
import { strict as assert } from 'node:assert';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freshVolume, listedFiles, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';
import { runKsm, startKsmFixture } from './runKsm';
import { syncManifestName } from '../../src/common/core/folderExpansion';

const ksm = (args: string[], env: Record<string, string>) => runKsm(args, { KSM_EMBEDDING_MODEL: 'emu-embed', ...env });

describe('ksm sync: a first sync into an empty volume (built, as a child process)', function () {
  this.timeout(120_000);
  let fx: EmulatorFixture;
  let env: Record<string, string>;
  /** 4 folders of 30 files: several groups of the streamed plan, 6 requests of 20. */
  const tree = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`part-${Math.floor(i / 30)}/note-${i}.md`, `# note ${i}\n`]));
  before(async () => ({ fx, env } = await startKsmFixture()));
  after(async () => fx.close());

  it("uploads every folder's files once and records them; the next run changes nothing", async () => {
    const folder = join(fx.workDir, 'first');
    const volume = freshVolume('cli-first');
    await writeTree(folder, { ...tree, '.gitignore': 'part-3/note-119.md\n' });
    const before = fx.emulator.stats.requests;
    const run = await ksm(['sync', folder, volume], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr + run.stdout, /119 uploaded, 0 replaced, 0 deleted, 0 unchanged/);
    assert.equal(fx.emulator.stats.requests - before, 1 + 6, 'the listing, then 6 full requests (20 files each, the last 19)');
    const names = (await listedFiles(fx, volume)).map((f) => f.filename);
    assert.equal(names.length, 119);
    assert.equal(new Set(names).size, 119, 'no duplicate');
    assert.ok(!names.includes('.gitignore') && !names.includes('part-3__note-119.md'));
    const manifest = JSON.parse(await readFile(join(folder, syncManifestName(fx.emulator.url, volume)), 'utf8'));
    assert.equal(Object.keys(manifest.files).length, 119);
    assert.deepEqual(manifest.intents, {});
    const again = await ksm(['sync', folder, volume], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr + again.stdout, /0 uploaded, 0 replaced, 0 deleted, 119 unchanged/);
  });

  it('a wrong embedding model exits 3; nothing is sent after the requests already in flight, nothing is stored', async () => {
    const folder = join(fx.workDir, 'first-model');
    const volume = freshVolume('cli-first-model');
    await writeTree(folder, tree);
    const before = fx.emulator.stats.requests;
    const run = await ksm(['sync', folder, volume], { ...env, KSM_EMBEDDING_MODEL: 'no-such-model' });
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /stopped: .*embedding/);
    const sent = fx.emulator.stats.requests - before - 1; // less the listing
    assert.ok(sent >= 1 && sent <= 3, `at most the 3 requests in flight when the first answer came (${sent})`);
    assert.deepEqual(await listedFiles(fx, volume).catch(() => []), []);
    const withOne = await ksm(['sync', folder, volume, '--concurrency', '1'], { ...env, KSM_EMBEDDING_MODEL: 'no-such-model' });
    assert.equal(withOne.code, 3, withOne.stderr);
  });
});
