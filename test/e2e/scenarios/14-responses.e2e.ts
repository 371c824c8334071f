import assert from 'node:assert/strict';
import { ChatView } from '../harness/chat';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette } from '../harness/steps';

describe('Scenario 14: a conversation in the Responses format — chosen in ⚙, it streams with its reasoning and usage; Stop and Continue work; Advanced validates', function () {
  this.timeout(240_000);
  const scenario = useScenario('14-responses');
  let chat: ChatView;

  before(async function () {
    await setApiKeyThroughPalette(scenario.workbench, scenario.run.emulator.apiKey);
    chat = new ChatView(scenario.workbench);
    await chat.open();
    await chat.newChat();
  });

  it('⚙ sets the answer format to Responses on a reasoning model; Advanced refuses a fifth stop sequence next to the field', async () => {
    const { workbench } = scenario;
    const model = chat.frame.locator('button.model-button');
    await model.click();
    await workbench.quickInput().locator('.quick-input-title', { hasText: 'KSM: Chat Model' }).waitFor({ timeout: 15_000 });
    await workbench
      .quickInputRows()
      .filter({ hasText: /^emu-reasoner/ })
      .first()
      .click();
    await eventually(
      async () => (await chat.frame.locator('.model-name').innerText()) === 'emu-reasoner',
      () => 'the model did not change',
      10_000,
    );

    const parameters = chat.frame.locator('button[aria-label="Parameters"]');
    await parameters.click();
    await chat.frame.locator('#parameter-outputFormat').selectOption('responses');
    await chat.frame.locator('#parameter-reasoningEffort').selectOption('low');
    await chat.frame.locator('.advanced-group > summary').click();
    await chat.frame.locator('#parameter-stop').fill('a\nb\nc\nd\ne');
    await chat.frame.getByRole('button', { name: 'Apply', exact: true }).click();
    await eventually(
      async () => /Stop sequences must be 1 to 4 sequences/.test(await chat.frame.locator('#parameter-stop-error').innerText()),
      () => 'no error next to Stop sequences',
      10_000,
    );
    await workbench.screenshot('advanced-refuses-five-stops');
    await chat.frame.locator('#parameter-stop').fill('');
    await chat.frame.getByRole('button', { name: 'Apply', exact: true }).click();
    await eventually(
      async () => /Responses format/.test((await parameters.getAttribute('title')) ?? ''),
      async () => `⚙ says ${await parameters.getAttribute('title')}`,
      10_000,
    );
  });

  it('streams the answer with its reasoning and usage', async () => {
    await chat.send('Why do tides happen?');
    assert.equal(await chat.waitForAnswerToSettle(), 'done');
    const answer = chat.lastAnswer();
    assert.match(await chat.answerText(answer), /Why do tides happen/);
    await eventually(
      async () => (await answer.locator('details.reasoning').count()) === 1,
      () => 'no reasoning shown',
      10_000,
    );
    await answer.locator('details.reasoning > summary').click();
    assert.match(await answer.locator('details.reasoning .reasoning-text').innerText(), /The user asks/);
    assert.match(await answer.innerText(), /reasoning \d/);
    await scenario.workbench.screenshot('responses-answer');
  });

  it('Stop ends a Responses answer, and Continue extends it in place', async () => {
    await chat.send('Tell me about the deployment pipeline in detail');
    const answer = chat.lastAnswer();
    await eventually(
      async () => (await answer.getAttribute('data-state')) === 'streaming' && (await chat.answerText(answer)).length > 20,
      () => 'the answer never streamed',
      20_000,
      50,
    );
    await chat.stopButton().click();
    await eventually(
      async () => (await chat.lastAnswer().getAttribute('data-state')) === 'stopped',
      () => 'the answer did not stop',
      10_000,
    );
    const id = await chat.lastAnswer().getAttribute('data-turn-id');
    const stoppedText = (await chat.lastAnswer().locator('.answer-body').innerText()).trim();
    await chat.lastAnswer().locator('.turn-actions button[aria-label="Continue"]').click();
    await eventually(
      async () => (await chat.lastAnswer().getAttribute('data-state')) === 'done',
      async () => `the answer is ${await chat.lastAnswer().getAttribute('data-state')} after Continue`,
      60_000,
      100,
    );
    assert.equal(await chat.lastAnswer().getAttribute('data-turn-id'), id, 'the same answer');
    const grown = (await chat.lastAnswer().locator('.answer-body').innerText()).trim();
    assert.ok(grown.length > stoppedText.length, 'the answer grew');
  });
});
