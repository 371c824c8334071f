import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ChatView } from '../harness/chat';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { Workbench } from '../harness/workbench';
import { setApiKeyThroughPalette, volumesRowTexts, waitForRowDescription } from '../harness/steps';

const SYNC_VOLUME = 'e2e-sync';
const FOLDER = 'handbook';
/** Five files, so deleting one (20%) stays within the default delete guard. */
const FILES: Record<string, string> = {
  'policy.md': '# Policy\nBe kind.\n',
  'setup.md': '# Setup\nRun npm ci.\n',
  'faq.md': '# FAQ\nAsk in the channel.\n',
  'glossary.txt': 'RAG: retrieval augmented generation\n',
  'teams/platform.md': '# Platform team\n\nThe platform team owns the lighthouse deploy pipeline and its beacon alarms.\n',
};
const STORED = ['faq.md', 'glossary.txt', 'policy.md', 'setup.md', 'teams__platform.md'];

describe('Scenario 7: keep a folder in sync with a volume from the Explorer', function () {
  this.timeout(240_000);
  const scenario = useScenario('7-sync');
  const stored = async () =>
    ((await scenario.run.emulator.listFiles(SYNC_VOLUME).catch(() => [])) as Array<{ filename: string; uuid: string; filesize?: number }>).sort((a, b) => a.filename.localeCompare(b.filename));
  const statusItem = () => scenario.workbench.page.locator('.statusbar-item').filter({ hasText: /KSM: / });
  const waitForStatus = (text: RegExp, timeoutMs = 60_000) =>
    eventually(
      async () => text.test((await statusItem().first().textContent({ timeout: 1000 })) ?? ''),
      async () =>
        `the status bar never showed ${text}; it shows "${await statusItem()
          .first()
          .textContent()
          .catch(() => '(none)')}"`,
      timeoutMs,
    );

  before(async function () {
    const { workbench, run } = scenario;
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    const root = join(run.workspace, FOLDER);
    for (const [rel, content] of Object.entries(FILES)) {
      mkdirSync(join(root, rel, '..'), { recursive: true });
      writeFileSync(join(root, rel), content);
    }
    writeFileSync(join(root, 'scratch.draft.md'), 'ignored by the workspace .gitignore (*.draft.md)\n');
    writeFileSync(join(root, '.env'), 'TOKEN=never-synced\n');
  });

  it('pairs a folder from the Explorer, previews the plan and applies it', async () => {
    const { workbench } = scenario;
    await workbench.openExplorer();
    const folderRow = workbench.explorerRow(FOLDER);
    await folderRow.waitFor({ timeout: 30_000 });
    await workbench.contextMenu(folderRow, 'Sync Folder to Volume…');
    // A volume not in the view yet: typed in, then added to the view by the pairing.
    await workbench.pick(/Another volume/);
    await workbench.quickInput().locator('.quick-input-title', { hasText: 'Volume name' }).waitFor();
    await workbench.typeInQuickInput(SYNC_VOLUME);
    // Options: deletion and watch mode, ticked by keyboard as a user would.
    await workbench
      .quickInput()
      .locator('.quick-input-title', { hasText: /options/ })
      .waitFor();
    await workbench.pick(/Delete removed files/);
    await workbench.pick(/Sync on save/);
    await workbench.quickInputBox().press('Enter');
    // Asked once per workspace: may the pairing be written to .vscode/settings.json (issue 22)?
    await workbench
      .quickInput()
      .locator('.quick-input-title', { hasText: /where should the pairing be saved/ })
      .waitFor();
    await workbench.pick(/Save in this workspace's settings/);

    const title = workbench.quickInput().locator('.quick-input-title');
    await eventually(
      async () => /5 new · 0 changed · 0 to delete/.test((await title.textContent({ timeout: 1000 })) ?? ''),
      async () => `preview title: "${await title.textContent()}"`,
      30_000,
    );
    const rows = await workbench.quickInputRows().allTextContents();
    assert.ok(
      rows.some((r) => /teams\/platform\.md/.test(r)),
      `the preview lists the files: ${JSON.stringify(rows)}`,
    );
    assert.ok(!rows.some((r) => /scratch\.draft\.md.*new/.test(r)), "the .gitignore'd file is not planned");
    // While the preview waits for Apply nothing is sent: the status bar says so, not "syncing" (issue 26, rough edge 4).
    await waitForStatus(/KSM: review sync \(5\)/);
    await workbench.screenshot('7-preview-first-run');
    await workbench.pick(/Apply/);

    await eventually(
      async () => JSON.stringify((await stored()).map((f) => f.filename)) === JSON.stringify(STORED),
      async () => `the volume holds ${JSON.stringify((await stored()).map((f) => f.filename))}`,
      60_000,
    );
    await waitForStatus(/KSM: in sync/);
    // The summary counts what the folder holds but did not send (the credential file), not what its own rules leave out (the .gitignore'd draft); Show Details names both.
    await eventually(
      () => workbench.findNotification(/5 uploaded, 0 replaced, 0 deleted, 0 unchanged, 1 skipped/),
      async () => `no sync summary counting the skipped .env alone; notifications: ${JSON.stringify(await workbench.page.locator('.notification-list-item').allInnerTexts())}`,
      30_000,
      1_000,
    );
    await workbench.openKsmSideBar();
    await waitForRowDescription(workbench, SYNC_VOLUME, /⇄ handbook/, 30_000);
  });

  it('re-syncs an edited file by itself after it is saved (watch mode)', async () => {
    const { workbench } = scenario;
    const before = (await stored()).find((f) => f.filename === 'policy.md');
    await workbench.openExplorer();
    const policy = workbench.explorerRow('policy.md');
    if ((await policy.count()) === 0) await workbench.explorerRow(FOLDER).click();
    await policy.click();
    const editor = workbench.page.locator('.monaco-editor .view-lines').first();
    await editor.click();
    await workbench.page.keyboard.press('Control+End');
    await workbench.page.keyboard.type('Edited in the editor.\n');
    await workbench.page.keyboard.press('Control+S');
    await eventually(
      async () => {
        const now = (await stored()).find((f) => f.filename === 'policy.md');
        return now && now.uuid !== before?.uuid;
      },
      async () => `policy.md was not replaced; the volume holds ${JSON.stringify(await stored())}`,
      60_000,
    );
    assert.deepEqual(
      (await stored()).map((f) => f.filename),
      STORED,
      'replaced, not duplicated',
    );
    await waitForStatus(/KSM: in sync/);
  });

  it('a deleted file waits as pending, and the status bar opens the preview that deletes it', async () => {
    const { workbench, run } = scenario;
    rmSync(join(run.workspace, FOLDER, 'faq.md'));
    await waitForStatus(/KSM: \d+ pending/);
    await workbench.screenshot('7-pending-deletion');
    assert.ok(
      (await stored()).some((f) => f.filename === 'faq.md'),
      'nothing is deleted without the preview',
    );
    await statusItem().first().click();
    const title = workbench.quickInput().locator('.quick-input-title');
    await eventually(
      async () => /1 to delete/.test((await title.textContent({ timeout: 1000 })) ?? ''),
      async () => `preview title: "${await title.textContent()}"`,
      30_000,
    );
    await workbench.screenshot('7-preview-deletion');
    await workbench.pick(/Apply/);
    await eventually(
      async () => !(await stored()).some((f) => f.filename === 'faq.md'),
      async () => `faq.md is still stored: ${JSON.stringify((await stored()).map((f) => f.filename))}`,
      60_000,
    );
    assert.deepEqual(
      (await stored()).map((f) => f.filename),
      STORED.filter((n) => n !== 'faq.md'),
    );
    await waitForStatus(/KSM: in sync/);
    await workbench.openKsmSideBar();
    await waitForRowDescription(workbench, SYNC_VOLUME, /⇄ handbook/, 10_000).catch(async (error) => {
      throw new Error(`${(error as Error).message}; rows: ${JSON.stringify(await volumesRowTexts(workbench))}`);
    });
  });

  it('a citation of a synced file opens the workspace file at the cited passage, not the volume copy (issue 26)', async () => {
    const { workbench, run } = scenario;
    await eventually(
      async () => (await stored()).some((f) => f.filename === 'teams__platform.md' && (f as { status?: string }).status === 'done'),
      async () => `teams__platform.md never reached done: ${JSON.stringify(await stored())}`,
      60_000,
    );
    const chat = new ChatView(workbench);
    await chat.open();
    await chat.newChat();
    await chat.modeSelect().selectOption('agent');
    await chat.send('Who owns the lighthouse deploy pipeline and its beacon alarms?');
    assert.equal(await chat.waitForAnswerToSettle(), 'done');
    const source = chat.lastAnswer().locator('[data-testid="citations"] button').filter({ hasText: 'teams__platform.md' }).first();
    await source.waitFor({ timeout: 10_000 });
    await source.click();
    await workbench.page.locator('.tabs-container .tab.active').filter({ hasText: 'platform.md' }).waitFor({ timeout: 15_000 });
    const editorText = workbench.page.locator('.editor-group-container.active .monaco-editor .view-lines');
    const shown = async () => ((await editorText.innerText().catch(() => '')) ?? '').replace(/\u00a0/g, ' ');
    await eventually(
      async () => (await shown()).startsWith('# Platform team') && /owns the lighthouse deploy pipeline/.test(await shown()),
      async () => `the editor shows ${JSON.stringify((await shown()).slice(0, 300))}, not the workspace file ${join(run.workspace, FOLDER, 'teams', 'platform.md')}`,
      15_000,
    );
    // The cited sentence (line 3 of the file) is selected: the status bar's cursor item says so.
    const cursor = workbench.page
      .locator('.statusbar-item')
      .filter({ hasText: /Ln \d+, Col \d+/ })
      .first();
    await eventually(
      async () => /Ln 3, Col \d+ \(\d+ selected\)/.test((await cursor.textContent({ timeout: 1000 }).catch(() => '')) ?? ''),
      async () => `the cited passage is not selected; the status bar says "${await cursor.textContent().catch(() => '(none)')}"`,
      10_000,
    );
    await workbench.screenshot('7-citation-opens-workspace-file');
  });

  it('a sync record an earlier version kept in the workspace storage is moved to the shared one, not lost: the next sync is in sync without asking (issue 21)', async () => {
    const { workbench, run } = scenario;
    const user = join(run.userDataDir, 'User');
    const syncDir = join(user, 'globalStorage', 'ksm.ksm-assistant', 'sync');
    const records = readdirSync(syncDir).filter((name) => name.endsWith('.json'));
    assert.equal(records.length, 1, `one sync record (handbook → ${SYNC_VOLUME}) in ${syncDir}: ${JSON.stringify(records)}`);
    // This window's workspace storage.
    const workspaces = join(user, 'workspaceStorage');
    const describes = (id: string) =>
      ['workspace.json', 'meta.json'].some((file) => existsSync(join(workspaces, id, file)) && readFileSync(join(workspaces, id, file), 'utf8').includes(basename(run.workspace)));
    // Named by a hash of the workspace (a leading '-' when negative); a second window's is `<id>-1`.
    const candidates = readdirSync(workspaces).filter((id) => /^-?[0-9a-f]+(-\d+)?$/.test(id));
    // Earlier scenarios' windows on this workspace left storage folders of their own (`<id>-1`…),
    // and none of them says which window is this one: the record goes into each, as an earlier
    // version would have left it in whichever this window has; this window moves its own.
    const owners = candidates.filter(describes);
    // A new window's folder may not have written its workspace.json yet: every folder gets one.
    const places = [...new Set([...owners, ...candidates])].map((id) => join(workspaces, id, 'ksm.ksm-assistant', 'sync', records[0]));
    assert.ok(places.length, `the workspace's storage folder in ${workspaces}: ${JSON.stringify(readdirSync(workspaces))}`);
    // The record is the manifest and, when the last runs were not folded in yet, the journal beside it: both move.
    const journal = join(syncDir, `${records[0]}.journal`);
    for (const place of places) {
      mkdirSync(dirname(place), { recursive: true });
      copyFileSync(join(syncDir, records[0]), place);
      if (existsSync(journal)) copyFileSync(journal, `${place}.journal`);
    }
    rmSync(join(syncDir, records[0]));
    rmSync(journal, { force: true });
    const left = () => places.filter((place) => existsSync(place));
    await workbench.runCommand('KSM: Sync Now');
    await eventually(
      async () => existsSync(join(syncDir, records[0])) && left().length === places.length - 1,
      async () => `the record was not moved back: shared ${existsSync(join(syncDir, records[0]))}, ${left().length} of ${places.length} old copies left`,
      60_000,
    );
    // The copies no window owns would be found by a later window: they go.
    for (const place of left()) rmSync(place);
    for (const place of places) rmSync(`${place}.journal`, { force: true });
    await waitForStatus(/KSM: in sync/);
    assert.equal(await workbench.quickInput().isVisible(), false, 'no preview, no same-name question: the record was found');
    assert.deepEqual(
      (await stored()).map((f) => f.filename),
      STORED.filter((n) => n !== 'faq.md'),
      'nothing uploaded again',
    );
  });

  it("a second window's sync of the same pairing waits for the first window's, then finishes without duplicates (issue 21)", async () => {
    const { workbench, run } = scenario;
    // A second VS Code window on the same workspace: its own extension host, the same pairing and manifest.
    const second = await Workbench.open(workbench.context, run.codeServer.workbenchUrl(run.workspace), scenario.resultsDir, { newWindow: true });
    try {
      // A tab in the background gets no animation frames (VS Code draws its lists in them): the window in use is brought to the front.
      await second.page.bringToFront();
      const secondStatus = () => second.page.locator('.statusbar-item').filter({ hasText: /KSM: / });
      // Opening the KSM side bar activates the extension in this window (the pairing is this user's: no approval asked).
      await second.openKsmSideBar();
      await eventually(
        async () => /KSM: (last synced|not synced yet|in sync|\d+ pending)/.test((await secondStatus().first().textContent({ timeout: 1000 })) ?? ''),
        async () => `the second window's status bar: ${JSON.stringify(await second.page.locator('.statusbar-item').allTextContents())}`,
        60_000,
      );
      const before = (await stored()).map((f) => f.filename);
      // The first window's sync (watch mode, after the files appear) holds its upload request for 20 s.
      await run.emulator.addFault({ kind: 'latency', ms: 20_000, method: 'POST', path: '/ksm/rag/v5/files', times: 1 });
      const added = { 'release.md': '# Release\nEvery Tuesday.\n', 'oncall.md': '# On call\nThe pager rotates weekly.\n', 'roadmap.md': '# Roadmap\nQuarterly.\n' };
      for (const [rel, content] of Object.entries(added)) writeFileSync(join(run.workspace, FOLDER, rel), content);
      await waitForStatus(/KSM: syncing/);
      assert.deepEqual(
        (await stored()).map((f) => f.filename),
        before,
        "the first window's upload is still held by the slow service",
      );

      await second.runCommand('KSM: Sync Now');
      // The second window says it waits (VS Code's window progress in its status bar) while the first one's request is in flight.
      const waiting = second.page.locator('.statusbar-item').filter({ hasText: /Waiting for another window's sync of handbook/ });
      let sawWaiting = false;
      await eventually(
        async () => {
          if (await waiting.count()) {
            sawWaiting = true;
            await second.screenshot('7-second-window-waits');
            return true;
          }
          // Without the lock the second window would plan and upload at once.
          return /KSM: (syncing|in sync)/.test((await secondStatus().first().textContent({ timeout: 1000 })) ?? '');
        },
        async () => `the second window neither waited nor synced; its status bar: ${JSON.stringify(await second.page.locator('.statusbar-item').allTextContents())}`,
        30_000,
        100,
      );

      const expected = [...before, ...Object.keys(added)].sort((a, b) => a.localeCompare(b));
      await eventually(
        async () => (await stored()).length >= expected.length,
        async () => `the volume holds ${JSON.stringify((await stored()).map((f) => f.filename))}`,
        90_000,
      );
      await eventually(
        async () => /KSM: in sync/.test((await secondStatus().first().textContent({ timeout: 1000 })) ?? '') && (await waiting.count()) === 0,
        async () => `the second window did not finish; its status bar: ${JSON.stringify(await second.page.locator('.statusbar-item').allTextContents())}`,
        90_000,
      );
      await waitForStatus(/KSM: in sync/);
      assert.deepEqual(
        (await stored()).map((f) => f.filename),
        expected,
        "each file once: the second run found the first run's uploads, not a folder to upload again",
      );
      assert.ok(sawWaiting, "the second window's status bar said it waited for the other window's sync");
    } catch (error) {
      await second.screenshot('FAILED-second-window');
      throw error;
    } finally {
      await run.emulator.clearFaults();
      await second.page.close().catch(() => undefined);
      await workbench.page.bringToFront();
    }
  });

  it('with no sync record, a same-name file the folder never uploaded is not adopted: the preview asks, and Keep uploads alongside', async () => {
    const { workbench, run } = scenario;
    const volume = 'e2e-sync-choice';
    const folder = 'wiki';
    mkdirSync(join(run.workspace, folder), { recursive: true });
    writeFileSync(join(run.workspace, folder, 'intro.md'), '# Intro, edited\n');
    const colleague = await run.emulator.uploadFile(volume, 'intro.md', '# Intro by someone\n', 0);
    await workbench.openExplorer();
    const folderRow = workbench.explorerRow(folder);
    await folderRow.waitFor({ timeout: 30_000 });
    await workbench.contextMenu(folderRow, 'Sync Folder to Volume…');
    await workbench.pick(/Another volume/);
    await workbench.quickInput().locator('.quick-input-title', { hasText: 'Volume name' }).waitFor();
    await workbench.typeInQuickInput(volume);
    await workbench
      .quickInput()
      .locator('.quick-input-title', { hasText: /options/ })
      .waitFor();
    await workbench.pick(/Delete removed files/);
    await workbench.quickInputBox().press('Enter');

    // The choice, not Apply: nothing may happen to the colleague's file by default.
    await eventually(
      async () => (await workbench.quickInputRows().allTextContents()).some((r) => /Keep Them/.test(r)),
      async () => `rows: ${JSON.stringify(await workbench.quickInputRows().allTextContents())}`,
      30_000,
    );
    const rows = await workbench.quickInputRows().allTextContents();
    assert.ok(
      rows.some((r) => /Replace Them \(Adopt\)/.test(r)),
      `the preview offers Adopt: ${JSON.stringify(rows)}`,
    );
    assert.ok(!rows.some((r) => /^\s*Apply/.test(r)), `no plain Apply before the choice: ${JSON.stringify(rows)}`);
    assert.ok(
      rows.some((r) => /intro\.md.*same name/.test(r)),
      `the conflicting file is named: ${JSON.stringify(rows)}`,
    );
    await workbench.screenshot('7-preview-no-record-choice');
    await workbench.pick(/Keep Them/);
    // The plan again, with the choice made: Apply uploads beside the colleague's copy.
    const title = workbench.quickInput().locator('.quick-input-title');
    await eventually(
      async () => /1 new · 0 changed · 0 to delete/.test((await title.textContent({ timeout: 1000 })) ?? ''),
      async () => `preview title: "${await title.textContent()}"`,
      30_000,
    );
    await workbench.pick(/Apply/);
    const listed = async () => ((await run.emulator.listFiles(volume)) as Array<{ uuid: string; filename: string }>).filter((f) => f.filename === 'intro.md');
    await eventually(
      async () => (await listed()).length === 2,
      async () => `the volume holds ${JSON.stringify(await listed())}`,
      60_000,
    );
    assert.ok(
      (await listed()).some((f) => f.uuid === colleague.uuid),
      "the colleague's file is still there",
    );
  });
});
