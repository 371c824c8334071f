// One folder synced to two volumes (staging and prod) through the built `ksm` (a child
// process) against the emulator over real HTTP: each (service, volume) pairing keeps its own
// manifest, journal and lock in the folder (src/sync/core/folderManifest.ts). A, B, A again
// is a no-op; --delete deletes in each volume only what that volume's record owns; the
// single-pairing `.ksm-sync.json` of older runs is read and moved to its pairing's file; a
// crafted record of another volume deletes nothing; a hostile volume name writes nothing
// outside the folder; runs against two volumes do not wait for each other, two against the
// same pairing still do. Before this, the folder's one manifest was the last volume's: the
// second A run stopped for --adopt (exit 2) and --delete could never delete there.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import { isSyncStateName, syncManifestName } from '../../src/common/core/folderExpansion';
import { freshVolume, listedFiles, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';
import { CLI_NODE, runKsm, LAUNCHER, type KsmRun, startKsmFixture } from './runKsm';

describe('ksm sync of one folder to several volumes (built, a child process)', function () {
  this.timeout(120_000);
  let fx: EmulatorFixture;
  let env: Record<string, string>;
  const ksm = (args: string[], extra: Record<string, string> = {}) => runKsm(args, { KSM_EMBEDDING_MODEL: 'emu-embed', ...env, ...extra });

  before(async () => ({ fx, env } = await startKsmFixture()));
  after(async () => fx.close());

  const listed = (volume: string) => listedFiles(fx, volume);
  const names = async (volume: string) => (await listed(volume)).map((f) => f.filename);
  const json = (run: KsmRun) => {
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as { summary: Record<string, number>; plan: { manifest: { state: string; location: string; reason?: string }; adopted: unknown[]; conflicts: unknown[] } };
  };
  const manifestOf = (folder: string, volume: string) => join(folder, syncManifestName(fx.emulator.url, volume));

  it('A, then B, then A again: the second A run finds its own record (nothing uploaded, nothing adopted, no choice asked for); each volume has its own manifest', async () => {
    const folder = join(fx.workDir, 'aba');
    await writeTree(folder, { 'a.md': 'a', 'docs/b.md': 'b' });
    const [a, b] = [freshVolume('staging'), freshVolume('prod')];
    assert.deepEqual(json(await ksm(['sync', folder, a, '--json'])).summary.uploaded, 2);
    const before = (await listed(a)).map((f) => f.uuid).sort();
    assert.deepEqual(json(await ksm(['sync', folder, b, '--json'])).summary.uploaded, 2);
    const again = json(await ksm(['sync', folder, a, '--json']));
    assert.deepEqual(again.summary, { uploaded: 0, replaced: 0, deleted: 0, failed: 0, cancelled: 0, unchanged: 2 });
    assert.equal(again.plan.manifest.state, 'ok');
    assert.deepEqual(again.plan.adopted, []);
    assert.deepEqual(again.plan.conflicts, []);
    assert.deepEqual((await listed(a)).map((f) => f.uuid).sort(), before, 'the same copies: nothing re-uploaded');
    for (const volume of [a, b]) {
      const manifest = JSON.parse(await readFile(manifestOf(folder, volume), 'utf8'));
      assert.equal(manifest.volume, volume);
      assert.equal(manifest.service, fx.emulator.url);
    }
    assert.deepEqual((await readdir(folder)).filter(isSyncStateName).sort(), [basename(manifestOf(folder, a)), basename(manifestOf(folder, b))].sort(), 'no journal or lock left');
  });

  it("--delete in each volume deletes that volume's copy of the removed file, and only there", async () => {
    const folder = join(fx.workDir, 'delete-each');
    await writeTree(folder, { 'keep.md': 'k', 'gone.md': 'g' });
    const [a, b] = [freshVolume('del-a'), freshVolume('del-b')];
    for (const volume of [a, b]) assert.equal((await ksm(['sync', folder, volume])).code, 0);
    await rm(join(folder, 'gone.md'));
    const inA = json(await ksm(['sync', folder, a, '--delete', '--json']));
    assert.equal(inA.summary.deleted, 1);
    assert.deepEqual(await names(a), ['keep.md']);
    assert.deepEqual(await names(b), ['gone.md', 'keep.md'], "B's copy is B's record's to delete");
    const inB = json(await ksm(['sync', folder, b, '--delete', '--json']));
    assert.equal(inB.summary.deleted, 1);
    assert.deepEqual(await names(b), ['keep.md']);
    assert.deepEqual(await names(a), ['keep.md']);
  });

  it("a folder's single-pairing .ksm-sync.json is read and moved to its pairing's file (its record kept: a removed file is deleted, nothing re-sent); another volume's run leaves it alone", async () => {
    const folder = join(fx.workDir, 'legacy');
    await writeTree(folder, { 'a.md': 'a', 'b.md': 'b' });
    const [a, b] = [freshVolume('legacy-a'), freshVolume('legacy-b')];
    assert.equal((await ksm(['sync', folder, a])).code, 0);
    // What an older ksm left: one manifest named .ksm-sync.json, same format, recording volume A.
    const legacy = join(folder, '.ksm-sync.json');
    await rename(manifestOf(folder, a), legacy);
    const legacyText = await readFile(legacy, 'utf8');
    // B's run: not its record. A first sync of B, no refusal, and the file left for A.
    const other = json(await ksm(['sync', folder, b, '--json']));
    assert.equal(other.summary.uploaded, 2);
    assert.equal(await readFile(legacy, 'utf8'), legacyText);
    // A dry run reads it where it is and moves nothing.
    const dry = await ksm(['sync', folder, a, '--dry-run', '--delete']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /0 to upload, 0 to replace, 0 to delete, 2 unchanged/);
    assert.ok(existsSync(legacy) && !existsSync(manifestOf(folder, a)));
    await rm(join(folder, 'b.md'));
    const run = await ksm(['sync', folder, a, '--delete']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr + run.stdout, /Moved this volume's record from \.ksm-sync\.json to \.ksm-sync\.legacy-a-/);
    assert.match(run.stdout + run.stderr, /0 uploaded, 0 replaced, 1 deleted, 1 unchanged/);
    assert.deepEqual(await names(a), ['a.md']);
    assert.deepEqual(await names(b), ['a.md', 'b.md']);
    assert.ok(!existsSync(legacy), 'moved, not copied');
    const moved = JSON.parse(await readFile(manifestOf(folder, a), 'utf8'));
    assert.equal(moved.volume, a);
    assert.deepEqual(Object.keys(moved.files), ['a.md']);
  });

  it('an earlier ksm syncing the folder right now (holding .ksm-sync.json.lock) stops the move: exit 6, nothing changed; moved once it has finished', async () => {
    const folder = join(fx.workDir, 'legacy-busy');
    await writeTree(folder, { 'a.md': 'a' });
    const a = freshVolume('legacy-busy');
    assert.equal((await ksm(['sync', folder, a])).code, 0);
    const legacy = join(folder, '.ksm-sync.json');
    await rename(manifestOf(folder, a), legacy);
    const legacyText = await readFile(legacy, 'utf8');
    const before = (await listed(a)).map((f) => f.uuid);
    await writeTree(folder, { 'new.md': 'n' });
    // What an earlier ksm holds for its whole run: the lock beside its single manifest (proper-lockfile, as ours).
    const { lock } = await import('proper-lockfile');
    const releaseEarlier = await lock(legacy, { realpath: false, lockfilePath: `${legacy}.lock`, stale: 10_000, update: 2_000 });
    try {
      const busy = await ksm(['sync', folder, a, '--lock-wait', '0']);
      assert.equal(busy.code, 6, busy.stderr);
      assert.match(busy.stderr, /an earlier ksm is syncing this folder with \.ksm-sync\.json/);
      assert.match(busy.stderr, /Another sync of .*\(\.ksm-sync\.json\) is running \(lock .*\.ksm-sync\.json\.lock\); nothing was changed/);
      assert.equal(await readFile(legacy, 'utf8'), legacyText, "the earlier run's file untouched");
      assert.ok(!existsSync(manifestOf(folder, a)), 'not moved');
      assert.deepEqual(
        (await listed(a)).map((f) => f.uuid),
        before,
        'nothing uploaded',
      );
    } finally {
      await releaseEarlier();
    }
    const run = await ksm(['sync', folder, a]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr + run.stdout, /Moved this volume's record from \.ksm-sync\.json/);
    assert.deepEqual(await names(a), ['a.md', 'new.md']);
    assert.ok(!existsSync(legacy));
    assert.deepEqual(
      (await readdir(folder)).filter((n) => n.endsWith('.lock')),
      [],
      'both locks released',
    );
  });

  it("Ctrl-C while waiting for another run's lock ends the wait: exit 130, nothing changed", async () => {
    const folder = join(fx.workDir, 'interrupt-wait');
    await writeTree(folder, { 'a.md': 'a' });
    const a = freshVolume('interrupt-wait');
    assert.equal((await ksm(['sync', folder, a])).code, 0);
    await writeTree(folder, { 'new.md': 'n' });
    const manifestText = await readFile(manifestOf(folder, a), 'utf8');
    const before = (await listed(a)).map((f) => f.uuid);
    const { acquireSyncLock } = await import('../../src/sync/core/lock');
    const releaseOther = await acquireSyncLock(manifestOf(folder, a), { what: 'the other run', waitMs: 0 });
    try {
      // --lock-wait 30: the old code waited it out after Ctrl-C, then exited 6 (busy).
      const child = spawn(CLI_NODE, [LAUNCHER, 'sync', folder, a, '--lock-wait', '30'], {
        env: { PATH: process.env.PATH, KSM_EMBEDDING_MODEL: 'emu-embed', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
      while (!stderr.includes('is running; waiting up to') && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
      child.kill('SIGINT');
      const code = await exited;
      assert.equal(code, 130, stderr);
      assert.deepEqual(
        (await listed(a)).map((f) => f.uuid),
        before,
        'nothing uploaded',
      );
      assert.equal(await readFile(manifestOf(folder, a), 'utf8'), manifestText, 'the record untouched');
    } finally {
      await releaseOther();
    }
  });

  it("a crafted record of another volume (in B's file, or B's file naming A's copies) deletes nothing, with --delete", async () => {
    const folder = join(fx.workDir, 'crafted-other');
    await writeTree(folder, { 'notes.md': 'ours' });
    const [a, b] = [freshVolume('craft-a'), freshVolume('craft-b')];
    assert.equal((await ksm(['sync', folder, a])).code, 0);
    // B holds a colleague's files; a pull request puts A's record in B's place and names B's files in it.
    const theirs = await writeTree(join(fx.workDir, 'crafted-colleague-b'), { 'team.md': 'theirs', 'old.md': 'older' });
    await fx.client.uploadFiles({ volume: b, embedding: 'emu-embed', files: theirs.map((path) => ({ path, filename: basename(path) })) });
    const inB = await listed(b);
    const aRecord = JSON.parse(await readFile(manifestOf(folder, a), 'utf8'));
    const bPath = manifestOf(folder, b);
    await writeFile(bPath, JSON.stringify(aRecord)); // A's record under B's name: it says volume A
    const refused = json(await ksm(['sync', folder, b, '--delete', '--keep-others', '--json']));
    assert.equal(refused.plan.manifest.state, 'unusable');
    assert.match(refused.plan.manifest.reason ?? '', /records volume/);
    assert.equal(refused.summary.deleted, 0);
    // Now one that says volume B, claiming B's files (under other paths) and A's copy as its own.
    const crafted = {
      ...aRecord,
      volume: b,
      files: { ...aRecord.files, 'team-notes.md': { ...aRecord.files['notes.md'], uuid: inB[1].uuid } },
      pendingDeletes: [{ uuid: inB[0].uuid, rel: 'notes.md' }],
    };
    await rm(join(folder, 'notes.md'));
    await writeFile(bPath, JSON.stringify(crafted));
    const run = await ksm(['sync', folder, b, '--delete', '--json']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(json(run).summary.deleted, 0);
    const still = new Set((await listed(b)).map((f) => f.uuid));
    assert.ok(
      inB.every((f) => still.has(f.uuid)),
      "the colleague's files are all still there",
    );
    assert.deepEqual(await names(a), ['notes.md'], "A's copy is not B's to delete");
  });

  it('hostile volume names write nothing outside the folder: refused before anything, or kept to one bounded file name each (Prod and prod apart)', async () => {
    const parent = join(fx.workDir, 'hostile');
    const folder = join(parent, 'docs');
    await writeTree(folder, { 'a.md': 'a' });
    for (const volume of ['../escape', '..', 'a/b', '.ksm-sync']) {
      const run = await ksm(['sync', folder, volume]);
      assert.equal(run.code, 2, `${volume}: ${run.stderr}`);
    }
    const long = `X${'..-'.repeat(42)}y`.slice(0, 128);
    const accepted = [`Prod-${process.pid}`, `prod-${process.pid}`, `a..b-${process.pid}`, long];
    for (const volume of accepted) assert.equal((await ksm(['sync', folder, volume])).code, 0, volume);
    assert.deepEqual(await readdir(parent), ['docs'], 'nothing written beside the folder');
    const state = (await readdir(folder)).filter((n) => n !== 'a.md').sort();
    assert.equal(state.length, accepted.length, `one file per volume: ${state.join(', ')}`);
    assert.equal(new Set(state.map((n) => n.toLowerCase())).size, accepted.length, 'no two differ only by case');
    for (const name of state) {
      assert.ok(isSyncStateName(name), name);
      assert.ok(name.length <= 64 && !name.includes('..') && !name.includes(sep) && name === name.toLowerCase(), name);
    }
    // Each record is its own: a second round changes nothing.
    for (const volume of accepted) assert.match((await ksm(['sync', folder, volume])).stdout, /0 uploaded, 0 replaced, 0 deleted, 1 unchanged/);
  });

  describe('two runs at once (a proxy holds the uploads to one volume)', () => {
    let proxy: Server;
    let proxyUrl: string;
    let gate: { volume: string; held: () => void; release: Promise<void> } | undefined;
    before(async () => {
      const upstream = new URL(fx.emulator.url);
      proxy = createServer((req, res) => {
        const body: Buffer[] = [];
        req.on('data', (chunk: Buffer) => body.push(chunk));
        req.on('end', () => {
          const data = Buffer.concat(body);
          const forward = () => {
            const out = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } }, (answer) => {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              answer.pipe(res);
            });
            out.on('error', () => res.destroy());
            out.end(data);
          };
          const held = gate;
          if (held && req.method === 'POST' && /\/files(\?|$)/.test(req.url ?? '') && data.includes(held.volume)) {
            held.held();
            void held.release.then(forward);
          } else forward();
        });
      });
      await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname.replace(/\/$/, '')}`;
    });
    after(() => new Promise((done) => proxy.close(done)));

    it('a run against B finishes while one against A is under way; a second run against A still waits, then refuses (exit 6)', async () => {
      const folder = join(fx.workDir, 'concurrent');
      await writeTree(folder, { 'a.md': 'a', 'b.md': 'b' });
      const [a, b] = [freshVolume('conc-a'), freshVolume('conc-b')];
      let held!: () => void;
      const heldNow = new Promise<void>((resolve) => (held = resolve));
      let release!: () => void;
      gate = { volume: a, held, release: new Promise<void>((resolve) => (release = resolve)) };
      // Spawned with the proxy's address (the manifests are named by the service's address: the same for all three runs).
      const viaProxy = (args: string[]) =>
        new Promise<KsmRun>((done) => {
          const child = spawn(CLI_NODE, [LAUNCHER, ...args], {
            env: { PATH: process.env.PATH, KSM_BASE_URL: proxyUrl, KSM_API_KEY: fx.emulator.apiKey, KSM_EMBEDDING_MODEL: 'emu-embed' },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (d) => (stdout += d));
          child.stderr.on('data', (d) => (stderr += d));
          child.on('close', (code) => done({ code: code ?? 1, stdout, stderr }));
        });
      try {
        const first = viaProxy(['sync', folder, a]);
        await heldNow; // A's run holds its lock and waits for its upload's answer
        const other = await viaProxy(['sync', folder, b, '--lock-wait', '0']);
        assert.equal(other.code, 0, other.stderr);
        assert.deepEqual(await names(b), ['a.md', 'b.md']);
        const same = await viaProxy(['sync', folder, a, '--lock-wait', '0']);
        assert.equal(same.code, 6, same.stderr);
        assert.match(same.stderr, /another sync of this folder to this volume is running/);
        assert.match(same.stderr, /Another sync of .* is running \(lock .*\.ksm-sync\.conc-a-[^ ]*\.json\.lock\); nothing was changed/);
        release();
        const done = await first;
        assert.equal(done.code, 0, done.stderr);
        assert.deepEqual(await names(a), ['a.md', 'b.md']);
        assert.deepEqual(
          (await readdir(folder)).filter((n) => n.endsWith('.lock')),
          [],
          'both locks released',
        );
      } finally {
        release();
        gate = undefined;
      }
    });
  });
});
