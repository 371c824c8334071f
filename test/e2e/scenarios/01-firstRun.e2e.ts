import assert from 'node:assert/strict';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette, volumesRowTexts } from '../harness/steps';

describe('Scenario 1: first run — welcome view, Set API Key, Volumes tree', function () {
  this.timeout(120_000);
  const scenario = useScenario('1-first-run');

  it('opens the KSM Assistant side bar on a welcome view that asks for the API key', async () => {
    const { workbench } = scenario;
    await workbench.openKsmSideBar();
    const welcome = workbench.volumesWelcome();
    await welcome.waitFor();
    assert.match(await welcome.innerText(), /Set your API key/);
    const button = welcome.locator('.monaco-button', { hasText: 'Set API Key' });
    assert.equal(await button.count(), 1, 'the welcome view has a "Set API Key" button');
  });

  it('takes the key typed into "KSM: Set API Key" and then lists the volumes', async () => {
    const { workbench, run } = scenario;
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    await eventually(
      async () => (await workbench.volumesRow('My files').count()) > 0,
      async () => `the Volumes tree never showed "My files"; rows: ${JSON.stringify(await volumesRowTexts(workbench))}, ` + `welcome view visible: ${await workbench.volumesWelcome().isVisible()}`,
      30_000,
    );
    assert.equal(await workbench.volumesWelcome().isVisible(), false, 'the welcome text is gone once the key is set');
  });
});
