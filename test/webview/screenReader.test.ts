// What a screen-reader user hears and can do in the chat panel (issue 26): the live region
// announces an answer's start, its end with its first sentence (or its length), a stop and a
// continue, and always holds the latest event (never "stopped" while the answer streams on);
// Alt+F2 asks the host for the last answer as plain text.
import { strict as assert } from 'node:assert';
import type { WebviewPage } from './support/chromium';
import { assistantTurn, conversation, init, userTurn } from './support/conversations';
import { useFreshPage, useWebviewSuite } from './support/suite';

describe('webview screen-reader announcements', function () {
  const suite = useWebviewSuite();
  let webview: WebviewPage;
  useFreshPage(suite, (page) => (webview = page));

  const live = () => webview.page.locator('[role="status"][aria-live="polite"]');
  const said = async () => ((await live().textContent()) ?? '').trim();

  async function ask(turnId: string, earlier: ReturnType<typeof userTurn>[] = []) {
    await webview.hostPost(
      { type: 'conversation', conversation: conversation([...earlier, userTurn(`u-${turnId}`, 'How?'), assistantTurn(turnId, '', { state: 'streaming' })]), conversations: [] },
      { type: 'busy', busy: true },
    );
    await webview.settle();
  }

  it('says when an answer starts, then its first sentence when it is done, in one atomic region', async () => {
    await webview.hostPost(init(conversation([])));
    await webview.settle();
    assert.equal(await said(), '', 'nothing is said before anything happens');
    assert.equal(await live().getAttribute('aria-atomic'), 'true');
    await ask('a1');
    assert.equal(await said(), 'Answering…');
    await webview.hostPost({ type: 'delta', turnId: 'a1', content: 'Volumes hold **your files** [1]. Each file is split into chunks.\n\nMore text.' });
    await webview.settle();
    assert.equal(await said(), 'Answering…', 'streamed words are not announced');
    await webview.hostPost({ type: 'answerUpdate', turnId: 'a1', patch: { state: 'done', finishReason: 'stop' } }, { type: 'busy', busy: false });
    await webview.settle();
    assert.equal(await said(), 'Volumes hold your files [1].');
  });

  it('says "Answer ready, N words" when the answer starts with code or a very long sentence', async () => {
    await webview.hostPost(init(conversation([])));
    await ask('a1');
    await webview.hostPost({ type: 'delta', turnId: 'a1', content: '```ts\nconst a = 1;\nconst b = 2;\n```\n\nThat is it.' });
    await webview.hostPost({ type: 'answerUpdate', turnId: 'a1', patch: { state: 'done' } });
    await webview.settle();
    assert.equal(await said(), 'Answer ready, 11 words.');
    await ask('a2', [userTurn('u-a1', 'How?')]);
    await webview.hostPost({ type: 'delta', turnId: 'a2', content: `${'word '.repeat(60)}end.` });
    await webview.hostPost({ type: 'answerUpdate', turnId: 'a2', patch: { state: 'done' } });
    await webview.settle();
    assert.equal(await said(), 'Answer ready, 61 words.');
  });

  it('says a stop, then "continuing" while it streams again (never the stale "stopped"), then the end', async () => {
    const question = userTurn('u1', 'Explain volumes');
    await webview.hostPost(init(conversation([question, assistantTurn('a1', '', { state: 'streaming' })])), { type: 'busy', busy: true });
    await webview.settle();
    await webview.hostPost({ type: 'delta', turnId: 'a1', content: 'Volumes hold files and' });
    await webview.hostPost({ type: 'answerUpdate', turnId: 'a1', patch: { state: 'stopped' } }, { type: 'busy', busy: false });
    await webview.settle();
    assert.equal(await said(), 'Answer stopped after 4 words.');
    // Continue: the host sends the conversation with that answer streaming again, then deltas.
    const resumed = conversation([question, assistantTurn('a1', 'Volumes hold files and', { state: 'streaming' })]);
    await webview.hostPost({ type: 'conversation', conversation: resumed, conversations: [] }, { type: 'busy', busy: true });
    await webview.settle();
    assert.equal(await said(), 'Continuing the answer…');
    await webview.hostPost({ type: 'delta', turnId: 'a1', content: ' their chunks.' });
    await webview.hostPost({ type: 'answerUpdate', turnId: 'a1', patch: { state: 'done' } }, { type: 'busy', busy: false });
    await webview.settle();
    assert.equal(await said(), 'Volumes hold files and their chunks.');
  });

  it('says a failure with its reason, and nothing for a conversation opened with a finished answer', async () => {
    await webview.hostPost(init(conversation([userTurn('u1', 'q'), assistantTurn('a0', 'Old answer.')])));
    await webview.settle();
    assert.equal(await said(), '', 'opening a conversation announces no old answer');
    await ask('a1', [userTurn('u1', 'q')]);
    await webview.hostPost({ type: 'answerUpdate', turnId: 'a1', patch: { state: 'error', error: 'The service is not reachable.' } });
    await webview.settle();
    assert.equal(await said(), 'Answer failed: The service is not reachable.');
  });

  it('Alt+F2 asks the host for the last answer as plain text, from anywhere in the panel', async () => {
    await webview.hostPost(init(conversation([userTurn('u1', 'q'), assistantTurn('a1', 'An answer.')])));
    await webview.settle();
    await webview.page.getByLabel('Message', { exact: true }).focus();
    await webview.page.keyboard.press('Alt+F2');
    await webview.page.locator('[data-turn-id="a1"]').focus();
    await webview.page.keyboard.press('Alt+F2');
    assert.deepEqual(await webview.posted(), [{ type: 'readLastAnswer' }, { type: 'readLastAnswer' }]);
  });
});
