// The webview treats every string from the host as hostile: model output, reasoning,
// citation and attachment names, error text, conversation titles and model names. The
// corpus runs twice: under the host's CSP, and with no CSP at all so that the sanitizer
// alone must hold (a CSP that silently blocks an injected handler would otherwise hide it).
import { strict as assert } from 'node:assert';
import type { WebviewToHost } from '../../src/chat/protocol';
import type { WebviewPage } from './support/chromium';
import { assistantTurn, chunk, conversation, init, modelOptions, userTurn } from './support/conversations';
import { HOSTILE_PAYLOADS } from './support/hostilePayloads';
import { useWebviewSuite } from './support/suite';

/** Every element the app itself creates; anything else in #app came from input. */
const APP_TAGS = [
  'header',
  'main',
  'footer',
  'div',
  'span',
  'select',
  'option',
  'input',
  'datalist',
  'button',
  'label',
  'form',
  'fieldset',
  'legend',
  'textarea',
  'article',
  'details',
  'summary',
  'ul',
  'li',
  // markdown output allowed by the sanitizer
  'p',
  'br',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'strong',
  'em',
  's',
  'del',
  'code',
  'pre',
  'blockquote',
  'ol',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
];

interface AuditNode {
  localName: string;
  attributes: ArrayLike<{ name: string; value: string }>;
}
interface AuditDocument {
  querySelectorAll(selector: string): ArrayLike<AuditNode>;
  head: { children: ArrayLike<AuditNode> };
}
interface ClickableNode {
  click(): void;
}

/** Problems found in the live DOM: foreign tags, handlers, styles, URL-bearing attributes. */
async function auditDom(webview: WebviewPage): Promise<string[]> {
  return webview.page.evaluate((allowedTags) => {
    const document = (globalThis as unknown as { document: AuditDocument }).document;
    const problems: string[] = [];
    const nodes = Array.from(document.querySelectorAll('#app *'));
    for (const node of nodes) {
      if (!allowedTags.includes(node.localName)) problems.push(`element <${node.localName}>`);
      for (const { name, value } of Array.from(node.attributes)) {
        if (/^on|^style$|^(href|src|srcset|srcdoc|action|formaction|xlink:href|background|poster|data)$|:/i.test(name)) {
          problems.push(`<${node.localName} ${name}="${value.slice(0, 60)}">`);
        }
      }
    }
    const outside = Array.from(document.querySelectorAll('body > *')).map((node) => node.localName);
    if (outside.join() !== 'div,script') problems.push(`body children changed: ${outside.join()}`);
    const head = Array.from(document.head.children).map((node) => node.localName);
    if (head.join() !== 'meta,meta,title,link,link,script') problems.push(`head changed: ${head.join()}`);
    return problems;
  }, APP_TAGS);
}

describe('hostile payloads', function () {
  const suite = useWebviewSuite();

  before(async () => {
    assert.ok(HOSTILE_PAYLOADS.length >= 100, 'a corpus of at least 100 payloads');
    assert.equal(new Set(HOSTILE_PAYLOADS).size, HOSTILE_PAYLOADS.length, 'payloads are distinct');
  });

  for (const csp of [true, false]) {
    describe(csp ? 'under the host CSP' : 'without any CSP (the sanitizer alone)', () => {
      let webview: WebviewPage;
      let pageUrl: string;

      beforeEach(async () => {
        webview = await suite.openPage({ csp });
        // The transcript renders only the turns near the viewport; a view tall enough for
        // every payload's turn puts all of them in the DOM, so each one is audited.
        await webview.page.setViewportSize({ width: 420, height: 40_000 });
        pageUrl = webview.page.url();
        await webview.clearPosted();
      });
      afterEach(async () => {
        await webview.close();
      });

      /** Clicks every link and button in the transcript, then checks nothing escaped. */
      async function assertContained(): Promise<void> {
        await webview.page.locator('.transcript a, .transcript button').evaluateAll((nodes) => nodes.forEach((node) => (node as unknown as ClickableNode).click()));
        await webview.settle();
        await new Promise((resolve) => setTimeout(resolve, 200));

        assert.equal(await webview.page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned), undefined, 'no script ran');
        assert.deepEqual(webview.dialogs, [], 'no dialog opened');
        assert.deepEqual(webview.popups, [], 'no popup opened');
        assert.deepEqual(webview.pageErrors, [], 'no page errors');
        assert.equal(webview.page.url(), pageUrl, 'no navigation');
        assert.equal(webview.page.frames().length, 1, 'no frame was created');
        const allowed = [pageUrl, `${suite.server.origin}/chat.js`, `${suite.server.origin}/chat-style.css`, `${suite.server.origin}/vscode-defaults.css`];
        assert.deepEqual(
          webview.requests.filter((url) => !allowed.includes(url)),
          [],
          'no request left the page',
        );
        assert.deepEqual(await webview.violations(), [], 'nothing even tried what the CSP forbids');
        assert.deepEqual(
          webview.consoleMessages.filter((text) => /refused|pwned|error/i.test(text)),
          [],
        );
        assert.deepEqual(await auditDom(webview), []);
        const links = (await webview.posted()).filter((message): message is Extract<WebviewToHost, { type: 'openLink' }> => message.type === 'openLink');
        for (const { href } of links) assert.match(href, /^(https?:|mailto:)/i, `only web links are offered to the host: ${href}`);
      }

      it('as model output, whole and streamed', async () => {
        const turns = HOSTILE_PAYLOADS.flatMap((payload, index) => [userTurn(`u${index}`, payload), assistantTurn(`a${index}`, payload)]);
        await webview.hostPost(init(conversation([...turns, assistantTurn('live', '', { state: 'streaming' })])));
        const pieces = chunk(HOSTILE_PAYLOADS.join('\n\n'));
        for (let index = 0; index < pieces.length; index += 50) {
          await webview.hostPost(...pieces.slice(index, index + 50).map((content) => ({ type: 'delta' as const, turnId: 'live', content })));
          await webview.settle();
        }
        await webview.hostPost({ type: 'answerUpdate', turnId: 'live', patch: { state: 'error', error: HOSTILE_PAYLOADS[0] } });
        await webview.settle();
        assert.equal(await webview.page.locator('[data-role="assistant"]').count(), HOSTILE_PAYLOADS.length + 1);
        const userTexts = await webview.page.locator('.user-text').allTextContents();
        assert.deepEqual(userTexts, [...HOSTILE_PAYLOADS], 'user turns show the text exactly, as text');
        await assertContained();
      });

      it('as reasoning, whole and streamed', async () => {
        const turns = HOSTILE_PAYLOADS.map((payload, index) => assistantTurn(`a${index}`, 'answer', { reasoning: payload }));
        await webview.hostPost(init(conversation([...turns, assistantTurn('live', '', { state: 'streaming' })])));
        for (const piece of chunk(HOSTILE_PAYLOADS.join('\n'))) await webview.hostPost({ type: 'delta', turnId: 'live', reasoning: piece });
        await webview.hostPost({ type: 'answerUpdate', turnId: 'live', patch: { state: 'done' } });
        await webview.settle();
        const shown = await webview.page.locator('.reasoning-text').allTextContents();
        assert.deepEqual(shown, [...HOSTILE_PAYLOADS, HOSTILE_PAYLOADS.join('\n')], 'reasoning is shown exactly, as text');
        await webview.page.locator('details.reasoning').evaluateAll((nodes) => nodes.forEach((node) => node.setAttribute('open', '')));
        await assertContained();
      });

      it('as citation names, attachment names, code chips, context volumes and error text', async () => {
        const citations = HOSTILE_PAYLOADS.map((payload, index) => ({ fileId: `f${index}`, filename: payload, volume: payload, volumeLabel: payload, snippet: payload }));
        const attachments = HOSTILE_PAYLOADS.map((payload, index) => ({ fileId: `p${index}`, filename: payload, size: 1, volume: payload }));
        const code = HOSTILE_PAYLOADS.map((payload, index) => ({
          id: `x-${String(index).padStart(12, '0')}`,
          filename: payload,
          languageId: payload,
          text: payload,
          lines: { start: index + 1, end: index + 2 },
        }));
        const contextVolumes = HOSTILE_PAYLOADS.map((payload) => ({ volume: payload, label: payload, personal: false }));
        await webview.hostPost(
          init(
            conversation(
              [
                { ...userTurn('u1', 'q'), attachments, code },
                assistantTurn('a1', 'See the sources.', { citations }),
                ...HOSTILE_PAYLOADS.map((payload, index) => assistantTurn(`e${index}`, 'partial', { state: 'error', error: payload })),
              ],
              { mode: 'agent', pendingAttachments: attachments, pendingCode: code, contextVolumes },
            ),
          ),
        );
        await webview.settle();
        const sources = webview.page.getByTestId('citations');
        assert.deepEqual(await sources.locator('.citation-file').allTextContents(), [...HOSTILE_PAYLOADS], 'file names shown exactly, as text');
        assert.deepEqual(
          await sources.locator('.citation-number').allTextContents(),
          HOSTILE_PAYLOADS.map((_, i) => `[${i + 1}]`),
        );
        const codeLabels = HOSTILE_PAYLOADS.map((payload, i) => `${payload} · lines ${i + 1}-${i + 2}`);
        assert.deepEqual(await webview.page.locator('.user-turn .code-chip .chip-label').allTextContents(), codeLabels, 'sent code chips as text');
        assert.deepEqual(await webview.page.locator('.composer .code-chip .chip-label').allTextContents(), codeLabels, 'waiting code chips as text');
        assert.deepEqual(await webview.page.getByTestId('volume-chips').locator('.chip-label').allTextContents(), [...HOSTILE_PAYLOADS], 'volume chips as text');
        const errors = await webview.page.locator('.turn-error').allTextContents();
        assert.deepEqual(
          errors,
          HOSTILE_PAYLOADS.map((payload) => `⚠ ${payload}`),
        );
        await assertContained();
        const opened = (await webview.posted()).filter((message) => message.type === 'openCitation');
        assert.deepEqual(
          opened,
          HOSTILE_PAYLOADS.map((_, i) => ({ type: 'openCitation', turnId: 'a1', marker: i + 1 })),
          'each source posts only its answer and marker',
        );
        const contextFiles = HOSTILE_PAYLOADS.map((payload, index) => ({ fileId: `c${index}`, filename: payload, size: 1, volume: payload }));
        await webview.hostPost({ type: 'conversation', conversation: conversation([assistantTurn('a1', 'See the sources.', { citations })], { mode: 'agent', contextFiles }), conversations: [] });
        await webview.settle();
        assert.deepEqual(await webview.page.getByTestId('file-chips').locator('.chip-label').allTextContents(), [...HOSTILE_PAYLOADS], 'file chips as text');
        await assertContained();
      });

      it("as forged citation markers: only the answer's own text [n] with a source becomes one, named as text", async () => {
        const forged = [
          '<span data-citation-marker="1" role="link" tabindex="0" onclick="globalThis.__pwned=1">[1]</span>',
          '<a data-citation-marker="2" href="javascript:globalThis.__pwned=2">[2]</a>',
          '[[1]](javascript:globalThis.__pwned=3)',
          '[[2]](command:workbench.action.terminal.new)',
          '`[1]`',
          '<img src=x onerror="globalThis.__pwned=4">[9]',
          '\\[1\\]',
          'real [1] and [2]',
        ].join('\n\n');
        const citations = [HOSTILE_PAYLOADS[0]!, HOSTILE_PAYLOADS[1]!].map((payload, index) => ({ fileId: `f${index}`, filename: payload, markers: [index + 1] }));
        await webview.hostPost(init(conversation([assistantTurn('whole', forged, { citations }), assistantTurn('live', '', { state: 'streaming' })], { mode: 'agent' })));
        for (const content of chunk(forged)) await webview.hostPost({ type: 'delta', turnId: 'live', content });
        await webview.hostPost({ type: 'answerUpdate', turnId: 'live', patch: { state: 'done', citations } });
        await webview.settle();
        const markers = webview.page.locator('.answer-body [data-citation-marker]');
        const shown = await markers.evaluateAll((nodes) =>
          nodes.map((node) => ({ tag: node.localName, text: node.textContent, label: node.getAttribute('aria-label'), attributes: node.getAttributeNames().sort().join(' ') })),
        );
        // Markup in the answer is shown as text, so the [n] it contains reads as a marker and
        // becomes one of ours; what must never happen is a forged element or attribute.
        const texts = ['[1]', '[2]', '[1]', '[1]', '[1]', '[2]'];
        const expected = (turn: string) =>
          texts.map((text) => ({
            tag: 'span',
            text,
            label: `Source ${text[1]}: ${HOSTILE_PAYLOADS[Number(text[1]) - 1]}`,
            attributes: 'aria-label class data-citation-marker role tabindex title',
            turn,
          }));
        const withTurns = await markers.evaluateAll((nodes) => nodes.map((node) => node.closest('.turn')?.getAttribute('data-turn-id') ?? ''));
        assert.deepEqual(
          shown.map((m, i) => ({ ...m, turn: withTurns[i] })),
          [...expected('whole'), ...expected('live')],
          'markers are our own spans, the file names text in their label; code, links and [9] are left alone',
        );
        assert.equal(await webview.page.locator('.answer-body code [data-citation-marker], .answer-body .inert-link [data-citation-marker]').count(), 0);
        await markers.evaluateAll((nodes) => nodes.forEach((node) => (node as unknown as ClickableNode).click()));
        await webview.settle();
        assert.deepEqual(
          await webview.posted(),
          ['whole', 'live'].flatMap((turnId) => texts.map((text) => ({ type: 'openCitation', turnId, marker: Number(text[1]) }))),
          'each marker posts only its answer and number',
        );
        await assertContained();
      });

      it('as conversation titles and model names', async () => {
        const summaries = HOSTILE_PAYLOADS.map((title, index) => ({ id: `c${index}`, title, mode: 'chat' as const, updatedAt: index }));
        await webview.hostPost({
          type: 'init',
          conversation: conversation([], { id: 'c0', title: HOSTILE_PAYLOADS[0], model: HOSTILE_PAYLOADS[1], agentId: HOSTILE_PAYLOADS[2] }),
          conversations: summaries,
          options: { ...modelOptions, models: [...HOSTILE_PAYLOADS], agentId: HOSTILE_PAYLOADS[3] },
        });
        await webview.settle();
        const titles = await webview.page.getByLabel('Conversation', { exact: true }).locator('option').allTextContents();
        assert.equal(titles.length, HOSTILE_PAYLOADS.length);
        // Long titles are shortened in the list (whole in the option's tooltip): compare what fits.
        titles.forEach((title, index) => assert.ok(title.startsWith(HOSTILE_PAYLOADS[index].slice(0, 50)), `title ${index} shown as text`));
        const tooltips = await webview.page
          .getByLabel('Conversation', { exact: true })
          .locator('option')
          .evaluateAll((all) => all.map((o) => o.getAttribute('title')));
        assert.deepEqual(tooltips, [...HOSTILE_PAYLOADS]);
        assert.equal(await webview.page.locator('.model-name').textContent(), HOSTILE_PAYLOADS[1]);
        await webview.page.getByLabel('Mode', { exact: true }).selectOption('agent');
        await assertContained();
      });
    });
  }
});
