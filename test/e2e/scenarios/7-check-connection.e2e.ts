import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette } from '../harness/steps';
import type { Workbench } from '../harness/workbench';

const READ_ONLY = 'Check without the agent (read-only)';
/** Nothing listens on port 1: a deliberately wrong service address. */
const WRONG_BASE_URL = 'http://127.0.0.1:1';

describe('Scenario 7: KSM: Check Connection — report from the palette, and a wrong base URL named as the first failure', function () {
  this.timeout(180_000);
  const scenario = useScenario('7-check-connection');
  let workspaceSettings: string;

  before(async function () {
    const { run, workbench } = scenario;
    workspaceSettings = join(run.workspace, '.vscode', 'settings.json');
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
  });

  after(async () => {
    // Later runs and scenarios see the emulator's address again.
    rmSync(join(scenario.run.workspace, '.vscode'), { recursive: true, force: true });
  });

  const editorText = (workbench: Workbench) => workbench.page.locator('.editor-group-container.active .monaco-editor .view-lines');
  const shown = async (workbench: Workbench) => ((await editorText(workbench).innerText().catch(() => '')) ?? '').replace(/\u00a0/g, ' ');

  /** Runs the check from the palette (read-only) and returns the report shown in the new editor. */
  async function checkFromPalette(workbench: Workbench): Promise<string> {
    await workbench.runCommand('KSM: Check Connection');
    await workbench.pick(READ_ONLY);
    await eventually(
      async () => (await shown(workbench)).startsWith('# KSM Connection Check') && /\*\*(Connected|Failed)\.\*\*/.test(await shown(workbench)),
      async () => `no connection report in the active editor; it shows ${JSON.stringify((await shown(workbench)).slice(0, 300))}`,
      60_000,
    );
    return shown(workbench);
  }

  async function closeReport(workbench: Workbench): Promise<void> {
    // A dirty untitled editor would be restored into later windows: drop it.
    await workbench.runCommand('View: Revert and Close Editor');
    await editorText(workbench).filter({ hasText: '# KSM Connection Check' }).waitFor({ state: 'detached', timeout: 10_000 });
  }

  it('shows a report from the palette in which every read-only step passed, and offers Copy Report', async () => {
    const { workbench, run } = scenario;
    const report = await checkFromPalette(workbench);
    assert.match(report, /\*\*Connected\.\*\* All 6 steps passed\./, report.slice(0, 800));
    for (const part of ['Reach the service (network, proxy, TLS)', 'API key accepted', `Personal volume listable: {${run.emulator.userId}}`, "Model 'emu-chat' answers (streamed, one token)", 'Response shapes seen']) {
      assert.ok(report.includes(part), `the report lacks ${JSON.stringify(part)}:\n${report.slice(0, 1500)}`);
    }
    assert.ok(!report.includes(run.emulator.apiKey), 'the key is never in the report');
    const notification = workbench.page.locator('.notification-list-item').filter({ hasText: 'KSM connection check: All 6 steps passed' });
    await notification.waitFor({ timeout: 15_000 });
    assert.equal(await notification.locator('.monaco-button', { hasText: 'Copy Report' }).count(), 1, 'the result offers Copy Report');
    await workbench.screenshot('check-connection-report');
    await closeReport(workbench);
  });

  it('names the wrong base URL as the first failing step, with its fix', async () => {
    const { workbench } = scenario;
    mkdirSync(join(workspaceSettings, '..'), { recursive: true });
    writeFileSync(workspaceSettings, JSON.stringify({ 'ksm.baseUrl': WRONG_BASE_URL }, null, 2));
    // The workbench picks up the edited settings file by watching it; until then a check
    // still reaches the emulator, so check again until the report uses the new address.
    const report = await eventually(
      async () => {
        const text = await checkFromPalette(workbench);
        if (text.includes(`Service address (ksm.baseUrl): ${WRONG_BASE_URL}`)) return text;
        await closeReport(workbench);
        return undefined;
      },
      () => `the check never used the wrong base URL ${WRONG_BASE_URL}`,
      60_000,
      1000,
    );
    assert.match(report, /\*\*Failed\.\*\* First failing step: Reach the service \(network, proxy, TLS\)\. .*ECONNREFUSED/, report.slice(0, 800));
    assert.match(report, /\*\*Fix:\*\* Nothing accepts connections at 127\.0\.0\.1:1\. Check the host and port in 'ksm\.baseUrl'/);
    await workbench.screenshot('check-connection-wrong-base-url');
    await closeReport(workbench);
  });
});
