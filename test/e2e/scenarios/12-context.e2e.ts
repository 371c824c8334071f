import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChatView } from '../harness/chat';
import { eventually } from '../harness/eventually';
import { TEAM_VOLUME } from '../harness/run';
import { useScenario } from '../harness/scenario';
import { openFileByQuickOpen, setApiKeyThroughPalette } from '../harness/steps';
import type { Workbench } from '../harness/workbench';

// The same topic in My files and in the team volume: unrestricted, the agent cites both.
const TEAM_FILE = 'lamps-team-guide.md';
const TEAM_TEXT = '# Team lamp guide\n\nThe team lamp guide recommends warm dimmable lamps for the reading room. Reading room lamps are switched off at night.\n';
const MY_FILE = 'lamps-my-notes.md';
const MY_TEXT = '# My lamp notes\n\nMy notes say the reading room lamps flicker. The reading room lamps need new bulbs.\n';
const LAMPS_QUESTION = 'What do my files say about the reading room lamps?';
const SELECTION_QUESTION = 'What is this part of the release process about?';

describe('Scenario 12: context — code as chips, a conversation’s volumes, numbered sources that open their passage', function () {
  this.timeout(240_000);
  const scenario = useScenario('12-context');
  let chat: ChatView;
  let seededFiles: Array<{ volume: string; uuid: string }> = [];

  before(async function () {
    const { run, workbench } = scenario;
    const personal = `{${run.emulator.userId}}`;
    const seeded = [await run.emulator.uploadFile(TEAM_VOLUME, TEAM_FILE, TEAM_TEXT, 1), await run.emulator.uploadFile(personal, MY_FILE, MY_TEXT, 1)];
    for (const [volume, file] of [
      [TEAM_VOLUME, seeded[0]!],
      [personal, seeded[1]!],
    ] as const) {
      await eventually(
        async () => (await run.emulator.listFiles(volume)).find((f) => f.uuid === file.uuid)?.status === 'done',
        () => `${file.filename} never reached done in the emulator`,
        60_000,
      );
    }
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    chat = new ChatView(workbench);
    await chat.open();
    await chat.newChat();
    seededFiles = [
      { volume: TEAM_VOLUME, uuid: seeded[0]!.uuid },
      { volume: personal, uuid: seeded[1]!.uuid },
    ];
  });

  // Other scenarios assert on exactly the files they put in the team volume: leave it as found.
  after(async () => {
    for (const { volume, uuid } of seededFiles) await scenario.run.emulator.api('DELETE', '/ksm/rag/v5/files', { volume, uuidz: [uuid] });
  });

  it('Ask About Selection puts a chip above the composer; the sent question shows the chip, not fences, and the model got the code', async () => {
    const { workbench, run } = scenario;
    const fileName = 'release-process.md';
    const lines = readFileSync(join(run.workspace, 'docs', 'guides', fileName), 'utf8').split('\n');
    await openFileByQuickOpen(scenario.workbench, fileName);
    await workbench.page
      .locator('.editor-group-container.active .monaco-editor .view-line')
      .filter({ hasText: lines[2]!.slice(0, 30) })
      .first()
      .click();
    for (const key of ['Control+Home', 'Shift+ArrowDown', 'Shift+ArrowDown', 'Shift+End']) await workbench.page.keyboard.press(key);
    await workbench.runCommand('KSM: Ask About Selection');
    const pending = chat.frame.locator('.composer [data-testid="code-chips"] .chip-label');
    await eventually(
      async () => (await pending.allInnerTexts()).join('|') === `${fileName} · lines 1-3`,
      async () => `the composer's chips are ${JSON.stringify(await pending.allInnerTexts())}`,
      15_000,
    );
    assert.equal(await chat.composer().inputValue(), '', 'the message box stays empty: nothing pasted');

    await chat.send(SELECTION_QUESTION);
    assert.equal(await chat.waitForAnswerToSettle(), 'done');
    const question = chat.userTurns().last();
    assert.deepEqual(await question.locator('[data-testid="code-chips"] .chip-label').allInnerTexts(), [`${fileName} · lines 1-3`]);
    assert.equal((await question.locator('.user-text').innerText()).trim(), SELECTION_QUESTION);
    assert.ok(!(await question.innerText()).includes('```'), 'no literal fences in the transcript');
    assert.equal(await pending.count(), 0, 'the chip went with the question');
    // The emulator restates the start of the user message it received (shown as Markdown, so the
    // fence and backticks render): the file, its lines and the code come before the question.
    assert.match(await chat.answerText(), /You asked: "release-process\.md \(lines 1-3\): markdown # Release process /);
  });

  it('Ask About Active File on a 70 KB file asks first, then attaches a chip without filling the message box; a 120 KB file is refused with the limit', async () => {
    const { workbench, run } = scenario;
    const line = (n: number) => `line ${String(n).padStart(5, '0')}: the quick brown fox jumps over the lazy dog again\n`;
    const textOf = (bytes: number) =>
      Array.from({ length: Math.ceil(bytes / line(0).length) }, (_, i) => line(i))
        .join('')
        .slice(0, bytes);
    writeFileSync(join(run.workspace, 'context-70k.log'), textOf(70 * 1024));
    writeFileSync(join(run.workspace, 'context-120k.log'), textOf(120 * 1024));

    await openFileByQuickOpen(scenario.workbench, 'context-70k.log');
    await workbench.runCommand('KSM: Ask About Active File');
    await workbench.dialogButton('Ask Anyway').click();
    const pending = chat.frame.locator('.composer [data-testid="code-chips"] .chip-label');
    await eventually(
      async () => (await pending.allInnerTexts()).join('|') === 'context-70k.log',
      async () => `chips: ${JSON.stringify(await pending.allInnerTexts())}`,
      15_000,
    );
    assert.equal(await chat.composer().inputValue(), '', 'the 70 KB file is not in the message box');
    // The panel stays responsive: typing lands at once.
    await chat.composer().fill('still typing');
    assert.equal(await chat.composer().inputValue(), 'still typing');
    await chat.composer().fill('');
    await chat.frame.locator('button[aria-label="Remove context-70k.log"]').click();
    await pending.first().waitFor({ state: 'detached', timeout: 10_000 });

    await openFileByQuickOpen(scenario.workbench, 'context-120k.log');
    await workbench.runCommand('KSM: Ask About Active File');
    const refused = /context-120k\.log is too large to send with a question \(122,880 characters; the limit is 98,000 characters\)/;
    await eventually(
      () => workbench.findNotification(refused),
      () => 'no "too large" warning naming the limit',
      15_000,
      1_000,
    );
    assert.equal(await pending.count(), 0, 'nothing attached');
    await workbench.page.keyboard.press('Escape');
  });

  it('choosing one volume restricts the agent: unrestricted it cites My files and the team volume, restricted only the team volume', async () => {
    const { workbench } = scenario;
    await chat.newChat();
    await chat.modeSelect().selectOption('agent');
    const volumeChips = chat.frame.locator('[data-testid="volume-chips"] .chip-label');
    await eventually(
      async () => (await volumeChips.allInnerTexts()).join('|') === 'All volumes',
      async () => `volume chips: ${JSON.stringify(await volumeChips.allInnerTexts())}`,
      15_000,
    );

    await chat.send(LAMPS_QUESTION);
    assert.equal(await chat.waitForAnswerToSettle(), 'done');
    const unrestricted = await chat.lastAnswer().locator('[data-testid="citations"]').innerText();
    assert.ok(unrestricted.includes(MY_FILE) && unrestricted.includes(TEAM_FILE), `unrestricted sources: ${unrestricted}`);

    await chat.newChat();
    await chat.modeSelect().selectOption('agent');
    await chat.frame.locator('button[aria-label="Choose the volumes the agent searches"]').click();
    const mine = workbench.quickInputRows().filter({ hasText: 'My files' });
    await mine.waitFor({ timeout: 15_000 });
    await workbench.quickInputRows().filter({ hasText: TEAM_VOLUME }).waitFor();
    await keepOnlyTeamVolumeTicked(workbench);
    await workbench.quickInputBox().press('Enter');
    await eventually(
      async () => (await volumeChips.allInnerTexts()).join('|') === TEAM_VOLUME,
      async () => `volume chips: ${JSON.stringify(await volumeChips.allInnerTexts())}`,
      15_000,
    );

    await chat.send(LAMPS_QUESTION);
    assert.equal(await chat.waitForAnswerToSettle(), 'done');
    const sources = chat.lastAnswer().locator('[data-testid="citations"] button');
    await sources.first().waitFor({ timeout: 10_000 });
    const files = await sources.locator('.citation-file').allInnerTexts();
    const volumes = await sources.locator('.citation-volume').allInnerTexts();
    assert.ok(files.includes(TEAM_FILE), `restricted sources: ${JSON.stringify(files)}`);
    assert.ok(!files.includes(MY_FILE), `My files was not chosen, yet cited: ${JSON.stringify(files)}`);
    assert.deepEqual([...new Set(volumes)], [TEAM_VOLUME], 'every source shows its volume, the chosen one');
    // Numbered like the markers of the answer, once each.
    const numbers = (await sources.locator('.citation-number').allInnerTexts()).join('');
    for (const marker of (await chat.answerText()).match(/\[\d+\]/g) ?? []) assert.ok(numbers.includes(marker), `marker ${marker} has a source chip (${numbers})`);
  });

  it('clicking a source opens its passage in a read-only editor and leaves KSM Chat where it is', async () => {
    const { workbench } = scenario;
    const source = chat.lastAnswer().locator('[data-testid="citations"] button').filter({ hasText: TEAM_FILE }).first();
    await source.click();
    await workbench.page.locator('.tabs-container .tab.active').filter({ hasText: TEAM_FILE }).waitFor({ timeout: 15_000 });
    const editorText = workbench.page.locator('.editor-group-container.active .monaco-editor .view-lines');
    const shown = async () => ((await editorText.innerText().catch(() => '')) ?? '').replace(/\u00a0/g, ' ');
    await eventually(
      async () => (await shown()).startsWith(`${TEAM_FILE} — ${TEAM_VOLUME}`) && /reading room lamps|lamps for the reading room/i.test(await shown()),
      async () => `the passage editor shows ${JSON.stringify((await shown()).slice(0, 300))}`,
      15_000,
    );
    // The answer being read stays on screen: the side bar is not switched to Volumes (issue 26, rough edge 2).
    await workbench.screenshot('source-opened-chat-stays');
    assert.equal(await workbench.pane('Chat').isVisible(), true, 'KSM Chat is still shown');
    assert.equal(await chat.lastAnswer().isVisible(), true, 'the answer is still on screen');
    assert.equal(await workbench.volumesTree().isVisible(), false, 'the side bar was not switched to Volumes');
  });

  it('clicking a marker [n] in the answer opens the same passage as its source chip', async () => {
    const { workbench } = scenario;
    // The passage editor is still open: start without it.
    await workbench.runCommand('View: Close All Editors');
    await workbench.page.locator('.tabs-container .tab').filter({ hasText: TEAM_FILE }).waitFor({ state: 'detached', timeout: 15_000 });
    await chat.open();
    // The answer's own text: "From lamps-team-guide.md [n]: …", its marker a link named after the file.
    const marker = chat
      .lastAnswer()
      .locator('.answer-body')
      .getByRole('link', { name: new RegExp(`^Source \\d+: ${TEAM_FILE.replace(/\./g, '\\.')}$`) })
      .first();
    await marker.waitFor({ timeout: 15_000 });
    await marker.click();
    await workbench.page.locator('.tabs-container .tab.active').filter({ hasText: TEAM_FILE }).waitFor({ timeout: 15_000 });
    const editorText = workbench.page.locator('.editor-group-container.active .monaco-editor .view-lines');
    const shown = async () => ((await editorText.innerText().catch(() => '')) ?? '').replace(/\u00a0/g, ' ');
    await eventually(
      async () => (await shown()).startsWith(`${TEAM_FILE} — ${TEAM_VOLUME}`),
      async () => `the passage editor opened by the marker shows ${JSON.stringify((await shown()).slice(0, 300))}`,
      15_000,
    );
  });

  it('choosing files searches only them: Files… → volume → file, a file chip, citations from that file only', async () => {
    const { workbench } = scenario;
    await chat.open();
    await chat.newChat();
    await chat.modeSelect().selectOption('agent');
    await chat.frame.locator('button[aria-label="Choose files the agent searches"]').click();
    await workbench.pick('My files');
    const row = workbench.quickInputRows().filter({ hasText: MY_FILE });
    await row.waitFor({ timeout: 15_000 });
    await row.click(); // tick it
    await workbench.quickInputBox().press('Enter');
    const fileChips = chat.frame.locator('[data-testid="file-chips"] .chip-label');
    await eventually(
      async () => (await fileChips.allInnerTexts()).join('|') === MY_FILE,
      async () => `file chips: ${JSON.stringify(await fileChips.allInnerTexts())}`,
      15_000,
    );
    await chat.send(LAMPS_QUESTION);
    assert.equal(await chat.waitForAnswerToSettle(), 'done');
    const files = await chat.lastAnswer().locator('[data-testid="citations"] .citation-file').allInnerTexts();
    assert.deepEqual([...new Set(files)], [MY_FILE], `sources: ${JSON.stringify(files)}`);
    assert.deepEqual(await chat.lastAnswer().locator('[data-testid="citations"] .citation-volume').first().innerText(), 'My files');
  });

  it("KSM: Choose Volumes for This Chat… in the palette: offered only in an agent conversation, it changes that chat's volume chips", async () => {
    const { workbench } = scenario;
    const title = 'KSM: Choose Volumes for This Chat…';
    await chat.open();
    await chat.newChat();
    await chat.modeSelect().selectOption('chat');
    // A plain chat searches no volume: the palette does not offer the command.
    await workbench.page.locator('.monaco-workbench').click({ position: { x: 700, y: 5 } });
    await workbench.page.keyboard.press('Control+Shift+P');
    await workbench.quickInputBox().fill(`>${title}`);
    // VS Code lists "similar commands" (or "No matching commands") once it has filtered.
    await workbench.quickInputRows().first().waitFor({ timeout: 15_000 });
    await workbench.page.waitForTimeout(500);
    assert.equal(await workbench.quickInputRows().filter({ hasText: title }).count(), 0, `${title} is offered in a plain chat`);
    await workbench.page.keyboard.press('Escape');

    await chat.modeSelect().selectOption('agent');
    const volumeChips = chat.frame.locator('[data-testid="volume-chips"] .chip-label');
    await eventually(
      async () => (await volumeChips.allInnerTexts()).join('|') === 'All volumes',
      async () => `volume chips: ${JSON.stringify(await volumeChips.allInnerTexts())}`,
      15_000,
    );
    await workbench.runCommand(title);
    await workbench.quickInputRows().filter({ hasText: TEAM_VOLUME }).waitFor({ timeout: 15_000 });
    await keepOnlyTeamVolumeTicked(workbench);
    await workbench.quickInputBox().press('Enter');
    await eventually(
      async () => (await volumeChips.allInnerTexts()).join('|') === TEAM_VOLUME,
      async () => `volume chips after the command: ${JSON.stringify(await volumeChips.allInnerTexts())}`,
      15_000,
    );
  });

  // media/screenshot-chat.png (the README's) is this step's screenshot, cropped and resized
  // as CONTRIBUTING.md says: a chat with a code block and an agent answer with numbered sources.
  it("the README's picture: in Dark Modern, a code block and an agent answer whose markers match its numbered sources", async () => {
    const { workbench } = scenario;
    const startTheme = (await workbench.page.locator('.monaco-workbench.vs-dark').count()) ? 'Dark Modern' : 'Light Modern';
    const startViewport = workbench.page.viewportSize();
    const startWidth = (await workbench.page.locator('.part.sidebar').boundingBox())?.width;
    await workbench.setColorTheme('Dark Modern');
    // Tall enough, and a side bar wide enough, for the code block and the cited answer below it.
    await workbench.page.setViewportSize({ width: 1440, height: 1000 });
    try {
      await workbench.runCommand('View: Close All Editors');
      // Quick Open, clicking the file's row: Enter could take the first recent file before the list filters.
      await workbench.page.locator('.monaco-workbench').click({ position: { x: 700, y: 5 } });
      await workbench.page.keyboard.press('Control+P');
      await workbench.quickInputBox().fill('release-process.md');
      await workbench.quickInputRows().filter({ hasText: 'release-process.md' }).first().click();
      await workbench.page.locator('.tabs-container .tab.active').filter({ hasText: 'release-process.md' }).waitFor({ timeout: 15_000 });
      await workbench.page.keyboard.press('Control+Home'); // drop the selection an earlier step left
      await chat.open();
      await workbench.setSideBarWidth(460);
      await chat.newChat();
      await chat.modeSelect().selectOption('chat');
      await chat.send('Show me a TypeScript function that answers a question');
      assert.equal(await chat.waitForAnswerToSettle(), 'done');
      const codeBlock = chat.lastAnswer().locator('.code-block');
      assert.equal(await codeBlock.count(), 1, 'the chat answer has a code block');
      await chat.modeSelect().selectOption('agent');
      await chat.send(LAMPS_QUESTION);
      assert.equal(await chat.waitForAnswerToSettle(), 'done');
      const markers = chat.lastAnswer().locator('.answer-body [data-citation-marker]');
      await markers.first().waitFor({ timeout: 10_000 });
      assert.ok((await chat.lastAnswer().locator('[data-testid="citations"] .citation-number').count()) > 0, 'numbered sources under the answer');
      await chat.composer().blur();
      await workbench.page.waitForTimeout(500);
      await workbench.screenshot('readme-chat');
    } finally {
      if (startWidth) await workbench.setSideBarWidth(Math.round(startWidth));
      if (startViewport) await workbench.page.setViewportSize(startViewport);
      await workbench.setColorTheme(startTheme);
    }
  });
});

/**
 * Every volume starts ticked in the volume picker: untick all but the team volume (earlier
 * scenarios may have added volumes of their own, such as the sync scenario's).
 */
async function keepOnlyTeamVolumeTicked(workbench: Workbench): Promise<void> {
  for (const row of await workbench.quickInputRows().all()) {
    if (!(await row.innerText()).includes(TEAM_VOLUME)) await row.click();
  }
}
