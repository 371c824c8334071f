// Streaming render in headless Chromium: many small deltas must give the same answer as
// the whole text at once, finished blocks must be rendered once and kept, and the view
// follows the stream only while the reader is at the bottom.
import { strict as assert } from 'node:assert';
import { HIGHLIGHT_LIMITS } from '../../src/webview/highlightBudget';
import type { WebviewPage } from './support/chromium';
import { assistantTurn, chunk, conversation, init, userTurn } from './support/conversations';
import { useFreshPage, useWebviewSuite } from './support/suite';

const CODE = 'function add(a: number, b: number) {\n  return a + b;\n\n  // a blank line inside the fence\n}';
const ANSWER = [
  '## Plan',
  '',
  'First paragraph with **bold**, `inline code` and a link to https://example.com/docs.',
  '',
  '1. one',
  '2. two',
  '',
  '3. three after a blank line',
  '',
  '```ts',
  CODE,
  '```',
  '',
  '| name | value |',
  '| --- | --- |',
  '| alpha | 1 |',
  '| beta | 2 |',
  '',
  '> quoted',
  '',
  'Last paragraph.',
].join('\n');

describe('webview streaming render', function () {
  const suite = useWebviewSuite();
  let webview: WebviewPage;
  useFreshPage(suite, (page) => (webview = page), { keepPosted: true });

  /** Waits until the element's text includes `text`: the webview draws streamed text on its own 50 ms timer. */
  async function drawn(selector: string, text: string): Promise<void> {
    type Page = { document: { querySelector(selector: string): { textContent: string | null } | null } };
    await webview.page.waitForFunction(
      ({ selector, text }) => ((globalThis as unknown as Page).document.querySelector(selector)?.textContent ?? '').includes(text),
      { selector, text },
      { timeout: 10_000 },
    );
  }

  async function streamInto(turnId: string, pieces: string[], perMessage = 1): Promise<void> {
    for (let index = 0; index < pieces.length; index += 25 * perMessage) {
      const batch = [];
      for (let offset = index; offset < Math.min(pieces.length, index + 25 * perMessage); offset += perMessage) {
        batch.push({ type: 'delta' as const, turnId, content: pieces.slice(offset, offset + perMessage).join('') });
      }
      await webview.hostPost(...batch);
      if ((index / 25) % 3 === 0) await webview.settle();
    }
  }

  it('renders many deltas to the same answer as the whole text, keeping finished blocks', async () => {
    await webview.hostPost(init(conversation([userTurn('u1', 'explain'), assistantTurn('a1', '', { state: 'streaming' })])));
    const pieces = chunk(ANSWER);
    assert.ok(pieces.length > 30, 'the answer arrives in many deltas');
    const half = Math.floor(pieces.length / 2);
    await streamInto('a1', pieces.slice(0, half));
    await webview.settle();

    const answer = webview.page.locator('[data-role="assistant"][data-turn-id="a1"]');
    assert.equal(await answer.getAttribute('data-state'), 'streaming');
    const finishedMidway = answer.locator('.finished-blocks .md-block');
    const finishedCount = await finishedMidway.count();
    assert.ok(finishedCount >= 2, `blocks are finished while streaming (got ${finishedCount})`);
    // Tag the finished nodes: if a later frame re-rendered them, the tags would be gone.
    await finishedMidway.evaluateAll((nodes) => nodes.forEach((node) => node.setAttribute('data-test-mark', 'kept')));

    await streamInto('a1', pieces.slice(half));
    await webview.hostPost({
      type: 'answerUpdate',
      turnId: 'a1',
      patch: { state: 'done', finishReason: 'stop', usage: { promptTokens: 12, completionTokens: 80, totalTokens: 92 } },
    });
    await webview.settle();

    assert.equal(await answer.getAttribute('data-state'), 'done');
    assert.equal(await answer.locator('[data-test-mark="kept"]').count(), finishedCount, 'finished blocks stay the same DOM nodes');
    assert.equal(await answer.locator('.md-open').count(), 0, 'no open block after the stream ends');
    assert.equal(await answer.locator('h2').textContent(), 'Plan');
    assert.deepEqual(await answer.locator('ol li').allTextContents(), ['one', 'two', 'three after a blank line']);
    assert.equal(await answer.locator('pre code').textContent(), `${CODE}\n`);
    assert.deepEqual(await answer.locator('tbody td').allTextContents(), ['alpha', '1', 'beta', '2']);
    assert.equal(await answer.locator('blockquote').textContent(), '\nquoted\n');
    assert.match((await answer.locator('.turn-footer').textContent()) ?? '', /prompt 12 · completion 80 · total 92 tokens · finish: stop/);

    // The same text delivered whole renders identically.
    await webview.hostPost(init(conversation([assistantTurn('whole', ANSWER)])));
    await webview.settle();
    const whole = await webview.page.locator('[data-turn-id="whole"] .answer-body').innerHTML();
    await webview.hostPost(init(conversation([assistantTurn('streamed', '', { state: 'streaming' })])));
    await streamInto('streamed', pieces);
    await webview.hostPost({ type: 'answerUpdate', turnId: 'streamed', patch: { state: 'done' } });
    await webview.settle();
    assert.equal(await webview.page.locator('[data-turn-id="streamed"] .answer-body').innerHTML(), whole);
  });

  it("highlights an answer's code within its budget: of many unlabelled blocks (auto-detection runs every grammar) the first are highlighted, the rest shown plain with their actions; streamed it ends the same, and each answer has its own budget", async () => {
    const blocks = HIGHLIGHT_LIMITS.autoDetectedBlocks + 40;
    // One list: its items' fences are parsed again and again (highlighted) while the list is the open block.
    const answer = Array.from({ length: blocks }, (_, i) => `- Step ${i}:\n\n  \`\`\`\n  let x${i} = ${i};\n  \`\`\``).join('\n');
    const highlightedIn = async (turnId: string) => {
      const highlighted = await webview.page.locator(`[data-turn-id="${turnId}"] .code-block`).evaluateAll((nodes) => nodes.map((node) => node.querySelector('[class^="hljs-"]') !== null));
      assert.equal(highlighted.length, blocks, `${turnId}: every fence is a code block`);
      const expected = highlighted.map((_, i) => i < HIGHLIGHT_LIMITS.autoDetectedBlocks);
      assert.deepEqual(highlighted, expected, `${turnId}: the first ${HIGHLIGHT_LIMITS.autoDetectedBlocks} highlighted, in order, the rest plain`);
    };
    // Two answers in one conversation: the second has a budget of its own.
    await webview.hostPost(init(conversation([assistantTurn('first', answer), assistantTurn('whole', answer)])));
    await webview.settle();
    await highlightedIn('whole');
    const whole = await webview.page.locator('[data-turn-id="whole"] .answer-body').innerHTML();
    const last = webview.page.locator('[data-turn-id="whole"] .code-block').last();
    await last.getByLabel('Copy code').click();
    assert.deepEqual((await webview.posted()).slice(-1), [{ type: 'copyCode', code: `let x${blocks - 1} = ${blocks - 1};` }], 'a plain block keeps its actions');

    await webview.hostPost(init(conversation([assistantTurn('streamed', '', { state: 'streaming' })])));
    await streamInto('streamed', chunk(answer), 7);
    await webview.hostPost({ type: 'answerUpdate', turnId: 'streamed', patch: { state: 'done' } });
    await webview.settle();
    await highlightedIn('streamed');
    assert.equal(await webview.page.locator('[data-turn-id="streamed"] .answer-body').innerHTML(), whole, 'the live parses of the open block spent none of the budget');
  });

  it('streams reasoning as text above the answer with its token count', async () => {
    await webview.hostPost(init(conversation([assistantTurn('a1', '', { state: 'streaming' })])));
    const reasoning = 'Think about <b>tags</b> & **stars**\nsecond line';
    for (const piece of chunk(reasoning)) await webview.hostPost({ type: 'delta', turnId: 'a1', reasoning: piece });
    await webview.hostPost({ type: 'delta', turnId: 'a1', content: 'Answer.' });
    await webview.hostPost({
      type: 'answerUpdate',
      turnId: 'a1',
      patch: { state: 'done', usage: { promptTokens: 1, completionTokens: 2, reasoningTokens: 1234, totalTokens: 3 } },
    });
    await webview.settle();
    const details = webview.page.locator('[data-turn-id="a1"] details.reasoning');
    assert.equal(await details.locator('.reasoning-text').textContent(), reasoning);
    assert.equal(await details.locator('.reasoning-text *').count(), 0, 'reasoning is text, never markup');
    assert.equal(await details.locator('summary').textContent(), 'Reasoning · 1,234 tokens');
    const order = await webview.page.locator('[data-turn-id="a1"] > *').evaluateAll((nodes) => nodes.map((node) => node.className));
    assert.ok(order.indexOf('reasoning') < order.indexOf('answer-body'), 'reasoning sits above the answer');
  });

  it('shows reasoning live while the model thinks and folds it away when the answer starts', async () => {
    await webview.hostPost(init(conversation([userTurn('u1', 'why?'), assistantTurn('a1', '', { state: 'streaming' })])));
    const details = webview.page.locator('[data-turn-id="a1"] details.reasoning');
    const reasoningText = details.locator('.reasoning-text');
    const thinking = 'First I check the volume.\nThen I compare the two files.\n';
    const pieces = chunk(thinking);
    await webview.hostPost(...pieces.slice(0, 3).map((reasoning) => ({ type: 'delta' as const, turnId: 'a1', reasoning })));
    await webview.settle();
    assert.equal(await details.evaluate((node) => (node as unknown as { open: boolean }).open), true, 'open while thinking');
    assert.equal(await reasoningText.isVisible(), true, 'the reasoning text itself is on screen, not only its summary');
    assert.equal(await reasoningText.textContent(), pieces.slice(0, 3).join(''));
    await webview.hostPost(...pieces.slice(3).map((reasoning) => ({ type: 'delta' as const, turnId: 'a1', reasoning })));
    // Streamed text is drawn every 50 ms: wait for the drawing, not for a number of frames (a loaded machine drops frames).
    await drawn('[data-turn-id="a1"] .reasoning-text', thinking);
    assert.equal(await reasoningText.textContent(), thinking, 'later thoughts appear as they come');
    assert.equal(await reasoningText.isVisible(), true);

    await webview.hostPost({ type: 'delta', turnId: 'a1', content: 'The answer ' });
    await drawn('[data-turn-id="a1"] .answer-body', 'The answer');
    assert.equal(await reasoningText.isVisible(), false, 'folded once the answer starts');
    assert.equal(await details.locator('summary').isVisible(), true, 'the summary stays to open it again');

    // The reader opens it again: more answer text and the end of the stream leave it open.
    await details.locator('summary').click();
    await webview.hostPost({ type: 'delta', turnId: 'a1', content: 'goes on.' });
    await webview.hostPost({ type: 'answerUpdate', turnId: 'a1', patch: { state: 'done' } });
    await webview.settle();
    assert.equal(await reasoningText.isVisible(), true, "the reader's choice wins");
    assert.equal(await reasoningText.textContent(), thinking);
  });

  it('keeps reasoning folded if the reader folds it while it streams, and folded in a loaded conversation', async () => {
    await webview.hostPost(init(conversation([assistantTurn('a1', '', { state: 'streaming' })])));
    const details = webview.page.locator('[data-turn-id="a1"] details.reasoning');
    await webview.hostPost({ type: 'delta', turnId: 'a1', reasoning: 'Thinking about it. ' });
    await webview.settle();
    assert.equal(await details.locator('.reasoning-text').isVisible(), true);
    await details.locator('summary').click();
    await webview.hostPost({ type: 'delta', turnId: 'a1', reasoning: 'Still thinking.' });
    await webview.settle();
    assert.equal(await details.locator('.reasoning-text').isVisible(), false, 'folded by the reader, it stays folded');

    await webview.hostPost(init(conversation([assistantTurn('old', 'Done.', { reasoning: 'Earlier thoughts.' })])));
    await webview.settle();
    const old = webview.page.locator('[data-turn-id="old"] details.reasoning');
    assert.equal(await old.locator('summary').isVisible(), true);
    assert.equal(await old.locator('.reasoning-text').isVisible(), false, 'a finished answer shows its reasoning folded');
  });

  it('follows the stream at the bottom and leaves a reader who scrolled up alone', async () => {
    const history = Array.from({ length: 30 }, (_, index) => assistantTurn(`old${index}`, `Earlier answer ${index}.\n\n${'text '.repeat(40)}`));
    await webview.hostPost(init(conversation([...history, assistantTurn('live', '', { state: 'streaming' })])));
    await webview.settle();
    const transcript = webview.page.locator('.transcript');
    const distanceFromBottom = () => transcript.evaluate((node) => node.scrollHeight - node.scrollTop - node.clientHeight);

    await streamInto('live', chunk('Streaming line.\n\n'.repeat(40)));
    await webview.settle();
    assert.ok((await distanceFromBottom()) <= 32, 'at the bottom, the view follows new text');

    await transcript.evaluate((node) => node.scrollTo({ top: 100 }));
    await webview.settle();
    await streamInto('live', chunk('More text.\n\n'.repeat(40)));
    await webview.settle();
    assert.equal(await transcript.evaluate((node) => node.scrollTop), 100, 'scrolled up, the view stays put');
  });

  it('shows all the text received before an answer ends together with its end, so nothing arrives after Stop', async () => {
    await webview.hostPost(init(conversation([userTurn('u1', 'explain'), assistantTurn('a1', '', { state: 'streaming' })])));
    await webview.settle();
    await webview.hostPost({ type: 'delta', turnId: 'a1', content: 'First words. ' });
    await webview.settle();
    // Read the answer in the same task that delivers the end (a listener added after the
    // webview's own runs right after it): streamed text is drawn at most every 50 ms, and the
    // last words must not wait for that.
    const textWhenStopped = await webview.page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const page = globalThis as unknown as {
            addEventListener(type: 'message', listener: (event: { data?: { type?: string } }) => void): void;
            postMessage(message: unknown, origin: string): void;
            document: { querySelector(selector: string): { textContent: string | null } | null };
          };
          page.addEventListener('message', (event) => {
            if (event.data?.type === 'answerUpdate') resolve(page.document.querySelector('[data-turn-id="a1"] .answer-body')?.textContent ?? '');
          });
          page.postMessage({ type: 'delta', turnId: 'a1', content: 'Last words before Stop.' }, '*');
          page.postMessage({ type: 'answerUpdate', turnId: 'a1', patch: { state: 'stopped' } }, '*');
        }),
    );
    assert.match(textWhenStopped, /First words\. Last words before Stop\./);
  });

  /**
   * Records, in the page, what the stream writes into an answer's body: elements written into
   * its finished blocks (each element counted once, however many records name it) and any taken
   * out again, and the size of each write of the
   * open block. Plain JavaScript in a string: tsx would wrap named functions in a helper the page lacks.
   */
  const WATCH_WRITES = `(() => {
    const body = document.querySelector('[data-turn-id="long"] .answer-body');
    const finished = body.querySelector('.finished-blocks');
    const seen = new WeakSet();
    const log = { finishedWritten: 0, finishedRemoved: 0, openWrites: [] };
    const elementsOf = (node) => (node.nodeType === 1 ? [node, ...node.querySelectorAll('*')] : []);
    new MutationObserver((records) => {
      let open = 0;
      for (const record of records) {
        if (record.target.closest('.md-open')) {
          for (const node of record.addedNodes) open += elementsOf(node).length;
        } else if (finished.contains(record.target)) {
          for (const node of record.addedNodes) for (const element of elementsOf(node)) {
            if (!seen.has(element)) { seen.add(element); log.finishedWritten++; }
          }
          for (const node of record.removedNodes) log.finishedRemoved += elementsOf(node).length;
        }
      }
      if (open) log.openWrites.push(open);
    }).observe(body, { childList: true, subtree: true });
    window.__writes = log;
  })()`;

  it('writes each finished block once and re-renders only the open one, however long the answer (issue 26)', async () => {
    // Re-parsing the whole answer at each drawing, or redrawing finished blocks, would make a
    // long answer's cost grow with the square of its length: counted here in DOM writes.
    await webview.hostPost(init(conversation([userTurn('u1', 'explain'), assistantTurn('long', '', { state: 'streaming' })])));
    await webview.settle();
    await webview.page.evaluate(WATCH_WRITES);
    for (let part = 1; part <= 6; part++) {
      await streamInto('long', chunk(`${ANSWER}\n\nEnd of part ${part}.\n\n`));
      // A drawing after each part: the open block is drawn while the answer grows, whatever the machine's speed.
      await drawn('[data-turn-id="long"] .answer-body', `End of part ${part}.`);
    }
    await webview.hostPost({ type: 'answerUpdate', turnId: 'long', patch: { state: 'done' } });
    await webview.settle();
    const writes = (await webview.page.evaluate('window.__writes')) as { finishedWritten: number; finishedRemoved: number; openWrites: number[] };
    const body = webview.page.locator('[data-turn-id="long"] .answer-body');
    const finishedElements = await body.locator('.finished-blocks *').count();
    const largestBlock = Math.max(...(await body.locator('.md-block').evaluateAll((blocks) => blocks.map((block) => block.querySelectorAll('*').length))));
    assert.equal(writes.finishedRemoved, 0, 'nothing written into the finished blocks is taken out again');
    assert.equal(writes.finishedWritten, finishedElements, 'the finished blocks hold every element written into them: none was replaced by a new rendering');
    assert.ok(writes.openWrites.length >= 6, `the open block was drawn while the answer streamed (${writes.openWrites.length} times)`);
    // The open block is a prefix of one block: its drawing never holds more than the largest block's
    // elements (a few more for a half-written table or fence), not the answer so far.
    assert.ok(Math.max(...writes.openWrites) <= largestBlock + 8, `an open-block drawing wrote ${Math.max(...writes.openWrites)} elements; the largest block has ${largestBlock}`);
    assert.ok(finishedElements > 6 * (largestBlock + 8), 'the answer is long enough for a whole-answer redraw to exceed that bound');
  });

  /**
   * Counts, in the page, the characters the stream writes into an answer's body (the text of
   * every node added, as the DOM receives it): a re-parse of a block writes all its text again.
   */
  const countWrites = (turnId: string) => `(() => {
    const body = document.querySelector('[data-turn-id="${turnId}"] .answer-body');
    const log = { open: 0, all: 0 };
    new MutationObserver((records) => {
      // Records arrive after the writes: a node added and then filled in the same task is
      // counted with what it holds now, once (not again for nodes added inside it).
      const added = new Set(records.flatMap((record) => [...record.addedNodes]));
      const insideAdded = (node) => { for (let up = node.parentNode; up && up !== body; up = up.parentNode) if (added.has(up)) return true; return false; };
      for (const node of added) {
        if (insideAdded(node)) continue;
        const chars = (node.textContent ?? '').length;
        log.all += chars;
        if (node.parentNode?.closest?.('.md-open')) log.open += chars;
      }
    }).observe(body, { childList: true, subtree: true });
    window.__chars = log;
  })()`;

  /** Waits until the answer body shows at least `length` characters. */
  async function drawnLength(turnId: string, length: number): Promise<void> {
    type Page = { document: { querySelector(selector: string): { textContent: string | null } | null } };
    await webview.page.waitForFunction(
      ({ turnId, length }) => ((globalThis as unknown as Page).document.querySelector(`[data-turn-id="${turnId}"] .answer-body`)?.textContent ?? '').length >= length,
      { turnId, length },
      { timeout: 30_000 },
    );
  }

  it('keeps the work of a hostile answer with no blank line proportional to its length, and shows all of it', async () => {
    // markdown-it takes ~2.5 µs a character on `a [`: re-parsing the whole open block at each
    // drawing made a megabyte paragraph cost seconds per frame (the panel froze, Stop with it).
    // Counted in characters written to the DOM, which a parse writes in full each time.
    await webview.hostPost(init(conversation([userTurn('u1', 'explain'), assistantTurn('hostile', '', { state: 'streaming' })])));
    await webview.settle();
    await webview.page.evaluate(countWrites('hostile'));
    const piece = 'a ['.repeat(1366);
    const pieces = 40;
    for (let index = 1; index <= pieces; index++) {
      await webview.hostPost({ type: 'delta', turnId: 'hostile', content: piece });
      // One drawing per piece, whatever the machine's speed: the worst case for re-parsing.
      await drawnLength('hostile', index * piece.length);
    }
    const total = pieces * piece.length;
    const streamed = (await webview.page.evaluate('window.__chars')) as { open: number; all: number };
    assert.ok(streamed.open <= 2 * total, `the open block was written ${streamed.open} characters for ${total} received (at most twice that)`);
    // The browser lays out a growing paragraph whole at each frame: the text beyond the parse is in blocks of bounded size.
    const chunks = await webview.page.locator('[data-turn-id="hostile"] .md-open .text-chunk').evaluateAll((nodes) => nodes.map((node) => (node.textContent ?? '').length));
    assert.ok(chunks.length >= 2 && Math.max(...chunks) <= 64_000, `the open block's text is in ${chunks.length} blocks of at most ${Math.max(...chunks)} characters`);
    await webview.hostPost({ type: 'answerUpdate', turnId: 'hostile', patch: { state: 'done' } });
    await webview.settle();
    const written = (await webview.page.evaluate('window.__chars')) as { open: number; all: number };
    assert.ok(written.all <= 3 * total, `the answer was written ${written.all} characters for ${total} received (at most three times that)`);
    const body = webview.page.locator('[data-turn-id="hostile"] .answer-body');
    assert.equal(await body.locator('.md-open').count(), 0);
    assert.ok(((await body.textContent()) ?? '').trim() === piece.repeat(pieces).trim(), 'all the text is shown, as text');
    // Text only: paragraphs, and the blocks that split long text for layout (streamingMarkdown.ts).
    assert.deepEqual(await body.locator('*').evaluateAll((nodes) => [...new Set(nodes.map((node) => `${node.tagName.toLowerCase()}.${node.className}`))].sort()), [
      'div.finished-blocks',
      'div.md-block',
      'div.md-group',
      'p.',
    ]);
  });

  it('streams long reasoning into blocks of bounded size, which the browser lays out one at a time', async () => {
    // One growing text block is laid out whole at each frame: 2 MB appended over 1,000 frames
    // took Chromium 229 s of layout (dom.ts ChunkedText).
    await webview.hostPost(init(conversation([assistantTurn('thinking', '', { state: 'streaming' })])));
    await webview.settle();
    const piece = 'why ['.repeat(800);
    type Page = { document: { querySelector(selector: string): { textContent: string | null } | null } };
    for (let index = 1; index <= 40; index++) {
      await webview.hostPost({ type: 'delta', turnId: 'thinking', reasoning: piece });
      await webview.page.waitForFunction(
        (length) => ((globalThis as unknown as Page).document.querySelector('[data-turn-id="thinking"] .reasoning-text')?.textContent ?? '').length >= length,
        index * piece.length,
        { timeout: 30_000 },
      );
    }
    const reasoning = webview.page.locator('[data-turn-id="thinking"] .reasoning-text');
    assert.ok((await reasoning.textContent()) === piece.repeat(40), 'all the reasoning, as text');
    const chunks = await reasoning.locator('.text-chunk').evaluateAll((nodes) => nodes.map((node) => (node.textContent ?? '').length));
    assert.ok(chunks.length >= 2 && Math.max(...chunks) <= 64_000, `the reasoning is in ${chunks.length} blocks of at most ${Math.max(...chunks)} characters`);
    assert.equal(await reasoning.locator('*:not(.text-chunk)').count(), 0, 'no markup from the text');
  });

  it('shows a long block that arrives at once as text, exactly as written, until it is finished', async () => {
    await webview.hostPost(init(conversation([assistantTurn('long', '', { state: 'streaming' })])));
    await webview.hostPost({ type: 'delta', turnId: 'long', content: 'A short paragraph ending in a space. \n\n' });
    await drawn('[data-turn-id="long"] .md-open', 'A short paragraph');
    const long = `Long **not bold yet** ${'word '.repeat(4000)}end`;
    await webview.hostPost({ type: 'delta', turnId: 'long', content: long });
    await drawn('[data-turn-id="long"] .md-open', 'end');
    const open = webview.page.locator('[data-turn-id="long"] .md-open .md-raw');
    assert.ok((await open.textContent()) === long, 'the block as written, nothing added');
    await webview.hostPost({ type: 'answerUpdate', turnId: 'long', patch: { state: 'done' } });
    await webview.settle();
    assert.equal(await webview.page.locator('[data-turn-id="long"] .answer-body strong').textContent(), 'not bold yet', 'parsed once finished');
  });

  it('parses the open block once when the answer ends, as a finished block', async () => {
    await webview.hostPost(init(conversation([assistantTurn('ending', '', { state: 'streaming' })])));
    await webview.hostPost({ type: 'delta', turnId: 'ending', content: 'x ['.repeat(2000) });
    await drawnLength('ending', 6000);
    await webview.page.evaluate(countWrites('ending'));
    await webview.hostPost({ type: 'delta', turnId: 'ending', content: 'y ['.repeat(2000) }, { type: 'answerUpdate', turnId: 'ending', patch: { state: 'done' } });
    await webview.settle();
    const written = (await webview.page.evaluate('window.__chars')) as { open: number; all: number };
    assert.equal(written.open, 0, 'nothing was drawn into the open block after the end');
    assert.ok(written.all <= 12_100, `the finished block was written once (${written.all} characters)`);
  });

  it('draws the held-back end of a long open block when the stream pauses', async () => {
    // A long block is re-parsed only after it grew enough; text that stops short of that
    // must still appear while the answer waits for more.
    const items = Array.from({ length: 160 }, (_, i) => `- item ${i + 1} of the list`).join('\n');
    await webview.hostPost(init(conversation([assistantTurn('paused', '', { state: 'streaming' })])));
    await streamInto('paused', chunk(items, 3));
    const answer = webview.page.locator('[data-turn-id="paused"]');
    await webview.page.waitForFunction(
      () => (globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } }).document.querySelectorAll('[data-turn-id="paused"] .md-open li').length === 160,
      undefined,
      { timeout: 10_000 },
    );
    assert.equal(await answer.getAttribute('data-state'), 'streaming');
    assert.equal(await answer.locator('.md-open li').last().textContent(), 'item 160 of the list');
  });

  it('streams a code block longer than the live limit into one code block, the same as a whole one', async () => {
    const code = Array.from({ length: 1200 }, (_, i) => `const value${i} = compute(${i}, [${i}]); // line ${i}`).join('\n');
    const answer = `Here:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.`;
    assert.ok(code.length > 40_000);
    await webview.hostPost(init(conversation([assistantTurn('code', '', { state: 'streaming' })])));
    const half = answer.indexOf('line 900');
    for (let index = 0; index < half; index += 2000) {
      await webview.hostPost({ type: 'delta', turnId: 'code', content: answer.slice(index, Math.min(half, index + 2000)) });
      // Drawn piece by piece, as a model's pace gives it: on a busy machine the view took
      // several pieces in its first drawing, past the live limit, and showed them as text.
      await drawnLength('code', Math.min(half, index + 2000) - 100);
    }
    const open = webview.page.locator('[data-turn-id="code"] .md-open');
    assert.equal(await open.locator('pre code').count(), 1, 'the open block is one code block');
    assert.ok(answer.includes((await open.locator('pre code').textContent()) ?? '-'), 'its code is the code received so far, without marks');
    await webview.hostPost({ type: 'delta', turnId: 'code', content: answer.slice(half) }, { type: 'answerUpdate', turnId: 'code', patch: { state: 'done' } });
    await webview.settle();
    const streamed = await webview.page.locator('[data-turn-id="code"] .answer-body').innerHTML();
    await webview.hostPost(init(conversation([assistantTurn('code', answer)])));
    await webview.settle();
    assert.equal(await webview.page.locator('[data-turn-id="code"] .answer-body').innerHTML(), streamed);
  });

  it('ends a long code block at its closing fence: text right below it is not drawn as code while it streams', async () => {
    const code = Array.from({ length: 600 }, (_, i) => `const value${i} = compute(${i}); // line ${i}`).join('\n');
    assert.ok(code.length > 16_000, 'longer than the live limit');
    const answer = `\`\`\`ts\n${code}\n\`\`\`\nRight below the fence, with no blank line.`;
    await webview.hostPost(init(conversation([assistantTurn('below', '', { state: 'streaming' })])));
    for (let index = 0; index < answer.length; index += 2000) await webview.hostPost({ type: 'delta', turnId: 'below', content: answer.slice(index, index + 2000) });
    await drawn('[data-turn-id="below"] .answer-body', 'Right below the fence');
    const body = webview.page.locator('[data-turn-id="below"] .answer-body');
    assert.equal(await body.locator('pre code').count(), 1);
    assert.ok(!((await body.locator('pre code').textContent()) ?? '').includes('Right below'), 'the text below the fence is not in the code');
    assert.equal(await body.locator('.md-open pre').count(), 0, 'the code block is a finished block');
    await webview.hostPost({ type: 'answerUpdate', turnId: 'below', patch: { state: 'done' } });
    await webview.settle();
    const streamed = await body.innerHTML();
    await webview.hostPost(init(conversation([assistantTurn('below', answer)])));
    await webview.settle();
    assert.equal(await webview.page.locator('[data-turn-id="below"] .answer-body').innerHTML(), streamed, 'the same as the whole answer');
  });

  /** A list item whose code block is longer than the live limit, with text right below its closing fence, indented as the item's content. */
  function listItemFence(head: string, indent: string, below: string, line = (i: number) => `const value${i} = compute(${i}); // line ${i}`): { answer: string; code: string } {
    const code = Array.from({ length: 600 }, (_, i) => line(i)).join('\n');
    assert.ok(code.length > 16_000, 'longer than the live limit');
    const indented = code.replace(/^/gm, indent);
    // `below` may end the item, and the fence with it, without a closing fence (a line indented less).
    const closing = below.startsWith('!') ? '' : `${indent}\`\`\`\n`;
    return { answer: `Intro.\n\n${head}\n${indent}\`\`\`ts\n${indented}\n${closing}${below.replace(/^!/, '')}`, code };
  }

  /** Streams `answer` in pieces of 2,000 characters, first until its open block is drawn with the code block's start (parsed while live), then the rest. */
  async function streamPastLiveLimit(turnId: string, answer: string, codeStart: string, drawnIn = 'pre code'): Promise<void> {
    await webview.hostPost(init(conversation([assistantTurn(turnId, '', { state: 'streaming' })])));
    const first = answer.indexOf(codeStart) + codeStart.length;
    await webview.hostPost({ type: 'delta', turnId, content: answer.slice(0, first) });
    await drawn(`[data-turn-id="${turnId}"] .md-open ${drawnIn}`, codeStart);
    for (let index = first; index < answer.length; index += 2000) await webview.hostPost({ type: 'delta', turnId, content: answer.slice(index, index + 2000) });
  }

  for (const [name, head, indent, below] of [
    ['a numbered item', '1. Install:', '   ', 'Then run it, right below the fence.\n2. Next step, still streaming.'],
    ['an item of a nested list', '- Setup:\n  - Install:', '    ', '  Back in the outer item, below the fence.\n- Another item.'],
    ['an item of a nested list, ended by a line at the margin', '- Setup:\n  - Install:', '    ', '!No closing fence: this line ends the list.\n- A new list.'],
  ]) {
    it(`ends the long code block of ${name} where its fence ends while it streams: the text below it is drawn after the code, as text`, async () => {
      const { answer, code } = listItemFence(head, indent, below);
      await streamPastLiveLimit('item', answer, 'line 5\n');
      const firstBelow = below.replace(/^!/, '').trimStart().split('\n')[0];
      await drawn('[data-turn-id="item"] .answer-body', below.slice(-12));
      const body = webview.page.locator('[data-turn-id="item"] .answer-body');
      assert.equal(await body.locator('pre code').count(), 1);
      assert.ok(!((await body.locator('pre code').textContent()) ?? '').includes(firstBelow), 'the text below the fence is not in the code');
      // The code as its parse shows it: without the item's indentation, nothing below its fence.
      assert.ok((await body.locator('.md-open pre code').textContent()) === `${code}\n`, 'the code block holds exactly the code');
      const after = body.locator('.md-open .code-block + .md-raw');
      assert.ok(((await after.textContent()) ?? '').includes(firstBelow), 'the text below the fence is right after the code block');
      assert.equal(await after.locator('*:not(.text-chunk)').count(), 0, 'as text');
      await webview.hostPost({ type: 'answerUpdate', turnId: 'item', patch: { state: 'done' } });
      await webview.settle();
      const streamed = await body.innerHTML();
      assert.equal(await body.locator('.md-raw').count(), 0, 'parsed once finished');
      await webview.hostPost(init(conversation([assistantTurn('item', answer)])));
      await webview.settle();
      assert.equal(await webview.page.locator('[data-turn-id="item"] .answer-body').innerHTML(), streamed, 'the same as the whole answer');
    });
  }

  it('holds back from the code an unfinished line that may end its fence, past the live limit', async () => {
    for (const [below, cut] of [
      ['Then run it.', '   ``'],
      ['!No closing fence: this line ends the list.', '\nNo cl'],
    ]) {
      const { answer, code } = listItemFence(below.startsWith('!') ? '- Setup:\n  - Install:' : '1. Install:', below.startsWith('!') ? '    ' : '   ', below);
      const at = answer.indexOf(cut, answer.indexOf('line 599')) + cut.length;
      await streamPastLiveLimit('held', answer.slice(0, at), 'line 5\n');
      await drawn('[data-turn-id="held"] .md-open pre code', 'line 599');
      await webview.settle();
      const codeText = webview.page.locator('[data-turn-id="held"] pre code');
      assert.ok((await codeText.textContent()) === `${code}\n`, `the code without the start of the line after it (${JSON.stringify(cut)})`);
      await webview.hostPost({ type: 'delta', turnId: 'held', content: answer.slice(at) });
      await drawn('[data-turn-id="held"] .answer-body', below.slice(-10));
      assert.ok((await codeText.textContent()) === `${code}\n`, 'nor its end');
    }
  });

  it('shows markup in a list item code block past the live limit, and below its fence, only as text', async () => {
    const markup = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const { answer } = listItemFence('1. Run:', '   ', `Then ${markup} below the fence.\n${markup}`, (i) => `echo ${i} ${markup}`);
    await streamPastLiveLimit('markup', answer, 'echo 3');
    await drawn('[data-turn-id="markup"] .answer-body', 'below the fence.');
    const body = webview.page.locator('[data-turn-id="markup"] .answer-body');
    const check = async (when: string) => {
      assert.equal(await body.locator('img, script').count(), 0, `${when}: no element from the text`);
      assert.equal(await webview.page.evaluate('window.__pwned'), undefined, `${when}: nothing ran`);
      assert.ok(((await body.locator('pre code').textContent()) ?? '').includes(`echo 599 ${markup}`), `${when}: the markup is the code's text`);
      assert.ok(((await body.textContent()) ?? '').includes(`Then ${markup} below the fence.`), `${when}: and the text's below the fence`);
    };
    await check('while streaming');
    assert.ok(((await body.locator('.md-open .code-block + .md-raw').textContent()) ?? '').includes(markup), 'below the fence, as text after the code');
    await webview.hostPost({ type: 'answerUpdate', turnId: 'markup', patch: { state: 'done' } });
    await webview.settle();
    await check('parsed once finished');
  });

  /** The text of every code block of the answer's open block, and its text outside code. */
  async function openCodeAndText(turnId: string): Promise<{ codes: string[]; text: string }> {
    const open = webview.page.locator(`[data-turn-id="${turnId}"] .md-open`);
    const codes = await open.locator('pre code').evaluateAll((nodes) => nodes.map((node) => node.textContent ?? ''));
    type Node = { cloneNode(deep: boolean): Node; querySelectorAll(selector: string): Iterable<{ remove(): void }>; textContent: string | null };
    const text = await open.evaluate((node) => {
      const copy = (node as unknown as Node).cloneNode(true);
      for (const code of Array.from(copy.querySelectorAll('.code-block, pre'))) code.remove();
      return copy.textContent ?? '';
    });
    return { codes, text };
  }

  const FIRST_FENCE_BELOW = 'Then run it.\n2. Build:\n   ```sh\n   make all\n   make check\n';
  for (const [name, answer, before, code, after] of [
    // The list item's first fence was open at the last parse (while live); the second opens past the limit.
    [
      'a second list item fence after a long one',
      listItemFence('1. Install:', '   ', `${FIRST_FENCE_BELOW}   \`\`\`\n   After the second fence.\n3. Done.`).answer,
      'make check\n',
      'make all\nmake check\n',
      'After the second fence.',
    ],
    // No fence at the last parse: a long list, then an item with a fence.
    [
      'a list item fence after a long list',
      `Items:\n\n${Array.from({ length: 700 }, (_, i) => `- item ${i} of the list line.`).join('\n')}\n- Code:\n  ~~~py\n  def f():\n      return 1\n  ~~~\n  Below the code, in the item.\n- Last.`,
      'return 1\n',
      'def f():\n    return 1\n',
      'Below the code, in the item.',
    ],
    // A fence in no list item, after a long paragraph (a fence indented 1 to 3 does not end the block).
    ['a fence after a long paragraph', `${'A long paragraph line. '.repeat(900)}\n \`\`\`js\n x();\n y();\n \`\`\`\nText right below.\nMore.`, ' y();\n', 'x();\ny();\n', 'Text right below.'],
    // Fences in a block quote: their code lines lose their quote marks, and a line without them ends the code.
    [
      'a fence in a block quote after a long quote',
      `Quoted:\n\n${Array.from({ length: 700 }, (_, i) => `> quoted text ${i} of the line.`).join('\n')}\n> \`\`\`py\n> def f():\n>     return 1\n> \`\`\`\n> After the code, quoted.\n> End.`,
      'return 1\n',
      'def f():\n    return 1\n',
      'After the code, quoted.',
    ],
    [
      'a long fence in a block quote, open at the last parse',
      `Quoted:\n\n> \`\`\`ts\n${Array.from({ length: 600 }, (_, i) => `> const value${i} = compute(${i}); // line ${i}`).join('\n')}\n> \`\`\`\n> After the quoted code.\n> End.`,
      'line 599\n',
      `${Array.from({ length: 600 }, (_, i) => `const value${i} = compute(${i}); // line ${i}`).join('\n')}\n`,
      'After the quoted code.',
    ],
  ]) {
    it(`draws as code, while it streams past the live limit, ${name}, and the text after its close outside the code`, async () => {
      const at = answer.lastIndexOf(before) + before.length;
      await streamPastLiveLimit('second', answer.slice(0, at), ...((answer.includes('line 5\n') ? ['line 5\n'] : ['line.', '']) as [string, string?]));
      await drawn('[data-turn-id="second"] .md-open', code.trimEnd().split('\n').pop() ?? '-');
      const streaming = await openCodeAndText('second');
      assert.ok(streaming.codes.at(-1) === code, `the new fence's code is in a code block: ${JSON.stringify(streaming.codes.at(-1)?.slice(-60))}`);
      assert.ok(!/[`~]{3}/.test(streaming.text), 'no fence marks drawn as text');
      await webview.hostPost({ type: 'delta', turnId: 'second', content: answer.slice(at) });
      await drawn('[data-turn-id="second"] .md-open', answer.slice(-5));
      const closed = await openCodeAndText('second');
      assert.ok(closed.codes.at(-1) === code, 'its code, and nothing after its close');
      assert.ok(closed.text.includes(after), 'the text after its close is outside the code');
      assert.ok(!/[`~]{3}/.test(closed.text), 'no fence marks drawn as text');
      await webview.hostPost({ type: 'answerUpdate', turnId: 'second', patch: { state: 'done' } });
      await webview.settle();
      const body = webview.page.locator('[data-turn-id="second"] .answer-body');
      const streamed = await body.innerHTML();
      await webview.hostPost(init(conversation([assistantTurn('second', answer)])));
      await webview.settle();
      assert.equal(await webview.page.locator('[data-turn-id="second"] .answer-body').innerHTML(), streamed, 'the same as the whole answer once finished');
    });
  }

  it('holds back an unfinished line that may open a fence, past the live limit: its marks are never drawn as text', async () => {
    const { answer } = listItemFence('1. Install:', '   ', `${FIRST_FENCE_BELOW}   \`\`\`\n3. Done.`);
    const at = answer.indexOf('   ```sh') + '   ``'.length;
    await streamPastLiveLimit('held', answer.slice(0, at), 'line 5\n');
    await drawn('[data-turn-id="held"] .md-open', '2. Build:');
    await webview.settle();
    assert.ok(!(await openCodeAndText('held')).text.includes('``'), 'the start of the opening line is not drawn');
    await webview.hostPost({ type: 'delta', turnId: 'held', content: answer.slice(at, answer.indexOf('make all')) });
    await webview.settle();
    assert.ok(!(await openCodeAndText('held')).text.includes('``'), 'nor the whole line once it ends');
    assert.equal(await webview.page.locator('[data-turn-id="held"] .md-open .code-block[data-language="sh"]').count(), 1, 'it opened a code block of its language');
  });

  it('shows a list longer than the live limit as text while it streams, then parses it once, the same as the whole answer', async () => {
    const list = Array.from({ length: 700 }, (_, i) => `- item ${i} with \`code\` and **bold** text`).join('\n');
    assert.ok(list.length > 24_000);
    const answer = `Items:\n\n${list}`;
    await webview.hostPost(init(conversation([assistantTurn('list', '', { state: 'streaming' })])));
    await webview.hostPost({ type: 'delta', turnId: 'list', content: answer.slice(0, 2000) });
    await drawn('[data-turn-id="list"] .md-open ul', 'item 5 ');
    for (let index = 2000; index < answer.length; index += 2000) await webview.hostPost({ type: 'delta', turnId: 'list', content: answer.slice(index, index + 2000) });
    await drawn('[data-turn-id="list"] .md-open', 'item 699 with `code` and **bold** text');
    await webview.page.evaluate(countWrites('list'));
    await webview.hostPost({ type: 'answerUpdate', turnId: 'list', patch: { state: 'done' } });
    await webview.settle();
    const body = webview.page.locator('[data-turn-id="list"] .answer-body');
    assert.equal(await body.locator('li').count(), 700);
    const written = (await webview.page.evaluate('window.__chars')) as { open: number; all: number };
    const shown = ((await body.textContent()) ?? '').length;
    assert.equal(written.open, 0, 'nothing was drawn into the open block after the end');
    assert.ok(written.all <= shown, `the list was written once when finished (${written.all} characters of ${shown} shown)`);
    const streamed = await body.innerHTML();
    await webview.hostPost(init(conversation([assistantTurn('list', answer)])));
    await webview.settle();
    assert.equal(await webview.page.locator('[data-turn-id="list"] .answer-body').innerHTML(), streamed, 'the same as the whole answer');
  });

  /**
   * Records, in the page, the most characters one task drew into an answer through a Markdown
   * parse (elements added, other than the blocks that hold text added as text). A click waits
   * for the task in progress: this bounds that wait in work, as a test may not bound it in time.
   */
  const watchParses = (turnId: string) => `(() => {
    const body = document.querySelector('[data-turn-id="${turnId}"] .answer-body');
    const log = { largest: 0 };
    new MutationObserver((records) => {
      const added = new Set(records.flatMap((record) => [...record.addedNodes]));
      const insideAdded = (node) => { for (let up = node.parentNode; up && up !== body; up = up.parentNode) if (added.has(up)) return true; return false; };
      let parsed = 0;
      for (const node of added) if (node.nodeType === 1 && !node.matches('.text-chunk, .md-raw') && !insideAdded(node)) parsed += (node.textContent ?? '').length;
      log.largest = Math.max(log.largest, parsed);
    }).observe(body, { childList: true, subtree: true });
    window.__parses = log;
  })()`;

  for (const [name, hostile] of [
    ['2 MB of `a [` with no blank line', 'a ['.repeat(700_000)],
    ['a 2 MB single list', Array.from({ length: 150_000 }, (_, i) => `- item ${i} [`).join('\n')],
    // Each fence opened past the live limit may start a code block (with its toolbar) while it streams.
    ['2 MB of code fences in one list item', `- item\n${'  ```\n  x [\n  ```\n'.repeat(120_000)}`],
    ['2 MB of list item fences ended by their items, never closed', '- a\n  - ```\n'.repeat(170_000)],
    ['2 MB of code fences in one block quote', '> ```\n> x [\n> ```\n'.repeat(150_000)],
  ]) {
    it(`keeps Stop usable while ${name} streams: a real click posts stop within a few messages`, async () => {
      assert.ok(hostile.length >= 2_000_000);
      await webview.hostPost(init(conversation([userTurn('u1', 'explain'), assistantTurn('hostile', '', { state: 'streaming' })])), { type: 'busy', busy: true });
      await webview.settle();
      await webview.page.evaluate(watchParses('hostile'));
      const stop = webview.page.getByLabel('Stop', { exact: true });
      const piece = 8192;
      let click: Promise<void> | undefined;
      let deltasAfterClick = 0;
      let stopped = false;
      // As the host streams: one delta after another, without waiting for them to be drawn.
      for (let index = 0; index < hostile.length && !stopped; index += piece) {
        const delta = { type: 'delta' as const, turnId: 'hostile', content: hostile.slice(index, index + piece) };
        const state = await webview.page.evaluate((message) => {
          type Page = { postMessage(message: unknown, origin: string): void; __posted: { type: string }[]; __parses: { largest: number } };
          const page = globalThis as unknown as Page;
          page.postMessage(message, '*');
          return { stopped: page.__posted.some((posted) => posted.type === 'stop'), largest: page.__parses.largest };
        }, delta);
        assert.ok(state.largest <= 65_536, `one drawing parsed ${state.largest} characters: a click waits behind it`);
        stopped = state.stopped;
        if (click) deltasAfterClick++;
        // A real click (pointer events through the browser) once the answer is far past the live limit.
        else if (index >= 256 * 1024) click = stop.click();
      }
      await click;
      assert.ok(stopped || (await webview.posted()).some((message) => message.type === 'stop'), 'Stop posted before the stream ended');
      assert.ok(deltasAfterClick <= 96, `stop was posted ${deltasAfterClick} deltas after the click`);
      // The host stops the stream: the answer ends where it was, and its open block is parsed once.
      await webview.hostPost({ type: 'answerUpdate', turnId: 'hostile', patch: { state: 'stopped' } }, { type: 'busy', busy: false });
      await webview.settle();
      assert.equal(await webview.page.locator('[data-turn-id="hostile"]').getAttribute('data-state'), 'stopped');
      assert.equal(await stop.isVisible(), false);
    });
  }

  it('shows a finished block too long to parse whole as its parsed start and the rest as text: a huge code block stays one', async () => {
    const code = Array.from({ length: 5000 }, (_, i) => `let v${i} = [${i}]; // a line of code number ${i}`).join('\n');
    assert.ok(code.length > 200_000);
    await webview.hostPost(init(conversation([assistantTurn('huge', `\`\`\`\n${code}\n\`\`\``)])));
    await webview.settle();
    const huge = webview.page.locator('[data-turn-id="huge"] .answer-body');
    assert.equal(await huge.locator('pre code').count(), 1);
    assert.equal(await huge.locator('pre code').textContent(), `${code}\n`, 'the code, without the closing fence');
    await webview.hostPost(init(conversation([assistantTurn('prose', 'b ['.repeat(60_000))])));
    await webview.settle();
    const prose = webview.page.locator('[data-turn-id="prose"] .answer-body');
    assert.ok(((await prose.textContent()) ?? '').trim() === 'b ['.repeat(60_000).trim(), 'all the text is shown, as text');
  });

  it('uses no :has() selector, whose re-checks on every streamed frame grew with the answer (issue 26)', async () => {
    // `.chat-app:has(.welcome…)` made Chromium re-check the selector as each frame's blocks
    // were added anywhere in the app: style work of a 10,000-token stream was 3× that without it.
    const selectors = (await webview.page.evaluate(`(() => {
      const selectors = [];
      const visit = (rules) => { for (const rule of rules) { if (rule.selectorText) selectors.push(rule.selectorText); if (rule.cssRules) visit(rule.cssRules); } };
      for (const sheet of document.styleSheets) visit(sheet.cssRules);
      return selectors;
    })()`)) as string[];
    assert.ok(selectors.length > 50, "the webview's style sheets were read");
    assert.deepEqual(
      selectors.filter((selector) => selector.includes(':has(')),
      [],
    );
  });
});
