// The built `ksm` command line as a child process against the emulator (real HTTP): sync
// dry run, --json, the delete guard, upload/ls/rm/ask, a refused key, --help everywhere.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { NotFoundError } from '../../src/api/errors';
import { freshVolume, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';
import { runKsm, startKsmFixture } from './runKsm';
import { isSyncStateName, syncManifestName } from '../../src/common/core/folderExpansion';

const ksm = (args: string[], env: Record<string, string | undefined>, cwd?: string) => runKsm(args, { KSM_EMBEDDING_MODEL: 'emu-embed', ...env }, { cwd });

describe('ksm command line (built, as a child process) against the emulator', function () {
  this.timeout(60_000);
  let fx: EmulatorFixture;
  let env: Record<string, string>;
  before(async () => ({ fx, env } = await startKsmFixture()));
  after(async () => fx.close());

  const names = async (volume: string) => {
    const out: string[] = [];
    try {
      for await (const f of fx.client.listAllFiles(volume)) out.push(f.filename);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error; // D6: never written
    }
    return out.sort();
  };

  it('sync --dry-run prints the plan and changes nothing (no upload, no manifest)', async () => {
    const folder = join(fx.workDir, 'dry');
    const volume = freshVolume('cli-dry');
    await writeTree(folder, { 'a.md': '# A', 'docs/b.md': '# B', '.gitignore': 'out/\n', 'out/x.md': 'ignored' });
    const run = await ksm(['sync', folder, volume, '--dry-run'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /2 to upload, 0 to replace, 0 to delete, 0 unchanged/);
    assert.match(run.stdout, /upload {2}docs\/b\.md/);
    assert.doesNotMatch(run.stdout, /out\/x\.md'?$/m);
    assert.deepEqual(await names(volume), []);
    assert.deepEqual(readdirSync(folder).filter(isSyncStateName), [], 'a dry run writes no manifest');
  });

  it('sync --dry-run names the .gitignore and line of a rule too complex to apply, for what it leaves out (not the usual "ignored by .gitignore")', async () => {
    const folder = join(fx.workDir, 'dry-complex');
    const volume = freshVolume('cli-dry-complex');
    await writeTree(folder, { 'a.md': '# A', 'gen/.gitignore': `# generated\n${'*x'.repeat(11)}*\n`, 'gen/b.md': '# B' });
    const run = await ksm(['sync', folder, volume, '--dry-run'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /1 to upload/);
    assert.match(run.stdout, /skip {4}.*gen\/b\.md: left out by line 2 of gen\/\.gitignore: more than 10 runs of \* are too complex to apply/);
  });

  it('sync --json is one parseable document; a second run is incremental through its manifest in the folder', async () => {
    const folder = join(fx.workDir, 'json');
    const volume = freshVolume('cli-json');
    await writeTree(folder, { 'a.md': '# A', 'docs/b.md': '# B' });
    const first = await ksm(['sync', folder, volume, '--json', '--chunking', '0'], env);
    assert.equal(first.code, 0, first.stderr);
    const doc = JSON.parse(first.stdout);
    assert.deepEqual(doc.summary, { uploaded: 2, replaced: 0, deleted: 0, failed: 0, cancelled: 0, unchanged: 0 });
    assert.deepEqual(doc.plan.uploads.map((u: { filename: string }) => u.filename).sort(), ['a.md', 'docs__b.md']);
    assert.deepEqual(await names(volume), ['a.md', 'docs__b.md']);
    const manifest = JSON.parse(await readFile(join(folder, syncManifestName(fx.emulator.url, volume)), 'utf8'));
    assert.equal(manifest.volume, volume);
    assert.deepEqual(Object.keys(manifest.files).sort(), ['a.md', 'docs/b.md']);

    await writeFile(join(folder, 'a.md'), '# A edited');
    const second = JSON.parse((await ksm(['sync', folder, volume, '--json'], env)).stdout);
    assert.deepEqual(second.plan.counts, { upload: 0, replace: 1, delete: 0, unchanged: 1 });
    assert.equal(second.summary.replaced, 1);
    assert.deepEqual(await names(volume), ['a.md', 'docs__b.md']);
  });

  it('ksm upload and ksm sync print one record shape per file (--json-lines and --json results), joinable with ksm ls --json', async () => {
    const folder = join(fx.workDir, 'records');
    const uploaded = freshVolume('cli-records-up');
    const synced = freshVolume('cli-records-sync');
    await writeTree(folder, { 'a.md': '# A', 'docs/b.md': '# B', 'c.bin': Buffer.from([0, 1, 2]) });
    const lines = (stdout: string) =>
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const upload = await ksm(['upload', uploaded, folder, '--json-lines', '--chunking', '0'], env);
    assert.equal(upload.code, 0, upload.stderr);
    const again = await ksm(['upload', uploaded, folder, '--json', '--chunking', '0'], env);
    assert.equal(again.code, 0, again.stderr);
    const sync = await ksm(['sync', folder, synced, '--json-lines', '--chunking', '0'], env);
    assert.equal(sync.code, 0, sync.stderr);
    await writeFile(join(folder, 'a.md'), '# A edited');
    const resync = await ksm(['sync', folder, synced, '--json', '--chunking', '0'], env);
    assert.equal(resync.code, 0, resync.stderr);

    const upDoc = JSON.parse(again.stdout) as { volume: string; results: Array<Record<string, unknown>>; summary: Record<string, number> };
    const syncDoc = JSON.parse(resync.stdout) as { results: Array<Record<string, unknown>> };
    const records = [...lines(upload.stdout), ...upDoc.results, ...lines(sync.stdout), ...syncDoc.results].filter((r) => !('summary' in r));
    for (const record of records) {
      assert.deepEqual(
        Object.keys(record).filter((key) => !['path', 'action', 'filename', 'uuid', 'reason'].includes(key)),
        [],
        JSON.stringify(record),
      );
      assert.equal(typeof record.path, 'string');
      if (['uploaded', 'replaced', 'deleted'].includes(record.action as string)) assert.ok(record.filename && record.uuid, JSON.stringify(record));
      else assert.equal(typeof record.reason, 'string', JSON.stringify(record));
    }
    assert.deepEqual(
      lines(upload.stdout)
        .filter((r) => r.action === 'skipped')
        .map((r) => String(r.path).endsWith('c.bin')),
      [true],
      'the binary file is skipped with a reason',
    );
    assert.deepEqual(upDoc.summary, { uploaded: 0, replaced: 0, failed: 0, skipped: 3, cancelled: 0 });
    assert.deepEqual(lines(upload.stdout).at(-1), { summary: { uploaded: 2, replaced: 0, failed: 0, skipped: 1, cancelled: 0 } });
    assert.deepEqual(
      syncDoc.results.map((r) => [r.action, r.path, r.filename]),
      [
        ['replaced', 'a.md', 'a.md'],
        ['skipped', 'c.bin', undefined], // relative to the folder, as the sync's other records
      ],
    );
    // The same uuid and filename as the service's listing.
    const listed = JSON.parse((await ksm(['ls', synced, '--json'], env)).stdout) as { files: Array<{ uuid: string; filename: string }> };
    const replaced = syncDoc.results[0]!;
    assert.ok(listed.files.some((f) => f.uuid === replaced.uuid && f.filename === replaced.filename));
  });

  it('--delete honours the delete guard (exit 4, nothing deleted) until --allow-mass-delete', async () => {
    const folder = join(fx.workDir, 'guard');
    const volume = freshVolume('cli-guard');
    await writeTree(folder, { 'a.md': 'a', 'b.md': 'b', 'c.md': 'c', 'd.md': 'd' });
    assert.equal((await ksm(['sync', folder, volume], env)).code, 0);
    await rm(join(folder, 'a.md'));
    await rm(join(folder, 'b.md'));
    await rm(join(folder, 'c.md'));
    const refused = await ksm(['sync', folder, volume, '--delete'], env);
    assert.equal(refused.code, 4);
    assert.match(refused.stdout, /Refused: this would delete 3 of the 4 files .*75%.*--allow-mass-delete/);
    assert.deepEqual(await names(volume), ['a.md', 'b.md', 'c.md', 'd.md']);
    const noDelete = await ksm(['sync', folder, volume], env);
    assert.equal(noDelete.code, 0);
    assert.deepEqual(await names(volume), ['a.md', 'b.md', 'c.md', 'd.md'], 'without --delete nothing is deleted');
    const allowed = await ksm(['sync', folder, volume, '--delete', '--allow-mass-delete'], env);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.deepEqual(await names(volume), ['d.md']);
  });

  it('upload, ls --json and rm by name work together; rm --dry-run deletes nothing and names what would go', async () => {
    const folder = join(fx.workDir, 'files');
    const volume = freshVolume('cli-files');
    await writeTree(folder, { 'one.md': '1', 'two.txt': '2', 'pic.bin': Buffer.from([0, 0, 1]) });
    const up = await ksm(['upload', volume, folder, '--chunking', '0'], env);
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stdout, /2 uploaded, 0 failed, 1 skipped/);
    const listed = JSON.parse((await ksm(['ls', volume, '--json'], env)).stdout);
    assert.deepEqual(listed.files.map((f: { filename: string }) => f.filename).sort(), ['one.md', 'two.txt']);
    const dry = await ksm(['rm', volume, 'one.md', 'missing.md', '--dry-run'], env);
    assert.equal(dry.code, 1, 'the dry run exits as the run would');
    assert.match(dry.stdout, /^would delete one\.md \([0-9a-f-]+\)$/m);
    assert.match(dry.stdout + dry.stderr, /not found missing\.md/);
    const dryJson = JSON.parse((await ksm(['rm', volume, 'one.md', '--dry-run', '--json'], env)).stdout) as { dryRun: boolean; wouldDelete: Array<{ filename: string }> };
    assert.deepEqual([dryJson.dryRun, dryJson.wouldDelete.map((f) => f.filename)], [true, ['one.md']]);
    assert.deepEqual(await names(volume), ['one.md', 'two.txt'], 'the dry run deleted nothing');
    const removed = await ksm(['rm', volume, 'one.md', 'missing.md'], env);
    assert.equal(removed.code, 1, 'a name that matched nothing is a partial failure');
    assert.match(removed.stdout, /deleted one\.md/);
    assert.match(removed.stdout, /not found missing\.md/);
    assert.deepEqual(await names(volume), ['two.txt']);
  });

  it('rm by uuid deletes that file only, not also a file named like the uuid', async () => {
    const folder = join(fx.workDir, 'by-id');
    const volume = freshVolume('cli-rm-id');
    await writeTree(folder, { 'one.md': '1' });
    assert.equal((await ksm(['upload', volume, join(folder, 'one.md'), '--chunking', '0'], env)).code, 0);
    const uuid: string = JSON.parse((await ksm(['ls', volume, '--json'], env)).stdout).files[0].uuid;
    await writeTree(folder, { [uuid]: 'named like the id' });
    assert.equal((await ksm(['upload', volume, join(folder, uuid), '--chunking', '0'], env)).code, 0);
    const byId = await ksm(['rm', volume, uuid], env);
    assert.equal(byId.code, 0, byId.stderr);
    assert.deepEqual(await names(volume), [uuid], 'the file named like the id is kept');
    const byName = await ksm(['rm', volume, uuid], env);
    assert.equal(byName.code, 0, byName.stderr);
    assert.deepEqual(await names(volume), [], 'once no file has that id, the name matches');
  });

  it('ask streams a chat answer to stdout, and the agent with --agent', async () => {
    const chat = await ksm(['ask', '--model', 'emu-chat', 'What', 'is', 'KSM?'], env);
    assert.equal(chat.code, 0, chat.stderr);
    assert.ok(chat.stdout.trim().length > 0);
    // The README's example, as written: the question is not taken as the agent id.
    const agent = await ksm(['ask', '--agent', 'What changed in the release process?'], { ...env, KSM_MODEL: 'emu-chat' });
    assert.equal(agent.code, 0, agent.stderr);
    assert.ok(agent.stdout.trim().length > 0);
    assert.match(agent.stderr, /Thread: /);
  });

  it('a wrong key exits 3 with a clear message and never prints the key, even when the server echoes it', async () => {
    const wrongKey = 'sk-wrong-0123456789abcdef';
    const folder = join(fx.workDir, 'wrongkey');
    await writeTree(folder, { 'a.md': 'a' });
    const run = await ksm(['sync', folder, freshVolume('cli-key')], { ...env, KSM_API_KEY: wrongKey });
    assert.equal(run.code, 3);
    assert.match(run.stderr, /refused the API key in KSM_API_KEY/);
    assert.ok(!run.stdout.includes(wrongKey) && !run.stderr.includes(wrongKey));

    // A server that echoes the Authorization header back in its error.
    const echo: Server = createServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 401, message: `bad key ${req.headers.authorization} (${String(req.headers.authorization).replace(/^Bearer /, '')})` }));
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
      const echoed = await ksm(['ls', 'v', '--json'], { KSM_BASE_URL: url, KSM_API_KEY: wrongKey });
      assert.equal(echoed.code, 3);
      assert.ok(!echoed.stdout.includes(wrongKey), echoed.stdout);
      assert.ok(!echoed.stderr.includes(wrongKey), echoed.stderr);
      assert.equal(JSON.parse(echoed.stdout).error.kind, 'auth');
    } finally {
      echo.close();
    }
  });

  it('missing KSM_BASE_URL or KSM_API_KEY exits 3 and says which; a usage mistake exits 2', async () => {
    const noUrl = await ksm(['ls', 'v'], { KSM_API_KEY: 'k' });
    assert.equal(noUrl.code, 3);
    assert.match(noUrl.stderr, /KSM_BASE_URL is not set/);
    const noKey = await ksm(['ls', 'v'], { KSM_BASE_URL: fx.emulator.url });
    assert.equal(noKey.code, 3);
    assert.match(noKey.stderr, /KSM_API_KEY is not set/);
    const usage = await ksm(['sync', 'only-one-argument'], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /missing required argument/);
    const noFolder = await ksm(['sync', join(fx.workDir, 'no-such-folder'), 'v'], env);
    assert.equal(noFolder.code, 2, noFolder.stderr);
    assert.match(noFolder.stderr, /is not a folder/);
    const badVolume = await ksm(['ls', 'bad/volume name'], env);
    assert.equal(badVolume.code, 2, badVolume.stderr);
    assert.match(badVolume.stderr, /is not a volume name/);
  });

  it("ksm upload and ksm sync --dry-run take the same files from one folder with the same globs, run from another folder (upload's globs and .gitignore were read from the current folder)", async () => {
    const parent = join(fx.workDir, 'upload-globs');
    await writeTree(parent, {
      '.gitignore': 'docs/guides/\n', // the current folder's: neither command reads it for docs/ (sync never did)
      'docs/a.md': 'a',
      'docs/b.txt': 'b',
      'docs/drafts/d.md': 'd',
      'docs/guides/g.md': 'g',
      'docs/guides/old.md': 'old',
      'docs/guides/.gitignore': 'scratch.md\n',
      'docs/guides/scratch.md': 's',
      'docs/notes.tmp.md': 't',
      'filters.exclude': '# relative to the folder\nguides/old.md\n',
    });
    const globs = ['--include', '*.md', '--include', 'guides/**', '--exclude', 'drafts/**', '--exclude', '**/*.tmp.md', '--exclude-from', 'filters.exclude'];
    const synced = await ksm(['sync', 'docs', freshVolume('cli-globs-sync'), '--dry-run', '--json', ...globs], env, parent);
    assert.equal(synced.code, 0, synced.stderr);
    const planned = (JSON.parse(synced.stdout).plan.uploads as Array<{ filename: string }>).map((u) => u.filename).sort();
    assert.deepEqual(planned, ['a.md', 'guides__g.md']);
    const volume = freshVolume('cli-globs-upload');
    const uploaded = await ksm(['upload', volume, 'docs', ...globs], env, parent);
    assert.equal(uploaded.code, 0, uploaded.stderr);
    assert.deepEqual(await names(volume), planned, 'the same files as the sync of the same folder');
    // From inside the folder, and with its absolute path from elsewhere: the same files again.
    const inside = freshVolume('cli-globs-inside');
    assert.equal((await ksm(['upload', inside, '.', ...globs.slice(0, -1), join(parent, 'filters.exclude')], env, join(parent, 'docs'))).code, 0);
    assert.deepEqual(await names(inside), planned);
    const elsewhere = freshVolume('cli-globs-elsewhere');
    assert.equal((await ksm(['upload', elsewhere, join(parent, 'docs'), ...globs.slice(0, -1), join(parent, 'filters.exclude')], env, fx.workDir)).code, 0);
    assert.deepEqual(await names(elsewhere), planned);
    // A file named on the command line is sent whatever the globs say: they pick among a folder's files.
    const named = freshVolume('cli-globs-named');
    assert.equal((await ksm(['upload', named, 'docs/drafts/d.md', 'docs/b.txt', ...globs], env, parent)).code, 0);
    assert.deepEqual(await names(named), ['b.txt', 'd.md']);
    const help = (await ksm(['upload', '--help'], {})).stdout.replace(/\s+/g, ' ');
    assert.match(help, /--exclude <glob> leave out the files inside the folders given that match this glob, relative to each folder as ksm sync reads it, whatever the current folder/);
    assert.match(help, /--include <glob> upload only the files inside the folders given that match this glob, relative to each folder/);
    assert.match(help, /a file named here is sent whatever the globs and \.gitignore say/);
  });

  it('ksm --help names every KSM_ variable the command line reads', async () => {
    const read = new Set<string>();
    for (const file of readdirSync('src/cli')) for (const m of readFileSync(join('src/cli', file), 'utf8').matchAll(/\bKSM_[A-Z_]+\b/g)) read.add(m[0]);
    read.delete('KSM_CLI_VERSION'); // set by the build, not by a user
    const help = (await ksm(['--help'], {})).stdout;
    for (const name of read) assert.match(help, new RegExp(`^  ${name} `, 'm'), `${name} is read but not in ksm --help`);
  });

  it('--help works for every command', async () => {
    for (const command of [[], ['sync'], ['upload'], ['ls'], ['rm'], ['ask']]) {
      const run = await ksm([...command, '--help'], {});
      assert.equal(run.code, 0, `ksm ${command.join(' ')} --help`);
      assert.match(run.stdout, /Usage: ksm/);
    }
  });
});
