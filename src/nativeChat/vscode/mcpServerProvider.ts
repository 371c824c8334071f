// The bundled `ksm mcp` offered to VS Code's own agent (`vscode.lm.registerMcpServerDefinitionProvider`,
// stable since 1.101, feature-detected: engines stays ^1.100.0) and to other agents
// (KSM: Use KSM in Other Agents…, KSM: Install 'ksm' Command in PATH). The key reaches the
// server only at launch, from SecretStorage into the process environment
// (resolveMcpServerDefinition); it is never written to settings, mcp.json or any file.
// This module (hashing, child processes, the launcher) loads at the first use of one of them;
// the provider VS Code holds from activation is in mcpServerRegistration.ts.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import { promptForApiKey } from '../../common/vscode/apiKey';
import type { ExtensionServices } from '../../common/vscode/services';
import { settings } from '../../common/vscode/settings';
import { ADD_TO_USER_PATH_SCRIPT, installDecision, onPath, powershellCommand, readLauncher, writeLauncher } from '../core/launcherInstall';
import { agentConfigs, vscodeLaunch, type AgentClient, type McpSettings } from '../core/mcpLaunch';
import { cliBundle, launcher } from './launcherFile';
import type { McpStdioServerDefinition, McpStdioServerDefinitionCtor } from './mcpServerRegistration';

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

/** The definition VS Code lists: the bundled `ksm mcp` under VS Code's runtime, without the key. */
export function mcpServerDefinitions(context: vscode.ExtensionContext, Definition: McpStdioServerDefinitionCtor): McpStdioServerDefinition[] {
  const launch = vscodeLaunch(process.execPath, cliBundle(context), mcpSettings());
  // The version changes with the launch (never with the key), so VS Code restarts the server when settings change.
  const version = createHash('sha256').update(JSON.stringify(launch)).digest('hex').slice(0, 12);
  return [new Definition(vscode.l10n.t('KSM volumes'), launch.command, launch.args, launch.env, version)];
}

/** At launch: the key from SecretStorage (asked for when there is none) into the server's environment only. */
export async function resolveMcpServer(services: ExtensionServices, server: McpStdioServerDefinition): Promise<McpStdioServerDefinition | undefined> {
  let key = await services.apiKey.get();
  if (!key) {
    key = await promptForApiKey();
    if (!key) return undefined;
    await services.apiKey.set(key);
  }
  server.env = { ...server.env, KSM_API_KEY: key };
  return server;
}

/** Windows: adds the launcher's folder to the user's PATH (HKCU), with the user's consent; whether it is there now. */
async function addToWindowsPath(services: ExtensionServices, folder: string): Promise<boolean> {
  const add = vscode.l10n.t('Add to PATH');
  const choice = await vscode.window.showInformationMessage(vscode.l10n.t("Installed 'ksm' in {0}. Add this folder to your user PATH so terminals find it?", folder), add, vscode.l10n.t('Not Now'));
  if (choice !== add) return false;
  const { command, args, env } = powershellCommand(ADD_TO_USER_PATH_SCRIPT, folder);
  try {
    const { stdout } = await promisify(execFile)(command, args, { env: { ...process.env, ...env }, windowsHide: true });
    services.log.info(`[mcp] user PATH: ${stdout.trim() === 'already' ? 'already had' : 'added'} ${folder}`);
    return true;
  } catch (error) {
    services.log.warn(`[mcp] could not add ${folder} to the user PATH: ${(error as Error).message.split('\n')[0]}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not add {0} to your PATH: add it in Settings › System › About › Advanced system settings › Environment Variables.', folder));
    return false;
  }
}

/** KSM: Install 'ksm' Command in PATH: the launcher's path, or undefined when it was not installed (the user was told why). */
export async function installKsmCommand(services: ExtensionServices): Promise<string | undefined> {
  const target = launcher(services.context);
  if (installDecision(readLauncher(target.path), target.content) === 'foreign') {
    void vscode.window.showErrorMessage(vscode.l10n.t('{0} exists and was not installed by KSM Assistant; it was left alone.', target.path));
    return undefined;
  }
  writeLauncher(target);
  services.log.info(`[mcp] installed ${target.path}`);
  if (onPath(process.env.PATH, target.folder, process.platform, process.env)) {
    void vscode.window.showInformationMessage(vscode.l10n.t("Installed 'ksm' in {0}. Open a new terminal and run: ksm --help", target.path));
  } else if (target.windows) {
    // Terminals inherit PATH from the program that starts them: VS Code's own terminals see it after VS Code restarts.
    if (await addToWindowsPath(services, target.folder)) {
      void vscode.window.showInformationMessage(vscode.l10n.t("'ksm' is in your PATH. Open a new terminal (restart VS Code for its terminals) and run: ksm --help"));
    }
  } else {
    void vscode.window.showInformationMessage(vscode.l10n.t("Installed 'ksm' in {0}, which is not in your PATH yet: add {1} to PATH in your shell profile.", target.path, target.folder));
  }
  return target.path;
}

/** KSM: Use KSM in Other Agents…: ready configuration for the picked agent, without the key. */
export async function useKsmInOtherAgents(services: ExtensionServices): Promise<void> {
  const labels: Record<AgentClient, string> = {
    claudeCode: vscode.l10n.t('Claude Code'),
    cursor: vscode.l10n.t('Cursor'),
    claudeDesktop: vscode.l10n.t('Claude Desktop'),
  };
  const target = launcher(services.context);
  let command = target.path;
  const existing = readLauncher(command);
  if (installDecision(existing, target.content) === 'foreign') {
    // Someone else's `ksm` (or a link) is at that path: the configuration would start that program. The install says so and stops.
    if (!(await installKsmCommand(services))) return;
  } else if (existing === undefined) {
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
