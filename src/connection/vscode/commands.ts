// Check Connection's commands: "KSM: Check Connection" and "KSM: Copy Connection Report".
// The check itself (and the HTTP stack it needs) loads when the command first runs, so
// activation stays free of network code.
import * as vscode from 'vscode';
import { COMMAND, CONTEXT_KEY } from '../../common/core/contributionIds';
import type { ExtensionServices } from '../../common/vscode/services';

export function registerConnectionCommands(services: ExtensionServices): void {
  let lastReport: string | undefined;

  services.registerCommand(COMMAND.checkConnection, async () => {
    const { checkConnection } = await import('./checkConnectionRun');
    const report = await checkConnection(services);
    if (report === undefined) return;
    lastReport = report.markdown;
    await vscode.commands.executeCommand('setContext', CONTEXT_KEY.hasConnectionReport, true);
    const action = await (report.failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage)(
      `KSM connection check: ${report.verdict}`,
      'Copy Report',
    );
    if (action === 'Copy Report') await copy(report.markdown);
  });

  services.registerCommand(COMMAND.copyConnectionReport, async () => {
    if (!lastReport) {
      const run = await vscode.window.showInformationMessage('No connection report yet. Run the check first.', 'Check Connection');
      if (run) await vscode.commands.executeCommand(COMMAND.checkConnection);
      return;
    }
    await copy(lastReport);
  });
}

async function copy(markdown: string): Promise<void> {
  await vscode.env.clipboard.writeText(markdown);
  void vscode.window.showInformationMessage("The connection report is on the clipboard: paste it in a message to the service's administrators.");
}
