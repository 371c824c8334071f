// Runs inside a real VS Code extension host (code-server in the e2e suite, or VS Code
// desktop through @vscode/test-electron): the extension activates, its commands exist,
// secret storage and configuration behave as the extension relies on, and the client the
// extension builds from settings reaches the emulator over real HTTP.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiKeyStore } from '../../src/common/vscode/apiKey';
import { createClientFromSettings } from '../../src/common/vscode/client';
import { Log } from '../../src/common/vscode/log';
import { personalVolume, settings, updateSetting } from '../../src/common/vscode/settings';
import { requiredEnv, runnerContext } from './host';

const EXTENSION_ID = 'ksm.ksm-assistant';

describe('smoke: KSM Assistant in a real extension host', () => {
  it('activates without errors', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not installed`);
    await extension.activate();
    assert.equal(extension.isActive, true);
  });

  it('registers every command its manifest contributes', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    await extension.activate();
    const contributed = (extension.packageJSON.contributes.commands as Array<{ command: string }>).map((c) => c.command);
    assert.ok(contributed.length > 10, 'the manifest lists the commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      contributed.filter((id) => !registered.has(id)),
      [],
      'contributed but not registered',
    );
  });

  it('offers VS Code Chat features only where the running VS Code has their API (feature detection, engines ^1.100.0)', async () => {
    await vscode.extensions.getExtension(EXTENSION_ID)!.activate();
    const providerApi = typeof (vscode.lm as { registerLanguageModelChatProvider?: unknown }).registerLanguageModelChatProvider === 'function';
    const ksmModels = await vscode.lm.selectChatModels({ vendor: 'ksm' });
    // Where the provider API is missing (VS Code 1.100, the e2e default profile), no KSM
    // model can exist and activation still succeeded above; where it exists, they do.
    assert.equal(ksmModels.length > 0, providerApi, `provider API ${providerApi ? 'present' : 'absent'}, KSM models: ${ksmModels.map((m) => m.id).join(', ')}`);
    if (vscode.version.startsWith('1.100.')) assert.equal(providerApi, false, 'VS Code 1.100 has no stable language-model provider API');
    // Tools are stable since 1.95, so they are registered on 1.100 too.
    const tools = vscode.lm.tools
      .map((t) => t.name)
      .filter((name) => name.startsWith('ksm_'))
      .sort();
    assert.deepEqual(tools, ['ksm_list_files', 'ksm_search_volumes', 'ksm_upload_files']);
  });

  describe('secret storage round trip (the API key store over the real SecretStorage)', () => {
    const store = () => new ApiKeyStore(runnerContext().secrets);

    afterEach(async () => store().clear());

    it('stores, reads back trimmed, announces changes and clears', async () => {
      const keys = store();
      const changed = new Promise<void>((resolve) => {
        const subscription = keys.onDidChange(() => {
          subscription.dispose();
          resolve();
        });
      });
      await keys.set('  smoke-key-123  ');
      await changed;
      assert.equal(await store().get(), 'smoke-key-123', 'a second store over the same storage reads the key');
      await keys.clear();
      assert.equal(await store().get(), undefined);
    });

    it('refuses an empty key and keeps the previous one', async () => {
      const keys = store();
      await keys.set('kept-key');
      await assert.rejects(keys.set('   '), /empty/);
      assert.equal(await keys.get(), 'kept-key');
    });
  });

  describe('configuration', () => {
    it('reads the user settings the launcher wrote (emulator address and user id)', () => {
      assert.equal(settings.baseUrl(), requiredEnv('KSM_TEST_BASE_URL').replace(/\/+$/, ''));
      assert.equal(personalVolume(), `{${requiredEnv('KSM_TEST_USER_ID')}}`);
      assert.equal(settings.embeddingModel(), 'emu-embed');
    });

    it('ignores a workspace trying to redirect ksm.baseUrl (machine scope)', async () => {
      const userValue = settings.baseUrl();
      const config = vscode.workspace.getConfiguration('ksm');
      // VS Code refuses to write a machine-scoped setting into workspace settings; if a
      // version accepts the write, the value must still not take effect.
      const written = await config.update('baseUrl', 'http://redirect.invalid', vscode.ConfigurationTarget.Workspace).then(
        () => true,
        () => false,
      );
      try {
        assert.equal(settings.baseUrl(), userValue, `a workspace value ${written ? 'was written and ' : ''}changed ksm.baseUrl`);
      } finally {
        if (written) await config.update('baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
      }
    });

    it('writes a setting and reads it back at once, then restores it', async () => {
      const before = vscode.workspace.getConfiguration('ksm').inspect<number>('volumes.pageSize')?.globalValue;
      try {
        await updateSetting('volumes.pageSize', 7);
        assert.equal(settings.pageSize(), 7);
        await updateSetting('volumes.pageSize', 5000);
        assert.equal(settings.pageSize(), 1000, 'out-of-range values are clamped');
      } finally {
        await updateSetting('volumes.pageSize', before);
      }
    });
  });

  it('builds a client from settings and the stored key that lists the personal volume over HTTP', async () => {
    const keys = new ApiKeyStore(runnerContext().secrets);
    const log = new Log(vscode.window.createOutputChannel('KSM smoke test', { log: true }));
    try {
      await keys.set(requiredEnv('KSM_TEST_API_KEY'));
      const client = createClientFromSettings(keys, log);
      const page = await client.listFiles({ volume: personalVolume()! });
      assert.equal(typeof page.total, 'number');
      assert.ok(Array.isArray(page.files));
      await keys.clear();
      await assert.rejects(client.listFiles({ volume: personalVolume()! }), (error: Error) => /API key/i.test(error.message));
    } finally {
      await keys.clear();
      log.dispose();
    }
  });
});
