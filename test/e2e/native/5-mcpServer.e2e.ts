import assert from 'node:assert/strict';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette } from '../harness/steps';
import { seedHandbook } from './seed';
import { VsCodeChat } from './vscodeChat';

// VS Code names an MCP server's tools `mcp_<server label, lower case, _ for spaces>_<tool>`.
const SEARCH_TOOL = 'mcp_ksm_volumes_search';

describe('VS Code Chat 5: the bundled MCP server is in VS Code\u2019s MCP list and the agent calls its search', function () {
  this.timeout(300_000);
  const scenario = useScenario('native-5-mcp-server');

  it('lists "KSM volumes" under MCP: List Servers', async () => {
    const { workbench, run } = scenario;
    await seedHandbook(run);
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    await workbench.runCommand('MCP: List Servers');
    const row = workbench
      .quickInput()
      .locator('.monaco-list-row')
      .filter({ hasText: /KSM volumes/ })
      .first();
    await row.waitFor({ timeout: 30_000 });
    await workbench.screenshot('mcp-server-list');
    await workbench.page.keyboard.press('Escape');
  });

  it(`agent mode on a KSM model calls ${SEARCH_TOOL} (ksm mcp, started by VS Code with the key from secret storage) and answers from it`, async () => {
    const { workbench, run } = scenario;
    const chat = new VsCodeChat(workbench);
    await chat.open();
    await chat.pickModel('KSM emu-chat');
    await chat.pickMode('Agent');
    const before = run.emulator.agentThreads().filter((t) => t.turns.some((turn) => turn.query === 'brass lens')).length;
    await chat.send(`Use ${SEARCH_TOOL} to find "brass lens" in "My files"`);
    await eventually(
      async () => {
        const allow = workbench.page
          .locator('.interactive-session a.monaco-button, .interactive-session .monaco-button')
          .filter({ hasText: /^(Allow|Continue)$/ })
          .first();
        if (await allow.isVisible().catch(() => false)) await allow.click().catch(() => undefined);
        return /The tool mcp_ksm_volumes_search answered/.test(await chat.responseText().catch(() => ''));
      },
      async () => `no answer from the MCP tool; got: ${await chat.responseText().catch(() => '')}`,
      120_000,
    );
    await chat.waitUntilIdle(90_000);
    const answer = await chat.responseText();
    assert.match(answer, /lighthouse-handbook\.md/, `got: ${answer}`);
    assert.match(answer, /ksm:\/\//, `the result carries the passage id; got: ${answer}`);
    await workbench.screenshot('agent-called-mcp-search');
    const after = run.emulator.agentThreads().filter((t) => t.turns.some((turn) => turn.query === 'brass lens')).length;
    assert.equal(after, before + 1, 'the MCP search ran through the agent retrieval once');
  });
});
