// Localisation of the chat webview (issue 26). The strings of src/webview are exported as
// `@vscode/l10n-dev export` exports them, pseudo-localised by the same package (every ASCII
// letter of a message becomes an accented one, placeholders kept), and handed to the real
// bundle the way the host does (the bootstrap <meta>, language `qps-ploc`). Then, in every
// state the accessibility suite covers and a few more (welcome, mid-stream, an agent answer
// with sources, ⚙ open with its errors, the conversation list, error and hint rows, chips,
// the edit banner), every text node and every aria-label, title and placeholder of the page
// must be pseudo-localised: after taking out user content, no ASCII letter may be left.
// User content is what the page marks `translate="no"` (dom.ts `userText`: file, volume and
// model names, the user's and the model's words) plus, for attributes and <option> texts,
// the values this test itself sent (titles, names, snippets) and the dates Intl formatted.
// A string hard-coded in English anywhere in the panel fails it.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getL10nJson, getL10nPseudoLocalized, type l10nJsonFormat } from '@vscode/l10n-dev';
import type { AttachmentView, CitationView, CodeContextView, ContextVolumeView, ConversationSummary, TurnView, WebviewBootstrap } from '../../src/chat/protocol';
import { CONVERSATION_DATE_FORMAT } from '../../src/webview/formats';
import type { WebviewPage } from './support/chromium';
import { assistantTurn, conversation, init, modelOptions, userTurn } from './support/conversations';
import { useWebviewSuite } from './support/suite';

const WEBVIEW_SOURCES = 'src/webview';
/** The one file of the host's folders the webview bundles that has strings (eslint.config.mjs, SHARED_WORDING): the chat parameters' words. */
const SHARED_SOURCES = ['src/common/core/parameterText.ts'];
const PSEUDO_LANGUAGE = 'qps-ploc';

/** The webview's strings exactly as `@vscode/l10n-dev export` finds them in its sources. */
async function exportedWebviewBundle(): Promise<l10nJsonFormat> {
  const paths = [
    ...readdirSync(WEBVIEW_SOURCES)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(WEBVIEW_SOURCES, name)),
    ...SHARED_SOURCES,
  ];
  return getL10nJson(paths.map((path) => ({ contents: readFileSync(path, 'utf8'), extension: '.ts' })));
}

// ---- What the test sends: user content, listed once so attributes can be judged ----

/** The fixture's conversation (conversations.ts): its title and date are user content too. */
const DEFAULT = conversation([]);
const TITLES = [DEFAULT.title, 'How do I page through files?', 'Older agent talk about deployment'];
const CODE_ANSWER = [
  'Use the client as below [1], then page through the results [2].',
  '',
  '```ts',
  `const client = new KsmClient({ baseUrl: 'http://127.0.0.1:8787' });`,
  '```',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
  'See https://example.com/docs and ![diagram](https://example.com/d.png) [1].',
].join('\n');
const SOURCES: CitationView[] = [
  { fileId: 'f1', filename: 'client.md', volume: 'docs', volumeLabel: 'docs', snippet: 'new KsmClient({...})', score: 0.91, markers: [1] },
  { fileId: 'f2', filename: 'paging.md', volume: 'u-dev', volumeLabel: 'My files', snippet: 'list() pages', score: 0.72, markers: [2] },
];
const CODE: CodeContextView = { id: 'c1', filename: 'src/client.ts', languageId: 'typescript', text: 'const a = 1;\nconst b = 2;', lines: { start: 3, end: 4 } };
const ATTACHMENT: AttachmentView = { fileId: 'att1', filename: 'notes.md', size: 1200, volume: 'docs' };
const CONTEXT_VOLUMES: ContextVolumeView[] = [
  { volume: 'u-dev', label: 'My files', personal: true },
  { volume: 'handbook', label: 'handbook', personal: false },
];
const CONTEXT_FILE: AttachmentView = { fileId: 'cf1', filename: 'deploy.md', size: 800, volume: 'handbook' };
/** What the localised host sends as an answer's error (answerErrors.ts, through vscode.l10n): pseudo too. */
const HOST_ERROR = 'Ŧħḗḗ şḗḗřṽīƈḗḗ īş ƞǿǿŧ řḗḗȧȧƈħȧȧƀŀḗḗ.';

/** Every string this test hands the page as user content (model and agent ids, names, titles, snippets, links, code). */
const USER_VALUES = [
  ...TITLES,
  ...modelOptions.models,
  modelOptions.agentId ?? '',
  modelOptions.agentModel ?? '',
  ...SOURCES.flatMap((s) => [s.filename, s.volume, s.volumeLabel ?? '', s.snippet ?? '']),
  CODE.filename,
  CODE.languageId,
  ATTACHMENT.filename,
  ATTACHMENT.volume,
  ...CONTEXT_VOLUMES.flatMap((v) => [v.volume, v.label]),
  CONTEXT_FILE.filename,
  CONTEXT_FILE.volume,
  'https://example.com/docs',
  'https://example.com/d.png',
  'diagram',
  'ts',
  'stop',
].filter(Boolean);

// ---- The walk, run in the page ----

interface Finding {
  where: string;
  text: string;
}

/**
 * Runs in the page: every text node outside `translate="no"` and every aria-label, title
 * and placeholder, with the user values and Intl's dates taken out; what still holds an
 * ASCII letter is unlocalised.
 */
const FIND_UNLOCALISED = `(({ userValues, dateFormat, dates }) => {
  const lang = document.documentElement.lang;
  const formatted = dates.map((d) => new Intl.DateTimeFormat(lang, dateFormat).format(new Date(d)));
  const marked = Array.from(document.querySelectorAll('[translate="no"]')).map((e) => (e.textContent || '').trim()).filter(Boolean);
  const known = [...new Set([...userValues, ...formatted, ...marked])].sort((a, b) => b.length - a.length);
  const strip = (text) => known.reduce((rest, value) => rest.split(value).join(' '), text);
  const describe = (element) => element.localName + (element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\\s+/).join('.') : '');
  const findings = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('script, style')) continue;
    if (parent.closest('[translate]')?.getAttribute('translate') === 'no') continue;
    const text = node.data.trim();
    if (text && /[A-Za-z]/.test(strip(text))) findings.push({ where: describe(parent), text });
  }
  for (const element of Array.from(document.body.querySelectorAll('*'))) {
    for (const name of ['aria-label', 'title', 'placeholder', 'aria-description', 'alt']) {
      const value = element.getAttribute(name);
      if (value && /[A-Za-z]/.test(strip(value))) findings.push({ where: describe(element) + '[' + name + ']', text: value });
    }
  }
  return findings;
})`;

describe('webview localisation: a pseudo-locale bundle reaches every string', function () {
  const suite = useWebviewSuite();
  let bundle: l10nJsonFormat;
  let pseudo: WebviewBootstrap;
  let webview: WebviewPage | undefined;

  before(async () => {
    bundle = await exportedWebviewBundle();
    pseudo = { language: PSEUDO_LANGUAGE, l10n: getL10nPseudoLocalized(bundle) as WebviewBootstrap['l10n'] };
  });

  afterEach(async () => {
    const page = webview;
    webview = undefined;
    if (!page) return;
    try {
      assert.deepEqual(page.pageErrors, []);
    } finally {
      await page.close();
    }
  });

  async function openPseudo(bootstrap: WebviewBootstrap = pseudo): Promise<WebviewPage> {
    webview = await suite.openPage({ bootstrap });
    await webview.clearPosted();
    return webview;
  }

  async function unlocalised(page: WebviewPage, moreDates: number[] = []): Promise<string[]> {
    await page.settle();
    const dates = [DEFAULT.updatedAt, ...moreDates];
    const findings = (await page.page.evaluate(`${FIND_UNLOCALISED}(${JSON.stringify({ userValues: USER_VALUES, dateFormat: CONVERSATION_DATE_FORMAT, dates })})`)) as Finding[];
    return findings.map((f) => `${f.where}: ${JSON.stringify(f.text)}`);
  }

  it('the export finds the webview strings, and the pseudo bundle leaves no ASCII letter in any message', () => {
    const keys = Object.keys(bundle);
    assert.ok(keys.length >= 120, `only ${keys.length} strings exported`);
    for (const key of ['Send', 'Answering…', 'Temperature', '{0} must be from {1} to {2}./{0} is the name of a chat parameter such as "Temperature"', 'Ask a question to start.']) {
      assert.ok(keys.includes(key), `${key} is exported`);
    }
    for (const [key, value] of Object.entries(pseudo.l10n ?? {})) {
      const message = typeof value === 'string' ? value : value.message;
      assert.doesNotMatch(message.replace(/\{\d+\}/g, ''), /[A-Za-z]/, key);
    }
  });

  it('the page takes the language: <html lang> and Intl', async () => {
    const page = await openPseudo({ language: 'de', l10n: pseudo.l10n });
    assert.equal(await page.page.evaluate('document.documentElement.lang'), 'de');
    await page.hostPost(init(conversation([userTurn('u1', 'q'), assistantTurn('a1', 'a', { usage: { promptTokens: 1234, completionTokens: 5, totalTokens: 1239 } })])));
    await page.settle();
    // German groups thousands with a dot.
    assert.match((await page.page.locator('[data-turn-id="a1"] .turn-footer').textContent()) ?? '', /1\.234/);
  });

  it('the walk finds a hard-coded string (so it can fail)', async () => {
    const page = await openPseudo();
    await page.hostPost(init(conversation([])));
    assert.deepEqual(await unlocalised(page), []);
    await page.page.evaluate(`document.querySelector('.composer').append(Object.assign(document.createElement('button'), { title: 'Hard-coded' }), 'Plain English')`);
    assert.deepEqual(await unlocalised(page), ['footer.composer: "Plain English"', 'button[title]: "Hard-coded"']);
  });

  it('idle: not connected, then the welcome with example questions', async () => {
    const page = await openPseudo();
    await page.hostPost(init(conversation([])), { type: 'connection', connected: false });
    assert.deepEqual(await unlocalised(page), []);
    assert.equal(await page.page.locator('.welcome code[translate="no"]').count(), 2, 'the setting and the command stay as written');
    await page.hostPost({ type: 'connection', connected: true });
    assert.deepEqual(await unlocalised(page), []);
    await page.hostPost({ type: 'conversation', conversation: conversation([], { mode: 'agent' }), conversations: [] });
    assert.deepEqual(await unlocalised(page), []);
  });

  it('mid-stream, then finished: the typing mark, Stop, the live region', async () => {
    const page = await openPseudo();
    await page.hostPost(
      init(conversation([userTurn('u1', 'How do I page?'), assistantTurn('a1', '', { state: 'streaming' })])),
      { type: 'busy', busy: true },
      { type: 'delta', turnId: 'a1', content: CODE_ANSWER.slice(0, 120), reasoning: 'Thinking about pages.' },
    );
    assert.deepEqual(await unlocalised(page), []);
    await page.hostPost({ type: 'delta', turnId: 'a1', content: '\n\n```ts\nx\n```' }, { type: 'busy', busy: false }, { type: 'answerUpdate', turnId: 'a1', patch: { state: 'stopped' } });
    assert.deepEqual(await unlocalised(page), []);
    assert.match(await page.page.locator('[role="status"]').innerText(), /\d/, 'the stop is announced with a word count');
  });

  it('an agent answer with sources, a code block, a table, reasoning and usage; Copy says it copied', async () => {
    const page = await openPseudo();
    const answer = assistantTurn('a1', CODE_ANSWER, {
      citations: SOURCES,
      threadId: 't1',
      reasoning: 'Looked at the client.',
      usage: { promptTokens: 900, completionTokens: 120, reasoningTokens: 40, totalTokens: 1060 },
      finishReason: 'stop',
    });
    const question: TurnView = { ...userTurn('u1', 'How do I page?'), code: [CODE], attachments: [ATTACHMENT] };
    await page.hostPost(
      init(conversation([question, answer], { mode: 'agent', model: 'ksm-agent-model', agentId: 'agent-42', contextVolumes: CONTEXT_VOLUMES, pendingCode: [CODE], pendingAttachments: [ATTACHMENT] })),
    );
    await page.settle();
    assert.ok((await page.page.locator('[data-turn-id="a1"] [data-citation-marker]').count()) > 0, 'the answer shows its markers');
    assert.equal(await page.page.locator('.code-block').count(), 1);
    assert.deepEqual(await unlocalised(page), []);
    await page.page.locator('[data-turn-id="a1"] .copy-answer').click();
    await page.page.locator('[data-turn-id="a1"] .code-action[data-action="copy-code"]').click();
    assert.deepEqual(await unlocalised(page), []);
    // Chosen files replace the volumes; Edit opens the banner.
    await page.hostPost({ type: 'conversation', conversation: conversation([question, answer], { mode: 'agent', contextFiles: [CONTEXT_FILE] }), conversations: [] });
    await page.page.locator('.edit-question').click();
    assert.equal(await page.page.locator('.edit-banner').isVisible(), true);
    assert.deepEqual(await unlocalised(page), []);
  });

  it('⚙ open on a reasoning model with Advanced, then every field refused with its message', async () => {
    const page = await openPseudo();
    await page.hostPost(init(conversation([userTurn('u1', 'q'), assistantTurn('a1', 'a')], { model: 'ksm-reasoner', parameters: { seed: 9, temperature: 0.5, responseFormat: 'json_object' } })));
    await page.settle();
    await page.page.locator('.parameters-toggle').click();
    assert.equal(await page.page.locator('#parameter-seed').isVisible(), true);
    assert.deepEqual(await unlocalised(page), []);
    const fill = (name: string, value: string) => page.page.locator(`#parameter-${name}`).fill(value);
    await fill('temperature', '5');
    await fill('topP', '0');
    await fill('maxTokens', '0');
    await fill('stop', 'a\nb\nc\nd\ne');
    await fill('seed', '1.5');
    await fill('frequencyPenalty', '9');
    await fill('repetitionPenalty', '9');
    await page.page.locator('#parameter-reasoningEffort').selectOption('high');
    await fill('reasoningBudget', '100');
    await page.page.locator('#parameters-panel button[type="submit"]').click();
    assert.equal(await page.page.locator('.field-error:not([hidden])').count(), 8);
    assert.deepEqual(await unlocalised(page), []);
    await fill('stop', 'a'.repeat(300));
    await fill('maxTokens', '99999999');
    await page.page.locator('#parameters-panel button[type="submit"]').click();
    assert.deepEqual(await unlocalised(page), []);
  });

  it('the conversation list', async () => {
    const page = await openPseudo();
    const open = conversation([userTurn('u1', 'How do I page?'), assistantTurn('a1', 'Like this.')], { title: TITLES[1] });
    const conversations: ConversationSummary[] = [
      { id: open.id, title: open.title, mode: 'chat', updatedAt: open.updatedAt },
      { id: 'conv-2', title: TITLES[2], mode: 'agent', updatedAt: open.updatedAt - 86_400_000 },
      { id: 'conv-3', title: '', mode: 'chat', updatedAt: open.updatedAt - 2 * 86_400_000 },
    ];
    await page.hostPost({ type: 'init', conversation: open, conversations, options: modelOptions });
    assert.equal(await page.page.locator('.conversation-select option').count(), 3);
    assert.deepEqual(
      await unlocalised(
        page,
        conversations.map((c) => c.updatedAt),
      ),
      [],
    );
  });

  it('error and hint rows: failed, cut off, cut at Max tokens, cut by the model, answering elsewhere; no model set', async () => {
    const page = await openPseudo();
    for (const [patch, model] of [
      [{ state: 'error', error: HOST_ERROR }, ''],
      [{ state: 'error' }, 'ksm-chat-small'],
      [{ state: 'cut-off', error: HOST_ERROR }, 'ksm-chat-small'],
      [{ state: 'cut-off' }, 'ksm-chat-small'],
      [{ state: 'length', maxTokens: 2000 }, 'ksm-chat-small'],
      [{ state: 'length' }, 'ksm-chat-small'],
      [{ state: 'elsewhere' }, 'ksm-chat-small'],
    ] as Array<[Partial<TurnView>, string]>) {
      await page.hostPost({
        type: 'conversation',
        conversation: conversation([userTurn('u1', 'q'), assistantTurn('a1', 'Partial answer.', { state: 'streaming' })], { model }),
        conversations: [],
      });
      await page.hostPost({ type: 'answerUpdate', turnId: 'a1', patch });
      assert.deepEqual(await unlocalised(page), [], JSON.stringify(patch));
    }
  });

  it('a translation may move a value: the file name of a code chip stays whole and apart wherever the sentence puts it', async () => {
    const key = '{0} · lines {1}-{2}/{0} is a file name; {1} and {2} are line numbers';
    assert.ok(key in bundle, 'the code chip sentence is exported under this key');
    const name = 'odd \uE0000\uE001 name.ts';
    const page = await openPseudo({ language: 'de', l10n: { [key]: 'Zeilen {1}–{2} in {0}' } });
    await page.hostPost(init(conversation([], { pendingCode: [{ ...CODE, filename: name }] })));
    await page.settle();
    const label = page.page.locator('.composer .code-chip .chip-label');
    assert.equal(await label.textContent(), `Zeilen 3–4 in ${name}`);
    assert.deepEqual(await label.locator('[translate="no"]').allTextContents(), [name]);
  });

  it('a translation is text: markup in the bundle is shown, never run', async () => {
    const hostile = { ...pseudo.l10n, Send: `"><img src=x onerror="globalThis.__pwned=1"></meta><script>globalThis.__pwned=2</script>` };
    const page = await openPseudo({ language: PSEUDO_LANGUAGE, l10n: hostile });
    await page.hostPost(init(conversation([])));
    await page.settle();
    assert.equal(await page.page.locator('.composer .primary-button').getAttribute('aria-label'), hostile.Send);
    assert.equal(await page.page.evaluate('globalThis.__pwned'), undefined);
    assert.deepEqual(await page.violations(), []);
  });

  it('no bootstrap, or a malformed one, means English', async () => {
    const page = await openPseudo({ language: '"><x', l10n: { Send: 42 } as unknown as WebviewBootstrap['l10n'] });
    await page.hostPost(init(conversation([])));
    await page.settle();
    assert.equal(await page.page.evaluate('document.documentElement.lang'), 'en');
    assert.equal(await page.page.locator('.composer .primary-button').getAttribute('aria-label'), 'Send');
  });
});
