// Accessibility of the chat webview (issue 26): axe-core, the engine behind most accessibility
// checkers, runs in headless Chromium on the real bundle under the host's CSP, in the states a
// user meets: idle, mid-stream, an agent answer with numbered sources and a code block, the ⚙
// popover open, and the conversation list, in a light and a high-contrast theme. No critical
// and no serious finding is allowed.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import type { AxeResults } from 'axe-core';
import type { WebviewPage } from './support/chromium';
import { assistantTurn, conversation, init, modelOptions, userTurn } from './support/conversations';
import { APPLY_THEME_IN_PAGE, DARK_HIGH_CONTRAST, LIGHT_MODERN, type VsCodeTheme } from './support/vscodeThemes';
import { useFreshPage, useWebviewSuite } from './support/suite';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const CODE_ANSWER = [
  'Use the client as below [1], then page through the results [2].',
  '',
  '```ts',
  `const client = new KsmClient({ baseUrl: 'http://127.0.0.1:8787', apiKey: process.env.KSM_API_KEY, userId: 'dev', timeoutMs: 30000 });`,
  'for await (const page of client.files.list({ volume: "docs" })) console.log(page.items.length);',
  '```',
  '',
  'That is all [1].',
].join('\n');

const SOURCES = [
  { fileId: 'f1', filename: 'client.md', volume: 'docs', volumeLabel: 'docs', snippet: 'new KsmClient({...})', score: 0.91, markers: [1] },
  { fileId: 'f2', filename: 'paging.md', volume: 'docs', volumeLabel: 'docs', snippet: 'list() pages', score: 0.72, markers: [2] },
];

/** Runs axe on the whole page; returns the critical and serious findings, one line each. */
async function seriousFindings(webview: WebviewPage): Promise<string[]> {
  // CDP's evaluate is not subject to the page's CSP, as a test harness should be.
  await webview.page.evaluate(AXE_SOURCE);
  const results = (await webview.page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as AxeResults;
  return results.violations
    .filter((violation) => violation.impact === 'critical' || violation.impact === 'serious')
    .flatMap((violation) => violation.nodes.map((node) => `${violation.impact} ${violation.id}: ${node.target.join(' ')} — ${node.failureSummary?.split('\n').slice(0, 2).join(' ')}`));
}

describe('webview accessibility (axe-core)', function () {
  const suite = useWebviewSuite();
  let webview: WebviewPage;
  useFreshPage(suite, (page) => (webview = page));

  for (const theme of [LIGHT_MODERN, DARK_HIGH_CONTRAST] as VsCodeTheme[]) {
    const themed = async () => {
      await webview.page.evaluate(`(${APPLY_THEME_IN_PAGE})(${JSON.stringify(theme)})`);
    };

    it(`${theme.name}: idle (an empty conversation)`, async () => {
      await themed();
      await webview.hostPost(init(conversation([])), { type: 'connection', connected: true });
      await webview.settle();
      assert.deepEqual(await seriousFindings(webview), []);
    });

    it(`${theme.name}: mid-stream`, async () => {
      await themed();
      await webview.hostPost(
        init(conversation([userTurn('u1', 'How do I page?'), assistantTurn('a1', '', { state: 'streaming' })])),
        { type: 'busy', busy: true },
        { type: 'delta', turnId: 'a1', content: CODE_ANSWER.slice(0, 180) },
      );
      await webview.settle();
      assert.equal(await webview.page.locator('.turns').getAttribute('aria-busy'), 'true');
      assert.deepEqual(await seriousFindings(webview), []);
    });

    it(`${theme.name}: an agent answer with sources and a code block`, async () => {
      await themed();
      await webview.hostPost(
        init(
          conversation([userTurn('u1', 'How do I page?'), assistantTurn('a1', CODE_ANSWER, { citations: SOURCES, threadId: 't1' })], {
            mode: 'agent',
            model: 'ksm-agent-model',
            agentId: 'agent-42',
          }),
        ),
      );
      await webview.settle();
      assert.equal(await webview.page.locator('.code-block pre').count(), 1);
      assert.ok((await webview.page.locator('[data-turn-id="a1"] [data-citation-marker]').count()) > 0, 'the answer shows its markers');
      assert.deepEqual(await seriousFindings(webview), []);
    });

    it(`${theme.name}: a chat answer with the ⚙ popover open`, async () => {
      await themed();
      await webview.hostPost(init(conversation([userTurn('u1', 'How do I page?'), assistantTurn('a1', CODE_ANSWER)])));
      await webview.settle();
      await webview.page.locator('.parameters-toggle').click();
      await webview.settle();
      assert.equal(await webview.page.locator('.parameters-toggle').getAttribute('aria-expanded'), 'true');
      assert.deepEqual(await seriousFindings(webview), []);
    });

    it(`${theme.name}: the conversation list`, async () => {
      await themed();
      const open = conversation([userTurn('u1', 'How do I page?'), assistantTurn('a1', 'Like this.')]);
      await webview.hostPost({
        type: 'init',
        conversation: open,
        conversations: [
          { id: open.id, title: open.title, mode: 'chat', updatedAt: open.updatedAt },
          { id: 'conv-2', title: 'Older agent talk', mode: 'agent', updatedAt: open.updatedAt - 86_400_000 },
          { id: 'conv-3', title: '', mode: 'chat', updatedAt: open.updatedAt - 2 * 86_400_000 },
        ],
        options: modelOptions,
      });
      await webview.settle();
      await webview.page.locator('.conversation-select').focus();
      assert.equal(await webview.page.locator('.conversation-select option').count(), 3);
      assert.deepEqual(await seriousFindings(webview), []);
    });
  }
});
