import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
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

  it("KSM: Use KSM in Other Agents… installs 'ksm' (Install and Continue) and shows Claude Code's command without the key; that command starts a server that answers", async () => {
    const { workbench, run } = scenario;
    const launcher = join(run.binDir, 'ksm');
    assert.ok(!existsSync(launcher));
    await workbench.runCommand('KSM: Use KSM in Other Agents…');
    const install = workbench.dialogButton('Install and Continue');
    await install.waitFor({ timeout: 30_000 });
    await install.click();
    await workbench.pick('Claude Code');
    const editor = workbench.page.locator('.editor-instance .monaco-editor .view-lines').first();
    await eventually(
      async () => /claude mcp add ksm/.test((await editor.innerText().catch(() => '')).replace(/\u00a0/g, ' ')),
      async () => `no configuration in the editor; got: ${await editor.innerText().catch(() => '')}`,
      30_000,
    );
    const command = (await editor.innerText()).replace(/\u00a0/g, ' ');
    await workbench.screenshot('use-in-other-agents-claude-code');
    assert.ok(command.includes(`-e KSM_BASE_URL=${run.emulator.url}`), command);
    assert.ok(command.includes(`-- ${launcher} mcp --volume e2e-team`), command);
    assert.ok(!command.includes(run.emulator.apiKey) && !/KSM_API_KEY=/.test(command), 'the key is not in the configuration');
    assert.ok(existsSync(launcher), 'the launcher was installed');

    // What Claude Code would run: the installed launcher, the key from the environment.
    const client = new Client({ name: 'e2e', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: launcher,
        args: ['mcp', '--volume', 'e2e-team'],
        env: { PATH: process.env.PATH ?? '', KSM_BASE_URL: run.emulator.url, KSM_USER_ID: run.emulator.userId, KSM_MODEL: 'emu-chat', KSM_API_KEY: run.emulator.apiKey },
        stderr: 'ignore',
      }),
    );
    try {
      const result = (await client.callTool({ name: 'search', arguments: { query: 'brass lens' } })) as { isError?: boolean; structuredContent?: { results: Array<{ title: string }> } };
      assert.ok(!result.isError);
      assert.ok(result.structuredContent?.results.some((r) => r.title === 'lighthouse-handbook.md'));
    } finally {
      await client.close();
    }
  });
});
