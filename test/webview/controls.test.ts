// Every control of the panel posts exactly the message the host expects.
import { strict as assert } from 'node:assert';
import type { WebviewPage } from './support/chromium';
import { assistantTurn, chunk, conversation, init, modelOptions, userTurn } from './support/conversations';
import { useFreshPage, useWebviewSuite } from './support/suite';

describe('webview controls', function () {
  const suite = useWebviewSuite();
  let webview: WebviewPage;
  useFreshPage(suite, (page) => (webview = page));

  describe('composer', () => {
    it('sends on Enter, adds a newline on Shift+Enter, and ignores an empty message', async () => {
      await webview.hostPost(init(conversation([])));
      const message = webview.page.getByLabel('Message', { exact: true });
      await message.click();
      await message.press('Enter');
      await message.pressSequentially('first line');
      await message.press('Shift+Enter');
      await message.pressSequentially('second <line> & "quotes"');
      assert.equal(await message.inputValue(), 'first line\nsecond <line> & "quotes"');
      assert.deepEqual(await webview.posted(), []);
      await message.press('Enter');
      assert.deepEqual(await webview.posted(), [{ type: 'send', text: 'first line\nsecond <line> & "quotes"' }]);
      assert.equal(await message.inputValue(), '');
    });

    it('sends with the Send button and not while busy', async () => {
      await webview.hostPost(init(conversation([])));
      await webview.page.getByLabel('Message', { exact: true }).fill('hello');
      await webview.hostPost({ type: 'busy', busy: true });
      await webview.settle();
      assert.equal(await webview.page.getByLabel('Send', { exact: true }).isDisabled(), true);
      await webview.page.getByLabel('Message', { exact: true }).press('Enter');
      assert.deepEqual(await webview.posted(), []);
      await webview.hostPost({ type: 'busy', busy: false });
      await webview.page.getByLabel('Send', { exact: true }).click();
      assert.deepEqual(await webview.posted(), [{ type: 'send', text: 'hello' }]);
    });

    it('stops with Escape or the Stop button only while busy', async () => {
      await webview.hostPost(init(conversation([])));
      const stop = webview.page.getByLabel('Stop', { exact: true });
      assert.equal(await stop.isVisible(), false);
      await webview.page.getByLabel('Message', { exact: true }).press('Escape');
      assert.deepEqual(await webview.posted(), [], 'nothing to stop when idle');

      await webview.hostPost({ type: 'busy', busy: true });
      await webview.settle();
      assert.equal(await stop.isVisible(), true);
      await webview.page.getByLabel('Message', { exact: true }).press('Escape');
      await stop.click();
      assert.deepEqual(await webview.posted(), [{ type: 'stop' }, { type: 'stop' }]);
      await webview.hostPost({ type: 'busy', busy: false });
      await webview.settle();
      assert.equal(await stop.isVisible(), false);
    });

    it('keeps the draft across the view being hidden and restores it', async () => {
      await webview.hostPost(init(conversation([])));
      await webview.page.getByLabel('Message', { exact: true }).fill('half-written question');
      const saved = (await webview.state()) as { draft: string };
      assert.equal(saved.draft, 'half-written question');
      await webview.close();
      webview = await suite.openPage({ state: saved });
      assert.equal(await webview.page.getByLabel('Message', { exact: true }).inputValue(), 'half-written question');
    });

    it('shows code from the editor as chips above the composer, removable with the mouse or the keyboard, never in the message box', async () => {
      const code = [
        { id: 'x-000000000001', filename: 'release.py', languageId: 'python', lines: { start: 3, end: 9 }, text: 'def ship():\n    return True\n' },
        { id: 'x-000000000002', filename: 'big.log', languageId: 'log', text: 'x'.repeat(70 * 1024) },
      ];
      await webview.hostPost(init(conversation([], { pendingCode: code })));
      await webview.settle();
      const chips = webview.page.getByTestId('code-chips');
      assert.deepEqual(await chips.locator('.chip-label').allTextContents(), ['release.py · lines 3-9', 'big.log']);
      assert.equal(await webview.page.getByLabel('Message', { exact: true }).inputValue(), '', 'nothing is pasted into the message box');
      await webview.page.getByLabel('Remove release.py · lines 3-9').click();
      // Keyboard: Tab reaches the second chip's × from the first, Enter presses it.
      await webview.page.getByLabel('Remove release.py · lines 3-9').focus();
      await webview.page.keyboard.press('Tab');
      assert.equal(await webview.page.evaluate<string | null>('document.activeElement?.getAttribute("aria-label") ?? null'), 'Remove big.log');
      await webview.page.keyboard.press('Enter');
      assert.deepEqual(await webview.posted(), [
        { type: 'removeCode', id: 'x-000000000001' },
        { type: 'removeCode', id: 'x-000000000002' },
      ]);
    });

    it('shows the code a question was sent with as chips on the question, its text without fences', async () => {
      const code = [{ id: 'x-000000000001', filename: 'release.py', languageId: 'python', lines: { start: 3, end: 4 }, text: 'def ship():\n    return True' }];
      await webview.hostPost(init(conversation([{ ...userTurn('u1', 'Why True?'), code }, assistantTurn('a1', 'Because.')])));
      await webview.settle();
      const question = webview.page.locator('[data-role="user"]');
      assert.deepEqual(await question.getByTestId('code-chips').locator('.chip-label').allTextContents(), ['release.py · lines 3-4']);
      assert.equal(await question.locator('.user-text').textContent(), 'Why True?');
      assert.ok(!((await question.textContent()) ?? '').includes('```'), 'no fences in the transcript');
      assert.equal(await question.getByRole('button', { name: /^Remove/ }).count(), 0, 'a sent chip cannot be removed');
    });

    it('shows the volumes an agent conversation searches: All volumes until chosen, chips removable, Volumes… asks the host', async () => {
      await webview.hostPost(init(conversation([], { mode: 'chat' })));
      await webview.settle();
      assert.equal(await webview.page.getByTestId('volume-chips').count(), 0, 'chat mode searches no volume');
      await webview.hostPost({ type: 'conversation', conversation: conversation([], { mode: 'agent' }), conversations: [] });
      await webview.settle();
      assert.deepEqual(await webview.page.getByTestId('volume-chips').locator('.chip-label').allTextContents(), ['All volumes']);
      await webview.page.getByRole('button', { name: 'Choose the volumes the agent searches' }).click();
      const contextVolumes = [
        { volume: '{dev}', label: 'My files', personal: true },
        { volume: 'lamps', label: 'lamps', personal: false },
      ];
      await webview.hostPost({ type: 'conversation', conversation: conversation([], { mode: 'agent', contextVolumes }), conversations: [] });
      await webview.settle();
      assert.deepEqual(await webview.page.getByTestId('volume-chips').locator('.chip-label').allTextContents(), ['My files', 'lamps']);
      await webview.page.getByRole('button', { name: 'Stop searching lamps' }).click();
      assert.deepEqual(await webview.posted(), [{ type: 'chooseContextVolumes' }, { type: 'removeContextVolume', volume: 'lamps' }]);
    });

    it('shows chosen files in place of the volumes (they restrict the search), removable, and Files… asks the host', async () => {
      const contextFiles = [{ fileId: 'f1', filename: 'lamps.md', size: 3, volume: 'lamps' }];
      await webview.hostPost(init(conversation([], { mode: 'agent', contextVolumes: [{ volume: 'lamps', label: 'lamps', personal: false }], contextFiles })));
      await webview.settle();
      assert.deepEqual(await webview.page.getByTestId('file-chips').locator('.chip-label').allTextContents(), ['lamps.md']);
      assert.equal(await webview.page.getByTestId('volume-chips').count(), 0);
      await webview.page.getByRole('button', { name: 'Choose files the agent searches' }).click();
      await webview.page.getByRole('button', { name: 'Stop searching lamps.md' }).click();
      assert.deepEqual(await webview.posted(), [{ type: 'chooseContextFiles' }, { type: 'removeContextFile', fileId: 'f1' }]);
    });

    it('shows pending attachments as chips that can be removed, and prefill fills the composer', async () => {
      const attachment = { fileId: 'file-9', filename: 'notes.md', size: 10, volume: 'vol-a' };
      await webview.hostPost(init(conversation([], { mode: 'agent', pendingAttachments: [attachment] })));
      await webview.page.getByLabel('Remove attachment notes.md').click();
      assert.deepEqual(await webview.posted(), [{ type: 'removeAttachment', fileId: 'file-9' }]);
      await webview.hostPost({ type: 'prefill', text: 'Explain this:\n```\nx = 1\n```' });
      await webview.settle();
      assert.equal(await webview.page.getByLabel('Message', { exact: true }).inputValue(), 'Explain this:\n```\nx = 1\n```');
    });
  });

  describe('answers', () => {
    const code = 'const html = "<div class=\\"x\\">" + a && b;   \n\tindented();\n\n// end';

    it('posts code block actions with the exact code and language', async () => {
      const content = `Try this:\n\n\`\`\`typescript\n${code}\n\`\`\`\n\nOr plain:\n\n\`\`\`\nplain text\n\`\`\``;
      await webview.hostPost(init(conversation([assistantTurn('a1', content)])));
      await webview.settle();
      const blocks = webview.page.locator('.code-block');
      assert.equal(await blocks.count(), 2);
      await blocks.nth(0).getByLabel('Copy code').click();
      await blocks.nth(0).getByLabel('Insert at cursor').click();
      await blocks.nth(0).getByLabel('New file with code').click();
      await blocks.nth(1).getByLabel('New file with code').click();
      assert.deepEqual(await webview.posted(), [
        { type: 'copyCode', code },
        { type: 'insertCode', code },
        { type: 'newFileWithCode', code, language: 'typescript' },
        { type: 'newFileWithCode', code: 'plain text' },
      ]);
      assert.ok((await blocks.nth(0).locator('.hljs-keyword').count()) > 0, 'code is highlighted');
    });

    it('offers Continue for an answer cut by the token limit', async () => {
      await webview.hostPost(init(conversation([userTurn('u1', 'q'), assistantTurn('a1', 'Partial answer', { state: 'length', finishReason: 'length' })])));
      await webview.settle();
      const turn = webview.page.locator('[data-role="assistant"]');
      assert.equal(await turn.getAttribute('data-state'), 'length');
      assert.match((await turn.textContent()) ?? '', /Cut by the model's token limit/);
      await turn.getByRole('button', { name: 'Continue' }).click();
      assert.deepEqual(await webview.posted(), [{ type: 'continue', turnId: 'a1' }]);
    });

    for (const state of ['error', 'cut-off'] as const) {
      it(`shows a ${state} inline with Retry and keeps the partial answer`, async () => {
        await webview.hostPost(init(conversation([assistantTurn('a1', '', { state: 'streaming' })])));
        await webview.hostPost({ type: 'delta', turnId: 'a1', content: 'Half of the ans' });
        await webview.hostPost({ type: 'answerUpdate', turnId: 'a1', patch: { state, error: 'The service closed the stream.' } });
        await webview.settle();
        const turn = webview.page.locator('[data-role="assistant"]');
        assert.equal(await turn.getAttribute('data-state'), state);
        assert.equal((await turn.locator('.answer-body').textContent())?.trim(), 'Half of the ans');
        assert.equal(await turn.getByRole('alert').textContent(), '⚠ The service closed the stream.');
        await turn.getByRole('button', { name: 'Retry' }).click();
        assert.deepEqual(await webview.posted(), [{ type: 'retry', turnId: 'a1' }]);
      });
    }

    it('marks a stopped answer and keeps its text', async () => {
      await webview.hostPost(init(conversation([assistantTurn('a1', '', { state: 'streaming' })])));
      await webview.hostPost({ type: 'delta', turnId: 'a1', content: 'Stopped half' }, { type: 'answerUpdate', turnId: 'a1', patch: { state: 'stopped' } });
      await webview.settle();
      const turn = webview.page.locator('[data-role="assistant"]');
      assert.equal(await turn.getAttribute('data-state'), 'stopped');
      assert.equal((await turn.locator('.answer-body').textContent())?.trim(), 'Stopped half');
      assert.match((await turn.locator('.turn-status').textContent()) ?? '', /Stopped/);
    });

    it('numbers sources to match the markers, once each with their volume, and a click asks for that marker', async () => {
      const citations = [
        { fileId: 'f1', filename: 'design.md', volume: '{dev}', volumeLabel: 'My files', snippet: 'the design', chunkIndex: 0, markers: [1, 3] },
        { fileId: 'f2', filename: 'api.ts', volume: 'vol-b', chunkIndex: 4, markers: [2] },
        { fileId: 'f3', filename: 'extra.md', volume: 'vol-b', markers: [4] },
      ];
      await webview.hostPost(init(conversation([assistantTurn('a1', 'Design [1], API [2], design again [3].', { citations })], { mode: 'agent' })));
      await webview.settle();
      const list = webview.page.getByTestId('citations');
      assert.deepEqual(await list.getByRole('button').allTextContents(), ['[1][3] design.md My files', '[2] api.ts vol-b', '[4] extra.md vol-b']);
      const markersInText = [...((await webview.page.locator('.answer-body').textContent()) ?? '').matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
      const onChips = (await list.getByRole('button').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-markers') ?? ''))).flatMap((m) => m.split(' ').map(Number));
      assert.ok(
        markersInText.every((n) => onChips.includes(n)),
        `every marker ${JSON.stringify(markersInText)} has its chip ${JSON.stringify(onChips)}`,
      );
      await list.getByRole('button', { name: 'Open source [2] api.ts · vol-b' }).click();
      await list.getByRole('button').nth(0).press('Enter');
      assert.deepEqual(await webview.posted(), [
        { type: 'openCitation', turnId: 'a1', marker: 2 },
        { type: 'openCitation', turnId: 'a1', marker: 1 },
      ]);
    });

    it('makes the markers [n] of an answer links to their sources (click and Enter ask for that marker); markers without a source, in code or in links stay text', async () => {
      await webview.hostPost(init(conversation([assistantTurn('a1', '', { state: 'streaming' })], { mode: 'agent' })));
      const text = 'Design [1], API [2][1], unknown [7], code `[1]` and [a link [2]](https://example.com).\n\n```\n[2]\n```\n\nLast [2]';
      for (const content of chunk(text)) await webview.hostPost({ type: 'delta', turnId: 'a1', content });
      await webview.settle();
      const body = webview.page.locator('.answer-body');
      assert.equal(await body.locator('[data-citation-marker]').count(), 0, 'no marker is a link before the answer has sources');
      const citations = [
        { fileId: 'f1', filename: 'guide.md', volume: 'v', markers: [1] },
        { fileId: 'f2', filename: 'api.ts', volume: 'v', markers: [2] },
      ];
      await webview.hostPost({ type: 'answerUpdate', turnId: 'a1', patch: { state: 'done', citations } });
      await webview.settle();
      const markers = body.getByRole('link', { name: /^Source \d+:/ });
      assert.deepEqual(await markers.evaluateAll((nodes) => nodes.map((n) => `${n.textContent} ${n.getAttribute('aria-label')}`)), [
        '[1] Source 1: guide.md',
        '[2] Source 2: api.ts',
        '[1] Source 1: guide.md',
        '[2] Source 2: api.ts',
      ]);
      assert.equal((await body.textContent())?.replace(/\s+/g, ' ').includes('unknown [7], code [1] and a link [2]'), true, 'the text reads as written');
      assert.equal(await body.locator('code [data-citation-marker], a [data-citation-marker]').count(), 0, 'code and links are left alone');
      await body.getByRole('link', { name: 'Source 2: api.ts' }).first().click();
      await body.getByRole('link', { name: 'Source 1: guide.md' }).first().focus();
      await webview.page.keyboard.press('Enter');
      await body.getByText('[7]').click();
      assert.deepEqual(await webview.posted(), [
        { type: 'openCitation', turnId: 'a1', marker: 2 },
        { type: 'openCitation', turnId: 'a1', marker: 1 },
      ]);
      // Sources replaced (a regenerated answer, a conversation reloaded): a marker that lost its source is text again.
      await webview.hostPost({ type: 'answerUpdate', turnId: 'a1', patch: { citations: [citations[1]!] } });
      await webview.settle();
      assert.deepEqual(await body.locator('[data-citation-marker]').allTextContents(), ['[2]', '[2]']);
    });

    it('numbers the sources of a conversation saved before numbering by their position', async () => {
      const citations = [
        { fileId: 'f1', filename: 'a.md', volume: 'v' },
        { fileId: 'f2', filename: 'b.md' },
      ];
      await webview.hostPost(init(conversation([assistantTurn('a1', 'x', { citations })], { mode: 'agent' })));
      await webview.settle();
      assert.deepEqual(await webview.page.getByTestId('citations').getByRole('button').allTextContents(), ['[1] a.md v', '[2] b.md']);
    });

    it('turns a link click into openLink without navigating', async () => {
      await webview.hostPost(init(conversation([assistantTurn('a1', 'Read [the docs](https://example.com/a?b=1) or https://www.example.org.\n\n![chart](https://example.com/chart.png)')])));
      await webview.settle();
      const url = webview.page.url();
      await webview.page.getByRole('link', { name: 'the docs' }).click();
      await webview.page.getByRole('link', { name: 'https://www.example.org' }).press('Enter');
      await webview.page.getByRole('link', { name: '[image: chart]' }).click();
      assert.deepEqual(await webview.posted(), [
        { type: 'openLink', href: 'https://example.com/a?b=1' },
        { type: 'openLink', href: 'https://www.example.org' },
        { type: 'openLink', href: 'https://example.com/chart.png' },
      ]);
      assert.equal(await webview.page.locator('img').count(), 0, 'images are never created');
      assert.equal(webview.page.url(), url);
      assert.deepEqual(
        webview.requests.filter((request) => request.startsWith('https:')),
        [],
      );
    });
  });

  describe('header', () => {
    it('switches mode, model, thinking and conversations', async () => {
      const summaries = [
        { id: 'conv-1', title: 'First conversation', mode: 'chat' as const, updatedAt: 1 },
        { id: 'conv-2', title: 'Agent thread', mode: 'agent' as const, updatedAt: 2 },
      ];
      await webview.hostPost({ type: 'init', conversation: conversation([]), conversations: summaries, options: modelOptions });
      await webview.settle();
      assert.equal(await webview.page.getByLabel('Enable thinking').isVisible(), false, 'thinking is an agent setting');
      await webview.page.getByLabel('Model: ksm-chat-small', { exact: true }).click();
      await webview.page.getByLabel('Mode', { exact: true }).selectOption('agent');
      await webview.page.getByLabel('Conversation').selectOption('conv-2');
      await webview.page.getByLabel('New chat').click();
      await webview.hostPost({ type: 'conversation', conversation: conversation([], { id: 'conv-2', mode: 'agent', agentId: 'agent-42' }), conversations: summaries });
      await webview.settle();
      assert.match((await webview.page.locator('.agent-id').textContent()) ?? '', /agent-42/);
      await webview.page.getByLabel('Enable thinking').check();
      assert.deepEqual(await webview.posted(), [
        { type: 'pickModel' },
        { type: 'setMode', mode: 'agent' },
        { type: 'openConversation', id: 'conv-2' },
        { type: 'newConversation' },
        { type: 'setThinking', enabled: true },
      ]);
    });

    it('validates parameters against the reference ranges before posting them', async () => {
      await webview.hostPost(init(conversation([])));
      await webview.settle();
      await webview.page.getByRole('button', { name: 'Parameters' }).click();
      const dialog = webview.page.getByRole('dialog', { name: 'Chat parameters' });
      assert.equal(await dialog.getByLabel('Reasoning effort').isVisible(), false, 'no reasoning fields for a non-reasoning model');
      await dialog.getByLabel('Temperature (0–2)').fill('2.5');
      await dialog.getByLabel('Top P (0–1)').fill('0');
      await dialog.getByLabel('Max tokens').fill('1.5');
      await dialog.getByRole('button', { name: 'Apply' }).click();
      assert.deepEqual(await webview.posted(), []);
      assert.deepEqual(
        await dialog
          .getByRole('alert')
          .allTextContents()
          .then((texts) => texts.filter(Boolean)),
        ['Temperature must be from 0 to 2.', 'Top P must be above 0 and at most 1.', 'Max tokens must be a whole number of at least 1.'],
      );
      await dialog.getByLabel('Temperature (0–2)').fill('0.7');
      await dialog.getByLabel('Top P (0–1)').fill('1');
      await dialog.getByLabel('Max tokens').fill('512');
      await dialog.getByLabel('System prompt').fill('Be brief.');
      await dialog.getByLabel('Response format').selectOption('json_object');
      await dialog.getByRole('button', { name: 'Apply' }).click();
      assert.deepEqual(await webview.posted(), [{ type: 'setParameters', parameters: { temperature: 0.7, topP: 1, maxTokens: 512, systemPrompt: 'Be brief.', responseFormat: 'json_object' } }]);
      assert.equal(await dialog.isVisible(), false);
    });

    it('shows reasoning effort and budget for reasoning models and refuses both at once', async () => {
      await webview.hostPost(init(conversation([], { model: 'ksm-reasoner' })));
      await webview.settle();
      await webview.page.getByRole('button', { name: 'Parameters' }).click();
      const dialog = webview.page.getByRole('dialog', { name: 'Chat parameters' });
      await dialog.getByLabel('Reasoning effort').selectOption('high');
      await dialog.getByLabel('Reasoning budget (tokens)').fill('2000');
      await dialog.getByRole('button', { name: 'Apply' }).click();
      assert.deepEqual(await webview.posted(), []);
      await dialog.getByLabel('Reasoning budget (tokens)').fill('');
      await dialog.getByRole('button', { name: 'Apply' }).click();
      assert.deepEqual(await webview.posted(), [{ type: 'setParameters', parameters: { responseFormat: 'text', reasoningEffort: 'high' } }]);
    });
  });
});
