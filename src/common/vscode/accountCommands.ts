import * as vscode from 'vscode';
import { promptForApiKey } from './apiKey';
import type { ExtensionServices } from './services';
import { settings, updateSetting } from './settings';
import { COMMAND, CONTEXT_KEY } from '../core/contributionIds';

/** The emulator's defaults (emulator/README.md); used by "Connect to Local Emulator". */
export const EMULATOR_DEFAULTS = {
  baseUrl: 'http://127.0.0.1:8787',
  apiKey: 'ksm-emulator-key',
  userId: 'dev',
  models: ['emu-chat', 'emu-reasoner'],
  reasoningModels: ['emu-reasoner'],
  embeddingModel: 'emu-embed',
} as const;

/** API key, settings and log commands, plus the `ksm.hasApiKey` context key behind the welcome view. */
export function registerAccountCommands(services: ExtensionServices): void {
  const { apiKey, log, context } = services;

  const refreshContextKey = async () => {
    const has = Boolean(await apiKey.get());
    await vscode.commands.executeCommand('setContext', CONTEXT_KEY.hasApiKey, has);
  };
  // Reading a secret is local (no network), and the welcome view needs the answer.
  void refreshContextKey();
  context.subscriptions.push(apiKey.onDidChange(() => void refreshContextKey()));

  services.registerCommand(COMMAND.setApiKey, async () => {
    const key = await promptForApiKey();
    if (!key) return;
    await apiKey.set(key);
    log.info('[account] API key stored in secret storage.');
    void vscode.window.showInformationMessage('KSM API key saved.');
  });

  services.registerCommand(COMMAND.clearApiKey, async () => {
    const answer = await vscode.window.showWarningMessage('Remove the stored KSM API key?', { modal: true }, 'Remove');
    if (answer !== 'Remove') return;
    await apiKey.clear();
    log.info('[account] API key removed.');
  });

  services.registerCommand(COMMAND.showLog, () => log.show());
  // The one way settings open (error buttons, the welcome view's link, the volume menu): on
  // one `ksm.` setting or section when asked (a link passes it), else on all of ours.
  services.registerCommand(COMMAND.openSettings, (query?: unknown) =>
    vscode.commands.executeCommand('workbench.action.openSettings', typeof query === 'string' && /^ksm\.[\w.]*$/.test(query) ? query : `@ext:${context.extension.id}`),
  );

  services.registerCommand(COMMAND.useLocalEmulator, async () => {
    const d = EMULATOR_DEFAULTS;
    await updateSetting('baseUrl', d.baseUrl);
    if (!settings.userId()) await updateSetting('userId', d.userId);
    if (settings.models().length === 0) await updateSetting('chat.models', [...d.models]);
    if (settings.reasoningModels().length === 0) await updateSetting('chat.reasoningModels', [...d.reasoningModels]);
    if (!settings.embeddingModel()) await updateSetting('upload.embeddingModel', d.embeddingModel);
    const current = await apiKey.get();
    if (!current) {
      await apiKey.set(d.apiKey);
    } else if (current !== d.apiKey) {
      const replace = await vscode.window.showWarningMessage(
        'Replace your stored API key with the emulator\u2019s development key?',
        { modal: true, detail: 'Keep yours if you started the emulator with --api-key.' },
        'Replace',
      );
      if (replace === 'Replace') await apiKey.set(d.apiKey);
    }
    log.info(`[account] Pointed at the local emulator ${d.baseUrl}.`);
    void vscode.window.showInformationMessage(`KSM Assistant now uses the local emulator at ${d.baseUrl}. Start it with "npm run emulator".`);
  });
}
