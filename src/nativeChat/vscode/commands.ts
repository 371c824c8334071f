// VS Code's Chat's commands: the model picker's "Manage Models" entry, the link a
// `@ksm` source opens (reveal the file in the Volumes view), and the bundled MCP server for
// other agents (Use KSM in Other Agents…, Install 'ksm' Command in PATH).
import * as vscode from 'vscode';
import { COMMAND } from '../../common/core/contributionIds';
import { promptForApiKey } from '../../common/vscode/apiKey';
import type { ExtensionServices } from '../../common/vscode/services';
import { installKsmCommand, useKsmInOtherAgents } from './mcpServerProvider';

export function registerNativeChatCommands(
  services: ExtensionServices,
  revealFile: (volume: string, fileId: string) => Promise<void>,
  openCitation: (answerId: unknown, marker: unknown) => Promise<boolean>,
): void {
  // The key first if there is none, then our settings.
  services.registerCommand(COMMAND.vscodeChatManageModels, async () => {
    if (!(await services.apiKey.get())) {
      const key = await promptForApiKey();
      if (key) await services.apiKey.set(key);
    }
    await vscode.commands.executeCommand('workbench.action.openSettings', '@ext:ksm.ksm-assistant chat');
  });
  // The arguments come from a command link in a chat answer: checked, never trusted.
  services.registerCommand(COMMAND.vscodeChatRevealCitation, async (volume: unknown, fileId: unknown) => {
    if (typeof volume !== 'string' || typeof fileId !== 'string' || !fileId) return;
    await revealFile(volume, fileId);
  });
  // A marker [n] or a source of an `@ksm` answer: the arguments name the answer and the
  // marker only; what opens is what that answer cited (AnswerCitations), never the link's text.
  services.registerCommand(COMMAND.vscodeChatOpenCitation, async (answerId: unknown, marker: unknown) => {
    if (await openCitation(answerId, marker)) return;
    void vscode.window.showInformationMessage(vscode.l10n.t('This source is no longer available (the answer is from before a reload). Ask again to see it.'));
  });
  services.registerCommand(COMMAND.mcpInstallCommand, () => installKsmCommand(services));
  services.registerCommand(COMMAND.mcpUseInOtherAgents, () => useKsmInOtherAgents(services));
}
