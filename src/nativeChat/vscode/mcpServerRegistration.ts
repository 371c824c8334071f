// What activation registers for the bundled `ksm mcp` (issue 26: activation < 20 ms): VS Code's
// MCP server definition provider, as a shell whose methods load mcpServerProvider.ts (with
// node:crypto and node:child_process) when VS Code first asks for the server list, and the
// launcher check, whose module (launcherFile.ts) loads after activation.
import * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/vscode/services';
import { isAtLeast } from '../core/mcpLaunch';

/** The id package.json declares under `contributes.mcpServerDefinitionProviders`. */
export const MCP_PROVIDER_ID = 'ksm.mcp';

// The MCP API of @types/vscode 1.101 (only what we use): the extension compiles against 1.100.
export interface McpStdioServerDefinition {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
  version?: string;
}
export type McpStdioServerDefinitionCtor = new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => McpStdioServerDefinition;
export interface McpServerDefinitionProvider {
  readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition[]>;
  resolveMcpServerDefinition?(server: McpStdioServerDefinition, token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition>;
}
type RegisterMcpProvider = (id: string, provider: McpServerDefinitionProvider) => vscode.Disposable;

/** The provider's code, loaded at its first use (a failed load is tried again at the next). */
let loading: Promise<typeof import('./mcpServerProvider')> | undefined;
const providerModule = () =>
  (loading ??= import('./mcpServerProvider').catch((error: unknown) => {
    loading = undefined;
    throw error;
  }));

/**
 * The provider VS Code holds: the definitions and the key at launch come from
 * mcpServerProvider.ts, loaded when VS Code first asks (it lists MCP servers when an agent
 * session starts, not at our activation).
 */
export function createLazyMcpProvider(services: ExtensionServices, Definition: McpStdioServerDefinitionCtor, onDidChange: vscode.Event<void>): McpServerDefinitionProvider {
  return {
    onDidChangeMcpServerDefinitions: onDidChange,
    provideMcpServerDefinitions: async () => (await providerModule()).mcpServerDefinitions(services.context, Definition),
    resolveMcpServerDefinition: async (server) => (await providerModule()).resolveMcpServer(services, server),
  };
}

/** Registers the provider where the running VS Code has the API (1.101+); returns whether it did. */
export function registerMcpServerProvider(services: ExtensionServices): boolean {
  const lm = vscode.lm as unknown as { registerMcpServerDefinitionProvider?: RegisterMcpProvider } | undefined;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionCtor }).McpStdioServerDefinition;
  if (typeof lm?.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') return false;
  // Before 1.101 the function exists as a proposed API with another contribution point
  // (code-server 4.100 enables proposed APIs) and throws for ours: only the stable one is used.
  if (!isAtLeast(vscode.version, 1, 101)) return false;
  const { context } = services;
  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    changed,
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ksm')) changed.fire();
    }),
  );
  try {
    context.subscriptions.push(lm.registerMcpServerDefinitionProvider.call(vscode.lm, MCP_PROVIDER_ID, createLazyMcpProvider(services, Definition, changed.event)));
    return true;
  } catch (error) {
    services.log.warn(`[mcp] VS Code refused the MCP server provider: ${(error as Error).message.split('\n')[0]}`);
    return false;
  }
}

/** Keeps an installed launcher pointing at this extension's bundle (launcherFile.ts, loaded for it after activation). */
export function refreshInstalledLauncher(context: vscode.ExtensionContext, log: ExtensionServices['log']): void {
  import('./launcherFile').then(
    (module) => module.refreshInstalledLauncher(context, log),
    (error: unknown) => log.warn(`[mcp] could not check the installed launcher: ${(error as Error).message}`),
  );
}
