// Entry point: construct, register, return. No network and no heavy work happens here;
// every feature builds what it needs on first use, and every registration is disposed.
import * as vscode from 'vscode';
import { ApiKeyStore } from './common/vscode/apiKey';
import { registerCommand } from './common/vscode/commands';
import { LazyClient } from './common/core/lazyClient';
import { configureCoreL10n } from './common/vscode/l10n';
import { Log } from './common/vscode/log';
import type { ExtensionServices } from './common/vscode/services';
import { registerChatFeature } from './chat/chatFeature';
import { registerConnectionFeature } from './connection/connectionFeature';
import { registerSyncFeature } from './sync/syncFeature';
import { registerNativeChatFeature } from './nativeChat/nativeChatFeature';
import { registerUploadFeature } from './upload/uploadFeature';
import { registerVolumesFeature } from './volumes/volumesFeature';

export function activate(context: vscode.ExtensionContext): void {
  configureCoreL10n();
  const log = new Log();
  const apiKey = new ApiKeyStore(context.secrets);
  log.setSecretSource(() => apiKey.knownSecrets());
  context.subscriptions.push(log, apiKey);

  const services: ExtensionServices = {
    context,
    log,
    apiKey,
    // Built per use from the current settings; the HTTP stack loads on the first call.
    getClient: () => new LazyClient(async () => (await import('./common/vscode/client')).createClientFromSettings(apiKey, log)),
    registerCommand: (id, handler) => context.subscriptions.push(registerCommand(log, id, handler)),
  };

  try {
    registerConnectionFeature(services);
    // Features reach each other through these late-bound closures, so the order of
    // registration does not matter and no feature imports another's internals.
    const chat = registerChatFeature(services, {
      // The passage opens in the editor; the chat stays where it is (the row is selected only when Volumes is on screen).
      revealFile: async (volume, fileId) => {
        await volumes.revealFile(volume, fileId, { onlyIfVisible: true });
      },
      // A citation leads to the code when its file came from a folder synced from this workspace.
      workspaceSourceOf: (cited) => sync.workspaceSourceOf(cited),
    });
    const volumes = registerVolumesFeature(services, {
      askAgentAbout: (files) => chat.askAgentAbout(files),
      uploadTo: (volume, uris) => upload.uploadTo(volume, uris),
    });
    const upload = registerUploadFeature(services, { volumes });
    const sync = registerSyncFeature(services, { volumes });
    registerNativeChatFeature(services, {
      revealFile: async (volume, fileId) => {
        await volumes.revealFile(volume, fileId);
      },
      openCitedPassage: (answerId, passage) => chat.openCitedPassage(answerId, passage),
    });
  } catch (error) {
    // VS Code shows nothing when activation throws; say it ourselves.
    log.error(error instanceof Error ? error : String(error));
    void vscode.window.showErrorMessage(vscode.l10n.t('KSM Assistant failed to start. See the log for details.'), vscode.l10n.t('Show Log')).then((c) => {
      if (c) log.show();
    });
  }
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
