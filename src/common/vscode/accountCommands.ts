import * as vscode from 'vscode';
import { promptForApiKey } from './apiKey';
import type { ExtensionServices } from './services';
import { settings, updateSetting } from './settings';
import { COMMAND, CONTEXT_KEY, WALKTHROUGH_ID } from '../core/contributionIds';
import { checkApiKey, emulatorConnectReport, KEY_ACCEPTED, keyCheckVolume, type KeyCheck } from '../core/keyCheck';
import { withAbortSignal } from './cancellation';

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
    await vscode.commands.executeCommand('setContext', CONTEXT_KEY.connected, has && Boolean(settings.baseUrl()));
  };
  // Reading a secret is local (no network), and the welcome view needs the answer.
  void refreshContextKey();
  context.subscriptions.push(
    apiKey.onDidChange(() => void refreshContextKey()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ksm.baseUrl')) void refreshContextKey();
    }),
  );

  /** One cheap request with the stored key, under a progress notification; the outcome is logged without the key. */
  const checkStoredKey = async (): Promise<KeyCheck> => {
    const check = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'KSM: checking the API key…', cancellable: true },
      (_progress, token) => withAbortSignal(token, (signal) => checkApiKey(services.getClient(), keyCheckVolume(settings.userId(), settings.volumes()), signal)),
    );
    log.info(`[account] API key check: ${check.outcome}. ${check.message}`);
    // A tree that showed "refused" for the old key lists again.
    if (check.outcome === 'accepted') void vscode.commands.executeCommand(COMMAND.volumesRefresh);
    return check;
  };

  const reportKeyCheck = async (check: KeyCheck, accepted: string): Promise<void> => {
    if (check.outcome === 'accepted') {
      void vscode.window.showInformationMessage(check.message === KEY_ACCEPTED ? accepted : check.message);
      return;
    }
    const show = check.outcome === 'refused' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    const choice = await show(check.message, ...(check.fix ? [check.fix.title] : []), 'Show Log');
    if (choice === 'Show Log') log.show();
    else if (check.fix && choice === check.fix.title) await vscode.commands.executeCommand(check.fix.command);
  };

  services.registerCommand(COMMAND.setApiKey, async () => {
    const key = await promptForApiKey();
    if (!key) return;
    await apiKey.set(key);
    log.info('[account] API key stored in secret storage.');
    if (!settings.baseUrl()) {
      void vscode.window.showWarningMessage(
        "KSM API key saved. It is checked once a service address is set: set 'ksm.baseUrl', or run Connect to Local Emulator.",
      );
      return;
    }
    await reportKeyCheck(await checkStoredKey(), 'KSM API key saved: the service accepted it.');
  });

  services.registerCommand(COMMAND.getStarted, () =>
    vscode.commands.executeCommand('workbench.action.openWalkthrough', `${context.extension.id}#${WALKTHROUGH_ID}`, false),
  );

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
    // Ask the emulator instead of guessing whether it runs: say what actually happened.
    const report = emulatorConnectReport(await checkStoredKey(), d.baseUrl);
    const show = { info: vscode.window.showInformationMessage, warning: vscode.window.showWarningMessage, error: vscode.window.showErrorMessage }[report.level];
    const choice = await show(report.message, ...(report.action ? [report.action.title] : []));
    if (report.action && choice === report.action.title) await vscode.commands.executeCommand(report.action.command);
  });
}
