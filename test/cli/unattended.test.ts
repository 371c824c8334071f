// Issue 21 through the built `ksm` (a child process) against the emulator over real HTTP:
// a crafted committed manifest deletes nothing foreign, a symlinked manifest is refused,
// no manifest + same-name files stops for --adopt/--keep-others (and a same-size edit is
// uploaded), two concurrent syncs leave no duplicate, `upload` skips by default and
// `--on-duplicate replace` ends with one copy, a wrong embedding model exits 3 after one
// request, `ls | head -1` ends quietly, printed names are escaped.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { syncManifestName } from '../../src/common/core/folderExpansion';
import type { FileInfo } from '../../src/api/types';
import { freshVolume, listedFiles, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';
import { CLI_NODE, runKsm, LAUNCHER, type KsmRun, startKsmFixture } from './runKsm';

const ksm = (args: string[], env: Record<string, string | undefined>) => runKsm(args, { KSM_EMBEDDING_MODEL: 'emu-embed', ...env });

describe('ksm unattended (built, as a child process) against the emulator', function () {
  this.timeout(120_000);
  let fx: EmulatorFixture;
  let env: Record<string, string>;
  before(async () => ({ fx, env } = await startKsmFixture()));
  after(async () => fx.close());

  const listed = (volume: string) => listedFiles(fx, volume);
  const names = async (volume: string) => (await listed(volume)).map((f) => f.filename);

  it('a crafted manifest in the folder (foreign ids in pendingDeletes and removed entries) deletes nothing foreign, with or without --delete; the dry run names what the service lists', async () => {
    const folder = join(fx.workDir, 'crafted');
    const volume = freshVolume('cli-crafted');
    await writeTree(folder, { 'notes.md': 'ours' });
    assert.equal((await ksm(['sync', folder, volume], env)).code, 0);
    const other = await writeTree(join(fx.workDir, 'crafted-colleague'), { 'team.md': 'theirs' });
    await fx.client.uploadFiles({ volume, embedding: 'emu-embed', files: [{ path: other[0], filename: 'team.md' }] });
    const team = (await listed(volume)).find((f) => f.filename === 'team.md')!;
    const manifestPath = join(folder, syncManifestName(fx.emulator.url, volume));
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    const notes = manifest.files['notes.md'];
    manifest.pendingDeletes = [{ uuid: team.uuid, rel: 'notes.md' }];
    manifest.files['ghost.md'] = { ...notes }; // notes.md's uuid under another path
    manifest.files['old.md'] = { ...notes, uuid: team.uuid };
    await writeFile(manifestPath, JSON.stringify(manifest));
    const dry = await ksm(['sync', folder, volume, '--dry-run', '--delete'], env);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /0 to delete/);
    assert.match(dry.stdout, /ignored manifest claim: 'ghost\.md' records .* which the volume lists as 'notes\.md'/);
    for (const flags of [[], ['--delete']]) {
      await writeFile(manifestPath, JSON.stringify(manifest));
      const run = await ksm(['sync', folder, volume, ...flags], env);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(await names(volume), ['notes.md', 'team.md']);
    }
  });

  it("a symlinked manifest (the volume's own, or the folder's single-pairing .ksm-sync.json) is refused and its target left untouched", async () => {
    const target = join(fx.workDir, 'fake-bashrc');
    await writeFile(target, 'alias ll="ls -l"\n');
    for (const [n, legacy] of [false, true].entries()) {
      const folder = join(fx.workDir, `symlinked-${n}`);
      const volume = freshVolume('cli-link');
      await writeTree(folder, { 'a.md': 'a' });
      await symlink(target, join(folder, legacy ? '.ksm-sync.json' : syncManifestName(fx.emulator.url, volume)));
      const run = await ksm(['sync', folder, volume], env);
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /symbolic link/);
      assert.equal(await readFile(target, 'utf8'), 'alias ll="ls -l"\n');
    }
  });

  it('no manifest and same-name files: exit 2 naming --adopt and --keep-others, nothing changed; --adopt uploads a same-size edit and replaces the old copy', async () => {
    const folder = join(fx.workDir, 'nomanifest');
    const volume = freshVolume('cli-nomani');
    await writeTree(folder, { 'a.md': 'version-1', 'b.md': 'b' });
    assert.equal((await ksm(['sync', folder, volume], env)).code, 0);
    await rm(join(folder, syncManifestName(fx.emulator.url, volume))); // CI without a cached manifest
    await writeFile(join(folder, 'a.md'), 'version-2'); // same size
    const before = await listed(volume);
    const stop = await ksm(['sync', folder, volume], env);
    assert.equal(stop.code, 2, stop.stderr);
    assert.match(stop.stderr, /--adopt/);
    assert.match(stop.stderr, /--keep-others/);
    const ids = (files: FileInfo[]) => files.map((f) => `${f.filename}:${f.uuid}`);
    assert.deepEqual(ids(await listed(volume)), ids(before), 'nothing changed');
    const adopt = await ksm(['sync', folder, volume, '--adopt', '--json'], env);
    assert.equal(adopt.code, 0, adopt.stderr);
    const after = await listed(volume);
    assert.deepEqual(
      after.map((f) => f.filename),
      ['a.md', 'b.md'],
    );
    assert.ok(
      after.every((f) => !before.some((b) => b.uuid === f.uuid)),
      'both re-uploaded: the edit is never skipped',
    );
  });

  it('two syncs of one folder at once leave no duplicate (the second waits or says another sync is running)', async () => {
    const folder = join(fx.workDir, 'concurrent');
    const volume = freshVolume('cli-conc');
    await writeTree(folder, Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}.md`, `file ${i}`])));
    const runs = await Promise.all([
      ksm(['sync', folder, volume, '--lock-wait', '60'], env),
      ksm(['sync', folder, volume, '--lock-wait', '60'], env),
      ksm(['sync', folder, volume, '--lock-wait', '0'], env),
    ]);
    for (const run of runs) assert.ok(run.code === 0 || run.code === 6, `${run.code}: ${run.stderr}`);
    const all = await names(volume);
    assert.equal(all.length, 200, 'every file exactly once');
    assert.equal(new Set(all).size, 200);
  });

  it('upload skips existing names by default (running it twice does not double the files); --on-duplicate replace ends with one copy', async () => {
    const folder = join(fx.workDir, 'twice');
    const volume = freshVolume('cli-twice');
    await writeTree(folder, { 'a.md': 'a', 'b.md': 'b' });
    assert.equal((await ksm(['upload', volume, folder, '--chunking', '0'], env)).code, 0);
    const again = await ksm(['upload', volume, folder, '--chunking', '0'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(await names(volume), ['a.md', 'b.md']);
    await writeFile(join(folder, 'a.md'), 'a, edited');
    const replace = await ksm(['upload', volume, join(folder, 'a.md'), '--on-duplicate', 'replace', '--chunking', '0'], env);
    assert.equal(replace.code, 0, replace.stderr);
    const after = await listed(volume);
    assert.deepEqual(
      after.map((f) => `${f.filename}:${f.filesize}`),
      ['a.md:9', 'b.md:1'],
    );
  });

  it('a wrong embedding model exits 3 after one upload request instead of failing every file', async () => {
    const folder = join(fx.workDir, 'badmodel');
    await writeTree(folder, Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}.md`, `file ${i}`])));
    const before = fx.emulator.stats.requests;
    const run = await ksm(['sync', folder, freshVolume('cli-model'), '--concurrency', '1'], { ...env, KSM_EMBEDDING_MODEL: 'no-such-model' });
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /embedding/);
    assert.equal(fx.emulator.stats.requests - before, 2, 'the listing and one upload request');

    const beforeUpload = fx.emulator.stats.requests;
    const upload = await ksm(['upload', freshVolume('cli-model-up'), folder, '--concurrency', '1'], { ...env, KSM_EMBEDDING_MODEL: 'no-such-model' });
    assert.equal(upload.code, 3, upload.stderr);
    assert.equal(fx.emulator.stats.requests - beforeUpload, 2, 'ksm upload: the listing and one upload request');
  });

  it('`ksm ls | head -1` ends quietly; names with control characters are printed escaped', async () => {
    const volume = freshVolume('cli-pipe');
    const files = await writeTree(join(fx.workDir, 'pipe'), Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}.md`, 'x'])));
    for (let i = 0; i < files.length; i += 500) await fx.client.uploadFiles({ volume, embedding: 'emu-embed', doChunking: 0, files: files.slice(i, i + 500).map((path) => ({ path })) });
    const [weird] = await writeTree(join(fx.workDir, 'weird'), { 'w.md': 'w' });
    await fx.client.uploadFiles({ volume, embedding: 'emu-embed', files: [{ path: weird, filename: 'evil\u001b[2Jname\nforged line.md' }] });
    const piped = await new Promise<KsmRun>((done) => {
      const child = spawn('/bin/sh', ['-c', `"${CLI_NODE}" "${LAUNCHER}" ls ${volume} | head -1`], { env: { PATH: process.env.PATH, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => done({ code: code ?? 1, stdout, stderr }));
    });
    assert.equal(piped.stdout.trim().split('\n').length, 1);
    assert.equal(piped.stderr, '', 'no EPIPE stack trace');
    const ls = await ksm(['ls', volume], env);
    assert.ok(!ls.stdout.includes('\u001b'), 'no raw escape sequence');
    assert.match(ls.stdout, /evil\\x1b\[2Jname\\nforged line\.md/);
  });

  it('--include, --exclude-from and --json-lines; a symlink is listed as skipped, never followed', async () => {
    const folder = join(fx.workDir, 'filters');
    const volume = freshVolume('cli-filters');
    await writeTree(folder, { 'a.md': 'a', 'b.txt': 'b', 'drafts/c.md': 'c', 'notes/d.md': 'd' });
    await writeTree(fx.workDir, { 'outside/secret.md': 'never uploaded' });
    await symlink(join(fx.workDir, 'outside'), join(folder, 'linked'));
    const excludes = join(fx.workDir, 'filters.exclude');
    await writeFile(excludes, '# drafts are private\ndrafts/**\n');
    const run = await ksm(['sync', folder, volume, '--include', '**/*.md', '--exclude-from', excludes, '--json-lines'], env);
    assert.equal(run.code, 0, run.stderr);
    const records = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      records
        .filter((r) => r.action === 'uploaded')
        .map((r) => r.path)
        .sort(),
      ['a.md', 'notes/d.md'],
    );
    assert.deepEqual(records.at(-1).summary.uploaded, 2);
    const skippedRecords = records.filter((r) => r.action === 'skipped');
    assert.ok(
      skippedRecords.some((r) => r.path === 'linked' && /symbolic link: not followed/.test(r.reason)),
      JSON.stringify(skippedRecords),
    );
    assert.equal(records.at(-1).summary.skipped, skippedRecords.length);
    assert.deepEqual(await names(volume), ['a.md', 'notes__d.md']);
    const dry = await ksm(['sync', folder, volume, '--dry-run'], env);
    assert.match(dry.stdout, /skip {4}.*linked: symbolic link: not followed/);
  });

  it('a real ksm sync (not only the dry run) says what the folder holds but did not send, and what it kept in the volume without --delete', async () => {
    const folder = join(fx.workDir, 'said');
    const volume = freshVolume('cli-said');
    // A repository: its .git, its .gitignore and what that ignores are the folder's own rules, counted apart and not named line by line.
    await writeTree(folder, { 'notes.md': 'n', 'old.md': 'o', '.env': 'TOKEN=1', '.gitignore': '*.log\n', 'build.log': 'l', '.git/HEAD': 'ref: refs/heads/main\n' });
    await writeTree(fx.workDir, { 'said-outside/key.md': 'never uploaded' });
    await symlink(join(fx.workDir, 'said-outside', 'key.md'), join(folder, 'link.md'));
    const first = await ksm(['sync', folder, volume], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^skipped \.env: .*secrets$/m);
    assert.match(first.stdout, /^skipped link\.md: symbolic link: not followed/m);
    assert.doesNotMatch(first.stdout + first.stderr, /\.git\b|\.gitignore|build\.log/, "what the folder's own rules leave out is not named");
    assert.match(first.stdout + first.stderr, /2 uploaded, 0 replaced, 0 deleted, 0 unchanged, 2 skipped, 3 excluded — /);
    const dryFirst = await ksm(['sync', folder, volume, '--dry-run'], env);
    assert.match(dryFirst.stdout, /^ {2}exclude \S*\.git: folder matches an exclude pattern$/m, 'the dry run names them');
    assert.match(dryFirst.stdout, /^ {2}exclude \S*build\.log: ignored by line 1 of \.gitignore$/m);
    assert.match(dryFirst.stdout, /^ {2}skip {4}\S*\.env: /m);

    await rm(join(folder, 'old.md'));
    const second = await ksm(['sync', folder, volume], env);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /^kept {4}old\.md: removed locally; pass --delete to delete it from the volume$/m);
    assert.match(second.stdout + second.stderr, /0 uploaded, 0 replaced, 0 deleted, 1 unchanged, 2 skipped, 3 excluded, 1 kept \(removed locally; --delete deletes them\) — /);
    assert.deepEqual(await names(volume), ['notes.md', 'old.md']);

    const quiet = await ksm(['sync', folder, volume, '--quiet'], env);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.doesNotMatch(quiet.stdout + quiet.stderr, /^(skipped|kept) /m, '--quiet keeps only the summary');
    assert.match(quiet.stderr, /2 skipped, 3 excluded, 1 kept/);
    const json = JSON.parse((await ksm(['sync', folder, volume, '--json'], env)).stdout) as { summary: Record<string, number>; results: Array<{ path: string; action: string }> };
    assert.deepEqual(json.summary, { uploaded: 0, replaced: 0, deleted: 0, failed: 0, cancelled: 0, unchanged: 1, skipped: 2, excluded: 3, kept: 1 });
    assert.deepEqual(json.results.map((r) => `${r.action} ${r.path}`).sort(), ['excluded .git', 'excluded .gitignore', 'excluded build.log', 'kept old.md', 'skipped .env', 'skipped link.md']);
  });

  it('ksm upload of a repository folder counts what its own rules leave out (.git, .gitignore, ignored files) as excluded, names only what it could not send', async () => {
    const folder = join(fx.workDir, 'upload-repo');
    const volume = freshVolume('cli-upload-excluded');
    await writeTree(folder, { 'a.md': 'a', '.gitignore': 'dist/\n', 'dist/out.js': 'x', '.git/HEAD': 'ref: refs/heads/main\n', id_rsa: 'PRIVATE' });
    const run = await ksm(['upload', volume, folder], env);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(await names(volume), ['a.md']);
    assert.match(run.stdout, /^skipped \S*id_rsa: /m);
    assert.doesNotMatch(run.stdout + run.stderr, /\.git\b|\.gitignore|dist/, 'excluded files are counted, not named');
    assert.match(run.stdout + run.stderr, /1 uploaded, 0 failed, 1 skipped, 3 excluded — /);
    const again = await ksm(['upload', volume, folder, '--json-lines'], env);
    const records = again.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { path?: string; action?: string; summary?: Record<string, number> });
    assert.deepEqual(
      records
        .filter((r) => r.action === 'excluded')
        .map((r) => basename(r.path!))
        .sort(),
      ['.git', '.gitignore', 'dist'],
    );
    assert.deepEqual(records.at(-1)?.summary, { uploaded: 0, replaced: 0, failed: 0, skipped: 2, excluded: 3, cancelled: 0 }, 'a.md already there and id_rsa: skipped');
  });

  it("ksm upload of a shared folder's glob: a link named on the command line (to a file or a folder outside) is skipped, not followed", async () => {
    // `ksm upload team-docs shared/*`: someone with write access to shared/ put links there.
    const shared = join(fx.workDir, 'shared-glob');
    const volume = freshVolume('cli-named-link');
    await writeTree(shared, { 'real.md': 'ours' });
    await writeTree(fx.workDir, { 'home/.ssh/id_ed25519': 'PRIVATE', 'home/diary.md': 'private' });
    await symlink(join(fx.workDir, 'home', '.ssh', 'id_ed25519'), join(shared, 'notes.md'));
    await symlink(join(fx.workDir, 'home'), join(shared, 'docs'));
    const run = await ksm(['upload', volume, join(shared, 'docs'), join(shared, 'notes.md'), join(shared, 'real.md')], env);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(await names(volume), ['real.md']);
    assert.match(run.stdout, /skipped .*notes\.md: symbolic link: not followed/);
    assert.match(run.stdout, /skipped .*docs: symbolic link: not followed/);
    assert.match(run.stdout, /1 uploaded, 0 failed, 2 skipped/);
  });

  it("ksm upload of a folder ksm sync keeps (or of its parent) leaves the sync's manifest and journal out, as sync does", async () => {
    const parent = join(fx.workDir, 'synced-parent');
    const folder = join(parent, 'docs');
    await writeTree(folder, { 'a.md': 'a' });
    const synced = freshVolume('cli-synced');
    assert.equal((await ksm(['sync', folder, synced], env)).code, 0);
    await writeFile(join(folder, `${syncManifestName(fx.emulator.url, synced)}.journal`), ''); // as a killed run leaves it
    await writeFile(join(folder, '.ksm-sync.json'), '{}'); // and an older ksm's manifest
    const volume = freshVolume('cli-upload-synced');
    const run = await ksm(['upload', volume, folder], env);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(await names(volume), ['a.md']);
    const fromParent = freshVolume('cli-upload-synced-parent');
    assert.equal((await ksm(['upload', fromParent, parent], env)).code, 0);
    assert.deepEqual(await names(fromParent), ['docs__a.md']);
  });
});
