// The in-chat welcome (issue 14, defect 4): while no service is set up the chat shows the two
// ways to connect, which post exactly the protocol's `connect` message; once connected an
// empty chat shows example questions that fill the composer; a chat with turns shows none;
// and at 170 px nothing scrolls sideways.
import { strict as assert } from 'node:assert';
import type { WebviewPage } from './support/chromium';
import { assistantTurn, conversation, init, userTurn } from './support/conversations';
import { useFreshPage, useWebviewSuite } from './support/suite';

describe('webview: the in-chat welcome', function () {
  const suite = useWebviewSuite();
  let webview: WebviewPage;
  useFreshPage(suite, (page) => (webview = page));

  const welcome = () => webview.page.getByRole('region', { name: 'Welcome' });

  it('not connected: says so and offers Set API Key and Connect to Local Emulator, each posting its connect action', async () => {
    await webview.hostPost(init(conversation([])), { type: 'connection', connected: false });
    await webview.settle();
    assert.equal(await welcome().isVisible(), true);
    assert.match(await welcome().innerText(), /Not connected/);
    await welcome().getByRole('button', { name: 'Set API Key', exact: true }).click();
    await welcome().getByRole('button', { name: 'Connect to Local Emulator', exact: true }).click();
    assert.deepEqual(await webview.posted(), [
      { type: 'connect', action: 'setApiKey' },
      { type: 'connect', action: 'useLocalEmulator' },
    ]);
    // Still shown above a conversation that already has a (failed) answer.
    await webview.hostPost({ type: 'conversation', conversation: conversation([userTurn('u1', 'hi'), assistantTurn('a1', '', { state: 'error', error: 'Not connected' })]), conversations: [] });
    await webview.settle();
    assert.equal(await welcome().getByRole('button', { name: 'Set API Key', exact: true }).isVisible(), true);
  });

  it('connected: an empty chat shows example questions that fill the composer; a chat with turns shows none', async () => {
    await webview.hostPost(init(conversation([])), { type: 'connection', connected: true });
    await webview.settle();
    assert.equal(await welcome().getByRole('button', { name: 'Set API Key' }).count(), 0);
    const examples = welcome().locator('.welcome-example');
    assert.ok((await examples.count()) >= 2);
    const text = await examples.first().innerText();
    await examples.first().click();
    assert.equal(await webview.page.getByLabel('Message', { exact: true }).inputValue(), text);
    assert.deepEqual(await webview.posted(), [], 'an example only fills the composer');
    await webview.hostPost({ type: 'conversation', conversation: conversation([userTurn('u1', 'hi'), assistantTurn('a1', 'hello', { state: 'done' })]), conversations: [] });
    await webview.settle();
    assert.equal(await welcome().isVisible(), false);
  });

  it('switches from connect to examples when the host says the connection is set up', async () => {
    await webview.hostPost(init(conversation([])), { type: 'connection', connected: false });
    await webview.hostPost({ type: 'connection', connected: true });
    await webview.settle();
    assert.equal(await welcome().getByRole('button', { name: 'Connect to Local Emulator' }).count(), 0);
    assert.ok((await welcome().locator('.welcome-example').count()) > 0);
  });

  it('fits a view only 180 px tall: the page itself never scrolls, the composer stays on screen', async () => {
    await webview.page.setViewportSize({ width: 170, height: 180 });
    await webview.hostPost(init(conversation([])), { type: 'connection', connected: false });
    await webview.settle();
    const geometry = (await webview.page.evaluate(`(() => {
      const root = document.scrollingElement;
      const composer = document.querySelector('.composer').getBoundingClientRect();
      return { scrollHeight: root.scrollHeight, clientHeight: root.clientHeight, scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, composerBottom: composer.bottom, height: innerHeight };
    })()`)) as { scrollHeight: number; clientHeight: number; scrollWidth: number; clientWidth: number; composerBottom: number; height: number };
    assert.ok(geometry.scrollHeight <= geometry.clientHeight + 1, JSON.stringify(geometry));
    assert.ok(geometry.scrollWidth <= geometry.clientWidth, JSON.stringify(geometry));
    assert.ok(geometry.composerBottom <= geometry.height + 1, JSON.stringify(geometry));
  });

  it('fits a 170 px side bar: no sideways scroll, both buttons on screen', async () => {
    await webview.page.setViewportSize({ width: 170, height: 500 });
    await webview.hostPost(init(conversation([])), { type: 'connection', connected: false });
    await webview.settle();
    // Plain JS for the page (tests compile without the DOM lib).
    const geometry = (await webview.page.evaluate(`(() => {
      const root = document.scrollingElement;
      const buttons = [...document.querySelectorAll('.welcome button')].map((b) => b.getBoundingClientRect());
      return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, rights: buttons.map((r) => r.right) };
    })()`)) as { scrollWidth: number; clientWidth: number; rights: number[] };
    assert.ok(geometry.scrollWidth <= geometry.clientWidth, JSON.stringify(geometry));
    for (const right of geometry.rights) assert.ok(right <= 170, JSON.stringify(geometry));
  });
});
