import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr), for error messages. */
  output(): string;
  /** Kills the whole process group (code-server and the emulator start children of their own). */
  stop(): Promise<void>;
}

/**
 * Starts a command in its own process group so teardown can kill everything it started,
 * and tees its output to `logFile`.
 */
/** Process groups still running; killed synchronously if mocha exits without teardown. */
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
});

export function startProcess(name: string, command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; logFile: string }): ManagedProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(options.logFile);
  let buffer = '';
  const collect = (chunk: Buffer) => {
    log.write(chunk);
    buffer = (buffer + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  if (child.pid) liveGroups.add(child.pid);
  const exited = new Promise<void>((resolveExit) =>
    child.once('exit', () => {
      if (child.pid) liveGroups.delete(child.pid);
      resolveExit();
    }),
  );
  return {
    name,
    child,
    output: () => buffer,
    async stop() {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        killGroup(child.pid, 'SIGTERM');
        const graceful = await Promise.race([exited.then(() => true), delay(5000).then(() => false)]);
        if (!graceful) killGroup(child.pid, 'SIGKILL');
        await Promise.race([exited, delay(2000)]);
      }
      log.end();
    },
  };
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A port the OS just handed out; free again when this resolves. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** Polls `url` until it answers (any HTTP status) or the process dies or time runs out. */
export async function waitForHttp(url: string, process_: ManagedProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (process_.child.exitCode !== null || process_.child.signalCode !== null) {
      throw new Error(`${process_.name} exited (${process_.child.exitCode ?? process_.child.signalCode}) before answering ${url}. Output:\n${process_.output()}`);
    }
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${process_.name} did not answer ${url} within ${timeoutMs / 1000}s. Output:\n${process_.output()}`);
    await delay(250);
  }
}
