import assert from 'node:assert/strict';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette } from '../harness/steps';
import { HANDBOOK, seedHandbook } from './seed';
import { VsCodeChat } from './vscodeChat';

const QUESTION = 'What does the lighthouse handbook say about the brass lens?';
const FOLLOW_UP = 'Where are the storm warnings logged?';

describe('VS Code Chat 2: @ksm answers from the volumes with sources, and a follow-up stays in its thread', function () {
  this.timeout(240_000);
  const scenario = useScenario('native-2-participant');
  let chat: VsCodeChat;

  before(async () => {
    const { workbench, run } = scenario;
    await seedHandbook(run);
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    chat = new VsCodeChat(workbench);
    await chat.open();
    await chat.pickModel('KSM emu-chat');
    await chat.pickMode('Ask');
  });

  it('@ksm answers through the agent and lists the cited file as a source', async () => {
    await chat.send(`@ksm ${QUESTION}`);
    await chat.waitUntilIdle();
    const answer = await chat.responseText();
    assert.match(answer, /lighthouse-handbook\.md/, `the answer quotes the file; got: ${answer}`);
    assert.match(answer, /Sources\s+(1\.\s*)?lighthouse-handbook\.md\s*—\s*My files/, 'the source list names the file and its volume');
  });

  it("the answer's [n] marker is a link that opens the cited passage, as in the panel (issue 26, rough edge 5)", async () => {
    const { workbench } = scenario;
    const marker = (await chat.newestResponse()).locator('a', { hasText: /^\[1\]$/ }).first();
    await marker.waitFor({ timeout: 10_000 });
    await marker.click();
    const passageTab = workbench.page.locator('.tabs-container .tab').filter({ hasText: HANDBOOK });
    await eventually(
      async () => (await passageTab.count()) > 0,
      async () => 'no tab opened for the cited passage',
      30_000,
    );
    await eventually(
      async () =>
        /source\s\[1\]/.test(
          await workbench.page
            .locator('.editor-instance .view-lines')
            .first()
            .innerText()
            .catch(() => ''),
        ),
      async () => 'the opened document is not the cited passage',
      30_000,
    );
    await workbench.screenshot('participant-marker-opens-passage');
  });

  it('a source link opens the passage and reveals the file in the Volumes tree', async () => {
    const { workbench } = scenario;
    await (await chat.newestResponse()).locator('a', { hasText: HANDBOOK }).first().click();
    await eventually(
      async () =>
        (await workbench
          .volumesRow(HANDBOOK)
          .getAttribute('aria-selected')
          .catch(() => null)) === 'true',
      async () => `the Volumes tree never selected ${HANDBOOK}`,
      30_000,
    );
  });

  it('a follow-up @ksm question continues the same agent thread (the emulator sees one thread with both)', async () => {
    // A short window scrolls the first answer out of the chat's virtual list, as a long
    // conversation does: the follow-up must still be found as the newest answer.
    const { page } = scenario.workbench;
    const size = page.viewportSize();
    await page.setViewportSize({ width: size?.width ?? 1280, height: 420 });
    await chat.send(`@ksm ${FOLLOW_UP}`);
    await chat.waitUntilIdle();
    assert.match(await chat.responseText(), /\(Turn 2 of this thread\. Earlier you asked: "What does the lighthouse handbook say/);
    const threads = scenario.run.emulator.agentThreads().filter((t) => t.turns.some((turn) => turn.query.includes(QUESTION)));
    assert.equal(threads.length, 1, `one thread holds the first question; threads: ${JSON.stringify(threads.map((t) => t.id))}`);
    assert.deepEqual(
      threads[0]!.turns.map((turn) => turn.query),
      [QUESTION, FOLLOW_UP],
    );
    if (size) await page.setViewportSize(size);
  });
});
