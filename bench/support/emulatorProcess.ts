// The emulator in a process of its own for the upload and sync benches, so its CPU is not
// counted in the client's figures (it is single-threaded: in process it would share the
// event loop with the client being measured). Files stay `processing` (a 10-minute step).
// Node runs it with tsx's loader, not through the tsx command (which starts a second Node
// process): `pid` is then the emulator's own, whose CPU the upload benches read.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

export async function startEmulatorProcess(dataDir: string, extraArgs: string[] = [], options: { requestLog?: string } = {}): Promise<{ url: string; pid: number | undefined; stop(): void }> {
  // With `requestLog`, requestTimeline.ts is preloaded and writes a line per answered request there.
  const preload = options.requestLog ? ['--import', join(__dirname, 'requestTimeline.ts')] : [];
  const child = spawn(process.execPath, ['--import', 'tsx', ...preload, 'emulator/cli.ts', '--port', '0', '--data-dir', dataDir, '--step-ms', '600000', ...extraArgs, '--quiet'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: options.requestLog ? { ...process.env, KSM_BENCH_REQUEST_LOG: options.requestLog } : process.env,
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (piece: Buffer) => {
      out += piece.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolveUrl(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code}) before listening`)));
  });
  return { url, pid: child.pid, stop: () => child.kill('SIGTERM') };
}
