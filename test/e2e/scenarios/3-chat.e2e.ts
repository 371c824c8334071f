import assert from 'node:assert/strict';
import { ChatView } from '../harness/chat';
import { eventually } from '../harness/eventually';
import { delay } from '../harness/processes';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette } from '../harness/steps';

describe('Scenario 3: chat — streamed answer, Stop, copy a code block', function () {
  this.timeout(180_000);
  const scenario = useScenario('3-chat');
  let chat: ChatView;

  before(async function () {
    await setApiKeyThroughPalette(scenario.workbench, scenario.run.emulator.apiKey);
    chat = new ChatView(scenario.workbench);
    await chat.open();
  });

  it('shows the answer growing on screen while it streams, then done', async () => {
    await chat.send('How does the release process work?');
    const answer = chat.lastAnswer();
    const lengths: number[] = [];
    while ((await answer.getAttribute('data-state')) === 'streaming') {
      lengths.push((await chat.answerText(answer)).length);
      await delay(100);
    }
    const growing = lengths.filter((length, i) => i === 0 || length > lengths[i - 1]!);
    assert.ok(growing.length >= 3, `the answer should grow in steps while streaming; lengths seen: ${JSON.stringify(lengths)}`);
    assert.equal(await answer.getAttribute('data-state'), 'done');
    const final = await chat.answerText(answer);
    assert.ok(final.length >= Math.max(...lengths), 'the final answer keeps everything streamed');
    assert.match(final, /release/i, 'the emulator restates the question');
  });

  it('stops an answer mid-way with Stop and keeps the part received', async () => {
    const abortedBefore = Number((await scenario.run.emulator.stats()).abortedStreams ?? 0);
    await chat.send('Tell me about the onboarding checklist in detail');
    const answer = chat.lastAnswer();
    await eventually(
      async () => (await answer.getAttribute('data-state')) === 'streaming' && (await chat.answerText(answer)).length > 20,
      async () => `the answer never started streaming (state ${await answer.getAttribute('data-state')})`,
      20_000,
      50,
    );
    await chat.stopButton().click();
    await eventually(async () => (await answer.getAttribute('data-state')) === 'stopped', async () => `state stayed ${await answer.getAttribute('data-state')} after Stop`, 10_000);
    const kept = await chat.answerText(answer);
    assert.ok(kept.length > 20, 'the partial answer stays on screen');
    assert.match(kept, /Stopped/, 'the answer is marked as stopped');
    await delay(1000);
    assert.equal(await chat.answerText(answer), kept, 'nothing more arrives after Stop');
    await eventually(
      async () => Number((await scenario.run.emulator.stats()).abortedStreams ?? 0) > abortedBefore,
      () => 'the emulator never saw the stream aborted: Stop only hid the answer',
      10_000,
    );
  });

  it('copies a code block to the clipboard with "Copy code"', async () => {
    const { workbench } = scenario;
    await chat.send('Write a typescript function snippet that adds two numbers');
    assert.equal(await chat.waitForAnswerToSettle(), 'done');
    const answer = chat.lastAnswer();
    const code = (await answer.locator('pre code').first().innerText()).trim();
    assert.ok(code.length > 0, 'the answer has a code block');
    await answer.locator('button[aria-label="Copy code"]').first().click();
    const clipboard = await eventually(
      async () => {
        const text = await workbench.page.evaluate<string>('navigator.clipboard.readText()');
        return text.trim() === code ? text : undefined;
      },
      async () => `the clipboard holds "${(await workbench.page.evaluate<string>('navigator.clipboard.readText()').catch((e: Error) => e.message)).slice(0, 120)}", not the code block`,
      10_000,
    );
    assert.equal(clipboard.trim(), code);
  });
});
