// What a user can do with answers and conversations (issue 14, defects 11, 12, 14, 15): the
// actions each answer offers in each state, Continue and the user's own token limit, edit and
// resend of the last question, the ⚙ sign for non-default parameters, the model picker's
// button and the conversations list, in the real bundle in headless Chromium.
import { strict as assert } from 'node:assert';
import type { AnswerState } from '../../src/chat/protocol';
import type { WebviewPage } from './support/chromium';
import { assistantTurn, conversation, init, userTurn } from './support/conversations';
import { useFreshPage, useWebviewSuite } from './support/suite';

describe('webview answers and conversations', function () {
  const suite = useWebviewSuite();
  let webview: WebviewPage;
  useFreshPage(suite, (page) => (webview = page));

  const actionsOf = async (turnId: string) => webview.page.locator(`[data-turn-id="${turnId}"] .turn-actions button`).evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label')));

  describe('answer actions per state', () => {
    const cases: Array<{ state: AnswerState; content: string; latest: string[] }> = [
      { state: 'done', content: 'A full answer.', latest: ['Regenerate', 'Copy answer'] },
      { state: 'length', content: 'A cut answ', latest: ['Continue', 'Regenerate', 'Copy answer'] },
      { state: 'stopped', content: 'Stopped half', latest: ['Continue', 'Retry', 'Copy answer'] },
      { state: 'cut-off', content: 'Half of it', latest: ['Continue', 'Retry', 'Copy answer'] },
      { state: 'error', content: 'Some text', latest: ['Retry', 'Copy answer'] },
      { state: 'error', content: '', latest: ['Retry'] },
      { state: 'streaming', content: 'Still com', latest: [] },
    ];
    for (const { state, content, latest } of cases) {
      it(`${state}${content ? '' : ' before any text'}: the last answer offers ${latest.join(', ') || 'nothing'}; an older one only Copy`, async () => {
        const turns = [userTurn('u1', 'first'), assistantTurn('a1', 'An older answer.'), userTurn('u2', 'second'), assistantTurn('a2', content, { state })];
        await webview.hostPost(init(conversation(turns)));
        await webview.settle();
        assert.deepEqual(await actionsOf('a2'), latest);
        assert.deepEqual(await actionsOf('a1'), ['Copy answer'], 'older answers can be copied, not replaced');
      });
    }

    it('Copy posts the answer id (the host copies its Markdown), Regenerate posts once and then waits', async () => {
      await webview.hostPost(init(conversation([userTurn('u1', 'q'), assistantTurn('a1', 'Answer with `code`.')])));
      await webview.settle();
      const turn = webview.page.locator('[data-turn-id="a1"]');
      await turn.getByRole('button', { name: 'Copy answer' }).click();
      assert.equal(await turn.getByRole('button', { name: 'Copy answer' }).textContent(), '✓ Copied');
      await turn.getByRole('button', { name: 'Regenerate' }).click();
      assert.equal(await turn.getByRole('button', { name: 'Regenerate' }).isDisabled(), true, 'no second request from a double click');
      assert.deepEqual(await webview.posted(), [
        { type: 'copyAnswer', turnId: 'a1' },
        { type: 'regenerate', turnId: 'a1' },
      ]);
    });

    it('Retry on a stopped answer posts retry', async () => {
      await webview.hostPost(init(conversation([userTurn('u1', 'q'), assistantTurn('a1', '', { state: 'streaming' })])));
      await webview.hostPost({ type: 'delta', turnId: 'a1', content: 'Stopped half' }, { type: 'answerUpdate', turnId: 'a1', patch: { state: 'stopped' } });
      await webview.settle();
      await webview.page.locator('[data-turn-id="a1"]').getByRole('button', { name: 'Retry' }).click();
      assert.deepEqual(await webview.posted(), [{ type: 'retry', turnId: 'a1' }]);
    });
  });

  describe('Continue after a length cut', () => {
    it("names the user's own Max tokens limit, offers to raise it in ⚙, and Continue is used once", async () => {
      const cut = assistantTurn('a1', 'Partial answer', { state: 'length', finishReason: 'length', maxTokens: 512 });
      await webview.hostPost(init(conversation([userTurn('u1', 'q'), cut], { parameters: { maxTokens: 512 } })));
      await webview.settle();
      const turn = webview.page.locator('[data-turn-id="a1"]');
      assert.match((await turn.locator('.turn-status').textContent()) ?? '', /Cut at your Max tokens limit \(512, set in ⚙\)/);
      await turn.getByRole('button', { name: 'Raise the Max tokens limit' }).click();
      const dialog = webview.page.getByRole('dialog', { name: 'Chat parameters' });
      assert.equal(await dialog.isVisible(), true, 'Raise limit opens ⚙');
      assert.equal(await webview.page.evaluate<string>('document.activeElement?.id'), 'parameter-maxTokens', 'at the Max tokens field');
      await dialog.getByLabel('Max tokens').fill('4096');
      await dialog.getByRole('button', { name: 'Apply' }).click();
      await turn.getByRole('button', { name: 'Continue' }).click();
      await turn
        .getByRole('button', { name: 'Continue' })
        .click({ force: true })
        .catch(() => undefined);
      assert.deepEqual(await webview.posted(), [
        { type: 'setParameters', parameters: { maxTokens: 4096, responseFormat: 'text' } },
        { type: 'continue', turnId: 'a1' },
      ]);
    });

    it("says the model's own limit cut it when the user set none", async () => {
      await webview.hostPost(init(conversation([userTurn('u1', 'q'), assistantTurn('a1', 'Partial', { state: 'length', finishReason: 'length' })])));
      await webview.settle();
      const status = webview.page.locator('[data-turn-id="a1"] .turn-status');
      assert.match((await status.textContent()) ?? '', /Cut by the model's token limit/);
      assert.equal(await status.getByRole('button').count(), 0);
    });

    it('the same answer streams on in place: one answer, its text kept, and the old Continue gone', async () => {
      const question = userTurn('u1', 'Explain volumes');
      const cut = assistantTurn('a1', 'Volumes hold files and', { state: 'length', finishReason: 'length' });
      await webview.hostPost(init(conversation([question, cut])));
      await webview.settle();
      // What the host posts on Continue: the conversation with that answer streaming again, then deltas.
      const resumed = conversation([question, { ...cut, state: 'streaming', finishReason: undefined }]);
      await webview.hostPost({ type: 'conversation', conversation: resumed, conversations: [] }, { type: 'busy', busy: true });
      await webview.hostPost({ type: 'delta', turnId: 'a1', content: ' their chunks.' });
      await webview.settle();
      assert.deepEqual(await actionsOf('a1'), [], 'no Continue while it streams');
      await webview.hostPost({ type: 'answerUpdate', turnId: 'a1', patch: { state: 'done', finishReason: 'stop' } }, { type: 'busy', busy: false });
      await webview.settle();
      assert.equal(await webview.page.locator('[data-role="assistant"]').count(), 1);
      assert.equal(await webview.page.locator('[data-role="user"]').count(), 1);
      assert.equal((await webview.page.locator('[data-turn-id="a1"] .answer-body').textContent())?.trim(), 'Volumes hold files and their chunks.');
      assert.deepEqual(await actionsOf('a1'), ['Regenerate', 'Copy answer'], 'Continue is gone once used');
    });
  });

  describe('edit and resend', () => {
    it('only the last question has Edit; it fills the composer, Send posts editQuestion, Escape cancels and restores the draft', async () => {
      const turns = [userTurn('u1', 'first question'), assistantTurn('a1', 'one'), userTurn('u2', 'second questoin'), assistantTurn('a2', 'two')];
      await webview.hostPost(init(conversation(turns)));
      await webview.settle();
      assert.equal(await webview.page.locator('[data-turn-id="u1"]').getByRole('button', { name: 'Edit and resend' }).count(), 0);
      const message = webview.page.getByLabel('Message', { exact: true });
      await message.fill('a draft');
      await webview.page.locator('[data-turn-id="u2"]').getByRole('button', { name: 'Edit and resend' }).click();
      assert.equal(await message.inputValue(), 'second questoin');
      assert.match((await webview.page.locator('.edit-banner').textContent()) ?? '', /Editing your last question/);
      await message.press('Escape');
      assert.equal(await message.inputValue(), 'a draft', 'Cancel gives the draft back');
      assert.equal(await webview.page.locator('.edit-banner').isVisible(), false);
      assert.deepEqual(await webview.posted(), []);

      await webview.page.locator('[data-turn-id="u2"]').getByRole('button', { name: 'Edit and resend' }).click();
      await message.fill('second question');
      await message.press('Enter');
      assert.deepEqual(await webview.posted(), [{ type: 'editQuestion', turnId: 'u2', text: 'second question' }]);
      assert.equal(await message.inputValue(), '');
      assert.equal(await webview.page.locator('.edit-banner').isVisible(), false);
      await message.fill('a new question');
      await message.press('Enter');
      assert.deepEqual((await webview.posted()).at(-1), { type: 'send', text: 'a new question' }, 'after the edit, Send sends again');
    });

    it('editing ends when another conversation is shown', async () => {
      await webview.hostPost(init(conversation([userTurn('u1', 'q'), assistantTurn('a1', 'a')])));
      await webview.settle();
      await webview.page.getByRole('button', { name: 'Edit and resend' }).click();
      await webview.hostPost({ type: 'conversation', conversation: conversation([], { id: 'conv-2' }), conversations: [] });
      await webview.settle();
      assert.equal(await webview.page.locator('.edit-banner').isVisible(), false);
      await webview.page.getByLabel('Message', { exact: true }).fill('hello');
      await webview.page.getByLabel('Message', { exact: true }).press('Enter');
      assert.deepEqual(await webview.posted(), [{ type: 'send', text: 'hello' }]);
    });
  });

  describe('header', () => {
    it('⚙ shows a dot and lists the parameters that are not at their defaults', async () => {
      await webview.hostPost(init(conversation([])));
      await webview.settle();
      const toggle = webview.page.getByLabel('Parameters', { exact: true });
      const badge = webview.page.locator('.parameters-badge');
      assert.equal(await badge.isVisible(), false, 'no sign at the defaults');
      assert.equal(await toggle.getAttribute('title'), 'Parameters (all at their defaults)');
      await webview.hostPost({ type: 'conversation', conversation: conversation([], { parameters: { maxTokens: 512, temperature: 0.7, systemPrompt: 'Be brief.' } }), conversations: [] });
      await webview.settle();
      assert.equal(await badge.isVisible(), true);
      assert.equal(await toggle.getAttribute('title'), 'Parameters (3 set: Temperature 0.7, Max tokens 512, System prompt)');
      const describedBy = await toggle.getAttribute('aria-describedby');
      const description = await webview.page.locator(`#${describedBy}`).textContent();
      assert.equal(description, '3 set: Temperature 0.7, Max tokens 512, System prompt.', 'screen readers hear it too');
      // Reasoning settings only count where they are sent: for reasoning models.
      await webview.hostPost({ type: 'conversation', conversation: conversation([], { parameters: { reasoningEffort: 'high' } }), conversations: [] });
      await webview.settle();
      assert.equal(await badge.isVisible(), false);
      await webview.hostPost({ type: 'conversation', conversation: conversation([], { model: 'ksm-reasoner', parameters: { reasoningEffort: 'high' } }), conversations: [] });
      await webview.settle();
      assert.equal(await badge.isVisible(), true);
    });

    it('the model is a button showing the model that opens the picker, never a box hiding other models', async () => {
      await webview.hostPost(init(conversation([], { model: 'ksm-chat-large' })));
      await webview.settle();
      const model = webview.page.getByRole('button', { name: 'Model: ksm-chat-large', exact: true });
      assert.equal((await model.textContent())?.replace('▾', '').trim(), 'ksm-chat-large');
      await model.click();
      assert.deepEqual(await webview.posted(), [{ type: 'pickModel' }]);
      assert.equal(await webview.page.locator('datalist, input[aria-label="Model"]').count(), 0);
    });

    it('the conversations list follows a rename or delete elsewhere; long titles are shortened, whole on hover', async () => {
      const long = 'A question whose first line is long enough that the dropdown has to shorten it somewhere';
      const open = conversation([], { id: 'conv-1', title: 'Open one' });
      await webview.hostPost({
        type: 'init',
        conversation: open,
        conversations: [
          { id: 'conv-1', title: 'Open one', mode: 'chat', updatedAt: 3 },
          { id: 'conv-2', title: 'Old title', mode: 'chat', updatedAt: 2 },
          { id: 'conv-3', title: 'To delete', mode: 'agent', updatedAt: 1 },
        ],
        options: (init(open) as Extract<ReturnType<typeof init>, { type: 'init' }>).options,
      });
      await webview.hostPost({
        type: 'conversationList',
        conversations: [
          { id: 'conv-1', title: 'Open one', mode: 'chat', updatedAt: 3 },
          { id: 'conv-2', title: long, mode: 'chat', updatedAt: 2 },
        ],
      });
      await webview.settle();
      const options = await webview.page
        .locator('select[aria-label="Conversation"] option')
        .evaluateAll((all) => all.map((o) => ({ value: o.getAttribute('value'), text: o.textContent ?? '', title: o.getAttribute('title') })));
      assert.deepEqual(
        options.map((o) => o.value),
        ['conv-1', 'conv-2'],
        'the deleted chat is gone at once',
      );
      assert.ok(options[1].text.startsWith(long.slice(0, 50)) && options[1].text.includes('…') && !options[1].text.includes(long), options[1].text);
      assert.equal(options[1].title, long);
      assert.equal(await webview.page.locator('select[aria-label="Conversation"]').inputValue(), 'conv-1', 'the open conversation stays selected');
    });
  });
});
