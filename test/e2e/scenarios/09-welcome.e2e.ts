import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { ChatView } from '../harness/chat';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette, volumesRowTexts } from '../harness/steps';

// Issue 14, defects 4 and 5, as a new user meets them: the walkthrough, the chat's own
// welcome with the two ways to connect, a question sent before connecting, and Set API Key
// checking the key (wrong: refused; right: accepted, and the tree lists the volumes). The
// run's settings name the emulator but no key is stored until this scenario sets one.
describe('Scenario 9: first run guides — walkthrough, in-chat welcome, not connected, Set API Key checks the key', function () {
  this.timeout(180_000);
  const scenario = useScenario('9-welcome');
  let chat: ChatView;

  before(async function () {
    const { workbench } = scenario;
    // Earlier scenarios may have stored the key: start from "no key", as a new user does.
    await workbench.runCommand('KSM: Clear API Key');
    await workbench.dialogButton('Remove').click();
    chat = new ChatView(workbench);
  });

  it('KSM: Get Started opens the walkthrough with its three steps', async () => {
    const { workbench } = scenario;
    await workbench.runCommand('KSM: Get Started');
    const page = workbench.page.locator('.gettingStartedContainer');
    await page.getByText('Get Started with KSM Assistant').first().waitFor({ timeout: 20_000 });
    for (const step of ['Connect to a service', 'Upload a file to a volume', 'Ask a question']) {
      assert.ok((await page.getByText(step, { exact: true }).count()) > 0, `the walkthrough shows "${step}"`);
    }
    // Step 1 is open and its media (media/walkthrough/connect.md) is rendered, in a webview of its own.
    await eventually(
      () => frameShowing(workbench.page, 'Connect to a KSM service', 'No account yet: the local emulator'),
      () => 'no frame shows the "connect" step\'s markdown (media/walkthrough/connect.md)',
      20_000,
      500,
    );
    assert.equal(await connectStepCheckbox(page).getAttribute('aria-checked'), 'false', 'not connected yet: "connect" is not checked');
    await workbench.screenshot('walkthrough');
    await workbench.runCommand('View: Close All Editors');
  });

  it('the chat, in its own container, welcomes with Set API Key and Connect to Local Emulator', async () => {
    await chat.open();
    await chat.newChat();
    const welcome = chat.frame.getByRole('region', { name: 'Welcome' });
    await welcome.getByText('Not connected').waitFor({ timeout: 15_000 });
    assert.equal(await welcome.getByRole('button', { name: 'Set API Key', exact: true }).count(), 1);
    assert.equal(await welcome.getByRole('button', { name: 'Connect to Local Emulator', exact: true }).count(), 1);
    // Full height: the chat is alone in its side bar, not a slot under Volumes.
    const height = await scenario.workbench.pane('Chat').evaluate((node) => node.getBoundingClientRect().height);
    assert.ok(height > 400, `the chat pane is ${height} px tall`);
  });

  it('a question sent before connecting says "not connected", not "No model is set"', async () => {
    await chat.send('What is a volume?');
    assert.equal(await chat.waitForAnswerToSettle(), 'error');
    const alert = chat.lastAnswer().locator('[role="alert"]');
    const text = await alert.innerText();
    assert.match(text, /Not connected to a KSM service/);
    assert.doesNotMatch(text, /No model/);
    assert.equal(await chat.lastAnswer().locator('button[aria-label="Retry"]').count(), 1, 'Retry is offered');
    // The notification offers both ways to connect as buttons.
    const { workbench } = scenario;
    const notification = await eventually(
      () => workbench.findNotification(/not connected to a service/),
      async () => `no "not connected" notification; notifications: ${JSON.stringify(await workbench.notifications().allInnerTexts())}`,
      15_000,
    );
    for (const action of ['Set API Key', 'Connect to Local Emulator']) {
      assert.equal(await notification.locator('.monaco-button', { hasText: action }).count(), 1, `the notification offers "${action}"`);
    }
    await workbench.runCommand('Notifications: Clear All Notifications');
  });

  it('Set API Key with a wrong key says the service refused it', async () => {
    const { workbench } = scenario;
    await setApiKeyThroughPalette(workbench, 'ksm-wrong-key-for-e2e');
    await eventually(
      async () => (await workbench.findNotification(/refused this API key/)) !== undefined,
      async () => `no "refused" notification; notifications: ${JSON.stringify(await workbench.notifications().allInnerTexts())}`,
      30_000,
    );
    assert.equal(
      await workbench
        .notifications()
        .filter({ hasText: /KSM API key saved\.$/ })
        .count(),
      0,
      'never a bare "saved"',
    );
    await workbench.runCommand('Notifications: Clear All Notifications');
  });

  it('Set API Key with the right key says accepted, the tree lists the volumes, and Retry answers', async () => {
    const { workbench, run } = scenario;
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    await eventually(
      async () => (await workbench.findNotification(/the service accepted it/)) !== undefined,
      async () => `no "accepted" notification; notifications: ${JSON.stringify(await workbench.notifications().allInnerTexts())}`,
      30_000,
    );
    await workbench.openKsmSideBar();
    await eventually(
      async () => (await workbench.volumesRow('My files').count()) > 0 && (await workbench.volumesRow('The API key was refused').count()) === 0,
      async () => `the tree never listed "My files" without the refused error; rows: ${JSON.stringify(await volumesRowTexts(workbench))}`,
      30_000,
    );
    await chat.open();
    const welcome = chat.frame.getByRole('region', { name: 'Welcome' });
    await eventually(
      async () => (await welcome.getByRole('button', { name: 'Set API Key' }).count()) === 0,
      () => 'the chat still offers to connect after the key was accepted',
      15_000,
    );
    await chat.lastAnswer().locator('button[aria-label="Retry"]').click();
    // The failed answer is replaced in place: wait for the new one to finish, not the old state.
    await eventually(
      async () => (await chat.lastAnswer().getAttribute('data-state')) === 'done',
      async () => `Retry did not answer; the last answer is ${await chat.lastAnswer().getAttribute('data-state')}: ${(await chat.answerText()).slice(0, 200)}`,
      60_000,
    );
    assert.doesNotMatch(await chat.answerText(), /Not connected/);
  });

  it('once connected, the walkthrough\'s "connect" step is checked', async () => {
    const { workbench } = scenario;
    await workbench.runCommand('KSM: Get Started');
    const page = workbench.page.locator('.gettingStartedContainer');
    await page.getByText('Get Started with KSM Assistant').first().waitFor({ timeout: 20_000 });
    await eventually(
      async () => (await connectStepCheckbox(page).getAttribute('aria-checked')) === 'true',
      async () => `"connect" is not checked: aria-checked=${await connectStepCheckbox(page).getAttribute('aria-checked')}`,
      15_000,
    );
    // The tab's own close button: the walkthrough's media page may take the focus from a palette opened now.
    await workbench.page.locator('.tabs-container .tab.active .tab-actions .action-label').click();
    await workbench.page.locator('.gettingStartedContainer').waitFor({ state: 'detached', timeout: 15_000 });
    await chat.open();
  });

  it('a new chat, once connected, offers example questions that fill the message box', async () => {
    await chat.newChat();
    const example = chat.frame.getByRole('region', { name: 'Welcome' }).locator('.welcome-example').first();
    await example.waitFor({ timeout: 15_000 });
    const text = await example.innerText();
    await example.click();
    assert.equal(await chat.composer().inputValue(), text);
  });
});

/** The walkthrough's check mark of its "connect" step (VS Code marks a done step `aria-checked="true"`). */
function connectStepCheckbox(walkthrough: Locator): Locator {
  return walkthrough.locator('[data-done-step-id$="#connect"]').first();
}

/** A frame of the page (webviews are frames in frames) whose text holds every one of `texts`. */
async function frameShowing(page: Page, ...texts: string[]): Promise<boolean> {
  for (const frame of page.frames()) {
    const text = await frame
      .locator('body')
      .innerText({ timeout: 1_000 })
      .catch(() => '');
    if (texts.every((t) => text.includes(t))) return true;
  }
  return false;
}
