// Issue 22: a cloned repository's .vscode/settings.json cannot steer the user's data. A
// workspace opened untrusted (VS Code's workspace trust on, in a code-server of its own)
// carries hostile settings: the delete guard at 100, `ksm.upload.exclude: []`, its own
// volume list, and a sync pairing (deleting, watching) of a folder that is a symlink to a
// directory outside the workspace. In Restricted Mode nothing syncs and the status bar and
// the commands say why; after the user grants trust the pairing is shown as from the
// repository, and once approved it is still refused because its folder leads outside.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../harness/eventually';
import { TEAM_VOLUME, type E2ERun } from '../harness/run';
import { useScenario } from '../harness/scenario';
import { writeUserSettings } from '../harness/settings';
import { setApiKeyThroughPalette, volumesRowTexts } from '../harness/steps';
import type { Workbench } from '../harness/workbench';

const HOSTILE_VOLUME = 'e2e-hostile';

describe('Scenario 15: an untrusted workspace with hostile settings syncs nothing and says why', function () {
  this.timeout(300_000);
  // A code-server of its own: the shared one runs with workspace trust off.
  const scenario = useScenario('15-trust', {
    ownCodeServer: {
      prepare: (shared, root) => {
        const workspace = join(root, 'hostile-repo');
        const outside = join(root, 'outside-home');
        mkdirSync(join(outside, '.ssh'), { recursive: true });
        writeFileSync(join(outside, 'diary.md'), '# Not for any volume\n');
        writeFileSync(join(outside, '.ssh', 'id_ed25519'), '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n');
        mkdirSync(join(workspace, 'docs'), { recursive: true });
        mkdirSync(join(workspace, '.vscode'), { recursive: true });
        writeFileSync(join(workspace, 'docs', 'guide.md'), '# Guide\n');
        writeFileSync(join(workspace, '.env'), 'API_TOKEN=s3cret\n');
        symlinkSync(outside, join(workspace, 'linked-docs'));
        writeFileSync(
          join(workspace, '.vscode', 'settings.json'),
          JSON.stringify(
            {
              'ksm.sync.deleteGuardPercent': 100,
              'ksm.upload.exclude': [],
              'ksm.volumes.list': [HOSTILE_VOLUME],
              'ksm.sync.folders': [{ folder: 'linked-docs', volume: HOSTILE_VOLUME, deleteRemoved: true, watch: true }],
            },
            null,
            2,
          ),
        );
        const userDataDir = join(root, 'user-data');
        writeUserSettings(userDataDir, {
          'ksm.baseUrl': shared.emulator.url,
          'ksm.userId': shared.emulator.userId,
          'ksm.volumes.list': [TEAM_VOLUME],
          'ksm.upload.embeddingModel': 'emu-embed',
          // The shared run turns trust off; this scenario needs it on, and the folder opened
          // untrusted without the startup question (as "Don't Trust" would leave it).
          'security.workspace.trust.enabled': true,
          'security.workspace.trust.startupPrompt': 'never',
          // No banner: the palette helper clicks the top edge to focus the workbench (the status bar still says Restricted Mode).
          'security.workspace.trust.banner': 'never',
        });
        return { userDataDir, workspace, workspaceTrust: true };
      },
    },
  });
  let run: E2ERun;
  let workbench: Workbench;
  before(() => {
    ({ run, workbench } = scenario);
  });

  const statusItem = () => workbench.page.locator('.statusbar-item').filter({ hasText: /KSM: / });
  const waitForStatus = (text: RegExp) =>
    eventually(
      async () =>
        text.test(
          (await statusItem()
            .first()
            .textContent({ timeout: 1000 })
            .catch(() => '')) ?? '',
        ),
      async () =>
        `the status bar never showed ${text}; it shows "${await statusItem()
          .first()
          .textContent()
          .catch(() => '(none)')}"`,
      60_000,
    );
  const hostileFiles = async () => ((await run.emulator.listFiles(HOSTILE_VOLUME).catch(() => [])) as unknown[]).length;
  const waitForNotification = (text: RegExp) =>
    eventually(
      async () => (await workbench.findNotification(text)) !== undefined,
      async () => `no notification ${text}; shown: ${JSON.stringify(await workbench.notifications().allTextContents())}`,
      30_000,
    );

  it("in Restricted Mode: browses with the user's settings only, syncs nothing and says that sync waits for trust", async () => {
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    await workbench.openKsmSideBar();
    await waitForStatus(/KSM: sync waits for trust/);
    await eventually(
      async () => (await volumesRowTexts(workbench)).some((r) => r.includes(TEAM_VOLUME)),
      async () => `the Volumes view shows ${JSON.stringify(await volumesRowTexts(workbench))}`,
    );
    const rows = await volumesRowTexts(workbench);
    assert.ok(!rows.some((r) => r.includes(HOSTILE_VOLUME)), `the workspace's volume list is not read in Restricted Mode: ${JSON.stringify(rows)}`);
    await workbench.runCommand('KSM: Sync Now');
    await waitForNotification(/waits for workspace trust/);
    await workbench.screenshot('14-restricted-mode');
    assert.equal(await hostileFiles(), 0, 'nothing was synced');
  });

  it('after trust: the pairing is shown as from the repository, and once approved it is refused because its folder leads outside', async () => {
    await workbench.page.keyboard.press('Escape');
    await workbench.runCommand('Workspaces: Manage Workspace Trust');
    const trust = workbench.page
      .locator('.workspace-trust-editor .monaco-button')
      .filter({ hasText: /^Trust( Folder)?$/ })
      .first();
    await trust.waitFor({ timeout: 30_000 });
    await trust.click();
    await waitForStatus(/KSM: 1 pairing\(s\) from the repository/);
    await workbench.screenshot('14-pairing-from-the-repository');
    assert.equal(await hostileFiles(), 0, 'an unapproved pairing does nothing');

    await workbench.runCommand('KSM: Review Sync Pairings from the Repository…');
    await workbench.pick(/linked-docs → e2e-hostile/);
    await workbench.quickInputBox().press('Enter');
    await waitForStatus(/KSM: sync refused/);
    await workbench.runCommand('KSM: Sync Now');
    await waitForNotification(/Sync refused: 'linked-docs' → e2e-hostile: the folder 'linked-docs' resolves to .*outside the workspace folders/);
    await workbench.screenshot('14-refused-outside');
    assert.equal(await hostileFiles(), 0, 'nothing outside the workspace was synced');
  });
});
