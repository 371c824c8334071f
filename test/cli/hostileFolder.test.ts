// The local file system as an attacker or an unlucky user leaves it, through the built `ksm`
// (a child process) against the emulator over real HTTP: files and folders the user cannot
// read, file names that are not UTF-8 (Linux allows any bytes; Node reads them with U+FFFD).
// Permission checks do not bite for root: run as root, `ksm` runs as `nobody` (setpriv) on a
// folder `nobody` owns, so `chmod 000` denies it as it would a user.
import { strict as assert } from 'node:assert';
import { execFile, execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncManifestName } from '../../src/common/core/folderExpansion';
import { freshVolume, listedFiles, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';
import { LAUNCHER, runKsm, type KsmRun } from './runKsm';

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** `ksm args…` as an unprivileged user: `nobody` (through setpriv) when the tests run as root, else the user itself. */
function ksmUnprivileged(args: string[], env: Record<string, string>): Promise<KsmRun> {
  if (!asRoot) return runKsm(args, env);
  return new Promise((done) => {
    execFile(
      'setpriv',
      // The machine's Node, not CLI_NODE: `nobody` cannot reach a Node installed under root's cache (scripts/setup-node.sh).
      [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, LAUNCHER, ...args],
      { env: { PATH: process.env.PATH, HOME: tmpdir(), ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ).stdin?.end();
  });
}

/** Hands the tree to `nobody` when running as root (setpriv drops root's power to read anything). */
async function ownTree(paths: string[]): Promise<void> {
  if (!asRoot) return;
  for (const path of paths) await chown(path, NOBODY, NOBODY);
}

describe('ksm sync against a hostile local folder (built, as a child process)', function () {
  this.timeout(120_000);
  let fx: EmulatorFixture;
  let env: Record<string, string>;
  let work: string;
  before(async function () {
    if (asRoot && (await new Promise<boolean>((ok) => execFile('setpriv', ['--version'], (error) => ok(!error))))) {
      // setpriv is there: nobody runs ksm.
    } else if (asRoot) this.skip();
    fx = await startFixture(5);
    env = { KSM_BASE_URL: fx.emulator.url, KSM_API_KEY: fx.emulator.apiKey, KSM_EMBEDDING_MODEL: 'emu-embed' };
    assert.equal((await runKsm(['--version'], {})).code, 0); // builds dist/cli.js once if it is stale, as the owner of the checkout
    // A folder `nobody` can reach (the fixture's work folder is private to the test's user).
    work = await mkdtemp(join(tmpdir(), 'ksm-hostile-fs-'));
    await chmod(work, 0o755);
  });
  after(async () => {
    if (work) {
      await rm(work, { recursive: true, force: true });
    }
    await fx?.close();
  });

  it('a file or folder the user cannot read is reported (exit 1), never ends the run, and is never deleted as removed, even with --delete', async () => {
    const folder = join(work, 'unreadable');
    const volume = freshVolume('cli-unread');
    const files = await writeTree(folder, { 'a.md': 'a', 'keep.md': 'keep', 'closed/b.md': 'b', 'noexec/c.md': 'c' });
    await ownTree([folder, join(folder, 'closed'), join(folder, 'noexec'), ...files]);
    const first = await ksmUnprivileged(['sync', folder, volume, '--delete'], env);
    assert.equal(first.code, 0, first.stderr);
    const names = async () => (await listedFiles(fx, volume)).map((f) => f.filename).sort();
    assert.deepEqual(await names(), ['a.md', 'closed__b.md', 'keep.md', 'noexec__c.md']);

    await writeFile(join(folder, 'keep.md'), 'keep, edited'); // edited (an unchanged file, same size and mtime, needs no read)
    await chmod(join(folder, 'keep.md'), 0o000); // then no read permission
    await chmod(join(folder, 'closed'), 0o000); // a folder that cannot be listed
    await chmod(join(folder, 'noexec'), 0o644); // listed, but its files cannot be reached (stat fails)
    await writeFile(join(folder, 'a.md'), 'a, edited');
    const run = await ksmUnprivileged(['sync', folder, volume, '--delete', '--allow-mass-delete'], env);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /replaced a\.md/); // the rest of the folder still syncs
    assert.match(run.stdout, /not read .*keep\.md: cannot be read \(EACCES\)/);
    assert.match(run.stdout, /not read .*closed: folder cannot be read \(EACCES\)/);
    assert.match(run.stdout, /not read .*noexec.c\.md: cannot be read \(EACCES\)/);
    assert.match(run.stdout, /1 replaced, 0 deleted, 0 unchanged, 3 not read/);
    assert.deepEqual(await names(), ['a.md', 'closed__b.md', 'keep.md', 'noexec__c.md']); // nothing deleted for them
    const manifest = JSON.parse(await readFile(join(folder, syncManifestName(fx.emulator.url, volume)), 'utf8'));
    assert.deepEqual(Object.keys(manifest.files).sort(), ['a.md', 'closed/b.md', 'keep.md', 'noexec/c.md']); // still recorded: not uploaded again

    await chmod(join(folder, 'keep.md'), 0o644);
    await chmod(join(folder, 'closed'), 0o755);
    await chmod(join(folder, 'noexec'), 0o755);
    const readable = await ksmUnprivileged(['sync', folder, volume, '--delete'], env);
    assert.equal(readable.code, 0, readable.stderr);
    assert.match(readable.stdout, /0 to upload, 1 to replace, 0 to delete, 3 unchanged/); // the edited keep.md, once readable
    assert.equal((await listedFiles(fx, volume)).length, 4);
  });

  it('ksm upload of a folder holding a file the user cannot read uploads the rest, says why that one was skipped, exits 1 (it exited 5 with nothing sent)', async () => {
    const folder = join(work, 'upload-unreadable');
    const volume = freshVolume('cli-upload-unread');
    const files = await writeTree(folder, { 'a.md': 'a', 'secret.md': 's' });
    await ownTree([folder, ...files]);
    await chmod(files[1], 0o000);
    const run = await ksmUnprivileged(['upload', volume, folder], env);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /skipped .*secret\.md: cannot be read \(EACCES\)/);
    assert.deepEqual(
      (await listedFiles(fx, volume)).map((f) => f.filename),
      ['a.md'],
    );
  });

  it('the synced folder itself unreadable: exit 2 naming it, nothing sent', async () => {
    const folder = join(work, 'closed-top');
    const volume = freshVolume('cli-closedtop');
    const files = await writeTree(folder, { 'a.md': 'a' });
    await ownTree([folder, ...files]);
    await chmod(folder, 0o000);
    const run = await ksmUnprivileged(['sync', folder, volume], env);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /closed-top' cannot be read \(EACCES\)/);
    assert.equal((await listedFiles(fx, volume)).length, 0);
  });

  it('a folder whose sync record cannot be written (read-only for the user): exit 3 naming the record and the fix, not a service error (exit 5)', async () => {
    const folder = join(work, 'read-only');
    const volume = freshVolume('cli-readonly');
    await writeTree(folder, { 'a.md': 'a' });
    if (asRoot) await chown(folder, 0, 0); // root's folder: nobody reads it, cannot write it
    await chmod(folder, 0o555);
    const run = await ksmUnprivileged(['sync', folder, volume], env);
    await chmod(folder, 0o755);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /Could not write this folder's sync record \(\.ksm-sync\.cli-readonly-.*\.json, its journal or its lock\): EACCES/);
    assert.match(run.stderr, /Make the folder writable/);
    assert.equal((await listedFiles(fx, volume)).length, 0);
  });

  it('names that are not UTF-8 (a file, a folder, one that reads as the name of another file) are skipped with the reason; the rest syncs, the look-alike once with its own bytes', async () => {
    const folder = join(work, 'bytes');
    const volume = freshVolume('cli-bytes');
    await mkdir(folder);
    const at = (...bytes: Array<string | number[]>) => Buffer.concat([Buffer.from(`${folder}/`), ...bytes.map((b) => (typeof b === 'string' ? Buffer.from(b) : Buffer.from(b)))]);
    await writeFile(join(folder, 'ok.md'), 'ok');
    await writeFile(at('x', [0xff], '.md'), 'not utf-8 name');
    await mkdir(at('dir', [0xfe]));
    await writeFile(at('dir', [0xfe], '/in.md'), 'inside');
    await writeFile(at('f', [0xff], '.md'), 'the invalid one');
    await writeFile(join(folder, 'f\uFFFD.md'), 'the real U+FFFD one');
    const run = await runKsm(['sync', folder, volume], env);
    assert.equal(run.code, 0, run.stderr);
    const listed = (await listedFiles(fx, volume)).map((f) => [f.filename, f.filesize]).sort();
    assert.deepEqual(listed, [
      ['f\uFFFD.md', Buffer.byteLength('the real U+FFFD one')],
      ['ok.md', 2],
    ]);
    const dry = await runKsm(['sync', folder, volume, '--dry-run', '--delete'], env);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /0 to upload, 0 to replace, 0 to delete, 2 unchanged/);
    for (const name of ['x\uFFFD.md', 'dir\uFFFD', 'f\uFFFD.md']) assert.match(dry.stdout, new RegExp(`skip +.*${name.replace('.', '\\.')}: name is not valid UTF-8`));
  });

  it('a folder deeper than PATH_MAX (4,096 bytes, names of 240 bytes in two-byte characters) is reported as not read (exit 1); the rest syncs (the whole run failed with ENAMETOOLONG)', async () => {
    const folder = join(work, 'deep');
    const volume = freshVolume('cli-deep');
    await writeTree(folder, { 'top.md': 'top' });
    // Made by a child that walks down with chdir (no path of the whole depth can be given to mkdir).
    execFileSync(process.execPath, [
      '-e',
      `const fs = require('fs'); process.chdir(${JSON.stringify(folder)}); for (let i = 0; i < 20; i++) { fs.mkdirSync('é'.repeat(120)); process.chdir('é'.repeat(120)); } fs.writeFileSync('deep.md', 'deep');`,
    ]);
    try {
      const run = await runKsm(['sync', folder, volume], env);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /folder cannot be read \(ENAMETOOLONG\)/);
      assert.deepEqual(
        (await listedFiles(fx, volume)).map((f) => f.filename),
        ['top.md'],
      );
    } finally {
      // Removed bottom-up by a child walking down with chdir (rm of the whole path fails the same way).
      const down = `const fs = require('fs'); const n = 'é'.repeat(120); process.chdir(${JSON.stringify(folder)}); let depth = 0; while (fs.existsSync(n)) { process.chdir(n); depth++; } for (const f of fs.readdirSync('.')) fs.unlinkSync(f); while (depth-- > 0) { process.chdir('..'); fs.rmdirSync(n); }`;
      execFileSync(process.execPath, ['-e', down]);
    }
  });
});
