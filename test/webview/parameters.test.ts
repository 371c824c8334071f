// The ⚙ Parameters form in the real bundle in headless Chromium: the Advanced section (stop
// sequences, seed, penalties) and the answer format, typed as a user would, judged exactly
// as the host, the client and VS Code's Chat judge the same values (the one table of cases,
// test/api/chatParameterCases.ts); and a conversation in the Responses format shows its
// reasoning and usage as it streams, with Stop and Continue.
import { strict as assert } from 'node:assert';
import { parameterRule, type ChatParameterName } from '../../src/api/chatParameterLimits';
import { CASES } from '../api/chatParameterCases';
import type { WebviewPage } from './support/chromium';
import { assistantTurn, chunk, conversation, init, userTurn } from './support/conversations';
import { useFreshPage, useWebviewSuite } from './support/suite';

describe('webview ⚙ parameters: Advanced, the answer format, and the same rules as every other layer', function () {
  const suite = useWebviewSuite();
  let webview: WebviewPage;
  useFreshPage(suite, (page) => (webview = page));

  async function openParameters(model = 'ksm-reasoner'): Promise<void> {
    await webview.hostPost(init(conversation([], { model })));
    await webview.settle();
    await webview.page.getByLabel('Parameters', { exact: true }).click();
  }

  /** Whether a user can enter the value at all (a number field takes no NaN, a select only its options). */
  const typable = (name: string, value: unknown) => {
    const rule = parameterRule(name as ChatParameterName);
    if (rule.input === 'number') return typeof value === 'number' && Number.isFinite(value);
    if (rule.input === 'choice') return (rule.choices ?? []).some(([choice]) => choice === value);
    return true;
  };

  /** Types one value into its field as a user would. */
  async function typeValue(name: ChatParameterName, value: unknown): Promise<void> {
    const rule = parameterRule(name);
    const field = webview.page.locator(`#parameter-${name}`);
    if (rule.section === 'advanced' && !(await field.isVisible())) await webview.page.locator('.advanced-group > summary').click();
    if (rule.input === 'choice') await field.selectOption(String(value));
    else await field.fill(rule.input === 'lines' ? (value as string[]).join('\n') : String(value));
  }

  // The cases a user can type (the rest, such as NaN, reach only the host: the other suite).
  for (const [name, parameters, allowed] of CASES.filter(([, parameters]) => Object.entries(parameters).every(([key, value]) => typable(key, value)))) {
    it(`${allowed ? 'posts' : 'refuses, next to the field,'} ${name}`, async function () {
      await openParameters();
      for (const [key, value] of Object.entries(parameters)) await typeValue(key as ChatParameterName, value);
      await webview.page.getByRole('button', { name: 'Apply' }).click();
      await webview.settle();
      const posted = (await webview.posted()).filter((m) => m.type === 'setParameters');
      if (allowed) {
        assert.deepEqual(posted, [{ type: 'setParameters', parameters: { responseFormat: 'text', ...parameters } }]);
      } else {
        assert.deepEqual(posted, [], 'nothing posted');
        const errors = await webview.page.locator('.field-error:not([hidden])').allTextContents();
        assert.equal(errors.length, 1, JSON.stringify(errors));
        const [key] = Object.keys(parameters) as ChatParameterName[];
        assert.ok(errors[0].startsWith(parameterRule(key).label) || /either a reasoning effort or a reasoning token budget/.test(errors[0]), errors[0]);
      }
    });
  }

  it('Advanced is folded until opened, and opens by itself for a conversation that set one of its parameters', async () => {
    await openParameters('ksm-chat-small');
    assert.equal(await webview.page.locator('#parameter-seed').isVisible(), false);
    await webview.page.getByRole('button', { name: 'Cancel' }).click();
    await webview.hostPost({ type: 'conversation', conversation: conversation([], { parameters: { seed: 9, stop: ['END', '###'] } }), conversations: [] });
    await webview.settle();
    await webview.page.getByLabel('Parameters', { exact: true }).click();
    assert.equal(await webview.page.locator('#parameter-seed').isVisible(), true, 'Advanced opened by itself');
    assert.equal(await webview.page.locator('#parameter-seed').inputValue(), '9');
    assert.equal(await webview.page.locator('#parameter-stop').inputValue(), 'END\n###');
    assert.equal(await webview.page.getByLabel('Parameters', { exact: true }).getAttribute('title'), 'Parameters (2 set: Stop "END", "###", Seed 9)');
  });

  it('a Responses conversation names its format on ⚙, streams reasoning and text with usage, and offers Continue after Stop', async () => {
    await webview.hostPost(init(conversation([userTurn('u1', 'Why tides?'), assistantTurn('a1', '', { state: 'streaming' })], { model: 'ksm-reasoner', parameters: { outputFormat: 'responses' } })));
    await webview.hostPost({ type: 'busy', busy: true });
    await webview.settle();
    assert.match((await webview.page.getByLabel('Parameters', { exact: true }).getAttribute('title')) ?? '', /Responses format/);
    for (const piece of chunk('The moon pulls the sea.')) await webview.hostPost({ type: 'delta', turnId: 'a1', reasoning: piece });
    for (const piece of chunk('Tides come from the moon.')) await webview.hostPost({ type: 'delta', turnId: 'a1', content: piece });
    await webview.page.getByRole('button', { name: 'Stop' }).click();
    assert.deepEqual(
      (await webview.posted()).filter((m) => m.type === 'stop'),
      [{ type: 'stop' }],
    );
    await webview.hostPost({ type: 'busy', busy: false });
    await webview.hostPost({ type: 'answerUpdate', turnId: 'a1', patch: { state: 'stopped', usage: { promptTokens: 9, completionTokens: 12, reasoningTokens: 5, totalTokens: 21 } } });
    await webview.settle();
    const turn = webview.page.locator('[data-turn-id="a1"]');
    assert.equal(await turn.locator('details.reasoning .reasoning-text').textContent(), 'The moon pulls the sea.');
    assert.match((await turn.textContent()) ?? '', /Tides come from the moon\./);
    assert.match((await turn.textContent()) ?? '', /reasoning 5/);
    await turn.getByRole('button', { name: 'Continue' }).click();
    assert.deepEqual(
      (await webview.posted()).filter((m) => m.type === 'continue'),
      [{ type: 'continue', turnId: 'a1' }],
    );
  });
});
