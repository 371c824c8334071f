// The upload questions as VS Code shows them: the real quick picks, answered the way a
// keyboard user would (Enter on the highlighted item, through the workbench's own command),
// over the runner's real globalState. Only the highlighted first item is ever accepted,
// so no answer depends on when the picker appeared.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { ApiKeyStore } from '../../src/common/vscode/apiKey';
import { createClientFromSettings } from '../../src/common/vscode/client';
import { Log } from '../../src/common/vscode/log';
import type { ExtensionServices } from '../../src/common/vscode/services';
import { updateSetting } from '../../src/common/vscode/settings';
import { pickChunking, pickVolume, rememberVolume } from '../../src/upload/vscode/uploadPrompts';
import { createVolumesTree, type VolumesFeature } from '../../src/volumes/volumesFeature';
import type { VolumesTreeProvider } from '../../src/volumes/vscode/volumesTree';
import { requiredEnv, runnerContext, volumesApiFor } from './host';

const RECENT_KEY = 'ksm.upload.recentVolumes';
const CHUNKING_KEY = 'ksm.upload.doChunkingByVolume';

/** Presses Enter in the quick pick until the question is answered (bounded by mocha's timeout). */
async function answerWithHighlighted<T>(question: Thenable<T>): Promise<T> {
  let answered = false;
  const answer = Promise.resolve(question).finally(() => (answered = true));
  while (!answered) {
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await Promise.race([answer, new Promise((r) => setTimeout(r, 100))]);
  }
  return answer;
}

describe('upload: the questions in real quick picks', function () {
  this.timeout(60_000);
  const suffix = randomBytes(4).toString('hex');
  const alpha = `itest-alpha-${suffix}`;
  const beta = `itest-beta-${suffix}`;
  let services: ExtensionServices;
  let volumes: VolumesFeature;
  let tree: VolumesTreeProvider;
  let log: Log;
  const previousState: Record<string, unknown> = {};
  let previousList: unknown;
  let previousUserId: unknown;

  before(async () => {
    await vscode.extensions.getExtension('ksm.ksm-assistant')?.activate();
    const context = runnerContext();
    const keys = new ApiKeyStore(context.secrets);
    log = new Log(vscode.window.createOutputChannel('KSM upload prompts integration test', { log: true }));
    services = { context, log, apiKey: keys, getClient: () => createClientFromSettings(keys, log), registerCommand: () => undefined };
    tree = createVolumesTree(services);
    volumes = volumesApiFor(tree);
    for (const key of [RECENT_KEY, CHUNKING_KEY]) previousState[key] = context.globalState.get(key);
    const config = vscode.workspace.getConfiguration('ksm');
    previousList = config.inspect('volumes.list')?.globalValue;
    previousUserId = config.inspect('userId')?.globalValue;
    await updateSetting('userId', requiredEnv('KSM_TEST_USER_ID'));
    await updateSetting('volumes.list', [alpha, beta]);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    tree.dispose();
    for (const [key, value] of Object.entries(previousState)) await services.context.globalState.update(key, value);
    await updateSetting('volumes.list', previousList);
    await updateSetting('userId', previousUserId);
    log.dispose();
  });

  it('highlights the most recently used volume first, then My files when none was used', async () => {
    const state = services.context.globalState;
    await state.update(RECENT_KEY, undefined);
    assert.equal(await answerWithHighlighted(pickVolume(services, volumes).then((p) => p?.volume)), `{${requiredEnv('KSM_TEST_USER_ID')}}`, 'nothing used yet: My files leads');

    await rememberVolume(services, beta);
    assert.equal(await answerWithHighlighted(pickVolume(services, volumes).then((p) => p?.volume)), beta);
    await rememberVolume(services, alpha);
    assert.equal(await answerWithHighlighted(pickVolume(services, volumes).then((p) => p?.volume)), alpha, 'the latest upload target leads');
    assert.deepEqual(state.get(RECENT_KEY), [alpha, beta]);

    // A recent volume removed from the view is not offered.
    await updateSetting('volumes.list', [beta]);
    try {
      assert.equal(await answerWithHighlighted(pickVolume(services, volumes).then((p) => p?.volume)), beta);
    } finally {
      await updateSetting('volumes.list', [alpha, beta]);
    }
  });

  it('offers the processing remembered for that volume first, and remembers each answer per volume', async () => {
    const state = services.context.globalState;
    const previousDefault = vscode.workspace.getConfiguration('ksm').inspect('upload.doChunking')?.globalValue;
    await updateSetting('upload.doChunking', 2); // neither the built-in default (1) nor alpha's choice
    try {
      await state.update(CHUNKING_KEY, { [alpha]: 0 });
      assert.equal(await answerWithHighlighted(pickChunking(services, alpha)), 0, '"Store only" was chosen for this volume before');
      assert.equal(await answerWithHighlighted(pickChunking(services, beta)), 2, 'another volume starts from ksm.upload.doChunking');
      assert.deepEqual(state.get(CHUNKING_KEY), { [alpha]: 0, [beta]: 2 });
    } finally {
      await updateSetting('upload.doChunking', previousDefault);
    }
  });
});
