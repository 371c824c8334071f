// How the bundled `ksm mcp` is started, without `vscode`: for VS Code's own MCP list (the
// extension's CLI bundle under VS Code's runtime) and as configuration other agents use
// (Claude Code, Cursor, Claude Desktop). The API key is never part of any of it: VS Code
// gets it at launch from SecretStorage (resolveMcpServerDefinition), other agents from the
// KSM_API_KEY of the environment they start in.
import * as l10n from '@vscode/l10n';
import { DEFAULT_AGENT_ID } from '../../api/types';

export interface McpSettings {
  baseUrl: string;
  userId: string;
  volumes: readonly string[];
  agentId: string;
  agentModel: string;
  caBundle: string;
  timeoutSeconds: number;
}

export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** `ksm mcp` arguments and environment (no key) for the given settings. */
export function mcpArgsAndEnv(settings: McpSettings): { args: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  if (settings.baseUrl) env.KSM_BASE_URL = settings.baseUrl;
  if (settings.userId) env.KSM_USER_ID = settings.userId;
  if (settings.agentModel) env.KSM_MODEL = settings.agentModel;
  if (settings.agentId && settings.agentId !== DEFAULT_AGENT_ID) env.KSM_AGENT_ID = settings.agentId;
  if (settings.caBundle) env.KSM_CA_BUNDLE = settings.caBundle;
  if (settings.timeoutSeconds > 0 && settings.timeoutSeconds !== 60) env.KSM_TIMEOUT_SECONDS = String(settings.timeoutSeconds);
  return { args: ['mcp', ...settings.volumes.flatMap((v) => ['--volume', v])], env };
}

/**
 * VS Code starts the bundle with its own runtime: the extension host's executable (Electron
 * in the desktop app, Node in code-server), told to behave as Node.
 */
export function vscodeLaunch(runtime: string, cliBundle: string, settings: McpSettings): McpLaunch {
  const { args, env } = mcpArgsAndEnv(settings);
  return { command: runtime, args: [cliBundle, ...args], env: { ...env, ELECTRON_RUN_AS_NODE: '1' } };
}

export type AgentClient = 'claudeCode' | 'cursor' | 'claudeDesktop';

export interface AgentConfig {
  client: AgentClient;
  /** What to do with `text`. */
  where: string;
  language: 'shellscript' | 'json';
  text: string;
}

const keyNote = (): string => l10n.t('KSM_API_KEY is not written here: export it in the environment the agent starts from (your shell profile, or a secret manager), never in a file you share.');

/** Ready configuration for other agents, launching `command` (the `ksm` installed in PATH). */
export function agentConfigs(command: string, settings: McpSettings): AgentConfig[] {
  const { args, env } = mcpArgsAndEnv(settings);
  const server = { command, args, env };
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const claudeCode = ['claude', 'mcp', 'add', 'ksm', ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), '--', command, ...args].map(quote).join(' ');
  const json = JSON.stringify({ mcpServers: { ksm: server } }, null, 2);
  return [
    { client: 'claudeCode', where: l10n.t('Run in a terminal. {0}', keyNote()), language: 'shellscript', text: `${claudeCode}\n` },
    { client: 'cursor', where: l10n.t('Put in .cursor/mcp.json (this project) or ~/.cursor/mcp.json (every project). {0}', keyNote()), language: 'json', text: `${json}\n` },
    {
      client: 'claudeDesktop',
      where: l10n.t("Merge into Claude Desktop's claude_desktop_config.json (Settings → Developer → Edit Config). {0}", keyNote()),
      language: 'json',
      text: `${json}\n`,
    },
  ];
}

/** The launcher `KSM: Install 'ksm' Command in PATH` writes (POSIX shell); rewritten when the extension moves. */
export const LAUNCHER_MARKER = '# Installed by KSM Assistant';

export function launcherScript(runtime: string, cliBundle: string): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `#!/bin/sh\n${LAUNCHER_MARKER} (KSM: Install 'ksm' Command in PATH); rewritten when the extension updates.\nELECTRON_RUN_AS_NODE=1 exec ${q(runtime)} ${q(cliBundle)} "$@"\n`;
}

/** `version` (VS Code's, like "1.139.0-insider") is at least major.minor. */
export function isAtLeast(version: string, major: number, minor: number): boolean {
  const match = /^(\d+)\.(\d+)/.exec(version);
  if (!match) return false;
  const [vMajor, vMinor] = [Number(match[1]), Number(match[2])];
  return vMajor > major || (vMajor === major && vMinor >= minor);
}
