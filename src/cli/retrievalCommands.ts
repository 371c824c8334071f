// `ksm search` and `ksm fetch`: the retrieval engine (volumes/core/retrieval.ts, the one the
// LM tools, @ksm and `ksm mcp` use) from the terminal. Search returns passages with their
// `ksm://` ids; fetch takes such an id (a passage, or a file without `#n`) and prints its
// text. Names and passage text come from the volume (untrusted): printed through `shown()` /
// `shownText()`, so they cannot forge lines or send terminal escapes.
import { ConfigurationError } from '../api/errors';
import { DEFAULT_AGENT_ID } from '../api/types';
import { isPersonalVolumeName, personalVolumeName } from '../common/core/volumeTargets';
import { checkSearchInput, parsePassageId, Retrieval, RetrievalError, type RetrievalScope, type SettingNames } from '../volumes/core/retrieval';
import { checkVolumeArgument, EXIT, UsageError, type CliEnvironment } from './environment';
import { shown, shownText, type Output } from './output';

export interface RetrievalFlags {
  volume: string[];
  model?: string;
}
export interface SearchFlags extends RetrievalFlags {
  limit?: number;
}

const CLI_NAMES: SettingNames = {
  userId: 'KSM_USER_ID',
  volumes: '--volume NAME',
  agentModel: 'KSM_MODEL (or --model ID)',
};

export interface CliScopeOptions {
  /** How messages name the settings (`ksm mcp` names its own flags). */
  names?: SettingNames;
  /**
   * Whether a missing model is the engine's to report, per operation: `ksm mcp` lists files
   * without one and answers a search with the sentence that says what to set. A one-shot
   * command (`ksm search`, `ksm fetch`) stops at once instead.
   */
  modelOptional?: boolean;
  processEnv?: NodeJS.ProcessEnv;
}

/** The scope of one command or MCP tool call: the personal volume from KSM_USER_ID, the named ones from --volume; the one place the CLI and `ksm mcp` build it. */
export function cliScope(env: CliEnvironment, volumes: readonly string[], model: string | undefined, signal: AbortSignal, options: CliScopeOptions = {}): RetrievalScope {
  const processEnv = options.processEnv ?? process.env;
  const agentModel = model?.trim() || processEnv.KSM_MODEL?.trim() || '';
  if (!agentModel && !options.modelOptional) throw new ConfigurationError('No model: pass --model <id> or set KSM_MODEL (the agent needs one to search).');
  return {
    service: env.client,
    userId: processEnv.KSM_USER_ID?.trim() ?? '',
    volumes: [...volumes],
    agentId: processEnv.KSM_AGENT_ID?.trim() || DEFAULT_AGENT_ID,
    agentModel,
    signal,
    names: options.names ?? CLI_NAMES,
  };
}

/** A service failure the engine wrapped (refused key, service down): the service's error, so its exit code and fix apply. */
function throwServiceCause(error: unknown): void {
  const cause = error instanceof RetrievalError ? (error.cause as { kind?: string } | undefined) : undefined;
  if (cause && typeof cause.kind === 'string') throw cause;
}

/** One line of a passage, for the human listing. */
function preview(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return shown(flat.length > max ? `${flat.slice(0, max - 1)}…` : flat);
}

export async function searchCommand(env: CliEnvironment, out: Output, query: string, flags: SearchFlags, signal: AbortSignal): Promise<number> {
  for (const v of flags.volume) checkVolumeArgument(v);
  const scope = cliScope(env, flags.volume, flags.model, signal);
  if (!personalVolumeName(scope.userId) && flags.volume.length === 0) throw new UsageError('Nothing to search: pass --volume NAME (repeatable) or set KSM_USER_ID for your personal volume.');
  const checked = checkSearchInput({ query, limit: flags.limit }, scope);
  if (!checked.ok) throw new UsageError(checked.message);
  const passages = await new Retrieval().search(checked.value, scope).catch((error: unknown) => {
    throwServiceCause(error);
    throw error;
  });
  if (out.json) {
    out.document({ query: checked.value.query, results: passages });
    return EXIT.ok;
  }
  if (passages.length === 0) out.notice('No passage matched. Try other words, or check the volumes (only files in state done are searchable).');
  for (const p of passages) {
    out.line(`${shown(p.id)}\t${shown(p.filename)} (${shown(p.volumeLabel)})${typeof p.score === 'number' ? `\tscore ${p.score.toFixed(3)}` : ''}`);
    out.line(`    ${preview(p.text)}`);
  }
  return EXIT.ok;
}

export async function fetchCommand(env: CliEnvironment, out: Output, id: string, flags: RetrievalFlags, signal: AbortSignal): Promise<number> {
  const parsed = parsePassageId(id);
  if (!parsed) throw new UsageError(`'${shown(id)}' is not a KSM id. Pass the id of a search result, like ksm://team-docs/<file id>#0 (see ksm search).`);
  // The id names its volume: the user asked for it on their own command line, so it is in scope.
  if (!isPersonalVolumeName(parsed.volume)) checkVolumeArgument(parsed.volume);
  const volumes = isPersonalVolumeName(parsed.volume) ? flags.volume : [...new Set([...flags.volume, parsed.volume])];
  const scope = cliScope(env, volumes, flags.model, signal);
  // A personal volume is reached only as the user's own (the engine's rule): say which one is
  // theirs in the CLI's terms, not the tools' (no `--volume` names a personal volume).
  const own = personalVolumeName(scope.userId);
  if (isPersonalVolumeName(parsed.volume) && parsed.volume !== own) {
    throw new UsageError(
      own
        ? `'${shown(id)}' is in the personal volume ${shown(parsed.volume)}, not yours (${shown(own)}, from KSM_USER_ID).`
        : `'${shown(id)}' is in the personal volume ${shown(parsed.volume)}: set KSM_USER_ID to your user id to fetch from your own.`,
    );
  }
  let doc;
  try {
    doc = await new Retrieval().fetch(id, scope);
  } catch (error) {
    if (!(error instanceof RetrievalError)) throw error;
    throwServiceCause(error);
    if (/is not one of your volumes|no personal volume/i.test(error.message)) throw new UsageError(error.message);
    // A well-formed id that names nothing (now): said, exit 1, as a file that failed.
    out.notice(`ksm fetch: ${shown(error.message)}`);
    if (out.json) out.document({ error: { kind: 'not-found', message: error.message } });
    return EXIT.partial;
  }
  if (out.json) {
    out.document(doc);
    return EXIT.ok;
  }
  out.line(`${shown(doc.filename)} (${shown(doc.volumeLabel)})${doc.chunkIndex !== undefined ? `, passage ${doc.chunkIndex}` : ''}${doc.file ? `, ${shown(doc.file.status)}` : ''}`);
  out.line(`id: ${shown(doc.id)}`);
  out.line('');
  out.line(shownText(doc.text));
  return EXIT.ok;
}
