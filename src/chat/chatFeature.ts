// PLACEHOLDER until issue 6 lands.
import * as vscode from 'vscode';
import type { AgentFileRef } from '../api/types';
import type { ExtensionServices } from '../common/services';

export interface ChatFeatureDeps {
  revealFile(volume: string, fileId: string): Promise<void>;
}

export interface ChatFeature {
  /** Opens the chat in agent mode with these files attached (sent as `files[]`). */
  askAgentAbout(files: Array<AgentFileRef & { volume: string }>): Promise<void>;
}

export function registerChatFeature(services: ExtensionServices, _deps: ChatFeatureDeps): ChatFeature {
  const notYet = () => vscode.window.showInformationMessage('Chat is not yet available in this build.');
  for (const id of ['ksm.chat.new', 'ksm.chat.askAboutSelection', 'ksm.chat.askAboutFile', 'ksm.chat.conversations', 'ksm.chat.export']) {
    services.registerCommand(id, notYet);
  }
  return { askAgentAbout: async () => void notYet() };
}
