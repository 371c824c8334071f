import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, startProcess, waitForHttp, type ManagedProcess } from './processes';
import { REPO_ROOT } from './paths';
import { e2eProfile } from './profile';

const run = promisify(execFile);

/**
 * Runs the profile's setup script (scripts/setup-code-server.sh, or -native.sh; cached
 * after the first run) and returns the code-server launcher. A missing prerequisite fails
 * the run with the script's message.
 */
export async function ensureCodeServer(): Promise<string> {
  const script = e2eProfile().setupScript;
  try {
    const { stdout } = await run('bash', [join(REPO_ROOT, 'scripts', script)], { cwd: REPO_ROOT, maxBuffer: 10_000_000, timeout: 30 * 60_000 });
    const launcher = stdout.trim().split('\n').pop();
    if (!launcher) throw new Error(`${script} printed no code-server path`);
    return launcher;
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr || (error as Error).message;
    throw new Error(`The real VS Code (code-server) for the e2e suite is not available:\n${detail}`);
  }
}

/** Builds the production VSIX exactly as a release does (`npm run package`). */
export async function packageExtension(): Promise<string> {
  const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  try {
    await run('npm', ['run', '--silent', 'package'], { cwd: REPO_ROOT, maxBuffer: 10_000_000, timeout: 5 * 60_000 });
  } catch (error) {
    throw new Error(`npm run package failed:\n${(error as { stderr?: string }).stderr ?? (error as Error).message}`);
  }
  const vsix = join(REPO_ROOT, `ksm-assistant-${version}.vsix`);
  // The VSIX carries the extension, the `ksm` CLI and the MCP server; it must stay small.
  const size = statSync(vsix).size;
  if (size >= VSIX_MAX_BYTES) throw new Error(`${vsix} is ${(size / 1048576).toFixed(2)} MiB, over the ${VSIX_MAX_BYTES / 1048576} MiB budget`);
  return vsix;
}

export const VSIX_MAX_BYTES = 1.5 * 1024 * 1024;

export class CodeServer {
  private constructor(
    readonly url: string,
    readonly userDataDir: string,
    readonly extensionsDir: string,
    private readonly process_: ManagedProcess,
  ) {}

  static async installExtension(launcher: string, extensionsDir: string, vsix: string): Promise<void> {
    mkdirSync(extensionsDir, { recursive: true });
    try {
      await run(launcher, ['--extensions-dir', extensionsDir, '--install-extension', vsix, '--force'], { timeout: 120_000 });
    } catch (error) {
      throw new Error(`code-server could not install ${vsix}:\n${(error as { stderr?: string }).stderr ?? (error as Error).message}`);
    }
  }

  /**
   * `workspaceTrust`: keep VS Code's workspace trust on (scenario 14 opens a workspace untrusted); off elsewhere.
   * `locale`: VS Code's display language (`--locale`; scenario 17 runs under a pseudo-locale).
   */
  static async start(
    launcher: string,
    options: { userDataDir: string; extensionsDir: string; workspace: string; logFile: string; env?: NodeJS.ProcessEnv; workspaceTrust?: boolean; locale?: string },
  ): Promise<CodeServer> {
    const port = await freePort();
    const args = [
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--user-data-dir',
      options.userDataDir,
      '--extensions-dir',
      options.extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
      ...(options.locale ? ['--locale', options.locale] : []),
      '--disable-getting-started-override',
      '--ignore-last-opened',
      '-e',
      options.workspace,
    ];
    const child = startProcess('code-server', launcher, args, { cwd: options.workspace, logFile: options.logFile, env: { ...process.env, ...options.env } });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`, child, 60_000);
    return new CodeServer(url, options.userDataDir, options.extensionsDir, child);
  }

  /** The workbench URL with `folder` open. */
  workbenchUrl(folder: string): string {
    return `${this.url}/?folder=${encodeURIComponent(folder)}`;
  }

  output(): string {
    return this.process_.output();
  }

  async stop(): Promise<void> {
    await this.process_.stop();
  }
}
