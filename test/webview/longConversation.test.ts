// A 1,000-turn conversation in headless Chromium: only the turns near the viewport are in
// the DOM, every turn can still be reached (scrolling or keyboard), the view follows a
// streaming answer only while the reader is at the bottom, and the reader's place does not
// jump when turns above them are rendered and measured.
import { strict as assert } from 'node:assert';
import type { WebviewPage } from './support/chromium';
import { assistantTurn, chunk, conversation, init, longConversationTurns, userTurn } from './support/conversations';
import { useFreshPage, useWebviewSuite } from './support/suite';

const TURNS = 1_000;
const MOUNTED_LIMIT = 60;

describe('webview long conversation (1,000 turns)', function () {
  const suite = useWebviewSuite();
  let webview: WebviewPage;
  useFreshPage(suite, (page) => (webview = page), { keepPosted: true });

  const mountedTurns = () => webview.page.locator('.transcript .turn').count();
  const transcript = () => webview.page.locator('.transcript');
  const distanceFromBottom = () => transcript().evaluate((node) => node.scrollHeight - node.scrollTop - node.clientHeight);
  /** Top of a turn relative to the transcript's visible top (px), or null when not mounted. */
  const offsetInView = (turnId: string) =>
    webview.page.evaluate((id) => {
      const document = (globalThis as unknown as { document: { querySelector(s: string): { getBoundingClientRect(): { top: number } } | null } }).document;
      const turn = document.querySelector(`[data-turn-id="${id}"]`);
      const view = document.querySelector('.transcript');
      return turn && view ? turn.getBoundingClientRect().top - view.getBoundingClientRect().top : null;
    }, turnId);
  /** The id of the turn under a point of the transcript (fraction of its height). */
  const turnAt = (fraction: number) =>
    webview.page.evaluate((at) => {
      type Node = { closest(s: string): { dataset: { turnId?: string } } | null; getBoundingClientRect(): { left: number; top: number; width: number; height: number } };
      const document = (globalThis as unknown as { document: { querySelector(s: string): Node; elementFromPoint(x: number, y: number): Node | null } }).document;
      const box = document.querySelector('.transcript').getBoundingClientRect();
      return document.elementFromPoint(box.left + box.width / 2, box.top + box.height * at)?.closest('.turn')?.dataset.turnId ?? null;
    }, fraction);
  async function settleFrames(times = 3): Promise<void> {
    for (let i = 0; i < times; i++) await webview.settle();
  }
  async function streamInto(turnId: string, text: string): Promise<void> {
    const pieces = chunk(text);
    for (let index = 0; index < pieces.length; index += 40) {
      await webview.hostPost(...pieces.slice(index, index + 40).map((content) => ({ type: 'delta' as const, turnId, content })));
      await webview.settle();
    }
  }

  it('opens at the last turn with a bounded DOM, and scrolling to the top shows the first turn', async () => {
    await webview.hostPost(init(conversation(longConversationTurns(TURNS))));
    await settleFrames();
    const mounted = await mountedTurns();
    assert.ok(mounted > 0 && mounted < MOUNTED_LIMIT, `${mounted} turns in the DOM for ${TURNS}`);
    assert.ok((await distanceFromBottom()) <= 32, 'opens at the bottom');
    const lastId = `a${TURNS / 2 - 1}`;
    assert.equal(await turnAt(0.95), lastId, 'the last answer is on screen');
    assert.equal(await webview.page.locator(`[data-turn-id="${lastId}"]`).getAttribute('aria-setsize'), String(TURNS));
    assert.equal(await webview.page.locator(`[data-turn-id="${lastId}"]`).getAttribute('aria-posinset'), String(TURNS));

    await transcript().evaluate((node) => node.scrollTo({ top: 0 }));
    await settleFrames();
    assert.equal(await transcript().evaluate((node) => node.scrollTop), 0);
    assert.equal(await turnAt(0.05), 'u0', 'the first question is at the top');
    assert.ok((await offsetInView('u0'))! >= 0, 'the first turn starts inside the view');
    assert.ok((await mountedTurns()) < MOUNTED_LIMIT);

    // The middle: whatever is there is rendered, the view is never blank.
    await transcript().evaluate((node) => node.scrollTo({ top: node.scrollHeight / 2 }));
    await settleFrames();
    // A point may fall in the 14 px gap between two turns, so each place is tried 20 px lower too.
    const height = await transcript().evaluate((node) => node.clientHeight);
    for (const at of [0.1, 0.5, 0.9]) {
      assert.ok((await turnAt(at)) ?? (await turnAt(at + 20 / height)), `a turn is rendered at ${at * 100}% of the view`);
    }
    assert.ok((await mountedTurns()) < MOUNTED_LIMIT);
  });

  it('keeps the reader in place while turns above are rendered and measured', async () => {
    await webview.hostPost(init(conversation(longConversationTurns(TURNS))));
    await settleFrames();
    // Scroll up in steps, as a wheel would: each step renders turns never measured before.
    for (let step = 0; step < 15; step++) {
      // The point may fall in the gap between two turns; a little lower is a turn.
      const anchor = ((await turnAt(0.5)) ?? (await turnAt(0.54)))!;
      const before = (await offsetInView(anchor))!;
      await transcript().evaluate((node) => node.scrollBy({ top: -450 }));
      await settleFrames(2);
      const after = await offsetInView(anchor);
      assert.ok(after !== null && Math.abs(after - (before + 450)) <= 1, `step ${step}: ${anchor} moved by exactly the scroll (${before} → ${after})`);
    }
  });

  it('follows a streaming answer at the bottom and leaves a reader who scrolled up where they are', async () => {
    await webview.hostPost(init(conversation([...longConversationTurns(TURNS), assistantTurn('live', '', { state: 'streaming' })])));
    await settleFrames();
    await streamInto('live', 'Streaming line with `code` and words.\n\n'.repeat(30));
    await settleFrames();
    assert.ok((await distanceFromBottom()) <= 32, 'at the bottom, the view follows new text');
    assert.equal(await turnAt(0.95), 'live');

    await transcript().evaluate((node) => node.scrollBy({ top: -2_000 }));
    await settleFrames();
    const anchor = ((await turnAt(0.3)) ?? (await turnAt(0.34)))!;
    const scrollTop = await transcript().evaluate((node) => node.scrollTop);
    const offset = (await offsetInView(anchor))!;
    await streamInto('live', 'More text while the reader reads above.\n\n'.repeat(40));
    await webview.hostPost({ type: 'answerUpdate', turnId: 'live', patch: { state: 'done' } });
    await settleFrames();
    assert.equal(await transcript().evaluate((node) => node.scrollTop), scrollTop, 'scrolled up, the view stays put');
    assert.equal(await offsetInView(anchor), offset, 'the turn being read has not moved');
    assert.ok((await mountedTurns()) < MOUNTED_LIMIT);

    // Back at the bottom, the whole streamed answer is there.
    await transcript().evaluate((node) => node.scrollTo({ top: node.scrollHeight }));
    await settleFrames();
    assert.match(((await webview.page.locator('[data-turn-id="live"] .answer-body').textContent()) ?? '').trim(), /More text while the reader reads above\.$/);
  });

  it('estimates a streaming answer out of view again a few times, not at every drawing', async () => {
    // Its estimated height reads all its text: redone at every frame, a long answer streaming
    // below a reader who scrolled up cost work growing with the square of its length.
    await webview.hostPost(init(conversation([...longConversationTurns(200), assistantTurn('live', '', { state: 'streaming' })])));
    await settleFrames();
    await transcript().evaluate((node) => node.scrollTo({ top: 0 }));
    await settleFrames();
    assert.equal(await webview.page.locator('[data-turn-id="live"]').count(), 0, 'the answer is out of the DOM');
    const bottomSpacer = async () =>
      (await webview.page.evaluate(`(() => {
        for (const sheet of document.adoptedStyleSheets) for (const rule of sheet.cssRules) if (rule.selectorText === '.turn-spacer-bottom') return rule.style.height;
        return '';
      })()`)) as string;
    const piece = 'A line of the answer that the reader does not see yet.\n'.repeat(10);
    let height = await bottomSpacer();
    let total = 0;
    // Each new estimate (a new spacer height) read the answer as long as it was then.
    let read = 0;
    for (let index = 0; index < 150; index++) {
      await webview.hostPost({ type: 'delta', turnId: 'live', content: piece });
      total += piece.length;
      await webview.settle();
      const now = await bottomSpacer();
      if (now !== height) read += total;
      height = now;
    }
    assert.ok(read > 0, 'the estimate follows the answer');
    assert.ok(read <= 6 * total, `the estimates read ${read} characters of a ${total}-character answer (at most six times that)`);
  });

  it('reaches any turn by keyboard, rendering it on the way', async () => {
    await webview.hostPost(init(conversation(longConversationTurns(TURNS))));
    await settleFrames();
    const focusedTurn = () =>
      webview.page.evaluate(() => (globalThis as unknown as { document: { activeElement: { dataset?: { turnId?: string } } | null } }).document.activeElement?.dataset?.turnId ?? null);
    await transcript().focus();
    await webview.page.keyboard.press('Alt+Home');
    await settleFrames();
    assert.equal(await focusedTurn(), 'u0', 'Alt+Home goes to the first turn');
    assert.equal(await turnAt(0.05), 'u0', 'and shows it');
    await webview.page.keyboard.press('ArrowDown');
    await webview.page.keyboard.press('ArrowDown');
    await settleFrames();
    assert.equal(await focusedTurn(), 'u1', '↓ goes turn by turn');
    await webview.page.keyboard.press('End');
    await settleFrames();
    const last = `a${TURNS / 2 - 1}`;
    assert.equal(await focusedTurn(), last, 'End goes to the last turn');
    assert.ok((await offsetInView(last))! >= 0, 'the last turn is on screen');
    await webview.page.keyboard.press('ArrowUp');
    await settleFrames();
    assert.equal(await focusedTurn(), `u${TURNS / 2 - 1}`);
    await webview.page.keyboard.press('Home');
    await settleFrames();
    assert.equal(await focusedTurn(), 'u0');
    assert.ok((await mountedTurns()) < MOUNTED_LIMIT);
  });

  it("keeps a reader's choice in a turn that scrolled out of the DOM and back", async () => {
    const turns = longConversationTurns(TURNS);
    turns[1] = { ...turns[1], reasoning: 'Thinking about the first answer.' };
    await webview.hostPost(init(conversation(turns)));
    await settleFrames();
    await transcript().evaluate((node) => node.scrollTo({ top: 0 }));
    await settleFrames();
    await webview.page.locator('[data-turn-id="a0"] details.reasoning summary').click();
    await settleFrames();
    // Far enough down for the first turns to leave the DOM and their elements to be dropped.
    for (let step = 1; step <= 6; step++) {
      await transcript().evaluate((node, at) => node.scrollTo({ top: (node.scrollHeight * at) / 6 }), step);
      await settleFrames();
    }
    assert.equal(await webview.page.locator('[data-turn-id="a0"]').count(), 0, 'the first answer left the DOM');
    await transcript().evaluate((node) => node.scrollTo({ top: 0 }));
    await settleFrames();
    assert.equal(await webview.page.locator('[data-turn-id="a0"] .reasoning-text').isVisible(), true, 'its reasoning is still open');
  });
  it('keeps the rendered turns when the host sends the conversation again with a new question', async () => {
    const turns = longConversationTurns(TURNS);
    await webview.hostPost(init(conversation(turns)));
    await settleFrames();
    const lastAnswer = `a${TURNS / 2 - 1}`;
    await webview.page.locator(`[data-turn-id="${lastAnswer}"]`).evaluate((node) => node.setAttribute('data-test-mark', 'kept'));
    // After Send the host posts the whole conversation with the question and an empty answer.
    const next = [...turns, userTurn('u-new', 'One more question?'), assistantTurn('a-new', '', { state: 'streaming' })];
    await webview.hostPost({ type: 'conversation', conversation: conversation(next), conversations: [] });
    await settleFrames();
    assert.equal(await webview.page.locator(`[data-turn-id="${lastAnswer}"][data-test-mark="kept"]`).count(), 1, 'the answer above is the same element');
    assert.equal(await webview.page.locator('[data-turn-id="u-new"] .user-text').textContent(), 'One more question?');
    assert.ok((await distanceFromBottom()) <= 32, 'the new question is in view at the bottom');
    assert.equal(await webview.page.locator('[data-turn-id="a-new"]').getAttribute('aria-setsize'), String(TURNS + 2));
  });
});
