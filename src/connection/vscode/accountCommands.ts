// The account commands (API key, settings, log, walkthrough) and Connect to Local Emulator /
// Restore Previous Connection. The emulator command never sends the stored key anywhere: it
// asks first, keeps the previous address and key in SecretStorage, replaces the key before
// it changes the address, and only then checks, with the emulator's own key.
import * as vscode from 'vscode';
import { promptForApiKey } from '../../common/vscode/apiKey';
import type { ExtensionServices } from '../../common/vscode/services';
import { settings, updateSetting } from '../../common/vscode/settings';
import { COMMAND, WALKTHROUGH_ID } from '../../common/core/contributionIds';
import { checkApiKey, emulatorConnectReport, KEY_ACCEPTED, keyCheckVolume, type KeyCheck } from '../../common/core/keyCheck';
import { withAbortSignal } from '../../common/vscode/cancellation';
import { restorePreviousConnection, switchToEmulator, type ConnectionStore } from '../core/previousConnection';
import { SECRET_KEY } from '../../common/core/storageKeys';

/** The emulator's defaults (emulator/README.md); used by "Connect to Local Emulator". */
export const EMULATOR_DEFAULTS = {
  baseUrl: 'http://127.0.0.1:8787',
  apiKey: 'ksm-emulator-key',
  userId: 'dev',
  models: ['emu-chat', 'emu-reasoner'],
  reasoningModels: ['emu-reasoner'],
  embeddingModel: 'emu-embed',
} as const;

/** API key, settings and log commands (connectionFeature.ts keeps the `ksm.hasApiKey` context key behind the welcome view). */
export function registerAccountCommands(services: ExtensionServices): void {
  const { apiKey, log, context } = services;

  /** One cheap request with the stored key, under a progress notification; the outcome is logged without the key. */
  const checkStoredKey = async (): Promise<KeyCheck> => {
    const check = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'KSM: checking the API key…', cancellable: true }, (_progress, token) =>
      withAbortSignal(token, (signal) => checkApiKey(services.getClient(), keyCheckVolume(settings.userId(), settings.volumes()), signal)),
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
      void vscode.window.showWarningMessage("KSM API key saved. It is checked once a service address is set: set 'ksm.baseUrl', or run Connect to Local Emulator.");
      return;
    }
    await reportKeyCheck(await checkStoredKey(), 'KSM API key saved: the service accepted it.');
  });

  services.registerCommand(COMMAND.getStarted, () => vscode.commands.executeCommand('workbench.action.openWalkthrough', `${context.extension.id}#${WALKTHROUGH_ID}`, false));

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

  /** The address in the user's settings, the key and the kept connection in SecretStorage. */
  const connectionStore: ConnectionStore = {
    baseUrl: () => settings.baseUrl(),
    setBaseUrl: (url) => updateSetting('baseUrl', url),
    apiKey: () => apiKey.get(),
    setApiKey: (key) => (key ? apiKey.set(key) : apiKey.clear()),
    previous: async () => context.secrets.get(SECRET_KEY.previousConnection),
    setPrevious: async (raw) => (raw === undefined ? context.secrets.delete(SECRET_KEY.previousConnection) : context.secrets.store(SECRET_KEY.previousConnection, raw)),
  };

  services.registerCommand(COMMAND.useLocalEmulator, async () => {
    const d = EMULATOR_DEFAULTS;
    const connect = vscode.l10n.t('Connect');
    const outcome = await switchToEmulator(connectionStore, d, async (kept) => {
      const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t('Connect to the local emulator at {0}?', d.baseUrl),
        {
          modal: true,
          detail: [
            vscode.l10n.t("This stores the emulator's development key in place of your API key and points KSM Assistant at the emulator. Your key is never sent to the emulator."),
            kept
              ? kept.baseUrl
                ? vscode.l10n.t('Your current address ({0}) and key are kept in VS Code\'s secret storage: "KSM: Restore Previous Connection" puts them back.', kept.baseUrl)
                : vscode.l10n.t('Your current key is kept in VS Code\'s secret storage: "KSM: Restore Previous Connection" puts it back.')
              : '',
          ]
            .filter(Boolean)
            .join('\n\n'),
        },
        connect,
      );
      return choice === connect;
    });
    if (outcome === 'declined') return;
    if (!settings.userId()) await updateSetting('userId', d.userId);
    if (settings.models().length === 0) await updateSetting('chat.models', [...d.models]);
    if (settings.reasoningModels().length === 0) await updateSetting('chat.reasoningModels', [...d.reasoningModels]);
    if (!settings.embeddingModel()) await updateSetting('upload.embeddingModel', d.embeddingModel);
    log.info(`[account] Pointed at the local emulator ${d.baseUrl} with its development key.`);
    // Ask the emulator instead of guessing whether it runs: say what actually happened.
    const report = emulatorConnectReport(await checkStoredKey(), d.baseUrl);
    const restore = (await context.secrets.get(SECRET_KEY.previousConnection)) ? vscode.l10n.t('Restore Previous Connection') : undefined;
    const show = { info: vscode.window.showInformationMessage, warning: vscode.window.showWarningMessage, error: vscode.window.showErrorMessage }[report.level];
    const choice = await show(report.message, ...(report.action ? [report.action.title] : []), ...(restore ? [restore] : []));
    if (report.action && choice === report.action.title) await vscode.commands.executeCommand(report.action.command);
    else if (restore && choice === restore) await vscode.commands.executeCommand(COMMAND.restorePreviousConnection);
  });

  services.registerCommand(COMMAND.restorePreviousConnection, async () => {
    const previous = await restorePreviousConnection(connectionStore);
    if (!previous) {
      void vscode.window.showInformationMessage(vscode.l10n.t('There is no previous connection to restore: Connect to Local Emulator keeps one when it replaces your address or key.'));
      return;
    }
    log.info(`[account] Restored the previous connection (${previous.baseUrl || 'no address'}).`);
    void vscode.window.showInformationMessage(
      previous.apiKey
        ? vscode.l10n.t('Restored your previous connection: {0} and your API key.', previous.baseUrl || vscode.l10n.t('no service address'))
        : vscode.l10n.t('Restored your previous connection: {0}, no API key.', previous.baseUrl || vscode.l10n.t('no service address')),
    );
  });
}
