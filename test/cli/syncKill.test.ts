// `ksm sync` killed (SIGKILL) between sending and recording, through the built CLI over real
// HTTP: a proxy in front of the emulator lets the upload through, waits until the emulator
// has stored it and answered, then kills the process before the answer reaches it. The
// intents are in the journal beside the pairing's manifest, so the next run recognises the
// stored copies by name, size and the recorded hash: nothing is uploaded twice, no choice
// is asked for, the older copy is deleted, and the journal is folded into the manifest.
import { strict as assert } from 'node:assert';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lstat, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '../../src/api/errors';
import type { FileInfo } from '../../src/api/types';
import { freshVolume, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';
import { CLI_NODE, LAUNCHER } from './runKsm';
import { syncManifestName } from '../../src/common/core/folderExpansion';

describe('ksm sync killed between sending and recording (built, a child process)', function () {
  this.timeout(120_000);
  let fx: EmulatorFixture;
  let proxy: Server;
  let proxyUrl: string;
  /** Set while a run is to be killed once the emulator has answered its first upload. */
  let victim: ChildProcess | undefined;
  let killedAfterStored = 0;

  before(async () => {
    fx = await startFixture(5);
    const upstream = new URL(fx.emulator.url);
    proxy = createServer((req, res) => {
      const forward = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } }, (answer) => {
        const isUpload = req.method === 'POST' && /\/files(\?|$)/.test(req.url ?? '');
        if (isUpload && victim) {
          // The service stored the files and answered: the client dies before it can record them.
          answer.resume();
          answer.on('end', () => {
            victim?.kill('SIGKILL');
            victim = undefined;
            killedAfterStored++;
            res.destroy();
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${new URL(fx.emulator.url).pathname.replace(/\/$/, '')}`;
    await new Promise((done) => execFile(CLI_NODE, [LAUNCHER, '--version'], done)); // builds dist/cli.js once if it is stale
  });
  after(async () => {
    await new Promise((done) => proxy.close(done));
    await fx.close();
  });

  const env = () => ({ PATH: process.env.PATH, KSM_BASE_URL: proxyUrl, KSM_API_KEY: fx.emulator.apiKey, KSM_EMBEDDING_MODEL: 'emu-embed' });

  function ksm(args: string[], kill = false): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
    return new Promise((done) => {
      const child = spawn(CLI_NODE, [LAUNCHER, ...args], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
      if (kill) victim = child;
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
    });
  }

  async function listed(volume: string): Promise<string[]> {
    const files: FileInfo[] = [];
    try {
      for await (const f of fx.client.listAllFiles(volume)) files.push(f);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    return files.map((f) => `${f.filename}:${f.filesize}`).sort();
  }

  it('a first sync and a later edit, each killed after the service stored the upload, resume without a duplicate, a choice or a lost edit', async () => {
    const folder = join(fx.workDir, 'killed');
    const volume = freshVolume('cli-killed');
    const manifest = join(folder, syncManifestName(proxyUrl, volume));
    const journal = `${manifest}.journal`;
    await writeTree(folder, { 'a.md': 'alpha', 'b.md': 'bravo!', 'c.md': 'charlie' });

    // 1. The first sync dies once its only request is stored: no manifest yet, the intents are in the journal.
    const first = await ksm(['sync', folder, volume], true);
    assert.equal(first.signal, 'SIGKILL', first.stderr);
    assert.equal(killedAfterStored, 1);
    assert.deepEqual(await listed(volume), ['a.md:5', 'b.md:6', 'c.md:7']);
    await assert.rejects(lstat(manifest), /ENOENT/);
    assert.equal((await readFile(journal, 'utf8')).match(/"i":/g)?.length, 3, 'three intents in the journal');

    // The next run recognises the three copies (no --adopt needed: the folder recorded its intent), uploads nothing.
    // The killed run's lock expires within 10 s.
    const resumed = await ksm(['sync', folder, volume, '--lock-wait', '30', '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const summary = JSON.parse(resumed.stdout).summary;
    assert.deepEqual([summary.uploaded, summary.replaced, summary.deleted], [0, 0, 0]);
    assert.deepEqual(await listed(volume), ['a.md:5', 'b.md:6', 'c.md:7']);
    await assert.rejects(lstat(journal), /ENOENT/, 'folded into the manifest at the end of the run');
    assert.equal(Object.keys(JSON.parse(await readFile(manifest, 'utf8')).files).length, 3);

    // 2. An edit, killed the same way: both copies are listed, the manifest in the folder is untouched.
    await writeFile(join(folder, 'b.md'), 'bravo, edited');
    const manifestBefore = await readFile(manifest, 'utf8');
    const second = await ksm(['sync', folder, volume], true);
    assert.equal(second.signal, 'SIGKILL', second.stderr);
    assert.deepEqual(await listed(volume), ['a.md:5', 'b.md:13', 'b.md:6', 'c.md:7']);
    assert.equal(await readFile(manifest, 'utf8'), manifestBefore);
    const again = await ksm(['sync', folder, volume, '--lock-wait', '30', '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).summary.uploaded + JSON.parse(again.stdout).summary.replaced, 0, 'the stored copy is recognised, not sent again');
    assert.deepEqual(await listed(volume), ['a.md:5', 'b.md:13', 'c.md:7'], 'the older copy deleted, one copy of each');
    const final = await ksm(['sync', folder, volume, '--json']);
    assert.deepEqual(JSON.parse(final.stdout).summary, { uploaded: 0, replaced: 0, deleted: 0, failed: 0, cancelled: 0, unchanged: 3 });
  });
});
