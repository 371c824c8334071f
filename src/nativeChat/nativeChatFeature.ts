// KSM inside VS Code's own Chat: the `ksm` model vendor (1.104+), the volume tools (1.95+)
// and the `@ksm` participant (1.90+). Each registration is feature-detected, so the same
// VSIX (engines ^1.100.0) activates on 1.100 and in VSCodium, where the panel stays the chat.
// Nothing here does network or loads the tokenizer at activation.
import * as vscode from 'vscode';
import { LAZY_COMMANDS, LM_TOOL_ID, PARTICIPANT_ID } from '../common/core/contributionIds';
import { registerLazyCommands } from '../common/vscode/lazyCommands';
import type { ExtensionServices } from '../common/vscode/services';
import { KSM_VENDOR } from './core/modelCatalog';
import type { CitedSource } from './core/participant';
import { refreshInstalledLauncher, registerMcpServerProvider } from './vscode/mcpServerRegistration';
import { providerApiOf, type LanguageModelChatProvider } from './vscode/providerApi';
import type { NativeChatRuntime } from './vscode/nativeChatRuntime';
import { loadOnce } from '../common/core/loadOnce';

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
  const status: NativeChatStatus = { modelProvider: false, tools: false, participant: false, mcpServer: false };
  // The models, tools, `@ksm` and commands are registered now by name; their code
  // (vscode/nativeChatRuntime.ts) loads when VS Code first asks for one of them.
  const runtime = loadOnce(async (): Promise<NativeChatRuntime> => (await import('./vscode/nativeChatRuntime')).createNativeChatRuntime(services, deps));
  context.subscriptions.push({ dispose: () => runtime.value?.dispose() });
  registerLazyCommands(services, LAZY_COMMANDS.nativeChat, async () => (await runtime()).registerCommands);

  const registerProvider = providerApiOf(vscode);
  if (registerProvider) {
    const changed = new vscode.EventEmitter<void>();
    const model = async () => {
      const provider = (await runtime()).modelProvider();
      if (!forwarding) forwarding = provider.onDidChangeLanguageModelChatInformation(() => changed.fire());
      return provider;
    };
    let forwarding: vscode.Disposable | undefined;
    const provider: LanguageModelChatProvider = {
      onDidChangeLanguageModelChatInformation: changed.event,
      provideLanguageModelChatInformation: async () => (await model()).provideLanguageModelChatInformation(),
      provideLanguageModelChatResponse: async (...args) => (await model()).provideLanguageModelChatResponse(...args),
      provideTokenCount: async (info, text) => (await model()).provideTokenCount(info, text),
    };
    context.subscriptions.push(changed, { dispose: () => forwarding?.dispose() }, registerProvider(KSM_VENDOR, provider));
    status.modelProvider = true;
  }
  if (typeof vscode.lm?.registerTool === 'function') {
    for (const name of Object.values(LM_TOOL_ID)) {
      const tool: vscode.LanguageModelTool<unknown> = {
        prepareInvocation: async (options, token) => (await runtime()).tools[name].prepareInvocation?.(options, token),
        invoke: async (options, token) => (await runtime()).tools[name].invoke(options, token),
      };
      context.subscriptions.push(vscode.lm.registerTool(name, tool));
    }
    status.tools = true;
  }
  if (typeof vscode.chat?.createChatParticipant === 'function') {
    const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, async (...args) => (await runtime()).participant(...args));
    participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'ksm.svg');
    context.subscriptions.push(participant);
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
