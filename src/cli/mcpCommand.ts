// `ksm mcp`: the MCP server (src/mcp/) with the CLI's configuration. The environment is
// read once, when the first tool runs: a server started without KSM_BASE_URL or
// KSM_API_KEY still starts and lists its tools, and every call answers with the sentence
// that says what to set (an agent shows it; a crash would only show "server exited").
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { shown } from '../common/core/untrustedText';
import { volumeNameProblem } from '../common/core/volumeTargets';
import { createKsmMcpServer, type KsmMcpDeps } from '../mcp/server';
import { serveHttp, serveStdio } from '../mcp/transports';
import { Retrieval, RetrievalError, type RetrievalScope, type SettingNames } from '../volumes/core/retrieval';
import { describeError, environmentFrom, EXIT, INSECURE_ADDRESS_WARNING, type CliEnvironment } from './environment';
import { cliScope } from './retrievalCommands';

export interface McpFlags {
  http?: boolean;
  /** The one folder the `upload` tool may read from; without it there is no upload tool. */
  allowUpload?: string;
  port: number;
  volume: string[];
  model?: string;
}

/** How tool errors name the settings: the server's own flags. */
const MCP_NAMES: SettingNames = {
  userId: 'KSM_USER_ID',
  volumes: '`ksm mcp --volume NAME`',
  agentModel: 'KSM_MODEL (or `ksm mcp --model ID`)',
};

/** One line to stderr: what a tool call carried (a model's arguments, names from the service) cannot forge lines or send a terminal escape. */
const log = (line: string) => process.stderr.write(`ksm mcp: ${shown(line)}\n`);

export function mcpDeps(flags: McpFlags, env: NodeJS.ProcessEnv = process.env): KsmMcpDeps {
  for (const volume of flags.volume) {
    const problem = volumeNameProblem(volume);
    if (problem) throw new RetrievalError(`--volume ${JSON.stringify(volume)}: ${problem}`);
  }
  let upload: KsmMcpDeps['upload'];
  if (flags.allowUpload !== undefined) {
    let folder: string;
    try {
      folder = realpathSync(resolve(flags.allowUpload));
    } catch {
      throw new RetrievalError(`--allow-upload ${JSON.stringify(flags.allowUpload)}: no such folder.`);
    }
    if (!statSync(folder).isDirectory()) throw new RetrievalError(`--allow-upload ${JSON.stringify(flags.allowUpload)}: not a folder.`);
    // The private-file rules are a workspace's (.env, keys, .git/, .ssh/); a home folder also holds
    // credentials no rule names (~/.kube, ~/.docker, ~/.config/gh, shell history), so it is no upload folder.
    if (holdsHome(folder)) {
      throw new RetrievalError(
        `--allow-upload ${JSON.stringify(flags.allowUpload)}: that folder holds your home folder, whose settings and credentials a model must not reach; give a project folder.`,
      );
    }
    upload = { folder, embedding: env.KSM_EMBEDDING_MODEL?.trim() ?? '', doChunking: 1, maxFileBytes: 100 * 1024 * 1024 };
  }
  let environment: CliEnvironment | undefined;
  const retrieval = new Retrieval();
  return {
    upload,
    retrieval,
    version: process.env.KSM_CLI_VERSION ?? 'dev',
    log,
    secrets: () => [env.KSM_API_KEY, env.KSM_MCP_TOKEN],
    describe: (error) => describeError(error, env.KSM_API_KEY, env),
    scope: (signal): RetrievalScope => {
      if (!environment) {
        environment = environmentFrom(env);
        if (environment.insecure) log(INSECURE_ADDRESS_WARNING);
      }
      return cliScope(environment, flags.volume, flags.model, signal, { names: MCP_NAMES, modelOptional: true, processEnv: env });
    },
  };
}

/** `folder` (a real path) is the home folder or one of its ancestors (`/`, `/home`). */
function holdsHome(folder: string): boolean {
  let home: string;
  try {
    home = realpathSync(homedir());
  } catch {
    return false;
  }
  const rel = relative(folder, home);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

export async function mcpCommand(flags: McpFlags): Promise<number> {
  let deps: KsmMcpDeps;
  try {
    deps = mcpDeps(flags);
  } catch (error) {
    process.stderr.write(`ksm: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  if (!flags.http) {
    await serveStdio(createKsmMcpServer(deps));
    return EXIT.ok;
  }
  const token = process.env.KSM_MCP_TOKEN?.trim() || undefined;
  // Without a token any local program, another user's too, may call it: reading is warned about below, writing is refused.
  if (flags.allowUpload !== undefined && !token) {
    process.stderr.write(
      'ksm: --http with --allow-upload needs KSM_MCP_TOKEN: without it any program on this machine could upload from that folder. Set one, for example: export KSM_MCP_TOKEN=$(openssl rand -hex 16)\n',
    );
    return EXIT.usage;
  }
  const { url, server } = await serveHttp(() => createKsmMcpServer(deps), { port: flags.port, token, log });
  log(`listening on ${url}${token ? ' (Bearer token required)' : ' (no KSM_MCP_TOKEN set: any local program may call it)'}`);
  await new Promise<void>((resolve) => {
    // Stop now: open connections are closed, so a call still running is cancelled (its request
    // to the service too) rather than waited for; a slow service would otherwise keep the
    // server alive for minutes after Ctrl-C or a SIGTERM.
    const stop = () => {
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return EXIT.ok;
}
