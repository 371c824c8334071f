import assert from 'node:assert/strict';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette } from '../harness/steps';
import { VsCodeChat } from './vscodeChat';

describe('VS Code Chat 1: a KSM model in the model picker streams its answer, and Stop closes the request', function () {
  this.timeout(240_000);
  const scenario = useScenario('native-1-ksm-model');
  let chat: VsCodeChat;

  before(async () => {
    const { workbench, run } = scenario;
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    chat = new VsCodeChat(workbench);
    await chat.open();
  });

  it('picks "KSM emu-chat" in VS Code\u2019s chat and shows its answer as it streams', async () => {
    await chat.pickModel('KSM emu-chat');
    await chat.pickMode('Ask');
    await chat.send('What is a lamp?');
    // VS Code wraps the question in its own prompt; the emulator restates all of it.
    // The emulator streams 160 words 25 ms apart: the answer is seen part-way, then whole.
    const partial = await eventually(
      async () => {
        const text = await chat.responseText();
        return /You asked: ".*What is a lamp\?/.test(text) && (await chat.busy()) ? text : undefined;
      },
      async () => `no partial answer while streaming; response: ${await chat.responseText()}`,
      60_000,
      100,
    );
    await chat.waitUntilIdle();
    const full = await chat.responseText();
    assert.ok(full.length > partial.length + 100, `the answer grew after it first showed (${partial.length} → ${full.length} chars)`);
    assert.match(full, /You asked: ".*What is a lamp\?/);
    assert.doesNotMatch(full, /failed|error/i);
  });

  it('Stop in VS Code\u2019s chat closes the request on the wire (the emulator counts an aborted stream)', async () => {
    const { run } = scenario;
    const before = Number((await run.emulator.stats()).abortedStreams);
    await chat.send('Tell me a long story about lamps');
    await eventually(
      async () => /You asked: ".*Tell me a long story/.test(await chat.responseText()) && (await chat.busy()),
      async () => `no streaming answer to stop; response: ${await chat.responseText()}`,
      60_000,
      100,
    );
    await chat.stopButton().click();
    await eventually(
      async () => Number((await run.emulator.stats()).abortedStreams) === before + 1,
      async () => `the emulator counted ${JSON.stringify(await run.emulator.stats())} (aborted before: ${before})`,
      20_000,
    );
    await chat.waitUntilIdle(20_000);
    const stopped = await chat.answerMarkdown();
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await chat.answerMarkdown(), stopped, 'no text arrives after Stop');
    assert.doesNotMatch(stopped, /lamps\.[\s\S]*lamps\.[\s\S]*lamps\.[\s\S]{2000}/, 'the answer was cut short');
  });
});
