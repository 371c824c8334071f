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
import { posix, win32 } from 'node:path';
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

/** What to do with the launcher's path: `existing` is the file there now (undefined: none). */
export function installDecision(existing: string | undefined, wanted: string): InstallDecision {
  if (existing === undefined) return 'write';
  if (!existing.includes(LAUNCHER_MARK)) return 'foreign';
  return existing === wanted ? 'unchanged' : 'write';
}

/** A refresh after an update: only a launcher we wrote that now points elsewhere is rewritten. */
export function refreshNeeded(existing: string | undefined, wanted: string): boolean {
  return existing !== undefined && installDecision(existing, wanted) === 'write';
}

/** Whether `folder` is one of PATH's entries (Windows: any case, with or without a trailing `\`, environment variables expanded). */
export function onPath(pathValue: string | undefined, folder: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv = {}): boolean {
  const windows = platform === 'win32';
  const expand = (entry: string) => (windows ? entry.replace(/%([^%;]+)%/g, (whole, name: string) => windowsEnv(env, name) ?? whole) : entry);
  const norm = (entry: string) => {
    const trimmed = expand(entry.trim().replace(/^"(.*)"$/, '$1')).replace(windows ? /[\\/]+$/ : /\/+$/, '');
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
