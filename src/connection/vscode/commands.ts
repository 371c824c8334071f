// Check Connection's commands: "KSM: Check Connection" and "KSM: Copy Connection Report".
// The check itself (and the HTTP stack it needs) loads when the command first runs, so
// activation stays free of network code.
import * as vscode from 'vscode';
import { COMMAND, CONTEXT_KEY } from '../../common/core/contributionIds';
import type { ExtensionServices } from '../../common/vscode/services';
import { ReadOnlyDocument } from '../../common/vscode/readOnlyDocument';

export function registerConnectionCommands(services: ExtensionServices): void {
  let lastReport: string | undefined;
  let reportDocument: ReadOnlyDocument | undefined;

  services.registerCommand(COMMAND.checkConnection, async () => {
    const { checkConnection } = await import('./checkConnectionRun');
    if (!reportDocument) {
      // One report tab for every run (issue 26): its text is replaced, never a new untitled file.
      reportDocument = new ReadOnlyDocument('ksm-connection-report', `${vscode.l10n.t('KSM Connection Report')}.md`);
      services.context.subscriptions.push(reportDocument);
    }
    const report = await checkConnection(services, reportDocument);
    if (report === undefined) return;
    lastReport = report.markdown;
    await vscode.commands.executeCommand('setContext', CONTEXT_KEY.hasConnectionReport, true);
    // The fix first (Set API Key, Open Settings at the setting), then Copy Report for the administrators.
    const copyReport = vscode.l10n.t('Copy Report');
    const titles = report.fixes.map((fix) => (fix.command === COMMAND.setApiKey ? vscode.l10n.t('Set API Key') : vscode.l10n.t('Open Settings')));
    const action = await (report.failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage)(vscode.l10n.t('KSM connection check: {0}', report.verdict), ...titles, copyReport);
    if (action === copyReport) await copy(report.markdown);
    const fix = report.fixes[titles.indexOf(action ?? '')];
    if (fix) await vscode.commands.executeCommand(fix.command, ...(fix.argument ? [fix.argument] : []));
  });

  services.registerCommand(COMMAND.copyConnectionReport, async () => {
    if (!lastReport) {
      const run = await vscode.window.showInformationMessage(vscode.l10n.t('No connection report yet. Run the check first.'), vscode.l10n.t('Check Connection'));
      if (run) await vscode.commands.executeCommand(COMMAND.checkConnection);
      return;
    }
    await copy(lastReport);
  });
}

async function copy(markdown: string): Promise<void> {
  await vscode.env.clipboard.writeText(markdown);
  void vscode.window.showInformationMessage(vscode.l10n.t("The connection report is on the clipboard: paste it in a message to the service's administrators."));
}
