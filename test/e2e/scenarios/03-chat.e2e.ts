import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChatView } from '../harness/chat';
import { eventually } from '../harness/eventually';
import { delay } from '../harness/processes';
import { useScenario } from '../harness/scenario';
import { openFileByQuickOpen, setApiKeyThroughPalette } from '../harness/steps';

const FIRST_QUESTION = 'How does the release process work?';
const SECOND_QUESTION = 'Tell me about the onboarding checklist in detail';

describe('Scenario 3: chat — streamed answer, Stop, copy a code block, Ask About Selection, the conversations list, export', function () {
  this.timeout(180_000);
  const scenario = useScenario('3-chat');
  let chat: ChatView;

  before(async function () {
    await setApiKeyThroughPalette(scenario.workbench, scenario.run.emulator.apiKey);
    chat = new ChatView(scenario.workbench);
    await chat.open();
  });

  it('shows the answer growing on screen while it streams, then done', async () => {
    await chat.send(FIRST_QUESTION);
    const answer = chat.lastAnswer();
    const lengths: number[] = [];
    while ((await answer.getAttribute('data-state')) === 'streaming') {
      lengths.push((await chat.answerText(answer)).length);
      await delay(100);
    }
    const growing = lengths.filter((length, i) => i === 0 || length > lengths[i - 1]!);
    assert.ok(growing.length >= 3, `the answer should grow in steps while streaming; lengths seen: ${JSON.stringify(lengths)}`);
    assert.equal(await answer.getAttribute('data-state'), 'done');
    const final = await chat.answerText(answer);
    assert.ok(final.length >= Math.max(...lengths), 'the final answer keeps everything streamed');
    assert.match(final, /release/i, 'the emulator restates the question');
  });

  it('stops an answer mid-way with Stop and keeps the part received', async () => {
    const abortedBefore = Number((await scenario.run.emulator.stats()).abortedStreams ?? 0);
    await chat.send(SECOND_QUESTION);
    const answer = chat.lastAnswer();
    await eventually(
      async () => (await answer.getAttribute('data-state')) === 'streaming' && (await chat.answerText(answer)).length > 20,
      async () => `the answer never started streaming (state ${await answer.getAttribute('data-state')})`,
      20_000,
      50,
    );
    await chat.stopButton().click();
    await eventually(
      async () => (await answer.getAttribute('data-state')) === 'stopped',
      async () => `state stayed ${await answer.getAttribute('data-state')} after Stop`,
      10_000,
    );
    const kept = await chat.answerText(answer);
    assert.ok(kept.length > 20, 'the partial answer stays on screen');
    assert.match(kept, /Stopped/, 'the answer is marked as stopped');
    await delay(1000);
    assert.equal(await chat.answerText(answer), kept, 'nothing more arrives after Stop');
    await eventually(
      async () => Number((await scenario.run.emulator.stats()).abortedStreams ?? 0) > abortedBefore,
      () => 'the emulator never saw the stream aborted: Stop only hid the answer',
      10_000,
    );
  });

  it('copies a code block to the clipboard with "Copy code"', async () => {
    const { workbench } = scenario;
    await chat.send('Write a typescript function snippet that adds two numbers');
    assert.equal(await chat.waitForAnswerToSettle(), 'done');
    const answer = chat.lastAnswer();
    const code = (await answer.locator('pre code').first().innerText()).trim();
    assert.ok(code.length > 0, 'the answer has a code block');
    await answer.locator('button[aria-label="Copy code"]').first().click();
    const clipboard = await eventually(
      async () => {
        const text = await workbench.page.evaluate<string>('navigator.clipboard.readText()');
        return text.trim() === code ? text : undefined;
      },
      async () => `the clipboard holds "${(await workbench.page.evaluate<string>('navigator.clipboard.readText()').catch((e: Error) => e.message)).slice(0, 120)}", not the code block`,
      10_000,
    );
    assert.equal(clipboard.trim(), code);
  });

  it('attaches the selected lines as a chip (not pasted) from "Ask About Selection", removable with ×', async () => {
    const { workbench, run } = scenario;
    const fileName = 'release-process.md';
    const lines = readFileSync(join(run.workspace, 'docs', 'guides', fileName), 'utf8').split('\n');
    await openFileByQuickOpen(scenario.workbench, fileName);
    // Lines 1-3, selected with the keyboard in the real editor, as a user does.
    await workbench.page
      .locator('.editor-group-container.active .monaco-editor .view-line')
      .filter({ hasText: lines[2]!.slice(0, 30) })
      .first()
      .click();
    for (const key of ['Control+Home', 'Shift+ArrowDown', 'Shift+ArrowDown', 'Shift+End']) await workbench.page.keyboard.press(key);
    await workbench.runCommand('KSM: Ask About Selection');
    const chip = chat.frame.locator('.composer [data-testid="code-chips"] .chip-label');
    await eventually(
      async () => (await chip.allInnerTexts()).join('|') === `${fileName} · lines 1-3`,
      async () => `the composer's chips are ${JSON.stringify(await chip.allInnerTexts())}`,
      15_000,
    );
    assert.equal(await chat.composer().inputValue(), '', 'nothing is pasted into the message box');
    // Scenario 12 sends one; this conversation goes on without it.
    await chat.frame.locator(`button[aria-label="Remove ${fileName} · lines 1-3"]`).click();
    await chip.first().waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('finds the conversation by a word of a later question in "Show Conversations…", and renames it there', async () => {
    const { workbench } = scenario;
    await workbench.runCommand('KSM: Show Conversations');
    await workbench.quickInputBox().fill('onboarding checklist');
    const row = workbench.quickInputRows().filter({ hasText: FIRST_QUESTION });
    await eventually(
      async () => (await workbench.quickInputRows().count()) === 1 && (await row.count()) === 1,
      async () => `searching message text should leave just this conversation; rows: ${JSON.stringify(await workbench.quickInputRows().allInnerTexts())}`,
      15_000,
    );
    assert.ok(!FIRST_QUESTION.includes('onboarding'), 'the match can only come from the message text (matchOnDetail)');
    assert.match(await row.innerText(), /Chat · .*\d/, 'the row shows the mode and the date');
    await row.hover();
    await row.locator('.action-label.codicon-edit').click();
    // The rename box replaces the list in the same widget: type only once it is there.
    await workbench.quickInput().locator('.quick-input-title', { hasText: 'Rename Conversation' }).waitFor({ timeout: 15_000 });
    assert.equal(await workbench.quickInputBox().inputValue(), FIRST_QUESTION, 'the rename box starts from the current title');
    await workbench.quickInputBox().fill('Release and onboarding');
    await workbench.quickInputBox().press('Enter');
    await workbench.quickInputRows().filter({ hasText: 'Release and onboarding' }).waitFor({ timeout: 15_000 });
    await workbench.page.keyboard.press('Escape');
    await eventually(
      async () => (await chat.frame.locator('select[aria-label="Conversation"] option:checked').innerText()).startsWith('Release and onboarding'),
      async () => `the chat header still shows "${await chat.frame.locator('select[aria-label="Conversation"] option:checked').innerText()}"`,
      15_000,
    );
  });

  it('exports the open conversation as Markdown into a new editor: title, question and answer', async () => {
    const { workbench } = scenario;
    await workbench.runCommand('KSM: Export Conversation as Markdown');
    const editorText = workbench.page.locator('.editor-group-container.active .monaco-editor .view-lines');
    const shown = async () => ((await editorText.innerText().catch(() => '')) ?? '').replace(/\u00a0/g, ' ');
    await eventually(
      async () => (await shown()).startsWith('# Release and onboarding'),
      async () => `the active editor does not show the export: ${JSON.stringify((await shown()).slice(0, 300))}`,
      15_000,
    );
    const text = await shown();
    for (const part of ['_Model `emu-chat` · ', '## You', FIRST_QUESTION, '## Assistant', `You asked: "${FIRST_QUESTION}"`]) {
      assert.ok(text.includes(part), `the export lacks ${JSON.stringify(part)}:\n${text.slice(0, 600)}`);
    }
    // A dirty untitled editor would be restored into later scenarios' windows: drop it.
    await workbench.runCommand('View: Revert and Close Editor');
    await editorText.filter({ hasText: '# Release and onboarding' }).waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('deletes the open conversation from "Show Conversations…" after confirming, leaving an empty new chat', async () => {
    const { workbench } = scenario;
    await workbench.runCommand('KSM: Show Conversations');
    const row = workbench.quickInputRows().filter({ hasText: 'Release and onboarding' });
    await row.waitFor({ timeout: 15_000 });
    await row.hover();
    await row.locator('.action-label.codicon-trash').click();
    await workbench.dialogButton('Delete').click();
    await eventually(
      async () => (await row.count()) === 0,
      async () => `the deleted conversation is still listed: ${JSON.stringify(await workbench.quickInputRows().allInnerTexts())}`,
      15_000,
    );
    await workbench.page.keyboard.press('Escape');
    await eventually(
      async () => (await chat.userTurns().count()) === 0 && (await chat.assistantTurns().count()) === 0,
      async () => `the chat still shows ${await chat.userTurns().count()} question(s) of the deleted conversation`,
      15_000,
    );
  });
});
