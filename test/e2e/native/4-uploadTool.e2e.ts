import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette } from '../harness/steps';
import { VsCodeChat } from './vscodeChat';

const FILE = 'docs/tool-upload.md';
const CONTENT = '# Tool upload\n\nUploaded by the agent after the user confirmed.\n';

describe('VS Code Chat 4: the upload tool confirms with full paths and the exact volume, and refuses private files', function () {
  this.timeout(300_000);
  const scenario = useScenario('native-4-upload-tool');
  const personal = () => `{${scenario.run.emulator.userId}}`;
  const storedNames = async () => (await scenario.run.emulator.listFiles(personal()).catch(() => [])).map((f) => f.filename);

  before(async () => {
    const { workspace } = scenario.run;
    mkdirSync(join(workspace, 'docs'), { recursive: true });
    writeFileSync(join(workspace, FILE), CONTENT);
    writeFileSync(join(workspace, '.env'), 'API_TOKEN=s3cret-from-e2e\n');
  });

  it('shows the confirmation with the workspace-relative path, the size and "My files ({id})", and uploads after Allow', async () => {
    const { workbench, run } = scenario;
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    const chat = new VsCodeChat(workbench);
    await chat.open();
    await chat.pickModel('KSM emu-chat');
    await chat.pickMode('Agent');
    // The emulator's model calls the tool the request names, quoted words filling its arguments in order (paths, then volume).
    await chat.send(`Use ksm_upload_files to upload "${FILE}" to "My files"`);
    const title = `Upload 1 file(s) to My files (${personal()})?`;
    // VS Code 1.139 shows the confirmation above the input (a hidden copy lives in the response for screen readers).
    const confirmation = chat.session().getByText(title, { exact: false }).and(chat.page.locator(':visible')).first();
    await confirmation.waitFor({ timeout: 90_000 });
    const text = ((await chat.session().innerText()) ?? '').replace(/\u00a0/g, ' ');
    assert.ok(text.includes(FILE), `the confirmation names the workspace-relative path: ${text}`);
    assert.match(text, new RegExp(`${Buffer.byteLength(CONTENT)} B`), `and the size: ${text}`);
    assert.ok(text.includes(personal()), `and the exact volume name: ${text}`);
    await workbench.screenshot('native-4-tool-confirmation');
    assert.ok(!(await storedNames()).includes('tool-upload.md'), 'nothing is sent before the user allows it');
    const allow = chat
      .session()
      .locator('.monaco-button')
      .filter({ hasText: /^(Allow|Continue)/ })
      .and(chat.page.locator(':visible'))
      .first();
    await allow.click();
    await chat.waitUntilIdle(90_000);
    assert.match(await chat.responseText(), /Uploaded 1 file\(s\) to My files/);
    await eventually(
      async () => (await storedNames()).includes('tool-upload.md'),
      async () => `My files holds ${JSON.stringify(await storedNames())}`,
      30_000,
    );
  });

  it('refuses a .env without asking, and tells the model which file and why', async () => {
    const { workbench } = scenario;
    const chat = new VsCodeChat(workbench);
    await chat.send('Use ksm_upload_files to upload ".env" to "My files"');
    await chat.waitUntilIdle(90_000);
    const answer = await chat.responseText();
    assert.match(answer, /Not uploaded: Nothing was uploaded\..*'\.env' looks like a credential/s, `got: ${answer}`);
    await workbench.screenshot('native-4-refused-env');
    assert.ok(!(await storedNames()).includes('.env'), 'the .env never reached the service');
  });
});
