// The CLI: flags, the start banner, loopback only, clean stop on SIGINT/SIGTERM.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcessWithoutNullStreams; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'emulator/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

async function waitForBanner(run: ReturnType<typeof runCli>): Promise<string> {
  // The banner ends with the models line.
  while (!/^models: /m.test(run.output())) {
    const exited = await Promise.race([once(run.child.stdout, 'data').then(() => false), once(run.child, 'exit').then(() => true)]);
    if (exited) throw new Error(`the CLI exited: ${run.output()}`);
  }
  return /listening on (http:\S+)/.exec(run.output())![1];
}

describe('emulator: CLI', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ksm-emu-cli-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`prints URL and key, serves with the given key and user, and exits 0 on ${signal}`, async () => {
      const run = runCli(['--port', '0', '--data-dir', join(dir, 'data'), '--api-key', 'secret-key-1', '--user-id', 'carol', '--test-controls']);
      const url = await waitForBanner(run);
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(run.output(), /API key: secret-key-1/);
      const listed = await fetch(`${url}/ksm/rag/v5/files`, { method: 'POST', headers: { Authorization: 'Bearer secret-key-1' } });
      assert.equal(listed.status, 415, 'the server answers (an upload needs multipart)');
      const stats = await fetch(`${url}/_emulator/stats`);
      assert.equal(stats.status, 200, '--test-controls enables the controls');
      run.child.kill(signal);
      const [code] = await once(run.child, 'exit');
      assert.equal(code, 0);
    });
  }

  it('defaults the data folder under XDG_CACHE_HOME', async () => {
    const run = runCli(['--port', '0'], { XDG_CACHE_HOME: join(dir, 'cache') });
    await waitForBanner(run);
    assert.match(run.output(), new RegExp(`data folder: ${join(dir, 'cache', 'ksm-emulator').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    run.child.kill('SIGTERM');
    await once(run.child, 'exit');
  });

  it('refuses a non-loopback host and unknown flags with a clear message', async () => {
    // 'close', not 'exit': a child's output may still be arriving when 'exit' fires.
    const remote = runCli(['--port', '0', '--host', '0.0.0.0', '--data-dir', join(dir, 'data')]);
    const [remoteCode] = await once(remote.child, 'close');
    assert.equal(remoteCode, 1);
    assert.match(remote.output(), /only listens on loopback/);
    const unknown = runCli(['--bogus']);
    const [unknownCode] = await once(unknown.child, 'close');
    assert.equal(unknownCode, 2);
    assert.match(unknown.output(), /Usage: npm run emulator/);
  });
});
