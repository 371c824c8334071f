import assert from 'node:assert/strict';
import { ChatView } from '../harness/chat';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { expandRow, setApiKeyThroughPalette, volumesRowTexts } from '../harness/steps';

const SEEDED = 'status-report.txt';

describe('Scenario 5: failures — refused key in the tree and the chat, dropped stream', function () {
  this.timeout(180_000);
  const scenario = useScenario('5-failures');
  let chat: ChatView;

  before(async function () {
    const { run, workbench } = scenario;
    await run.emulator.uploadFile(`{${run.emulator.userId}}`, SEEDED, 'Weekly status: all systems nominal.\n', 0);
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    // Set API Key checks the key with one listing: let it finish before faults are injected.
    await eventually(
      () => workbench.findNotification(/the service accepted it/),
      () => 'Set API Key never said the key was accepted',
      30_000,
    );
    chat = new ChatView(workbench);
  });

  afterEach(async () => scenario.run.emulator.clearFaults());

  it('shows a 401 as an error item in the Volumes tree, and lists the files after the fault clears', async () => {
    const { run, workbench } = scenario;
    await run.emulator.addFault({ kind: 'status', status: 401, path: '/ksm/rag/v5/files', method: 'GET', times: 1000 });
    await workbench.openKsmSideBar();
    // Refresh first: the tree may have listed "My files" before the fault was added.
    await (await workbench.viewAction('Volumes', 'Refresh')).click();
    await expandRow(workbench, 'My files');
    const errorRow = workbench.volumesRow('The API key was refused');
    await eventually(
      async () => (await errorRow.count()) > 0,
      async () => `no error item in the tree during the 401; rows: ${JSON.stringify(await volumesRowTexts(workbench))}`,
      30_000,
    );
    assert.equal(await workbench.volumesRow(SEEDED).count(), 0);
    await run.emulator.clearFaults();
    const refreshVolume = async () => {
      await errorRow.hover({ timeout: 5_000 });
      await errorRow.locator('.action-label[aria-label="Refresh Volume"]').click({ timeout: 5_000 });
    };
    await refreshVolume();
    await eventually(
      async () => (await workbench.volumesRow(SEEDED).count()) > 0 && (await errorRow.count()) === 0,
      async () => `the tree did not recover after one click on Refresh Volume; rows: ${JSON.stringify(await volumesRowTexts(workbench))}`,
      30_000,
    );
  });

  it('shows a refused chat request inline, and Retry answers once the fault clears', async () => {
    const { run } = scenario;
    await chat.open();
    await chat.newChat();
    await chat.modeSelect().selectOption('chat');
    await run.emulator.addFault({ kind: 'status', status: 401, path: '/v3/chat/completions', times: 1000 });
    await chat.send('Summarise the weekly status');
    assert.equal(await chat.waitForAnswerToSettle(), 'error');
    const alert = chat.lastAnswer().locator('[role="alert"]');
    assert.match(await alert.innerText(), /API key/i, 'the inline error says what is wrong');
    await run.emulator.clearFaults();
    await chat.lastAnswer().locator('button[aria-label="Retry"]').click();
    await eventually(
      async () => (await chat.lastAnswer().getAttribute('data-state')) === 'done',
      async () => `Retry did not produce an answer (state ${await chat.lastAnswer().getAttribute('data-state')})`,
      60_000,
    );
    assert.equal(await chat.lastAnswer().locator('[role="alert"]').count(), 0, 'the error is gone after a successful retry');
    assert.ok((await chat.answerText()).length > 0);
  });

  it('keeps the partial answer of a dropped stream, marked as cut off with a message', async () => {
    const { run } = scenario;
    await run.emulator.addFault({ kind: 'reset', afterEvents: 5, path: '/v3/chat/completions', times: 1 });
    await chat.send('Describe the architecture overview');
    assert.equal(await chat.waitForAnswerToSettle(), 'cut-off');
    const answer = chat.lastAnswer();
    const alert = answer.locator('[role="alert"]');
    await alert.waitFor();
    assert.ok((await alert.innerText()).trim().length > 2, 'the cut-off answer carries a message');
    const body = (await chat.answerText(answer))
      .replace(await alert.innerText(), '')
      .replace(/Retry|Assistant/g, '')
      .trim();
    assert.ok(body.length > 0, 'the part received before the drop is kept on screen');
  });
});
