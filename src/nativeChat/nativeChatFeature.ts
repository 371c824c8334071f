// KSM inside VS Code's own Chat: the `ksm` model vendor (1.104+), the volume tools (1.95+)
// and the `@ksm` participant (1.90+). Each registration is feature-detected, so the same
// VSIX (engines ^1.100.0) activates on 1.100 and in VSCodium, where the panel stays the chat.
// Nothing here does network or loads the tokenizer at activation.
import * as vscode from 'vscode';
import type { ExtensionServices } from '../common/vscode/services';
import { KSM_VENDOR } from './core/modelCatalog';
import { AnswerCitations, RecentUploads, type CitedSource } from './core/participant';
import { registerNativeChatCommands } from './vscode/commands';
import { KsmModelProvider } from './vscode/modelProvider';
import { refreshInstalledLauncher, registerMcpServerProvider } from './vscode/mcpServerProvider';
import { registerParticipant } from './vscode/participantAdapter';
import { providerApiOf } from './vscode/providerApi';
import { registerVolumeTools } from './vscode/volumeToolsAdapter';

export interface NativeChatDeps {
  revealFile(volume: string, fileId: string): Promise<void>;
  /** The chat feature's passage documents: an `@ksm` source opens the cited passage as the panel does. */
  openCitedPassage(answerId: string, passage: CitedSource): Promise<void>;
}

/** Which parts the running VS Code supports (logged). */
interface NativeChatStatus {
  modelProvider: boolean;
  tools: boolean;
  participant: boolean;
  /** The bundled `ksm mcp` is in VS Code's MCP server list (1.101+). */
  mcpServer: boolean;
}

export function registerNativeChatFeature(services: ExtensionServices, deps: NativeChatDeps): void {
  const { context, log } = services;
  const recent = new RecentUploads();
  const status: NativeChatStatus = { modelProvider: false, tools: false, participant: false, mcpServer: false };

  const citations = new AnswerCitations();
  registerNativeChatCommands(services, deps.revealFile, (answerId, marker) => {
    const source = citations.source(answerId, marker);
    if (!source) return Promise.resolve(false);
    // The passage opens in the editor; VS Code's Chat is not in the side bar Volumes shares, so the row is selected too.
    return deps.openCitedPassage(answerId as string, source).then(async () => {
      if (source.volume) await deps.revealFile(source.volume, source.fileId);
      return true;
    });
  });

  const registerProvider = providerApiOf(vscode);
  if (registerProvider) {
    const provider = new KsmModelProvider(services);
    context.subscriptions.push(provider, registerProvider(KSM_VENDOR, provider));
    status.modelProvider = true;
  }
  if (typeof vscode.lm?.registerTool === 'function') {
    context.subscriptions.push(...registerVolumeTools(services, recent));
    status.tools = true;
  }
  if (typeof vscode.chat?.createChatParticipant === 'function') {
    context.subscriptions.push(registerParticipant(services, recent, citations));
    status.participant = true;
  }
  // Every agent, VS Code's own included, reaches the volumes through the bundled MCP server.
  status.mcpServer = registerMcpServerProvider(services);
  setTimeout(() => refreshInstalledLauncher(context, log), 0);
  log.info(`[vscode-chat] MCP server: ${status.mcpServer ? 'registered' : 'not available (VS Code < 1.101)'}.`);
  log.info(
    `[vscode-chat] model provider: ${status.modelProvider ? 'registered' : 'not available (VS Code < 1.104)'}, tools: ${status.tools ? 'registered' : 'not available'}, @ksm participant: ${status.participant ? 'registered' : 'not available'}.`,
  );
}
