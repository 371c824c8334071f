// Check Connection and the account commands (API key, settings, log, Connect to Local
// Emulator, Restore Previous Connection): wiring only. The commands are in
// vscode/commands.ts and vscode/accountCommands.ts and load at their first use; the logic
// without VS Code is in core/. The context keys behind the welcome view are kept from activation.
import * as vscode from 'vscode';
import { CONTEXT_KEY, LAZY_COMMANDS } from '../common/core/contributionIds';
import { registerLazyCommands } from '../common/vscode/lazyCommands';
import type { ExtensionServices } from '../common/vscode/services';
import { settings } from '../common/vscode/settings';

export function registerConnectionFeature(services: ExtensionServices): void {
  const { apiKey, context } = services;
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
  registerLazyCommands(services, LAZY_COMMANDS.connection, async () => {
    const [{ registerAccountCommands }, { registerConnectionCommands }] = await Promise.all([import('./vscode/accountCommands'), import('./vscode/commands')]);
    return (recorder) => {
      registerAccountCommands(recorder);
      registerConnectionCommands(recorder);
    };
  });
}
