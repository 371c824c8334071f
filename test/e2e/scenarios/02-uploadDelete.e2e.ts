import assert from 'node:assert/strict';
import { eventually } from '../harness/eventually';
import { TEAM_VOLUME } from '../harness/run';
import { useScenario } from '../harness/scenario';
import { expandRow, setApiKeyThroughPalette, volumesRowTexts, waitForRowDescription } from '../harness/steps';

/** What uploading the fixture's docs/ folder must store: its files, nested ones under their path below docs/ (D24), the .gitignore'd draft left out. */
const UPLOADED = ['architecture-overview.md', 'guides__release-process.md', 'onboarding.txt'];
const IGNORED = 'meeting.draft.md';

describe('Scenario 2: upload a folder from the Explorer, watch it process, delete two files, retry a refused upload', function () {
  this.timeout(180_000);
  const scenario = useScenario('2-upload-delete');

  before(async function () {
    await setApiKeyThroughPalette(scenario.workbench, scenario.run.emulator.apiKey);
  });

  it('uploads the folder picked in the Explorer context menu to the volume chosen in the quick pick', async () => {
    const { workbench } = scenario;
    await workbench.openExplorer();
    const docs = workbench.explorerRow('docs');
    await docs.waitFor();
    await workbench.contextMenu(docs, 'Upload Files to Volume…');
    await workbench.pick(new RegExp(`^\\s*${TEAM_VOLUME}`));
    await workbench.pick(/Chunk and embed/);
    await workbench.quickInput().waitFor({ state: 'hidden' });
    await workbench.openKsmSideBar();
    await expandRow(workbench, TEAM_VOLUME);
    for (const name of UPLOADED) {
      await eventually(
        async () => (await workbench.volumesRow(name).count()) > 0,
        async () => `"${name}" never appeared under ${TEAM_VOLUME}; rows: ${JSON.stringify(await volumesRowTexts(workbench))}`,
        60_000,
      );
    }
    assert.equal(await workbench.volumesRow(IGNORED).count(), 0, "the .gitignore'd file is not uploaded");
  });

  it('shows every uploaded file reaching "done" without a manual refresh', async () => {
    const { workbench, run } = scenario;
    for (const name of UPLOADED) await waitForRowDescription(workbench, name, /\bdone\b/, 60_000);
    await eventually(
      async () => !/processing/.test((await workbench.volumesRow(TEAM_VOLUME).locator('.label-description').textContent()) ?? ''),
      async () => `every file is done but the volume row still says "${await workbench.volumesRow(TEAM_VOLUME).locator('.label-description').textContent()}"`,
      10_000,
    );
    const stored = (await run.emulator.listFiles(TEAM_VOLUME)).map((f) => f.filename).sort();
    assert.deepEqual(stored, [...UPLOADED].sort(), 'the emulator holds exactly the uploaded files');
  });

  it('deletes two selected files after the confirmation and removes them from the tree', async () => {
    const { workbench, run } = scenario;
    const [first, second, kept] = UPLOADED;
    await workbench.volumesRow(first!).click();
    await workbench.volumesRow(second!).click({ modifiers: ['Control'] });
    await workbench.contextMenu(workbench.volumesRow(second!), 'Delete');
    const confirm = workbench.dialogButton('Delete');
    await confirm.waitFor();
    assert.match(await workbench.page.locator('.monaco-dialog-box').innerText(), /Delete 2 files/);
    await confirm.click();
    for (const name of [first!, second!]) {
      await eventually(
        async () => (await workbench.volumesRow(name).count()) === 0,
        async () => `"${name}" is still in the tree after Delete; rows: ${JSON.stringify(await volumesRowTexts(workbench))}`,
        30_000,
      );
    }
    assert.equal(await workbench.volumesRow(kept!).count(), 1, 'the file not selected stays');
    assert.deepEqual(
      (await run.emulator.listFiles(TEAM_VOLUME)).map((f) => f.filename),
      [kept],
    );
  });

  it('sums up a refused upload with "Retry Failed", and the retry stores the file without asking again', async () => {
    const { workbench, run } = scenario;
    // The service refuses the next upload request once (a 400 is never retried by the client).
    await run.emulator.addFault({ kind: 'status', status: 400, method: 'POST', path: '/ksm/rag/v5/files', times: 1 });
    await workbench.openExplorer();
    await workbench.contextMenu(workbench.explorerRow('notes.txt'), 'Upload Files to Volume…');
    await workbench.pick(new RegExp(`^\\s*${TEAM_VOLUME}`));
    // The processing chosen for this volume by the first upload is remembered, not asked again.
    const notificationTexts = async () => JSON.stringify(await workbench.page.locator('.notification-list-item').allInnerTexts());
    const failedSummary = new RegExp(`0 uploaded, 1 failed — ${TEAM_VOLUME}`);
    const failed = await eventually(
      () => workbench.findNotification(failedSummary),
      async () => `no "1 failed" summary; notifications: ${await notificationTexts()}`,
      20_000,
      1_000,
    );
    assert.ok(!(await run.emulator.listFiles(TEAM_VOLUME)).some((f) => f.filename === 'notes.txt'), 'nothing was stored by the refused request');
    await failed
      .locator('.monaco-button')
      .filter({ hasText: /^Retry Failed$/ })
      .click();
    // Same volume, processing and model: no question is asked before the summary.
    await eventually(
      () => workbench.findNotification(new RegExp(`1 uploaded — ${TEAM_VOLUME}`)),
      async () => {
        await workbench.screenshot('retry-failed-notifications');
        return `no "1 uploaded" summary; notifications: ${await notificationTexts()}`;
      },
      20_000,
      1_000,
    );
    await workbench.page.keyboard.press('Escape');
    assert.equal(await workbench.quickInput().isVisible(), false, 'the retry asked nothing');
    const stored = await run.emulator.listFiles(TEAM_VOLUME);
    assert.deepEqual(stored.filter((f) => f.filename === 'notes.txt').length, 1, 'stored once, by the retry');
  });
});
