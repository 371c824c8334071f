// KSM: Install 'ksm' Command in PATH without VS Code: where the launcher goes on Windows,
// Linux and macOS, the `ksm.cmd` it writes on Windows, when an existing file is replaced,
// and whether the folder is already on PATH. Windows cannot run here, so the Windows shim
// and its PATH script are checked as generated text; the POSIX launcher also runs.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ADD_TO_USER_PATH_SCRIPT,
  installDecision,
  LAUNCHER_MARK,
  LAUNCHER_MAX_BYTES,
  launcherTarget,
  NOT_A_FILE,
  onPath,
  powershellCommand,
  readLauncher,
  refreshNeeded,
  windowsLauncherScript,
  writeLauncher,
} from '../../src/nativeChat/core/launcherInstall';
import { launcherScript } from '../../src/nativeChat/core/mcpLaunch';
import { refreshInstalledLauncher } from '../../src/nativeChat/vscode/launcherFile';

const WIN_CODE = 'C:\\Users\\Ann\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe';
const WIN_CLI = 'C:\\Users\\Ann\\.vscode\\extensions\\ksm.ksm-assistant-0.1.0\\dist\\cli.js';

describe("nativeChat: installing 'ksm' in PATH (launcherInstall)", () => {
  describe('Windows', () => {
    const place = { platform: 'win32' as const, env: { LOCALAPPDATA: 'C:\\Users\\Ann\\AppData\\Local' }, home: 'C:\\Users\\Ann', runtime: WIN_CODE, cliBundle: WIN_CLI };

    it('puts ksm.cmd in a per-user folder under %LOCALAPPDATA% (no administrator rights)', () => {
      const target = launcherTarget(place);
      assert.equal(target.folder, 'C:\\Users\\Ann\\AppData\\Local\\Programs\\KSM Assistant\\bin');
      assert.equal(target.path, 'C:\\Users\\Ann\\AppData\\Local\\Programs\\KSM Assistant\\bin\\ksm.cmd');
      assert.equal(target.windows, true);
      assert.equal(target.mode, undefined);
      // Without LOCALAPPDATA, or with a relative one (hostile environment), the profile's own folder.
      for (const env of [{}, { LOCALAPPDATA: 'relative\\dir' }, { LOCALAPPDATA: '  ' }]) {
        assert.equal(launcherTarget({ ...place, env }).path, 'C:\\Users\\Ann\\AppData\\Local\\Programs\\KSM Assistant\\bin\\ksm.cmd');
      }
    });

    it('ksm.cmd runs the bundled CLI with the editor runtime as Node, every argument passed, its exit code returned', () => {
      const script = launcherTarget(place).content;
      assert.equal(script, windowsLauncherScript(WIN_CODE, WIN_CLI));
      const lines = script.split('\r\n');
      assert.ok(!script.replace(/\r\n/g, '').includes('\n'), 'CRLF line ends only (cmd.exe)');
      assert.deepEqual(lines, [
        '@echo off',
        `rem ${LAUNCHER_MARK} (KSM: Install 'ksm' Command in PATH); rewritten when the extension updates.`,
        'setlocal',
        'set ELECTRON_RUN_AS_NODE=1',
        `"${WIN_CODE}" "${WIN_CLI}" %*`,
        'exit /b %ERRORLEVEL%',
        '',
      ]);
    });

    it('doubles % in paths so cmd expands no variable, and keeps & ^ ( ) inside quotes', () => {
      const script = windowsLauncherScript('C:\\Tools\\50%off\\Code.exe', 'D:\\a&b ^(c)\\%PATH%\\cli.js');
      assert.ok(script.includes('"C:\\Tools\\50%%off\\Code.exe" "D:\\a&b ^(c)\\%%PATH%%\\cli.js" %*'), script);
    });

    it('knows whether the folder is on PATH: any case, trailing backslash, quotes, %VARIABLES%; never a prefix', () => {
      const folder = 'C:\\Users\\Ann\\AppData\\Local\\Programs\\KSM Assistant\\bin';
      const env = { localappdata: 'C:\\Users\\Ann\\AppData\\Local' };
      assert.equal(onPath('C:\\Windows;c:\\users\\ann\\appdata\\local\\programs\\ksm assistant\\BIN\\', folder, 'win32'), true);
      assert.equal(onPath('"C:\\Users\\Ann\\AppData\\Local\\Programs\\KSM Assistant\\bin";C:\\Windows', folder, 'win32'), true);
      assert.equal(onPath('%LOCALAPPDATA%\\Programs\\KSM Assistant\\bin', folder, 'win32', env), true);
      assert.equal(onPath('%LOCALAPPDATA%\\Programs\\KSM Assistant\\bin', folder, 'win32', {}), false);
      assert.equal(onPath('C:\\Users\\Ann\\AppData\\Local\\Programs\\KSM Assistant\\bin2;C:\\Users\\Ann\\AppData\\Local\\Programs\\KSM Assistant', folder, 'win32'), false);
      assert.equal(onPath(undefined, folder, 'win32'), false);
      assert.equal(onPath(';;', folder, 'win32'), false);
    });

    it('adds the folder to the user PATH through a script that carries no path and keeps the registry value kind', () => {
      const folder = "C:\\Users\\O'Brien\\AppData\\Local\\Programs\\KSM Assistant\\bin";
      const { command, args, env } = powershellCommand(ADD_TO_USER_PATH_SCRIPT, folder);
      assert.equal(command, 'powershell.exe');
      assert.deepEqual(args.slice(0, 5), ['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand']);
      assert.equal(Buffer.from(args[5]!, 'base64').toString('utf16le'), ADD_TO_USER_PATH_SCRIPT, '-EncodedCommand is base64 of UTF-16LE');
      assert.deepEqual(env, { KSM_BIN_FOLDER: folder }, 'the folder travels in the environment');
      assert.ok(!ADD_TO_USER_PATH_SCRIPT.includes('Brien'));
      // The user's PATH is read unexpanded and written back with its kind, and only when no entry names the folder.
      assert.match(ADD_TO_USER_PATH_SCRIPT, /GetValue\('Path', '', 'DoNotExpandEnvironmentNames'\)/);
      assert.match(ADD_TO_USER_PATH_SCRIPT, /Set-ItemProperty -LiteralPath 'HKCU:\\Environment' -Name 'Path' .* -Type \$kind/);
      assert.match(ADD_TO_USER_PATH_SCRIPT, /-ieq \$folder \}\) \{ 'already'; exit 0 \}/);
      assert.doesNotMatch(ADD_TO_USER_PATH_SCRIPT, /HKLM|Machine|setx/i, 'never the machine PATH, never setx (which cuts PATH at 1,024 characters)');
      assert.match(ADD_TO_USER_PATH_SCRIPT, /SetEnvironmentVariable\('KSM_PATH_CHANGED', \$null, 'User'\)/, 'running programs are told the environment changed');
    });
  });

  describe('Linux and macOS', () => {
    it('puts an executable ksm in $XDG_BIN_HOME, else ~/.local/bin (a relative XDG_BIN_HOME is ignored)', () => {
      const place = { platform: 'linux' as const, home: '/home/u', runtime: '/usr/share/code/code', cliBundle: '/home/u/.vscode/extensions/ksm/dist/cli.js' };
      const target = launcherTarget({ ...place, env: {} });
      assert.deepEqual(target, { folder: '/home/u/.local/bin', path: '/home/u/.local/bin/ksm', content: launcherScript(place.runtime, place.cliBundle), mode: 0o755, windows: false });
      assert.equal(launcherTarget({ ...place, env: { XDG_BIN_HOME: '/opt/bin' } }).path, '/opt/bin/ksm');
      assert.equal(launcherTarget({ ...place, env: { XDG_BIN_HOME: 'bin' } }).path, '/home/u/.local/bin/ksm');
      assert.equal(launcherTarget({ ...place, platform: 'darwin', env: {} }).path, '/home/u/.local/bin/ksm');
      assert.ok(target.content.includes(LAUNCHER_MARK));
    });

    it('PATH entries match exactly (case matters), with or without a trailing slash', () => {
      assert.equal(onPath('/usr/bin:/home/u/.local/bin/', '/home/u/.local/bin', 'linux'), true);
      assert.equal(onPath('/usr/bin:/home/U/.local/bin', '/home/u/.local/bin', 'linux'), false);
      assert.equal(onPath('/home/u/.local/bin2', '/home/u/.local/bin', 'darwin'), false);
    });

    it('the launcher it writes runs the CLI', () => {
      const dir = mkdtempSync(join(tmpdir(), 'ksm-launcher-'));
      try {
        const bundle = join(dir, 'cli.js');
        writeFileSync(bundle, 'process.stdout.write(JSON.stringify(process.argv.slice(2)))');
        const target = launcherTarget({ platform: 'linux', env: { XDG_BIN_HOME: dir }, home: '/nowhere', runtime: process.execPath, cliBundle: bundle });
        writeFileSync(target.path, target.content, { mode: target.mode });
        assert.equal(execFileSync(target.path, ['mcp', '--volume', 'a b'], { encoding: 'utf8' }), '["mcp","--volume","a b"]');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('a launcher the first version wrote (5e9eafb, test/fixtures/launcher) is recognised as ours and refreshed to this bundle', () => {
    const first = readFileSync(join(__dirname, '..', 'fixtures', 'launcher', 'ksm-5e9eafb.sh'), 'utf8');
    const wanted = launcherScript('/opt/VSCode/code', '/home/user/.vscode/extensions/ksm.ksm-assistant-0.2.0/dist/cli.js');
    assert.equal(installDecision(first, wanted), 'write');
    // Refreshed whether the update removed the 0.1.0 it names or it is still there (an older version in the same extensions folder).
    const here = '/home/user/.vscode/extensions/ksm.ksm-assistant-0.2.0/dist/cli.js';
    assert.equal(refreshNeeded(first, wanted, { cliBundle: here, exists: () => false }), true);
    assert.equal(refreshNeeded(first, wanted, { cliBundle: here, exists: () => true }), true);
  });

  it('writes where nothing is, rewrites only its own launcher, leaves anyone else’s file alone', () => {
    const wanted = windowsLauncherScript(WIN_CODE, WIN_CLI);
    assert.equal(installDecision(undefined, wanted), 'write');
    assert.equal(installDecision(wanted, wanted), 'unchanged');
    assert.equal(installDecision(windowsLauncherScript(WIN_CODE, WIN_CLI.replace('0.1.0', '0.0.9')), wanted), 'write');
    assert.equal(installDecision('@echo off\r\nnode C:\\other\\ksm.js %*\r\n', wanted), 'foreign');
    assert.equal(installDecision('#!/bin/sh\nexec /usr/local/lib/ksm "$@"\n', launcherScript('/usr/bin/node', '/x/cli.js')), 'foreign');
    // After an update: only a launcher of ours that points elsewhere; never a missing or a foreign file.
    const here = { cliBundle: '/new/cli.js', exists: () => false };
    assert.equal(refreshNeeded(undefined, wanted, here), false);
    assert.equal(refreshNeeded('echo mine', wanted, here), false);
    assert.equal(refreshNeeded(wanted, wanted, here), false);
    assert.equal(refreshNeeded(launcherScript('/old/code', '/old/cli.js'), launcherScript('/new/code', '/new/cli.js'), here), true);
  });

  it('with two VS Code builds that both have the extension, the refresh never takes the launcher from the other live one', () => {
    // Stable and Insiders (or a fork): each its own runtime and extensions folder, both still installed.
    const stable = { runtime: '/usr/share/code/code', cliBundle: '/home/ann/.vscode/extensions/ksm.ksm-assistant-0.3.0/dist/cli.js' };
    const insiders = { runtime: '/usr/share/code-insiders/code-insiders', cliBundle: '/home/ann/.vscode-insiders/extensions/ksm.ksm-assistant-0.4.0/dist/cli.js' };
    const live = new Set([stable.runtime, stable.cliBundle, insiders.runtime, insiders.cliBundle]);
    const exists = (path: string) => live.has(path);
    const script = (install: { runtime: string; cliBundle: string }) => launcherScript(install.runtime, install.cliBundle);
    const refresh = (onDisk: string, mine: { runtime: string; cliBundle: string }) => refreshNeeded(onDisk, script(mine), { cliBundle: mine.cliBundle, exists });
    // Each start of either build: the launcher stays where it points (no churn, no flip), whichever is newer.
    assert.equal(refresh(script(stable), insiders), false, 'Insiders leaves Stable’s launcher');
    assert.equal(refresh(script(insiders), stable), false, 'Stable leaves Insiders’ launcher');
    // The same install after an update: an older version of this extensions folder is brought up to date, even while its folder is still there.
    const olderStable = { runtime: stable.runtime, cliBundle: '/home/ann/.vscode/extensions/ksm.ksm-assistant-0.2.9/dist/cli.js' };
    live.add(olderStable.cliBundle);
    assert.equal(refresh(script(olderStable), stable), true);
    // …but a window still running the older version does not take it back from the newer.
    assert.equal(refresh(script(stable), olderStable), false);
    // Two runtimes sharing one extensions folder (a .deb and a snap), same version: left as it is.
    live.add('/snap/code/current/usr/share/code/code');
    assert.equal(refresh(script({ ...stable, runtime: '/snap/code/current/usr/share/code/code' }), stable), false);
    // The install it points at is gone (uninstalled, or an update removed its folder): this one takes over.
    live.delete(insiders.cliBundle);
    assert.equal(refresh(script(insiders), stable), true, 'a bundle that no longer exists');
    live.add(insiders.cliBundle);
    live.delete(insiders.runtime);
    assert.equal(refresh(script(insiders), stable), true, 'a runtime that no longer exists');
    // Windows: the same rule on ksm.cmd (paths in any case; a platform-specific version folder).
    const winStable = { runtime: WIN_CODE, cliBundle: WIN_CLI };
    const winInsiders = {
      runtime: 'C:\\Users\\Ann\\AppData\\Local\\Programs\\Microsoft VS Code Insiders\\Code - Insiders.exe',
      cliBundle: 'C:\\Users\\Ann\\.vscode-insiders\\extensions\\ksm.ksm-assistant-0.2.0-win32-x64\\dist\\cli.js',
    };
    const winLive = new Set([winStable.runtime, winStable.cliBundle, winInsiders.runtime, winInsiders.cliBundle]);
    const winRefresh = (onDisk: { runtime: string; cliBundle: string }, mine: { runtime: string; cliBundle: string }) =>
      refreshNeeded(windowsLauncherScript(onDisk.runtime, onDisk.cliBundle), windowsLauncherScript(mine.runtime, mine.cliBundle), { cliBundle: mine.cliBundle, exists: (p) => winLive.has(p) });
    assert.equal(winRefresh(winInsiders, winStable), false);
    const winOlder = { runtime: WIN_CODE, cliBundle: WIN_CLI.replace('0.1.0', '0.0.9').replace('C:\\Users', 'c:\\users') };
    winLive.add(winOlder.cliBundle);
    assert.equal(winRefresh(winOlder, winStable), true);
  });

  // ~/.local/bin is written by other programs too: what is at the path is judged without
  // following it, and the launcher is renamed into place, never written through a link.
  (process.platform === 'win32' ? describe.skip : describe)('on disk (links, FIFOs, other programs)', () => {
    let dir: string;
    let bin: string;
    const savedXdg = process.env.XDG_BIN_HOME;
    const log = { lines: [] as string[], info: (line: string) => log.lines.push(line), warn: (line: string) => log.lines.push(line) };
    // What refreshInstalledLauncher uses: XDG_BIN_HOME for the folder, the extension's path for the bundle.
    const context = { extensionPath: '/new/extension' } as Parameters<typeof refreshInstalledLauncher>[0];
    const older = launcherScript('/old/code', '/old/extension/dist/cli.js');

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'ksm-launcher-disk-'));
      bin = join(dir, 'bin');
      mkdirSync(bin);
      process.env.XDG_BIN_HOME = bin;
      log.lines = [];
    });
    afterEach(() => {
      if (savedXdg === undefined) delete process.env.XDG_BIN_HOME;
      else process.env.XDG_BIN_HOME = savedXdg;
      rmSync(dir, { recursive: true, force: true });
    });

    it('the refresh after an update never writes through a link at the launcher path, even to a launcher of ours', () => {
      // A dotfiles folder, another account's bin, or a file the link's owner chose: it holds our mark.
      const elsewhere = join(dir, 'elsewhere');
      writeFileSync(elsewhere, older);
      symlinkSync(elsewhere, join(bin, 'ksm'));
      refreshInstalledLauncher(context, log as unknown as Parameters<typeof refreshInstalledLauncher>[1]);
      assert.equal(readFileSync(elsewhere, 'utf8'), older, 'the link target is untouched');
      assert.equal(readlinkSync(join(bin, 'ksm')), elsewhere, 'the link stays');
      // A plain launcher of ours that points at the old bundle is still brought up to date.
      rmSync(join(bin, 'ksm'));
      writeFileSync(join(bin, 'ksm'), older, { mode: 0o755 });
      refreshInstalledLauncher(context, log as unknown as Parameters<typeof refreshInstalledLauncher>[1]);
      assert.match(readFileSync(join(bin, 'ksm'), 'utf8'), /\/new\/extension\/dist\/cli\.js/);
      assert.deepEqual(readdirSync(bin), ['ksm'], 'no temporary file left beside it');
    });

    it('the refresh at start leaves a launcher pointing at another live install; one whose install is gone is taken over', () => {
      const otherRuntime = join(dir, 'code-insiders');
      const otherBundle = join(dir, 'insiders', 'extensions', 'ksm.ksm-assistant-9.9.9', 'dist', 'cli.js');
      mkdirSync(join(otherBundle, '..'), { recursive: true });
      writeFileSync(otherRuntime, '');
      writeFileSync(otherBundle, '');
      const theirs = launcherScript(otherRuntime, otherBundle);
      writeFileSync(join(bin, 'ksm'), theirs, { mode: 0o755 });
      refreshInstalledLauncher(context, log as unknown as Parameters<typeof refreshInstalledLauncher>[1]);
      assert.equal(readFileSync(join(bin, 'ksm'), 'utf8'), theirs, 'the other live install keeps it');
      assert.deepEqual(log.lines, []);
      rmSync(join(dir, 'insiders'), { recursive: true });
      refreshInstalledLauncher(context, log as unknown as Parameters<typeof refreshInstalledLauncher>[1]);
      assert.match(readFileSync(join(bin, 'ksm'), 'utf8'), /\/new\/extension\/dist\/cli\.js/);
    });

    it('reads only a small regular file: a link (dangling or not), a folder, a FIFO or a large program is not a launcher and is left alone', () => {
      const wanted = launcherScript('/usr/bin/node', '/x/cli.js');
      const path = join(bin, 'ksm');
      assert.equal(readLauncher(path), undefined);
      assert.equal(installDecision(readLauncher(path), wanted), 'write');
      assert.equal(readLauncher(join(dir, 'no-such-folder', 'ksm')), undefined);
      const cases: Array<[string, () => void]> = [
        // A dangling link: writing through it would create the file wherever it points.
        ['a dangling link', () => symlinkSync(join(dir, 'venv', 'bin', 'ksm'), path)],
        ['a link to a launcher of ours', () => (writeFileSync(join(dir, 'ours'), older), symlinkSync(join(dir, 'ours'), path))],
        ['a folder', () => mkdirSync(path)],
        // Read at activation: a blocking read would hang the extension host.
        ['a FIFO', () => execFileSync('mkfifo', [path])],
        ['a program larger than any launcher', () => writeFileSync(path, `${older}${'x'.repeat(LAUNCHER_MAX_BYTES)}`)],
      ];
      for (const [what, make] of cases) {
        rmSync(path, { recursive: true, force: true });
        make();
        assert.equal(readLauncher(path), NOT_A_FILE, what);
        assert.equal(installDecision(readLauncher(path), wanted), 'foreign', what);
        assert.equal(refreshNeeded(readLauncher(path), wanted, { cliBundle: '/x/cli.js', exists: () => false }), false, what);
      }
      rmSync(path, { recursive: true, force: true });
      writeFileSync(path, older);
      assert.equal(readLauncher(path), older);
      assert.equal(installDecision(readLauncher(path), wanted), 'write');
    });

    it('writes by renaming a new file into place: a link put at the path meanwhile is replaced, not followed; the result is executable', () => {
      const target = launcherTarget({ platform: process.platform, env: { XDG_BIN_HOME: join(bin, 'new-folder') }, home: '/nowhere', runtime: process.execPath, cliBundle: '/x/cli.js' });
      writeLauncher(target);
      assert.equal(readFileSync(target.path, 'utf8'), target.content, 'the folder is created');
      const victim = join(dir, 'victim');
      writeFileSync(victim, 'not yours');
      rmSync(target.path);
      symlinkSync(victim, target.path);
      writeLauncher(target);
      assert.equal(readFileSync(victim, 'utf8'), 'not yours');
      assert.ok(lstatSync(target.path).isFile());
      assert.equal(readFileSync(target.path, 'utf8'), target.content);
      assert.equal(lstatSync(target.path).mode & 0o100, 0o100, 'executable by its owner');
      assert.deepEqual(readdirSync(join(bin, 'new-folder')), ['ksm']);
    });
  });
});
