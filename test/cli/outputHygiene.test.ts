// The built `ksm` (a child process) over real HTTP, tried as someone who controls the
// service's answers or reads its output through a pipe: a listing, an error body or a failed
// upload's answer carrying terminal escapes and bidi controls prints them escaped (never raw,
// never the key); `rm` reports only the ids it asked to delete; `sync --dry-run --json-lines`
// prints its plan as a record; a sync whose reader goes away (`| head -1`) still finishes;
// `upload --json-lines` says each file as its batch is answered, as its help promises.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { freshVolume, listedFiles, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';
import { until } from '../support/until';
import { startRawServer } from '../api/rawServer';
import { CLI_NODE, runKsm, LAUNCHER, startKsmFixture } from './runKsm';
import { syncManifestName } from '../../src/common/core/folderExpansion';

const FILES_PATH = '/ksm/rag/v5/files';
const ESCAPES = '\u001b[2J\u001b[31mPWNED\u001b[0m';
const KEY = 'sk-hostile-0123456789abcdef';

const ksm = (args: string[], env: Record<string, string | undefined>) => runKsm(args, { KSM_EMBEDDING_MODEL: 'emu-embed', ...env });

/** No raw escape, C1 or bidi control, and never the key. */
function assertClean(text: string, what: string): void {
  // eslint-disable-next-line no-control-regex
  assert.ok(!/[\u001b\u0007\u009b\u202e]/.test(text), `${what} holds a raw control character: ${JSON.stringify(text)}`);
  assert.ok(!text.includes(KEY), `${what} holds the key`);
}

/** A service whose every answer is hostile (`answer` decides it per request, once its body is read). */
const hostileService = (answer: (req: IncomingMessage, res: ServerResponse) => void) => startRawServer(answer);

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const echoedKey = (req: IncomingMessage) => String(req.headers.authorization).replace(/^Bearer /, '');

describe('ksm output against hostile answers and closed pipes (built, as a child process)', function () {
  this.timeout(60_000);
  let fx: EmulatorFixture;
  let env: Record<string, string>;
  before(async () => ({ fx, env } = await startKsmFixture()));
  after(async () => fx.close());
  afterEach(() => fx.emulator.faults.clear());

  it("ls and rm print a listing's ids and states escaped; rm reports only the ids it asked to delete", async () => {
    const uuid = `u1${ESCAPES}\nforged-uuid`;
    const service = await hostileService((req, res) => {
      if (req.method === 'GET') json(res, 200, { total: 1, infoz: [{ uuid, filename: 'f.md', filesize: 3, status: `done${ESCAPES}`, volume: 'v' }] });
      else json(res, 200, { deleted: [uuid, `zz${ESCAPES}`], not_found: [] });
    });
    try {
      const hostEnv = { KSM_BASE_URL: service.url, KSM_API_KEY: KEY };
      const ls = await ksm(['ls', 'v'], hostEnv);
      assert.equal(ls.code, 0, ls.stderr);
      assertClean(ls.stdout, 'ls');
      assert.equal(ls.stdout.trim().split('\n').length, 1, 'one file, one line (a newline in an id forges none)');
      assert.match(ls.stdout, /u1\\x1b\[2J.*\\nforged-uuid\tdone\\x1b\[2J/);
      const rm = await ksm(['rm', 'v', 'f.md'], hostEnv);
      assert.equal(rm.code, 0, rm.stderr);
      assertClean(rm.stdout + rm.stderr, 'rm');
      assert.equal(rm.stdout.trim().split('\n').length, 1, rm.stdout);
      assert.ok(!rm.stdout.includes('zz'), 'an id the request never named is not reported deleted');
    } finally {
      await service.close();
    }
  });

  it("an error body's escapes, bidi controls and echoed key never reach stderr raw (ls, upload, sync)", async () => {
    const service = await hostileService((req, res) => {
      const message = `boom ${ESCAPES}\u202e key=${echoedKey(req)}`;
      // An empty volume; every upload refused with the hostile message.
      if (req.method === 'GET') return json(res, 200, { total: 0, infoz: [] });
      json(res, 422, { code: 422, message });
    });
    const broken = await hostileService((req, res) => json(res, 500, { code: 500, message: `boom ${ESCAPES}\nksm: forged line\u202e key=${echoedKey(req)}` }));
    try {
      const ls = await ksm(['ls', 'v'], { KSM_BASE_URL: broken.url, KSM_API_KEY: KEY });
      assert.equal(ls.code, 5);
      assertClean(ls.stderr, 'ls stderr');
      assert.match(ls.stderr, /boom \\x1b\[2J/);
      const folder = join(fx.workDir, 'hostile-errors');
      await writeTree(folder, { 'a.md': 'a' });
      const upload = await ksm(['upload', 'v', join(folder, 'a.md')], { KSM_BASE_URL: service.url, KSM_API_KEY: KEY });
      assert.equal(upload.code, 3, upload.stderr);
      assertClean(upload.stdout + upload.stderr, 'upload');
      assert.match(upload.stdout, /failed .*a\.md: .*boom \\x1b\[2J/);
      const sync = await ksm(['sync', folder, 'v'], { KSM_BASE_URL: service.url, KSM_API_KEY: KEY });
      assert.equal(sync.code, 3, sync.stderr);
      assertClean(sync.stdout + sync.stderr, 'sync');
      assert.match(sync.stderr, /stopped: .*boom \\x1b\[2J/);
    } finally {
      await service.close();
      await broken.close();
    }
  });

  it("ksm ask --agent prints its answer and names its sources escaped (a file's name and the passage it quotes reached the terminal raw)", async () => {
    const volume = freshVolume('cli-ask-sources');
    const [file] = await writeTree(join(fx.workDir, 'ask-sources'), { 'w.md': 'release hotfix signatures \u001b]0;owned\u0007 \u001b[2J signatures matter' });
    await fx.client.uploadFiles({ volume, embedding: 'emu-embed', doChunking: 1, files: [{ path: file, filename: `evil${ESCAPES}\u202e.md` }] });
    // The agent searches files once processed: wait for the volume to say so.
    for (let settled = false; !settled;) settled = (await listedFiles(fx, volume)).every((f) => f.status === 'done' || f.status === 'na');
    const run = await ksm(['ask', '--agent', '--volume', volume, 'release hotfix signatures'], { ...env, KSM_MODEL: 'emu-chat' });
    assert.equal(run.code, 0, run.stderr);
    assertClean(run.stderr, 'ask stderr');
    assertClean(run.stdout, 'the answer');
    assert.match(run.stdout, /\\x1b\]0;owned\\x07 \\x1b\[2J/, 'the quoted passage, escaped as ksm fetch prints it');
    assert.match(run.stderr, /Sources: evil\\x1b\[2J.*\\u202e\.md/);
  });

  it('sync --dry-run --json-lines prints the plan as one record (it printed nothing), and so does a refusal of the delete guard', async () => {
    const folder = join(fx.workDir, 'dry-lines');
    const volume = freshVolume('cli-dry-lines');
    await writeTree(folder, { 'a.md': 'a', 'b.md': 'b' });
    const dry = await ksm(['sync', folder, volume, '--dry-run', '--json-lines'], env);
    assert.equal(dry.code, 0, dry.stderr);
    const lines = dry.stdout.trim().split('\n');
    assert.equal(lines.length, 1, dry.stdout);
    const record = JSON.parse(lines[0]) as { dryRun: boolean; plan: { counts: { upload: number } } };
    assert.equal(record.dryRun, true);
    assert.equal(record.plan.counts.upload, 2);

    assert.equal((await ksm(['sync', folder, volume], env)).code, 0);
    await writeTree(folder, { 'c.md': 'c' });
    await rm(join(folder, 'a.md'));
    await rm(join(folder, 'b.md'));
    const guarded = await ksm(['sync', folder, volume, '--delete', '--json-lines'], env);
    assert.equal(guarded.code, 4, guarded.stderr);
    const refusal = guarded.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { guardTripped?: boolean });
    assert.deepEqual(
      refusal.map((r) => r.guardTripped),
      [true],
    );
  });

  it('a sync whose reader goes away (| head -1) finishes its run and writes its manifest; it stopped at once with exit 0 before', async () => {
    const folder = join(fx.workDir, 'closed-pipe');
    const volume = freshVolume('cli-closed-pipe');
    await writeTree(folder, Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${String(i).padStart(2, '0')}.md`, `file ${i}`])));
    // Three upload batches of 20, one at a time: the first two are held, so the reader is gone before the second answers.
    fx.emulator.faults.add({ kind: 'hold', path: FILES_PATH, method: 'POST', times: 2 });
    const child = spawn(CLI_NODE, [LAUNCHER, 'sync', folder, volume, '--json-lines', '--concurrency', '1'], {
      env: { PATH: process.env.PATH, KSM_EMBEDDING_MODEL: 'emu-embed', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    let firstLine = false;
    child.stdout.once('data', () => {
      firstLine = true;
      child.stdout.destroy(); // `head -1` has read its line and gone
    });
    await until(() => fx.emulator.faults.held === 1);
    fx.emulator.faults.release();
    await until(() => firstLine && fx.emulator.faults.held === 1); // the second batch waits; the pipe is closed
    fx.emulator.faults.release();
    const code = await exited;
    assert.equal(code, 0, stderr);
    assert.equal(stderr, '', 'no EPIPE stack trace');
    assert.equal((await listedFiles(fx, volume)).length, 60, 'every file uploaded');
    assert.ok(existsSync(join(folder, syncManifestName(fx.emulator.url, volume))), 'the run ended: its manifest written');
    assert.ok(!existsSync(join(folder, `${syncManifestName(fx.emulator.url, volume)}.journal`)), 'its journal folded in');
  });

  it('upload --json-lines prints each file as its batch is answered (it printed nothing until the last one)', async () => {
    const folder = join(fx.workDir, 'upload-lines');
    const volume = freshVolume('cli-upload-lines');
    await writeTree(folder, Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`u${String(i).padStart(2, '0')}.md`, `file ${i}`])));
    fx.emulator.faults.add({ kind: 'hold', path: FILES_PATH, method: 'POST', times: 2 }); // two batches of 20, one at a time
    const child = spawn(CLI_NODE, [LAUNCHER, 'upload', volume, folder, '--json-lines', '--concurrency', '1'], {
      env: { PATH: process.env.PATH, KSM_EMBEDDING_MODEL: 'emu-embed', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await until(() => fx.emulator.faults.held === 1);
    fx.emulator.faults.release();
    // The second batch is held: the first one's 20 files are already on stdout.
    await until(() => fx.emulator.faults.held === 1 && stdout.split('\n').filter(Boolean).length === 20);
    fx.emulator.faults.release();
    assert.equal(await exited, 0, stderr);
    const records = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action?: string; summary?: { uploaded: number } });
    assert.equal(records.filter((r) => r.action === 'uploaded').length, 40, 'each file once');
    assert.equal(records.at(-1)?.summary?.uploaded, 40);
  });
});
