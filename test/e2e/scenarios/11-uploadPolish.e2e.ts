// Issue 14, defects 8, 9, 10 and 17 (the Volumes tree and upload flows) as a user meets them
// in a real VS Code: Add Volume keeps to user settings, a selection of only skipped files
// warns before any question, a folder upload honours its .gitignore and keeps sub-paths in
// names (D24), the processing is remembered, the duplicate question defaults to Skip and
// names the volume, "Store only" is not shown as a failure while a failed PDF is, the
// Delete key deletes, and a filter shows in the view's description until cleared.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { expandRow, setApiKeyThroughPalette, volumesRowTexts, waitForRowDescription } from '../harness/steps';
import { escapeRegExp } from '../harness/workbench';

const VOLUME = 'e2e-polish';
const ROOT = 'polish';
const FOLDER = 'polish-notes';
const FILES: Record<string, string | Buffer> = {
  [`${FOLDER}/.gitignore`]: '*.secret\n',
  [`${FOLDER}/alpha.md`]: '# Alpha\nThe first note.\n',
  [`${FOLDER}/sub/beta.md`]: '# Beta\nA nested note.\n',
  [`${FOLDER}/key.secret`]: 'ignored by the folder .gitignore\n',
  'blob.bin': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 0xff, 0xfe]),
  'scan.pdf': '%PDF-1.4\nnot a real PDF body: its filter finds no text\n%%EOF\n',
  'kept-as-is.txt': 'Stored only, by choice.\n',
};

describe('Scenario 11: upload and Volumes polish (issue 14: defects 8, 9, 10, 17)', function () {
  this.timeout(300_000);
  const scenario = useScenario('11-upload-polish');
  const stored = async () => (await scenario.run.emulator.listFiles(VOLUME).catch(() => [])).map((f) => f.filename).sort();
  const notificationTexts = async () => JSON.stringify(await scenario.workbench.page.locator('.notification-list-item').allInnerTexts());
  const explorerFile = async (name: string) => {
    const { workbench } = scenario;
    await workbench.openExplorer();
    const folder = workbench.explorerRow(ROOT);
    await folder.waitFor({ timeout: 30_000 });
    if ((await folder.getAttribute('aria-expanded')) === 'false') await folder.click();
    const row = workbench.explorerRow(name);
    await row.waitFor({ timeout: 30_000 });
    return row;
  };

  before(async function () {
    const { workbench, run } = scenario;
    for (const [rel, content] of Object.entries(FILES)) {
      mkdirSync(join(run.workspace, ROOT, rel, '..'), { recursive: true });
      writeFileSync(join(run.workspace, ROOT, rel), content);
    }
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
  });

  it('Add Volume keeps the volume in the user settings and creates no .vscode/settings.json', async () => {
    const { workbench, run } = scenario;
    await workbench.openKsmSideBar();
    await workbench.runCommand('KSM: Add Volume…');
    await workbench.typeInQuickInput(VOLUME);
    await workbench.volumesRow(VOLUME).waitFor({ timeout: 30_000 });
    const workspaceSettings = join(run.workspace, '.vscode', 'settings.json');
    assert.ok(!existsSync(workspaceSettings) || !readFileSync(workspaceSettings, 'utf8').includes(VOLUME), 'nothing written into the project');
    assert.match(readFileSync(join(run.userDataDir, 'User', 'settings.json'), 'utf8'), new RegExp(`"${VOLUME}"`), 'the user settings list it');
  });

  it('warns at once, with the reason, when every selected file is skipped, before asking a volume', async () => {
    const { workbench } = scenario;
    await workbench.contextMenu(await explorerFile('blob.bin'), 'Upload Files to Volume…');
    const warning = await eventually(
      () => workbench.findNotification(/Nothing to upload: the file was skipped\. blob\.bin: binary file/),
      async () => `no "Nothing to upload" warning; notifications: ${await notificationTexts()}`,
      20_000,
      500,
    );
    assert.equal(await warning.locator('.codicon-warning').count(), 1, 'a warning, not an info');
    assert.equal(await workbench.quickInput().isVisible(), false, 'no volume or processing was asked');
    await workbench.page.keyboard.press('Escape');
  });

  it('uploads a folder without its .gitignore or what it ignores, keeping the sub-folder in the name, under one progress notification', async () => {
    const { workbench, run } = scenario;
    // A slow service keeps the progress on screen long enough to look at it.
    await run.emulator.addFault({ kind: 'latency', ms: 5000, method: 'POST', path: '/ksm/rag/v5/files', times: 1 });
    await workbench.contextMenu(await explorerFile(FOLDER), 'Upload Files to Volume…');
    await workbench.pick(new RegExp(`^\\s*${VOLUME}`));
    await workbench
      .quickInput()
      .locator('.quick-input-title', { hasText: /^Processing for e2e-polish/ })
      .waitFor();
    await workbench.pick(/Chunk and embed/);
    const progress = await eventually(
      () => workbench.findNotification(/Uploading to e2e-polish \(Chunk and embed\)/),
      async () => `no upload progress; notifications: ${await notificationTexts()}`,
      10_000,
      250,
    );
    assert.equal(await progress.locator('.monaco-button', { hasText: /^Cancel$/ }).count(), 1, 'the progress has its Cancel');
    const withCancel = workbench.page.locator('.notification-list-item').filter({ has: workbench.page.locator('.monaco-button', { hasText: /^Cancel$/ }) });
    assert.equal(await withCancel.count(), 1, `one progress notification, not two stacked: ${await notificationTexts()}`);
    await workbench.screenshot('one-progress-notification');
    await eventually(
      async () => JSON.stringify(await stored()) === JSON.stringify(['alpha.md', 'sub__beta.md']),
      async () => `the volume holds ${JSON.stringify(await stored())}; notifications: ${await notificationTexts()}`,
      30_000,
    );
    await workbench.openKsmSideBar();
    await expandRow(workbench, VOLUME);
    for (const name of ['alpha.md', 'sub__beta.md']) await waitForRowDescription(workbench, name, /\bdone\b/, 60_000);
  });

  it('skips files this workspace uploaded and that have not changed as "already there, identical", without the duplicate question (issue 26, rough edge 10)', async () => {
    const { workbench } = scenario;
    await workbench.contextMenu(await explorerFile(FOLDER), 'Upload Files to Volume…');
    await workbench.pick(new RegExp(`^\\s*${VOLUME}`));
    await eventually(
      // The folder's .gitignore and the file it ignores are its own rules' doing, not skips: the re-upload is all good news.
      () => workbench.findNotification(/All 2 files are already in e2e-polish, identical: nothing to upload\./),
      async () => `no summary; notifications: ${await notificationTexts()}`,
      20_000,
      500,
    );
    assert.equal(await workbench.quickInput().isVisible(), false, 'no duplicate question was asked');
    assert.deepEqual(await stored(), ['alpha.md', 'sub__beta.md'], 'nothing was sent');
    await workbench.screenshot('identical-reupload-skipped');
    await workbench.page.keyboard.press('Escape');
  });

  it('asks about a clashing name without asking the remembered processing: Skip is the default, the volume is named, Keep Both picks a free name', async () => {
    const { workbench, run } = scenario;
    // Changed since their upload: the same names now hold other bytes, so the question is asked.
    writeFileSync(join(run.workspace, ROOT, FOLDER, 'alpha.md'), '# Alpha\nThe first note, edited.\n');
    writeFileSync(join(run.workspace, ROOT, FOLDER, 'sub/beta.md'), '# Beta\nA nested note, edited.\n');
    await workbench.contextMenu(await explorerFile(FOLDER), 'Upload Files to Volume…');
    await workbench.pick(new RegExp(`^\\s*${VOLUME}`));
    const title = workbench.quickInput().locator('.quick-input-title');
    // The processing remembered for the volume is not asked again: the next question is the clash.
    await title.filter({ hasText: '"alpha.md" is already in e2e-polish' }).waitFor({ timeout: 20_000 });
    // The first label of each row is the choice (its detail line follows).
    const labels = await workbench.quickInputRows().evaluateAll((rows) => rows.map((row) => (row.querySelector('.label-name')?.textContent ?? '').trim()));
    assert.deepEqual(labels, ['Skip', 'Keep Both', 'Replace', 'Skip All', 'Keep Both for All', 'Replace All']);
    assert.match(await workbench.quickInputRows().nth(1).innerText(), /Upload this file as "alpha \(2\)\.md"/, 'Keep Both says its name');
    const focused = workbench.quickInput().locator('.quick-input-list .monaco-list-row.focused');
    assert.match((await focused.first().innerText()).trim(), /^Skip\b/, 'the safe choice is the default');
    await workbench.quickInputBox().press('Enter'); // Skip alpha.md
    await title.filter({ hasText: '"sub__beta.md" is already in e2e-polish' }).waitFor({ timeout: 20_000 });
    await workbench.pick(/^\s*Keep Both/);
    await eventually(
      async () => JSON.stringify(await stored()) === JSON.stringify(['alpha.md', 'sub__beta (2).md', 'sub__beta.md']),
      async () => `the volume holds ${JSON.stringify(await stored())}`,
      30_000,
    );
    await eventually(
      // Skipped: alpha.md (the answer); the folder's .gitignore and the file it ignores are excluded, not counted.
      () => workbench.findNotification(/1 uploaded, 1 skipped — e2e-polish/),
      async () => `no summary; notifications: ${await notificationTexts()}`,
      20_000,
      500,
    );
    await workbench.page.keyboard.press('Escape');
  });

  it('shows a PDF that failed processing as "failed: reason", a warning, and a Store only file as "stored, not indexed", neutrally', async () => {
    const { workbench, run } = scenario;
    // Sent to be indexed (the remembered Chunk and embed); the PDF filter finds no text.
    await workbench.contextMenu(await explorerFile('scan.pdf'), 'Upload Files to Volume…');
    await workbench.pick(new RegExp(`^\\s*${VOLUME}`));
    // Store only, chosen through the volume's gear ("choose the processing again").
    await workbench.contextMenu(await explorerFile('kept-as-is.txt'), 'Upload Files to Volume…');
    const row = workbench
      .quickInputRows()
      .filter({ hasText: new RegExp(`^\\s*${VOLUME}`) })
      .first();
    await row.hover();
    await row.locator('.codicon-settings-gear').click();
    await workbench.pick(/Store only/);
    // A file uploaded elsewhere with Store only: this window cannot tell, so it claims neither.
    await run.emulator.uploadFile(VOLUME, 'from-elsewhere.txt', 'seeded\n', 0);

    await workbench.openKsmSideBar();
    await workbench.runCommand('KSM: Refresh');
    await expandRow(workbench, VOLUME);
    await waitForRowDescription(workbench, 'scan.pdf', /^failed: /, 60_000);
    await waitForRowDescription(workbench, 'kept-as-is.txt', /^stored, not indexed/, 60_000);
    await waitForRowDescription(workbench, 'from-elsewhere.txt', /^not indexed/, 60_000);
    const failedIcon = workbench.volumesRow('scan.pdf').locator('.codicon-warning');
    assert.equal(await failedIcon.count(), 1, 'the failure is a warning');
    // The icon carries list.warningForeground. A selected row in a focused list may repaint
    // its icons in the selection colour for a moment, so this polls until the row settles and
    // compares with the theme's own value rather than with the label.
    const colours = await eventually(
      async () => {
        const seen = await failedIcon.evaluate((icon) => {
          const style = (globalThis as unknown as { getComputedStyle(element: unknown): { color: string } }).getComputedStyle;
          const probe = icon.ownerDocument.createElement('span');
          probe.style.color = 'var(--vscode-list-warningForeground)';
          // Inside the workbench, where the theme's --vscode-* variables are defined.
          icon.parentElement!.appendChild(probe);
          const warning = style(probe).color;
          probe.remove();
          return { icon: style(icon).color, warning };
        });
        return seen.icon === seen.warning ? seen : undefined;
      },
      async () =>
        `the warning icon is not in list.warningForeground: ${JSON.stringify(await failedIcon.evaluate((icon) => (globalThis as unknown as { getComputedStyle(element: unknown): { color: string } }).getComputedStyle(icon).color))}`,
      20_000,
    );
    assert.equal(colours.icon, colours.warning, "in the theme's warning colour");
    const storedRow = workbench.volumesRow('kept-as-is.txt');
    assert.equal(await storedRow.locator('.codicon-warning').count(), 0, 'a choice is not a warning');
    assert.equal(await storedRow.locator('.codicon-archive').count(), 1);
    // The tooltip has the whole reason. A hover can be lost while the row redraws under the
    // pointer, so the pointer leaves and comes back until it shows.
    const hover = workbench.page
      .locator('.monaco-hover-content, .workbench-hover')
      .filter({ hasText: /Processing failed: .*filter/ })
      .first();
    await eventually(
      async () => {
        await workbench.page.mouse.move(900, 700);
        await workbench.volumesRow('scan.pdf').locator('.label-name').hover();
        return hover.waitFor({ timeout: 4_000 }).then(
          () => true,
          () => false,
        );
      },
      () => "the failed file's tooltip never showed the reason",
      40_000,
      0,
    );
    await workbench.page.mouse.move(900, 700);
    await hover.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
    await workbench.screenshot('failed-and-stored-rows');
  });

  it('deletes the selected file with the Delete key, after the confirmation', async () => {
    const { workbench } = scenario;
    await workbench.page.keyboard.press('Escape');
    await workbench.page.mouse.move(900, 700);
    await workbench.volumesRow('from-elsewhere.txt').click();
    await workbench.page.keyboard.press('Delete');
    const confirm = workbench.dialogButton('Delete');
    await confirm.waitFor({ timeout: 10_000 });
    assert.match(
      await workbench.page.locator('.monaco-dialog-box').innerText(),
      new RegExp(`Delete "from-elsewhere\\.txt" from '${VOLUME}'\\?`),
      'the question names the file and the volume it leaves',
    );
    await confirm.click();
    await eventually(
      async () => (await workbench.volumesRow('from-elsewhere.txt').count()) === 0 && !(await stored()).includes('from-elsewhere.txt'),
      async () => `still there; rows: ${JSON.stringify(await volumesRowTexts(workbench))}`,
      30_000,
    );
  });

  it("shows an active filter in the view's description with Clear Filter, and clearing removes both", async () => {
    const { workbench } = scenario;
    const expected = (await stored()).filter((name) => name.includes('sub__beta')).length;
    assert.ok(expected >= 1);
    await workbench.runCommand('KSM: Filter Files…');
    await workbench.typeInQuickInput('sub__beta');
    const sidebar = workbench.page.locator('.part.sidebar');
    // Every volume searched to its end (e2e-team may not exist yet: no files, D6), so the count is exact.
    const words = `Filter "sub__beta" · ${expected} match${expected === 1 ? '' : 'es'}`;
    // The view's description (shown when the view shares its container) and its message
    // above the tree (shown always; VS Code hides the description of a view alone).
    const description = sidebar.locator('.description').filter({ hasText: new RegExp(`^${escapeRegExp(words)}$`) });
    await description.waitFor({ state: 'attached', timeout: 30_000 });
    const message = sidebar.getByText(`${words}. Clear Filter shows every file.`, { exact: true });
    await message.waitFor({ timeout: 10_000 });
    // In the side bar's title when the view is alone, else in the view's own header.
    const clear = sidebar.locator('.action-label[aria-label^="Clear Filter"]:visible');
    await clear.first().waitFor({ timeout: 10_000 });
    // View title actions show while the view has focus.
    await workbench.volumesRow('sub__beta.md').click();
    await clear.first().click({ timeout: 10_000 });
    await eventually(
      async () => (await description.count()) === 0 && (await message.isVisible()) === false && (await clear.count()) === 0,
      () => 'the filter description, its message or Clear Filter stayed after clearing',
      10_000,
    );
    await workbench.volumesRow('alpha.md').waitFor({ timeout: 10_000 });
  });

  it('Remove from View takes the added volume off the user settings again (leaving the run as it found it)', async () => {
    const { workbench, run } = scenario;
    await workbench.contextMenu(workbench.volumesRow(VOLUME), 'Remove from View');
    await eventually(
      async () => (await workbench.volumesRow(VOLUME).count()) === 0,
      async () => `${VOLUME} is still shown; rows: ${JSON.stringify(await volumesRowTexts(workbench))}`,
      20_000,
    );
    assert.ok(!readFileSync(join(run.userDataDir, 'User', 'settings.json'), 'utf8').includes(`"${VOLUME}"`));
  });
});
