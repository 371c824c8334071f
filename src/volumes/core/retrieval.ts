// The one retrieval engine over the user's volumes, without `vscode`: search (the agent's
// retrieval step, as the service has no search endpoint), fetch a passage a search returned
// (or a file's passages) by its id, list a volume's files with their status, and ask the
// agent with citations. VS Code's LM tools (nativeChat/core/volumeTools.ts), the `ksm` CLI
// and the MCP server (src/mcp/) all call these functions; only the result texts differ.
// Every input is untrusted (a model wrote it): volumes are checked by name against the
// volumes the caller was given, ids are parsed strictly, sizes are bounded.
import { errorFirstLine, isCancellation, redactSecrets } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { FileInfo } from '../../api/types';
import { ask, type SourceCitation } from '../../chat/core/answerStream';
import { shown, shownInput } from '../../common/core/untrustedText';
import { PERSONAL_VOLUME_LABEL, personalVolumeLabel, personalVolumeName, servedVolumeLabel } from '../../common/core/volumeTargets';

export { PERSONAL_VOLUME_LABEL };

export const MAX_QUERY_CHARS = 2_000;
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;
export const MAX_LISTED_FILES = 200;
/** Passages kept for `fetch` (the service cannot return a passage by id): oldest dropped first. */
const MAX_STORED_PASSAGES = 2_000;

/** How the front end names the places a user sets things, for the sentences below. */
export interface SettingNames {
  userId: string;
  volumes: string;
  agentModel: string;
}

export const VSCODE_SETTING_NAMES: SettingNames = {
  userId: "'ksm.userId'",
  volumes: "'ksm.volumes.list'",
  agentModel: "'ksm.chat.models' (or 'ksm.agent.model')",
};

/** Where retrieval acts: the service, the personal volume and the named volumes the caller may read. */
export interface RetrievalScope {
  service: KsmService;
  /** Empty means no personal volume. */
  userId: string;
  /** The named volumes that may be read (`ksm.volumes.list`, or `--volume` of `ksm mcp`). */
  volumes: readonly string[];
  agentId: string;
  /** The model the agent answers with; the search needs one (D18 `context.model`). */
  agentModel: string;
  signal?: AbortSignal;
  /** Defaults to VS Code's settings. */
  names?: SettingNames;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

export interface SearchInput {
  query: string;
  /** Named volumes to search besides the personal one; default: every volume of the scope. */
  volumes?: string[];
  limit?: number;
}
export interface ListFilesInput {
  volume: string;
}

/** A failure whose message is meant for the model and the user as is. */
export class RetrievalError extends Error {}

/** One passage: what search returns and fetch returns again, whole. */
export interface Passage {
  /** `ksm://<volume>/<file id>#<chunk>`: the id fetch takes, also the passage's URI. */
  id: string;
  fileId: string;
  filename: string;
  volume: string;
  volumeLabel: string;
  chunkIndex?: number;
  score?: number;
  text: string;
}

/** Shown for the personal volume's wire name `{id}`. */
export function volumeLabel(volume: string | undefined): string {
  return volume ? servedVolumeLabel(volume) : 'unknown volume';
}

/** `My files` (or `{<user_id>}` itself) means the personal volume; a named volume must be one of the scope's. */
export function resolveVolume(name: unknown, scope: Pick<RetrievalScope, 'userId' | 'volumes' | 'names'>): Checked<string> {
  const names = scope.names ?? VSCODE_SETTING_NAMES;
  const personal = personalVolumeName(scope.userId);
  if (name === undefined || name === null || name === '' || name === PERSONAL_VOLUME_LABEL || name === personalVolumeLabel() || (personal && name === personal)) {
    if (personal) return { ok: true, value: personal };
    return { ok: false, message: `There is no personal volume: set ${names.userId}, or name one of the volumes in ${names.volumes}.` };
  }
  if (typeof name !== 'string') return { ok: false, message: "'volume' must be a volume name (a string)." };
  if (!scope.volumes.includes(name)) {
    const known = [...(personal ? [PERSONAL_VOLUME_LABEL] : []), ...scope.volumes].map((v) => `'${v}'`).join(', ');
    return { ok: false, message: `'${shownInput(name)}' is not one of your volumes. Use one of: ${known || `(none: set ${names.volumes})`}.` };
  }
  return { ok: true, value: name };
}

function asObject(input: unknown): Record<string, unknown> | undefined {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined;
}

export function checkSearchInput(input: unknown, scope: Pick<RetrievalScope, 'userId' | 'volumes' | 'names'>): Checked<SearchInput> {
  const o = asObject(input);
  if (!o) return { ok: false, message: 'The input must be an object like {"query": "release checklist"}.' };
  if (typeof o.query !== 'string' || o.query.trim() === '') return { ok: false, message: "'query' is required: the words or question to search for." };
  if (o.query.length > MAX_QUERY_CHARS) return { ok: false, message: `'query' is too long (${o.query.length} characters; at most ${MAX_QUERY_CHARS}). Search for key terms.` };
  let limit: number | undefined;
  if (o.limit !== undefined && o.limit !== null) {
    if (typeof o.limit !== 'number' || !Number.isInteger(o.limit) || o.limit < 1 || o.limit > MAX_SEARCH_LIMIT) {
      return { ok: false, message: `'limit' must be a whole number from 1 to ${MAX_SEARCH_LIMIT}.` };
    }
    limit = o.limit;
  }
  const query = o.query.trim();
  if (o.volumes === undefined || o.volumes === null) return { ok: true, value: { query, ...(limit ? { limit } : {}) } };
  if (!Array.isArray(o.volumes)) return { ok: false, message: "'volumes' must be a list of volume names." };
  const named: string[] = [];
  for (const v of o.volumes) {
    const resolved = resolveVolume(v, scope);
    if (!resolved.ok) return resolved;
    // The personal volume is always searched (D18); only named ones go into context.volumes.
    if (resolved.value !== personalVolumeName(scope.userId) && !named.includes(resolved.value)) named.push(resolved.value);
  }
  return { ok: true, value: { query, volumes: named, ...(limit ? { limit } : {}) } };
}

export function checkListFilesInput(input: unknown, scope: Pick<RetrievalScope, 'userId' | 'volumes' | 'names'>): Checked<ListFilesInput> {
  const o = input === undefined || input === null ? {} : asObject(input);
  if (!o) return { ok: false, message: 'The input must be an object like {"volume": "My files"}.' };
  const volume = resolveVolume(o.volume, scope);
  return volume.ok ? { ok: true, value: { volume: volume.value } } : volume;
}

// ---- ids ----

/** The id (and URI) of a passage, or of a whole file when `chunkIndex` is absent. */
export function passageId(volume: string, fileId: string, chunkIndex?: number): string {
  return `ksm://${encodeURIComponent(volume)}/${encodeURIComponent(fileId)}${chunkIndex === undefined ? '' : `#${chunkIndex}`}`;
}

const ID_PATTERN = /^ksm:\/\/([^/#?\s]{1,400})\/([^/#?\s]{1,200})(?:#(\d{1,7}))?$/;

/** Parses an id from a search result; anything else is undefined. */
export function parsePassageId(id: unknown): { volume: string; fileId: string; chunkIndex?: number } | undefined {
  if (typeof id !== 'string') return undefined;
  const match = ID_PATTERN.exec(id.trim());
  if (!match) return undefined;
  try {
    const volume = decodeURIComponent(match[1]!);
    const fileId = decodeURIComponent(match[2]!);
    if (!volume || !fileId || [...(volume + fileId)].some((ch) => ch.charCodeAt(0) < 0x20)) return undefined;
    return { volume, fileId, ...(match[3] !== undefined ? { chunkIndex: Number(match[3]) } : {}) };
  } catch {
    return undefined;
  }
}

// ---- the engine ----

export interface FetchedDocument {
  id: string;
  fileId: string;
  filename: string;
  volume: string;
  volumeLabel: string;
  /** The passage's text, or for a file id the text of every passage the service returns for it, in chunk order. */
  text: string;
  chunkIndex?: number;
  /** The file as the volume lists it, when it is still there. */
  file?: { status: string; size: number; date?: string };
  /** The passages of a file id, in chunk order. */
  passages?: Array<{ id: string; chunkIndex?: number }>;
}

export interface AgentAnswer {
  answer: string;
  threadId?: string;
  passages: Passage[];
}

/**
 * One per process (the extension host, one `ksm mcp`): it remembers the passages searches
 * returned, so `fetch` can return a passage whole by its id.
 */
export class Retrieval {
  private readonly passages = new Map<string, Passage>();

  /** Passages of the scope's volumes that match the query, best first. Throws RetrievalError for what the user must change. */
  async search(input: SearchInput, scope: RetrievalScope): Promise<Passage[]> {
    const names = scope.names ?? VSCODE_SETTING_NAMES;
    if (!scope.agentModel) throw new RetrievalError(`Searching needs a chat model for the agent: set ${names.agentModel}.`);
    const citations = await retrieve(input.query, input.volumes ?? scope.volumes, scope);
    const passages = this.remember(citations);
    return passages.slice(0, input.limit ?? MAX_SEARCH_LIMIT);
  }

  /** The passage (or the file's passages) behind an id a search returned. */
  async fetch(id: unknown, scope: RetrievalScope): Promise<FetchedDocument> {
    const parsed = parsePassageId(id);
    if (!parsed) throw new RetrievalError(`'${shownInput(id)}' is not a KSM id. Pass the 'id' of a search result, like ksm://team-docs/<file id>#0.`);
    const volume = resolveVolume(parsed.volume, scope);
    if (!volume.ok) throw new RetrievalError(volume.message);
    const file = await this.findFile(volume.value, parsed.fileId, scope);
    const stored = parsed.chunkIndex === undefined ? undefined : this.passages.get(passageId(volume.value, parsed.fileId, parsed.chunkIndex));
    if (!file && !stored) throw new RetrievalError(`No file with id '${shownInput(parsed.fileId)}' is in ${volumeLabel(volume.value)} (it may have been deleted). Search again for current ids.`);
    const meta = file ? { status: file.status, size: file.filesize, ...(file.date ? { date: file.date } : {}) } : undefined;
    const filename = file?.filename ?? stored!.filename;
    const base = { fileId: parsed.fileId, filename, volume: volume.value, volumeLabel: volumeLabel(volume.value), ...(meta ? { file: meta } : {}) };
    if (stored) return { ...base, id: stored.id, text: stored.text, chunkIndex: stored.chunkIndex };

    // Not remembered (a new process, or a file id): ask the retrieval for the file's passages.
    const own = this.storedOf(volume.value, parsed.fileId);
    if (own.length === 0 || parsed.chunkIndex !== undefined) {
      if (!scope.agentModel) {
        const names = scope.names ?? VSCODE_SETTING_NAMES;
        throw new RetrievalError(`Fetching a passage no search of this session returned needs a chat model for the agent (the service returns passages only through it): set ${names.agentModel}.`);
      }
      this.remember(await retrieve(filename, personalOf(volume.value, scope) ? [] : [volume.value], scope));
    }
    const found = this.storedOf(volume.value, parsed.fileId);
    if (parsed.chunkIndex !== undefined) {
      const passage = found.find((p) => p.chunkIndex === parsed.chunkIndex);
      if (!passage)
        throw new RetrievalError(
          `Passage ${parsed.chunkIndex} of ${shown(filename)} could not be retrieved${meta && meta.status !== 'done' ? ` (the file is '${meta.status}', only 'done' files are searchable)` : ''}. Fetch ${passageId(volume.value, parsed.fileId)} for the file's passages.`,
        );
      return { ...base, id: passage.id, text: passage.text, chunkIndex: passage.chunkIndex };
    }
    if (found.length === 0) {
      throw new RetrievalError(`The service returned no text of ${shown(filename)}${meta && meta.status !== 'done' ? `: it is '${meta.status}', only 'done' files are searchable` : ''}.`);
    }
    return { ...base, id: passageId(volume.value, parsed.fileId), text: found.map((p) => p.text).join('\n\n'), passages: found.map((p) => ({ id: p.id, chunkIndex: p.chunkIndex })) };
  }

  /** A volume's files, at most MAX_LISTED_FILES. */
  async listFiles(input: ListFilesInput, scope: RetrievalScope): Promise<{ files: FileInfo[]; more: boolean }> {
    const files: FileInfo[] = [];
    for await (const file of scope.service.listAllFiles(input.volume, { signal: scope.signal })) {
      if (files.length === MAX_LISTED_FILES) return { files, more: true };
      files.push(file);
    }
    return { files, more: false };
  }

  /** Asks the agent; the whole answer with its thread and the passages it cited (fetchable by id). */
  async ask(input: { question: string; threadId?: string; volumes?: string[] }, scope: RetrievalScope): Promise<AgentAnswer> {
    const names = scope.names ?? VSCODE_SETTING_NAMES;
    if (!scope.agentModel) throw new RetrievalError(`Asking needs a chat model for the agent: set ${names.agentModel}.`);
    const request = {
      kind: 'agent' as const,
      body: {
        agent_id: scope.agentId,
        query: input.question,
        thread_id: input.threadId ?? null,
        context: { model: scope.agentModel, volumes: [...(input.volumes ?? scope.volumes)] },
      },
    };
    let answer = '';
    let threadId: string | undefined;
    const citations: SourceCitation[] = [];
    for await (const event of ask(scope.service, request, scope.signal ?? new AbortController().signal)) {
      if (event.type === 'text') answer += event.text;
      else if (event.type === 'thread') threadId = event.threadId;
      else if (event.type === 'citations') citations.push(...event.citations);
      else if (event.type === 'finished') {
        if (event.reason === 'stopped') throw new RetrievalError('Cancelled.');
        if (event.error) throw new RetrievalError(event.error.message, { cause: event.error.cause });
      }
    }
    return { answer, threadId, passages: this.remember(citations) };
  }

  private remember(citations: readonly SourceCitation[]): Passage[] {
    const out = passagesOf(citations);
    for (const passage of out) {
      this.passages.delete(passage.id);
      this.passages.set(passage.id, passage);
    }
    while (this.passages.size > MAX_STORED_PASSAGES) this.passages.delete(this.passages.keys().next().value!);
    return out;
  }

  private storedOf(volume: string, fileId: string): Passage[] {
    return [...this.passages.values()].filter((p) => p.volume === volume && p.fileId === fileId).sort((a, b) => (a.chunkIndex ?? 0) - (b.chunkIndex ?? 0));
  }

  private async findFile(volume: string, fileId: string, scope: RetrievalScope): Promise<FileInfo | undefined> {
    for await (const file of scope.service.listAllFiles(volume, { signal: scope.signal })) if (file.uuid === fileId) return file;
    return undefined;
  }
}

/**
 * The agent's citations as passages, one per id, in order of first mention: the one place
 * citations become `ksm://` ids, volume labels and file names (search, ask, and `@ksm`'s
 * sources through `citedFiles`).
 */
export function passagesOf(citations: readonly SourceCitation[]): Passage[] {
  const out: Passage[] = [];
  const seen = new Set<string>();
  for (const c of citations) {
    const volume = c.volume ?? '';
    const id = passageId(volume, c.fileId, c.chunkIndex);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({
      id,
      fileId: c.fileId,
      filename: c.filename,
      volume,
      volumeLabel: volumeLabel(c.volume),
      ...(c.chunkIndex !== undefined ? { chunkIndex: c.chunkIndex } : {}),
      ...(typeof c.score === 'number' ? { score: c.score } : {}),
      text: c.snippet ?? '',
    });
  }
  return out;
}

/** The distinct cited files, in order of first mention, each with its file id `ksm://<volume>/<file id>` (what `fetch` takes for the file's passages). */
export function citedFiles(citations: readonly SourceCitation[]): CitedFileSource[] {
  const files = new Map<string, CitedFileSource>();
  for (const p of passagesOf(citations)) {
    const id = passageId(p.volume, p.fileId);
    if (!files.has(id)) files.set(id, { id, fileId: p.fileId, filename: p.filename, ...(p.volume ? { volume: p.volume } : {}), volumeLabel: p.volumeLabel });
  }
  return [...files.values()];
}

export interface CitedFileSource {
  /** `ksm://<volume>/<file id>`: fetchable (MCP `fetch`, `ksm fetch`). */
  id: string;
  fileId: string;
  filename: string;
  volume?: string;
  volumeLabel: string;
}

function personalOf(volume: string, scope: Pick<RetrievalScope, 'userId'>): boolean {
  return volume === personalVolumeName(scope.userId);
}

/**
 * There is no search endpoint: the agent's retrieval step is the service's search. The
 * question goes to the agent through the chat engine and the stream is closed as soon as
 * the retrieved passages arrived, so a caller does not wait for an answer it will write itself.
 */
async function retrieve(query: string, volumes: readonly string[], scope: RetrievalScope): Promise<SourceCitation[]> {
  const request = {
    kind: 'agent' as const,
    body: { agent_id: scope.agentId, query, context: { model: scope.agentModel, volumes: [...volumes] } },
  };
  for await (const event of ask(scope.service, request, scope.signal ?? new AbortController().signal)) {
    if (event.type === 'citations') return event.citations;
    // Answer text before any passages: the agent found nothing to retrieve.
    if (event.type === 'text') return [];
    if (event.type === 'finished') {
      if (event.reason === 'stopped') throw new RetrievalError('Cancelled.');
      if (event.error) throw new RetrievalError(event.error.message, { cause: event.error.cause });
      return [];
    }
  }
  return [];
}

/**
 * The sentence for a failure. Service errors say what failed and what to set (src/api
 * writes them so, never with the key); only their first line is kept, and `secrets` are
 * removed besides the patterns redactSecrets knows. The service's own words in it (an error
 * body, a stream's error message) go to a model and to a client's terminal: each line's
 * control and bidi characters are escaped (untrustedText.ts), so `\x1b[2J`, an OSC 8 link
 * or U+202E stays text.
 */
export function failureText(error: unknown, secrets: ReadonlyArray<string | undefined> = []): string {
  if (error instanceof RetrievalError) return escapedLines(redactSecrets(error.message, secrets));
  if (isCancellation(error)) return 'Cancelled.';
  return escapedLines(redactSecrets(errorFirstLine(error) || 'The request failed.', secrets));
}

function escapedLines(text: string): string {
  return text.split('\n').map(shown).join('\n');
}
