// KSM: Install 'ksm' Command in PATH, without VS Code: where the launcher goes on each
// platform, what it says, whether an existing file may be replaced, and on Windows how the
// per-user folder reaches PATH. The VS Code side (vscode/mcpServerProvider.ts) only reads
// and writes the files and asks the user.
//
// Like VS Code's own shell command, the launcher runs the extension's bundled CLI with the
// editor's runtime (ELECTRON_RUN_AS_NODE=1), so no separate Node is needed, and it is
// rewritten when an update moves the extension.
//   Linux, macOS: a `sh` script `ksm` in $XDG_BIN_HOME, else ~/.local/bin (on PATH in most
//     distributions' default profiles; else the user is told which folder to add).
//   Windows: `ksm.cmd` in %LOCALAPPDATA%\Programs\KSM Assistant\bin (per user: no
//     administrator rights), added to the user's PATH with the user's consent by a
//     PowerShell script that keeps the registry value's kind (REG_EXPAND_SZ stays one, so
//     entries such as %USERPROFILE%\bin are not expanded in place) and tells running
//     programs that the environment changed.
//
// The launcher's path is in a folder other programs write too (~/.local/bin): whatever is
// there and is not a small regular file of ours (a symbolic link, a folder, a FIFO, someone
// else's program) is never read through, written through or replaced (readLauncher), and the
// launcher is written beside it and renamed into place (writeLauncher), so a link at the path
// is replaced rather than followed and a shell running the old script never reads half a file.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, posix, win32 } from 'node:path';
import { launcherScript } from './mcpLaunch';

/** The words every launcher KSM Assistant writes carries: a file without them is someone else's and is never replaced. */
export const LAUNCHER_MARK = 'Installed by KSM Assistant';

export interface LauncherTarget {
  /** The folder that must be on PATH. */
  folder: string;
  /** The launcher file. */
  path: string;
  content: string;
  /** The file's mode where the platform has one (the script must be executable). */
  mode?: number;
  windows: boolean;
}

export interface LauncherPlace {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
  /** The runtime that runs the CLI: VS Code's own (process.execPath of the extension host). */
  runtime: string;
  cliBundle: string;
}

/** Where the launcher goes and what it holds. */
export function launcherTarget(place: LauncherPlace): LauncherTarget {
  if (place.platform === 'win32') {
    const local = place.env.LOCALAPPDATA?.trim();
    const base = local && win32.isAbsolute(local) ? local : win32.join(place.home, 'AppData', 'Local');
    const folder = win32.join(base, 'Programs', 'KSM Assistant', 'bin');
    return { folder, path: win32.join(folder, 'ksm.cmd'), content: windowsLauncherScript(place.runtime, place.cliBundle), windows: true };
  }
  const xdg = place.env.XDG_BIN_HOME?.trim();
  const folder = xdg && posix.isAbsolute(xdg) ? xdg : posix.join(place.home, '.local', 'bin');
  return { folder, path: posix.join(folder, 'ksm'), content: launcherScript(place.runtime, place.cliBundle), mode: 0o755, windows: false };
}

/**
 * `ksm.cmd`: runs the bundle with every argument (`%*`) and returns its exit code. `setlocal`
 * keeps ELECTRON_RUN_AS_NODE out of the calling console. A `%` in a path is doubled (cmd
 * would expand `%NAME%` inside quotes); a Windows path cannot hold `"`, and the other
 * characters cmd treats specially (`&`, `^`, `|`, `<`, `>`, `(`) are inert inside quotes.
 */
export function windowsLauncherScript(runtime: string, cliBundle: string): string {
  const q = (path: string) => `"${path.replace(/%/g, '%%')}"`;
  return [
    '@echo off',
    `rem ${LAUNCHER_MARK} (KSM: Install 'ksm' Command in PATH); rewritten when the extension updates.`,
    'setlocal',
    'set ELECTRON_RUN_AS_NODE=1',
    `${q(runtime)} ${q(cliBundle)} %*`,
    'exit /b %ERRORLEVEL%',
    '',
  ].join('\r\n');
}

export type InstallDecision = 'write' | 'unchanged' | 'foreign';

/** At the launcher's path: something that is not a small regular file (readLauncher); never ours to read or replace. */
export const NOT_A_FILE = Symbol('not a small regular file');

/** What readLauncher found: nothing (undefined), a small regular file's text, or NOT_A_FILE. */
export type LauncherOnDisk = string | undefined | typeof NOT_A_FILE;

/** Far larger than any launcher written here (under 1 KB): a larger file is another program, not read whole. */
export const LAUNCHER_MAX_BYTES = 64 * 1024;

/** What to do with the launcher's path: `existing` is what readLauncher found there. */
export function installDecision(existing: LauncherOnDisk, wanted: string): InstallDecision {
  if (existing === undefined) return 'write';
  if (existing === NOT_A_FILE || !existing.includes(LAUNCHER_MARK)) return 'foreign';
  return existing === wanted ? 'unchanged' : 'write';
}

/** This window's side of the refresh: the bundle it would point at, and how it looks whether a path exists. */
export interface RefreshSide {
  cliBundle: string;
  exists(path: string): boolean;
}

/**
 * The refresh at every start: only a launcher we wrote that points elsewhere, and then only
 * when the install it points at is gone (its runtime or bundle no longer exists: an update
 * moved it, or it was uninstalled) or is an OLDER version of this same install (the same
 * extensions folder). A launcher pointing at another live install (VS Code Stable and
 * Insiders, a fork, another extensions folder) is left alone, so two builds with the
 * extension do not rewrite it at each start and it does not flip between them; Install
 * 'ksm' Command in PATH (the user's choice) still points it here.
 */
export function refreshNeeded(existing: LauncherOnDisk, wanted: string, here: RefreshSide): boolean {
  if (existing === undefined || installDecision(existing, wanted) !== 'write') return false;
  const theirs = launcherPaths(existing as string);
  // Ours, but not a form this version reads: rewritten, as before.
  if (!theirs) return true;
  if (!here.exists(theirs.runtime) || !here.exists(theirs.cliBundle)) return true;
  const mine = extensionInstall(here.cliBundle);
  const other = extensionInstall(theirs.cliBundle);
  if (!mine || !other || mine.extensionsFolder !== other.extensionsFolder) return false;
  return compareVersions(mine.version, other.version) > 0;
}

/** The runtime and bundle a launcher of ours runs (launcherScript, windowsLauncherScript), or undefined. */
export function launcherPaths(text: string): { runtime: string; cliBundle: string } | undefined {
  const posixLine = /^ELECTRON_RUN_AS_NODE=1 exec ('(?:[^']|'\\'')*') ('(?:[^']|'\\'')*') "\$@"$/m.exec(text);
  if (posixLine) {
    const unquote = (q: string) => q.slice(1, -1).replace(/'\\''/g, "'");
    return { runtime: unquote(posixLine[1]!), cliBundle: unquote(posixLine[2]!) };
  }
  const windowsLine = /^"([^"]*)" "([^"]*)" %\*\r?$/m.exec(text);
  if (windowsLine) return { runtime: windowsLine[1]!.replace(/%%/g, '%'), cliBundle: windowsLine[2]!.replace(/%%/g, '%') };
  return undefined;
}

/**
 * The extensions folder and version of an installed extension's bundle
 * (`<extensions>/<publisher>.<name>-<version>[-<platform>]/dist/cli.js`), or undefined (a
 * development checkout, another layout). Windows paths compare in any case.
 */
function extensionInstall(cliBundle: string): { extensionsFolder: string; version: number[] } | undefined {
  const parts = cliBundle.split(/[\\/]+/);
  if (parts.length < 4 || parts.at(-2) !== 'dist') return undefined;
  const version = /-(\d+)\.(\d+)\.(\d+)(?:-[A-Za-z0-9.-]+)?$/.exec(parts.at(-3)!);
  if (!version) return undefined;
  const folder = parts.slice(0, -3).join('/');
  return { extensionsFolder: /^[A-Za-z]:/.test(folder) ? folder.toLowerCase() : folder, version: version.slice(1, 4).map(Number) };
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * What is at `path`, without following a link there: undefined when nothing is, the text of
 * a regular file of at most LAUNCHER_MAX_BYTES, else NOT_A_FILE (a symbolic link, even to a
 * launcher of ours; a folder; a FIFO, which a read would wait on for ever, at activation; a
 * device; a large program). Opened without following a link and without blocking, and read
 * only when it is the file that was looked at.
 */
export function readLauncher(path: string): LauncherOnDisk {
  let seen;
  try {
    seen = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  if (!seen.isFile() || seen.size > LAUNCHER_MAX_BYTES) return NOT_A_FILE;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    // Replaced since it was looked at (by a link: ELOOP) or gone: not the file that was judged.
    if (['ELOOP', 'ENOENT', 'EMLINK'].includes((error as NodeJS.ErrnoException).code ?? '')) return NOT_A_FILE;
    throw error;
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile() || opened.dev !== seen.dev || opened.ino !== seen.ino || opened.size > LAUNCHER_MAX_BYTES) return NOT_A_FILE;
    const buffer = Buffer.alloc(LAUNCHER_MAX_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return length > LAUNCHER_MAX_BYTES ? NOT_A_FILE : buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the launcher: a new file beside the target (created, never opened through a link),
 * renamed over the target. A link at the target is replaced, its destination untouched; two
 * windows writing at once each rename a whole file; a shell running the old launcher keeps
 * reading the old file.
 */
export function writeLauncher(target: Pick<LauncherTarget, 'path' | 'content' | 'mode'>): void {
  const folder = dirname(target.path);
  mkdirSync(folder, { recursive: true });
  const temp = join(folder, `.${basename(target.path)}.${randomBytes(6).toString('hex')}.tmp`);
  writeFileSync(temp, target.content, { mode: target.mode, flag: 'wx' });
  try {
    renameSync(temp, target.path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Whether `folder` is one of PATH's entries (Windows: any case, with or without a trailing `\`, environment variables expanded). */
export function onPath(pathValue: string | undefined, folder: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv = {}): boolean {
  const windows = platform === 'win32';
  const expand = (entry: string) => (windows ? entry.replace(/%([^%;]+)%/g, (whole, name: string) => windowsEnv(env, name) ?? whole) : entry);
  const norm = (entry: string) => {
    // `(?<!…)` starts the match at a run's first separator (read once, not from each of them).
    const trimmed = expand(entry.trim().replace(/^"(.*)"$/, '$1')).replace(windows ? /(?<![\\/])[\\/]+$/ : /(?<!\/)\/+$/, '');
    return windows ? trimmed.toLowerCase() : trimmed;
  };
  const wanted = norm(folder);
  return (pathValue ?? '')
    .split(windows ? ';' : ':')
    .filter((entry) => entry.trim())
    .some((entry) => norm(entry) === wanted);
}

/** Windows environment names are case-insensitive. */
function windowsEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const key = Object.keys(env).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : env[key];
}

/**
 * The PowerShell script that appends `$env:KSM_BIN_FOLDER` to the user's PATH (HKCU\Environment)
 * unless an entry already names it, and prints `added` or `already`. The folder travels in
 * the environment, never inside the script text, so no path can inject code.
 */
export const ADD_TO_USER_PATH_SCRIPT = [
  "$ErrorActionPreference = 'Stop'",
  '$folder = $env:KSM_BIN_FOLDER.TrimEnd([char]92)',
  "$key = Get-Item -LiteralPath 'HKCU:\\Environment'",
  "$raw = [string]$key.GetValue('Path', '', 'DoNotExpandEnvironmentNames')",
  "$kind = if ($key.GetValueNames() -contains 'Path') { $key.GetValueKind('Path') } else { 'ExpandString' }",
  "$entries = @($raw -split ';' | Where-Object { $_.Trim() -ne '' })",
  "if ($entries | Where-Object { [Environment]::ExpandEnvironmentVariables($_.Trim()).TrimEnd([char]92) -ieq $folder }) { 'already'; exit 0 }",
  "Set-ItemProperty -LiteralPath 'HKCU:\\Environment' -Name 'Path' -Value (($entries + $folder) -join ';') -Type $kind",
  '# Setting and clearing a variable through .NET broadcasts WM_SETTINGCHANGE: Explorer and new terminals see the new PATH.',
  "[Environment]::SetEnvironmentVariable('KSM_PATH_CHANGED', '1', 'User')",
  "[Environment]::SetEnvironmentVariable('KSM_PATH_CHANGED', $null, 'User')",
  "'added'",
].join('\n');

/** How to run a PowerShell script without quoting trouble: `-EncodedCommand` takes it as base64 of UTF-16LE. */
export function powershellCommand(script: string, folder: string): { command: string; args: string[]; env: Record<string, string> } {
  return {
    command: 'powershell.exe',
    args: ['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand', Buffer.from(script, 'utf16le').toString('base64')],
    env: { KSM_BIN_FOLDER: folder },
  };
}
