import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** User settings for the run: the extension points at the emulator; nothing distracts the UI. */
export function writeUserSettings(userDataDir: string, settings: Record<string, unknown>): void {
  const userDir = join(userDataDir, 'User');
  mkdirSync(userDir, { recursive: true });
  writeFileSync(
    join(userDir, 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'workbench.tips.enabled': false,
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'extensions.ignoreRecommendations': true,
        'git.enabled': false,
        'git.openRepositoryInParentFolders': 'never',
        'workbench.enableExperiments': false,
        'window.commandCenter': false,
        'chat.commandCenter.enabled': false,
        'files.simpleDialog.enable': true,
        ...settings,
      },
      null,
      2,
    ),
  );
}

/**
 * Settings of `scope: machine` (ksm.baseUrl, ksm.userId) for a VS Code that applies only
 * the remote machine's own settings file to them: code-server 1.139 ignores them in the
 * user settings (1.100 still read them there), as a real remote window would.
 */
export function writeMachineSettings(userDataDir: string, settings: Record<string, unknown>): void {
  const machineDir = join(userDataDir, 'Machine');
  mkdirSync(machineDir, { recursive: true });
  writeFileSync(join(machineDir, 'settings.json'), JSON.stringify(settings, null, 2));
}
