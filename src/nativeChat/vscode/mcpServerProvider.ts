// The bundled `ksm mcp` offered to VS Code's own agent (`vscode.lm.registerMcpServerDefinitionProvider`,
// stable since 1.101, feature-detected: engines stays ^1.100.0) and to other agents
// (KSM: Use KSM in Other Agents…, KSM: Install 'ksm' Command in PATH). The key reaches the
// server only at launch, from SecretStorage into the process environment
// (resolveMcpServerDefinition); it is never written to settings, mcp.json or any file.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { promptForApiKey } from '../../common/vscode/apiKey';
import type { ExtensionServices } from '../../common/vscode/services';
import { settings } from '../../common/vscode/settings';
import { agentConfigs, isAtLeast, LAUNCHER_MARKER, launcherScript, vscodeLaunch, type AgentClient, type McpSettings } from '../core/mcpLaunch';

/** The id package.json declares under `contributes.mcpServerDefinitionProviders`. */
export const MCP_PROVIDER_ID = 'ksm.mcp';

// The MCP API of @types/vscode 1.101 (only what we use): the extension compiles against 1.100.
interface McpStdioServerDefinition {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
  version?: string;
}
type McpStdioServerDefinitionCtor = new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => McpStdioServerDefinition;
interface McpServerDefinitionProvider {
  readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition[]>;
  resolveMcpServerDefinition?(server: McpStdioServerDefinition, token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition>;
}
type RegisterMcpProvider = (id: string, provider: McpServerDefinitionProvider) => vscode.Disposable;

function mcpSettings(): McpSettings {
  return {
    baseUrl: settings.baseUrl(),
    userId: settings.userId(),
    volumes: settings.volumes(),
    agentId: settings.agentId(),
    agentModel: settings.agentModel(),
    caBundle: settings.caBundle(),
    timeoutSeconds: Math.round(settings.timeoutMs() / 1000),
  };
}

function cliBundle(context: vscode.ExtensionContext): string {
  return join(context.extensionPath, 'dist', 'cli.js');
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
  const provider: McpServerDefinitionProvider = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      const launch = vscodeLaunch(process.execPath, cliBundle(context), mcpSettings());
      // The version changes with the launch (never with the key), so VS Code restarts the server when settings change.
      const version = createHash('sha256').update(JSON.stringify(launch)).digest('hex').slice(0, 12);
      return [new Definition(vscode.l10n.t('KSM volumes'), launch.command, launch.args, launch.env, version)];
    },
    resolveMcpServerDefinition: async (server) => {
      let key = await services.apiKey.get();
      if (!key) {
        key = await promptForApiKey();
        if (!key) return undefined;
        await services.apiKey.set(key);
      }
      server.env = { ...server.env, KSM_API_KEY: key };
      return server;
    },
  };
  try {
    context.subscriptions.push(lm.registerMcpServerDefinitionProvider.call(vscode.lm, MCP_PROVIDER_ID, provider));
    return true;
  } catch (error) {
    services.log.warn(`[mcp] VS Code refused the MCP server provider: ${(error as Error).message.split('\n')[0]}`);
    return false;
  }
}

/** The user's own bin folder: $XDG_BIN_HOME when set, else ~/.local/bin. */
function binFolder(): string {
  const xdg = process.env.XDG_BIN_HOME?.trim();
  return xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'bin');
}

/** Where `KSM: Install 'ksm' Command in PATH` puts the launcher. */
function launcherPath(): string {
  return join(binFolder(), 'ksm');
}

/**
 * Keeps an installed launcher pointing at this extension's bundle after an update moved it
 * (VS Code's own shell command is a link into the app that moves the same way). Never
 * touches a file it did not write.
 */
export function refreshInstalledLauncher(context: vscode.ExtensionContext, log: ExtensionServices['log']): void {
  const path = launcherPath();
  try {
    if (process.platform === 'win32' || !existsSync(path)) return;
    const current = readFileSync(path, 'utf8');
    const wanted = launcherScript(process.execPath, cliBundle(context));
    if (current.includes(LAUNCHER_MARKER) && current !== wanted) {
      writeFileSync(path, wanted, { mode: 0o755 });
      log.info(`[mcp] updated ${path} to this version of the extension`);
    }
  } catch (error) {
    log.warn(`[mcp] could not check ${path}: ${(error as Error).message}`);
  }
}

/** KSM: Install 'ksm' Command in PATH: the launcher's path, or undefined when it was not installed (the user was told why). */
export async function installKsmCommand(services: ExtensionServices): Promise<string | undefined> {
  const { context } = services;
  if (process.platform === 'win32') {
    void vscode.window.showWarningMessage(vscode.l10n.t('Installing \'ksm\' in PATH is available on Linux and macOS. On Windows run it with: node "{0}"', cliBundle(context)));
    return undefined;
  }
  const path = launcherPath();
  if (existsSync(path) && !readFileSync(path, 'utf8').includes(LAUNCHER_MARKER)) {
    void vscode.window.showErrorMessage(vscode.l10n.t('{0} exists and was not installed by KSM Assistant; it was left alone.', path));
    return undefined;
  }
  mkdirSync(binFolder(), { recursive: true });
  writeFileSync(path, launcherScript(process.execPath, cliBundle(context)), { mode: 0o755 });
  const onPath = (process.env.PATH ?? '').split(delimiter).includes(binFolder());
  services.log.info(`[mcp] installed ${path}`);
  void vscode.window.showInformationMessage(
    onPath
      ? vscode.l10n.t("Installed 'ksm' in {0}. Open a new terminal and run: ksm --help", path)
      : vscode.l10n.t("Installed 'ksm' in {0}, which is not in your PATH yet: add {1} to PATH in your shell profile.", path, binFolder()),
  );
  return path;
}

/** KSM: Use KSM in Other Agents…: ready configuration for the picked agent, without the key. */
export async function useKsmInOtherAgents(services: ExtensionServices): Promise<void> {
  const labels: Record<AgentClient, string> = {
    claudeCode: vscode.l10n.t('Claude Code'),
    cursor: vscode.l10n.t('Cursor'),
    claudeDesktop: vscode.l10n.t('Claude Desktop'),
  };
  let command = launcherPath();
  if (process.platform === 'win32' || !existsSync(command)) {
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t("Other agents start KSM's MCP server with the 'ksm' command. Install it in PATH first, so the configuration keeps working after the extension updates?"),
      { modal: true },
      vscode.l10n.t('Install and Continue'),
    );
    if (!choice) return;
    const installed = await installKsmCommand(services);
    if (!installed) return;
    command = installed;
  }
  const configs = agentConfigs(command, mcpSettings());
  const picked = await vscode.window.showQuickPick(
    configs.map((c) => ({ label: labels[c.client], detail: c.where, config: c })),
    { title: vscode.l10n.t('Use KSM in Other Agents'), placeHolder: vscode.l10n.t('Which agent?') },
  );
  if (!picked) return;
  const document = await vscode.workspace.openTextDocument({ language: picked.config.language, content: picked.config.text });
  await vscode.window.showTextDocument(document);
  void vscode.window.showInformationMessage(picked.config.where);
}
