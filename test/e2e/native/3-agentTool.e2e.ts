import assert from 'node:assert/strict';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette } from '../harness/steps';
import { seedHandbook } from './seed';
import { VsCodeChat } from './vscodeChat';

describe('VS Code Chat 3: agent mode on a KSM model calls the volume-search tool and answers from it', function () {
  this.timeout(240_000);
  const scenario = useScenario('native-3-agent-tool');

  it('runs ksm_search_volumes and answers with the passage it found', async () => {
    const { workbench, run } = scenario;
    await seedHandbook(run);
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    const chat = new VsCodeChat(workbench);
    await chat.open();
    await chat.pickModel('KSM emu-chat');
    await chat.pickMode('Agent');
    // The emulator's model calls the tool the request names, its quoted words filling the
    // arguments in order (query, then volumes; emulator/README.md).
    await chat.send('Use ksm_search_volumes to find "brass lens" in "My files"');
    await chat.waitUntilIdle(90_000);
    const answer = await chat.responseText();
    assert.match(answer, /The tool ksm_search_volumes answered: Found \d+ passage\(s\) for "brass lens": \[1\] lighthouse-handbook\.md \(volume: My files, file id: [\w-]+/, `got: ${answer}`);
    const searches = run.emulator.agentThreads().filter((t) => t.turns.some((turn) => turn.query === 'brass lens'));
    assert.equal(searches.length, 1, 'the tool searched once, through the agent retrieval');
  });
});
