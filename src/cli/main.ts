// `ksm`: the command line (bundled to dist/cli.js, the package's `bin` through bin/ksm.js).
// Commands share one frame: environment check, Ctrl-C → cancel, errors → a clear line on
// stderr (never the key) and an exit code CI can act on. Arguments via commander.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { DoChunking } from '../api/types';
import type { DuplicateChoice } from '../upload/core/duplicatePlanning';
import type { AskFlags } from './askCommand';
import { readFileSync } from 'node:fs';
import { describeError, environmentFrom, EXIT, exitCodeFor, INSECURE_ADDRESS_WARNING, tuneV8ForShortRuns, UsageError, type CliEnvironment } from './environment';
import { lsCommand, rmCommand, uploadCommand, type UploadFlags } from './fileCommands';
import type { McpFlags } from './mcpCommand';
import { globCostProblem } from '../common/core/globCost';
import { createOutput, shown, shownText, type Output } from './output';
import type { RetrievalFlags, SearchFlags } from './retrievalCommands';
import { syncCommand, type SyncFlags } from './syncCommand';
// ask, search, fetch and mcp load at their first use: `ksm sync` and `ksm upload` (thousands
// of files in CI) need not parse the chat runtime and the MCP server on every start.

const ENVIRONMENT_HELP = `
Environment:
  KSM_BASE_URL          service address, e.g. https://ksm.example.com (required)
  KSM_API_KEY           API key (required; never accepted as a flag)
  KSM_EMBEDDING_MODEL   embedding model for uploads (or --embedding)
  KSM_MODEL             chat model for \`ksm ask\`, \`search\`, \`fetch\` and \`mcp\` (or --model)
  KSM_CA_BUNDLE         extra PEM CA bundle; HTTPS_PROXY / NO_PROXY are honoured
  KSM_TIMEOUT_SECONDS   seconds to wait for an answer to start (default 60)
  KSM_USER_ID           your user id: sent as \`user\` by \`ksm ask\`; \`ksm search\`, \`fetch\` and \`mcp\` then read your personal volume too
  KSM_MCP_TOKEN         \`ksm mcp --http\` requires "Authorization: Bearer <this>" (recommended)
  KSM_AGENT_ID          the agent \`ksm ask --agent\`, \`search\`, \`fetch\` and \`mcp\` use (default: rag-agent; --agent-id wins)

Exit codes:
  0 done   1 some files failed (fetch: the id names nothing now)   2 usage error   3 configuration or key refused
  4 delete guard refused (nothing changed)   5 service or network error
  6 another sync of the folder is running (nothing changed)   130 cancelled`;

function integer(min: number, max: number) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    return n;
  };
}

const chunkingOption = () => new Option('--chunking <mode>', 'do_chunking: 0 store only, 1 chunk and embed, 2 chunk only').choices(['0', '1', '2']).default('1');
const collect = (value: string, previous: string[]) => [...previous, value];

/**
 * The globs a flag gave, each within the matcher's cost budget (globCost.ts): one over it is the
 * command line's mistake (exit 2, naming the flag), not the editor's `files.exclude` (exit 3).
 */
function checkedGlobs(flag: string, globs: string[]): string[] {
  for (const glob of globs) {
    const problem = globCostProblem(glob);
    if (problem) throw new UsageError(`${flag} '${shown(glob)}' cannot be used: ${problem}. Simplify it; nothing was uploaded or synced.`);
  }
  return globs;
}

/** Globs from a file, one per line (`#` comments and blank lines ignored), for --exclude-from. */
function globsFrom(files: string[]): string[] {
  return files.flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`--exclude-from: cannot read '${file}' (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
    }
    return text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
  });
}

interface OutputFlags {
  json?: boolean;
  jsonLines?: boolean;
  quiet?: boolean;
  progress?: boolean;
}

/** The output options every file command shares. */
function withOutputOptions(command: Command): Command {
  return command
    .option('--json', 'print one JSON document')
    .option('--json-lines', 'print one JSON record per file as it happens, then a summary record')
    .option('-q, --quiet', 'print only problems and the summary line')
    .option('--no-progress', 'no progress line (it only appears on a terminal anyway)');
}

/**
 * Runs a command in the shared frame; resolves with the exit code. `changesVolume`: a command
 * that uploads or deletes goes on to its end when its reader goes away (`ksm sync … | head -1`),
 * so a closed pipe never cuts a run short and then exits 0 as if it had finished.
 */
async function run(flags: OutputFlags, body: (env: CliEnvironment, out: Output, signal: AbortSignal) => Promise<number>, changesVolume = false): Promise<number> {
  finishOnClosedPipe = changesVolume;
  const json = Boolean(flags.json);
  const out = createOutput({ json, jsonLines: flags.jsonLines, quiet: flags.quiet, progress: flags.progress });
  const controller = new AbortController();
  const onInterrupt = () => {
    if (controller.signal.aborted) process.exit(EXIT.cancelled);
    process.stderr.write('\nCancelling… (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onInterrupt);
  let apiKey: string | undefined;
  try {
    const env = environmentFrom(process.env);
    apiKey = env.apiKey;
    if (env.insecure) process.stderr.write(`ksm: ${INSECURE_ADDRESS_WARNING}\n`);
    return await body(env, out, controller.signal);
  } catch (error) {
    const message = describeError(error, apiKey ?? process.env.KSM_API_KEY);
    // A usage error is a ConfigurationError underneath; its record says which (as `ksm ask`'s early check does).
    const kind = error instanceof UsageError ? 'usage' : ((error as { kind?: string }).kind ?? 'error');
    process.stderr.write(`ksm: ${shownText(message)}\n`); // the service's words may be in it
    out.record({ error: { kind, message } });
    if (json) out.document({ error: { kind, message } });
    return exitCodeFor(error);
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

export function buildProgram(): Command {
  const program = new Command('ksm')
    .description('KSM from the command line: sync a folder to a RAG volume, upload, list, delete, ask, search and fetch passages, and serve your volumes over MCP.')
    .version(process.env.KSM_CLI_VERSION ?? 'dev')
    .showHelpAfterError()
    .addHelpText('after', ENVIRONMENT_HELP)
    .exitOverride();

  withOutputOptions(
    program
      .command('sync')
      .description('Make <volume> match <folder>: upload new files, replace changed ones (by content), delete removed ones with --delete.')
      .argument('<folder>', 'local folder; .gitignore and --exclude apply, the manifest is <folder>/.ksm-sync.<volume>.<key>.json (one per volume)')
      .argument('<volume>', 'volume name'),
  )
    .option('--dry-run', 'print the plan and change nothing')
    .option('--delete', 'delete the copies this folder uploaded of files removed (or now excluded) locally')
    .option('--adopt', "no manifest: same-name files in the volume are this folder's older copies (uploaded again, old ones deleted)")
    .option('--keep-others', 'no manifest: upload alongside same-name files this folder never recorded, and leave them')
    .option('--dedupe', "delete extra copies of this folder's own files (same name and size, left by an earlier accident)")
    .option('--include <glob>', 'sync only files matching this glob, relative to the folder (repeatable)', collect, [])
    .option('--exclude <glob>', 'exclude glob relative to the folder (repeatable)', collect, [])
    .option('--exclude-from <file>', 'exclude globs from a file, one per line, relative to the folder as --exclude (repeatable)', collect, [])
    .option('--max-file-size-mb <n>', 'skip larger files (0 = no limit)', integer(0, 100_000), 100)
    .option('--max-delete-percent <n>', 'delete guard: refuse to delete more than this share of the volume', integer(0, 100), 20)
    .option('--max-delete <n>', 'delete guard: refuse to delete more than this many files', integer(0, 10_000_000))
    .option('--allow-mass-delete', 'go past the delete guard')
    .option('--embedding <model>', 'embedding model (default: KSM_EMBEDDING_MODEL)')
    .addOption(chunkingOption())
    .option('--concurrency <n>', 'upload requests in flight (1 to 16)', integer(1, 16), 3)
    .option('--lock-wait <seconds>', 'wait this long for another sync of the same folder', integer(0, 3600), 5)
    .addHelpText('after', '\nExamples:\n  ksm sync docs team-docs --dry-run\n  ksm sync docs team-docs --delete --json > sync.json')
    .action(async (folder: string, volume: string, flags: Omit<SyncFlags, 'chunking'> & OutputFlags & { chunking: string; excludeFrom: string[]; lockWait: number }) => {
      process.exitCode = await run(
        flags,
        (env, out, signal) =>
          syncCommand(
            env,
            out,
            folder,
            volume,
            {
              ...flags,
              include: checkedGlobs('--include', flags.include),
              exclude: [...checkedGlobs('--exclude', flags.exclude), ...checkedGlobs('--exclude-from', globsFrom(flags.excludeFrom))],
              lockWaitSeconds: flags.lockWait,
              chunking: Number(flags.chunking) as DoChunking,
            },
            signal,
          ),
        true,
      );
    });

  withOutputOptions(
    program
      .command('upload')
      .description('Upload files and folders to <volume> (.gitignore, --exclude and the readable-files rule apply to folders).')
      .argument('<volume>', 'volume name')
      .argument('<paths...>', "files or folders; a file named here is sent whatever the globs and .gitignore say (they pick among a folder's files)"),
  )
    .option('--embedding <model>', 'embedding model (default: KSM_EMBEDDING_MODEL)')
    .addOption(chunkingOption())
    .addOption(
      new Option('--on-duplicate <choice>', 'when a name exists: skip, replace (upload, then delete the old copies once the new one is processed), keepBoth (store as "name (2)")')
        .choices(['skip', 'replace', 'keepBoth'])
        .default('skip'),
    )
    .option('--concurrency <n>', 'upload requests in flight (1 to 16)', integer(1, 16), 3)
    .option('--replace-wait <seconds>', 'with replace: how long to wait for the new copies to be processed', integer(0, 86_400), 300)
    .option('--include <glob>', 'upload only the files inside the folders given that match this glob, relative to each folder (repeatable)', collect, [])
    .option(
      '--exclude <glob>',
      'leave out the files inside the folders given that match this glob, relative to each folder as ksm sync reads it, whatever the current folder (drafts/** in docs/; **/*.tmp anywhere) (repeatable)',
      collect,
      [],
    )
    .option('--exclude-from <file>', 'exclude globs from a file, one per line, relative to each folder as --exclude (repeatable)', collect, [])
    .option('--max-file-size-mb <n>', 'skip larger files (0 = no limit)', integer(0, 100_000), 100)
    .action(
      async (
        volume: string,
        paths: string[],
        flags: Omit<UploadFlags, 'chunking' | 'onDuplicate'> & OutputFlags & { chunking: string; onDuplicate: string; excludeFrom: string[]; replaceWait: number },
      ) => {
        process.exitCode = await run(
          flags,
          (env, out, signal) =>
            uploadCommand(
              env,
              out,
              volume,
              paths,
              {
                ...flags,
                include: checkedGlobs('--include', flags.include),
                exclude: [...checkedGlobs('--exclude', flags.exclude), ...checkedGlobs('--exclude-from', globsFrom(flags.excludeFrom))],
                replaceWaitSeconds: flags.replaceWait,
                chunking: Number(flags.chunking) as DoChunking,
                onDuplicate: flags.onDuplicate as DuplicateChoice,
              },
              signal,
            ),
          true,
        );
      },
    );

  program
    .command('ls')
    .description('List the files of <volume> (uuid, status, size, name).')
    .argument('<volume>', 'volume name')
    .option('--json', 'print one JSON document')
    .action(async (volume: string, flags: { json?: boolean }) => {
      process.exitCode = await run(flags, (env, out, signal) => lsCommand(env, out, volume, signal));
    });

  program
    .command('rm')
    .description('Delete files from <volume> by uuid, or by name (every file with that name) when no file has that uuid.')
    .argument('<volume>', 'volume name')
    .argument('<files...>', 'uuids or file names')
    .option('--dry-run', 'print what would be deleted (every file each name matches); delete nothing')
    .option('--json', 'print one JSON document')
    .action(async (volume: string, files: string[], flags: { json?: boolean; dryRun?: boolean }) => {
      process.exitCode = await run(flags, (env, out, signal) => rmCommand(env, out, volume, files, signal, { dryRun: flags.dryRun }), true);
    });

  program
    .command('ask')
    .description('Ask a chat model (default) or the RAG agent (--agent); the answer streams to stdout. Text piped to stdin goes with the question as context.')
    .argument('<question...>', 'the question')
    .option('--model <id>', 'chat model (default: KSM_MODEL)')
    .option('--agent', 'ask the RAG agent instead of a chat model')
    .option('--agent-id <id>', 'the agent to ask (implies --agent; default: KSM_AGENT_ID, else rag-agent)')
    .option('--thread <id>', 'continue an agent thread (with --agent or --agent-id)')
    .option('--volume <name>', 'volume the agent also searches (repeatable; with --agent or --agent-id)', collect, [])
    .option('--system <text>', 'system prompt (chat models)')
    .option('--temperature <n>', 'temperature, 0 to 2')
    .option('--top-p <n>', 'top_p, above 0 and at most 1')
    .option('--max-tokens <n>', 'at most this many tokens in the answer')
    .option('--stop <text>', 'stop sequence (repeatable, up to 4)', collect, [])
    .option('--seed <n>', 'seed for repeatable answers (-1 = random)')
    .option('--frequency-penalty <n>', 'frequency_penalty, -2 to 2')
    .option('--repetition-penalty <n>', 'repetition_penalty, 0 to 2')
    .option('--json-schema <file>', 'answer as JSON matching the JSON Schema in <file>')
    .option('--json-object', 'answer as a JSON object')
    .option('--reasoning-effort <level>', 'low, medium or high (reasoning models)')
    .option('--output-format <format>', "the service's answer format: chat or responses")
    .option('--json', 'print one JSON document at the end instead of streaming')
    .action(async (words: string[], flags: AskFlags & { json?: boolean }) => {
      process.exitCode = await run(flags, async (env, out, signal) => (await import('./askCommand')).askCommand(env, out, words.join(' '), flags, signal));
    });

  program
    .command('search')
    .description("Search your volumes (the agent's retrieval): passages best first, each with the ksm:// id that `ksm fetch` takes.")
    .argument('<query...>', 'the words or question to search for')
    .option('--volume <name>', 'named volume to search (repeatable); your personal volume comes from KSM_USER_ID', collect, [])
    .option('--limit <n>', 'at most this many passages (1 to 50)', integer(1, 50), 10)
    .option('--model <id>', 'chat model the agent retrieves with (default: KSM_MODEL)')
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExamples:\n  ksm search --volume team-docs "hotfix signatures"\n  ksm search --volume team-docs --json release checklist | jq -r ".results[0].id"')
    .action(async (words: string[], flags: SearchFlags & { json?: boolean }) => {
      process.exitCode = await run(flags, async (env, out, signal) => (await import('./retrievalCommands')).searchCommand(env, out, words.join(' '), flags, signal));
    });

  program
    .command('fetch')
    .description("Print the passage (ksm://<volume>/<file id>#<n>) or the file's passages (ksm://<volume>/<file id>) behind an id from `ksm search`.")
    .argument('<id>', 'a ksm:// id')
    .option('--volume <name>', 'named volume the id may be in besides its own (repeatable)', collect, [])
    .option('--model <id>', 'chat model the agent retrieves with (default: KSM_MODEL)')
    .option('--json', 'print one JSON document')
    .action(async (id: string, flags: RetrievalFlags & { json?: boolean }) => {
      process.exitCode = await run(flags, async (env, out, signal) => (await import('./retrievalCommands')).fetchCommand(env, out, id, flags, signal));
    });

  program
    .command('mcp')
    .description('Run the MCP server: your KSM volumes for any agent (tools search, fetch, list_files, ask). Stdio by default; logs go to stderr.')
    .option('--http', 'serve Streamable HTTP on 127.0.0.1 instead of stdio (endpoint /mcp)')
    .option('--port <n>', 'port for --http (0 = any free port)', integer(0, 65_535), 8765)
    .option('--volume <name>', 'named volume the tools may read (repeatable); the personal one comes from KSM_USER_ID', collect, [])
    .option('--model <id>', 'chat model the agent uses for search and ask (default: KSM_MODEL)')
    .option('--allow-upload <folder>', 'offer the upload tool, for files inside <folder> only (private files refused; KSM_EMBEDDING_MODEL required)')
    .addHelpText(
      'after',
      '\nExamples:\n  claude mcp add ksm -e KSM_BASE_URL=https://ksm.example.com -e KSM_USER_ID=me -e KSM_MODEL=<model> -- ksm mcp --volume team-docs\n  KSM_MCP_TOKEN=$(openssl rand -hex 16) ksm mcp --http --port 8765 --volume team-docs',
    )
    .action(async (flags: McpFlags, command: Command) => {
      // Without --http the server speaks on stdio: a port given alone would be ignored while the user waits for a URL.
      if (!flags.http && command.getOptionValueSource('port') === 'cli') {
        process.stderr.write('ksm: --port: only with --http (without it the server speaks MCP on stdin and stdout).\n');
        process.exitCode = EXIT.usage;
        return;
      }
      process.exitCode = await (await import('./mcpCommand')).mcpCommand(flags);
    });

  return program;
}

/** Set by `run` while a command that uploads or deletes runs (see there). */
let finishOnClosedPipe = false;

/**
 * `ksm ls | head -1`: the reader went away; end quietly, as Unix tools do. A sync, upload or
 * rm instead goes on with nothing more written to that stream, and ends with its own exit
 * code (it used to stop at once with 0, a first sync a quarter done).
 */
function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (!finishOnClosedPipe) process.exit(process.exitCode ?? EXIT.ok);
    stream.write = (() => true) as typeof stream.write; // nobody reads it any more
  });
}

export async function main(argv: string[]): Promise<void> {
  tuneV8ForShortRuns();
  endQuietlyOnClosedPipe(process.stdout);
  endQuietlyOnClosedPipe(process.stderr);
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with code 0; a usage mistake with 2.
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    process.stderr.write(`ksm: ${shownText(describeError(error, process.env.KSM_API_KEY))}\n`);
    process.exitCode = EXIT.service;
  }
}

void main(process.argv);
