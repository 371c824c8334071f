// Tolerant decoding of answers (D8): accept `name` for `filename`, numbers sent as strings,
// ignore unknown fields, map snake_case to the client's names. A shape we cannot use at
// all is a BadResponseError with a short excerpt.
import * as l10n from '@vscode/l10n';
import { BadResponseError } from './errors';
import { excerptOf } from './httpErrors';
import type { Redactor } from './redact';
import type { ChatCompletion, Citation, DeleteResult, FileInfo, FileListPage, ToolCall, Usage } from './types';

type Json = Record<string, unknown>;

export function badShape(what: string, body: unknown, redact: Redactor): BadResponseError {
  const text = typeof body === 'string' ? body : safeStringify(body);
  return new BadResponseError(l10n.t("{0}: the service's answer did not have the expected shape.", what), { excerpt: excerptOf(text, redact) });
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

export function toStringValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

export function decodeFileInfo(value: unknown): FileInfo | undefined {
  if (!isObject(value)) return undefined;
  const uuid = toStringValue(value.uuid ?? value.id ?? value.file_id);
  const filename = toStringValue(value.filename ?? value.name);
  if (uuid === undefined || filename === undefined) return undefined;
  const info: FileInfo = {
    uuid,
    filename,
    status: toStringValue(value.status) ?? 'uploaded',
    filesize: toNumber(value.filesize ?? value.size) ?? 0,
    date: toStringValue(value.date) ?? '',
    isdir: toNumber(value.isdir) === 1 || value.isdir === true ? 1 : 0,
  };
  const detail = toStringValue(value.status_detail ?? value.statusDetail);
  if (detail) info.statusDetail = detail;
  const doChunking = toNumber(value.do_chunking ?? value.doChunking);
  if (doChunking === 0 || doChunking === 1 || doChunking === 2) info.doChunking = doChunking;
  return info;
}

function decodeFileInfos(value: unknown, what: string, redact: Redactor): FileInfo[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badShape(what, value, redact);
  return value.map((entry) => decodeFileInfo(entry) ?? throwBad(what, entry, redact));
}

function throwBad(what: string, value: unknown, redact: Redactor): never {
  throw badShape(what, value, redact);
}

export function decodeListPage(body: unknown, offset: number, redact: Redactor): FileListPage {
  const what = l10n.t('Listing files');
  if (!isObject(body)) throw badShape(what, body, redact);
  const files = decodeFileInfos(body.infoz ?? body.files, what, redact);
  return { total: toNumber(body.total) ?? offset + files.length, offset: toNumber(body.offset) ?? offset, files };
}

/**
 * The most files one listing takes in (about 0.5 GB of memory): a server that claims a huge
 * `total` and invents new files for every page would otherwise be listed until the user
 * cancels, the memory growing all the while.
 */
export const MAX_LISTED_FILES = 1_000_000;

/**
 * The files of a listing page not listed before, which join `seen`. A page holding only
 * files listed before is an error: a gateway that drops the GET's body (or a hostile
 * server) answers the first page for every offset, and a listing that trusted its `total`
 * would ask again without end. So is a listing past MAX_LISTED_FILES.
 */
export function unseenFiles(seen: Set<string>, files: FileInfo[], volume: string, offset: number): FileInfo[] {
  const fresh = files.filter((file) => !seen.has(file.uuid));
  if (files.length > 0 && fresh.length === 0) {
    throw new BadResponseError(
      l10n.t("Listing files of volume '{0}': the service answered files already listed for offset {1}, so the listing was stopped. A proxy may drop the request's body.", volume, offset),
    );
  }
  if (seen.size + fresh.length > MAX_LISTED_FILES) {
    throw new BadResponseError(l10n.t("Listing files of volume '{0}': the service listed more than {1} files, so the listing was stopped.", volume, MAX_LISTED_FILES.toLocaleString('en-US')));
  }
  for (const file of fresh) seen.add(file.uuid);
  return fresh;
}

export function decodeUploadInfos(body: unknown, redact: Redactor): FileInfo[] {
  if (!isObject(body)) throw badShape(l10n.t('Uploading files'), body, redact);
  return decodeFileInfos(body.infoz ?? body.files, l10n.t('Uploading files'), redact);
}

export function decodeDeleteResult(body: unknown, requested: string[]): DeleteResult {
  if (!isObject(body)) return { deleted: [...requested], notFound: [] };
  // Only ids this request named count, each once: an answer claiming others (deleted or
  // missing) is not believed, and one naming an id a million times (its callers look each
  // up in the volume's listing, and print it) says it once.
  const asked = new Set(requested);
  const notFound = askedOnce(stringArray(body.not_found ?? body.notFound), asked);
  const deletedField = body.deleted;
  // An answer without `deleted` (the reference's bare {code, message}) means every
  // requested id not listed as missing was deleted.
  const missing = new Set(notFound);
  const deleted = Array.isArray(deletedField) ? askedOnce(stringArray(deletedField), asked) : requested.filter((id) => !missing.has(id));
  return { deleted, notFound };
}

function askedOnce(ids: string[], asked: ReadonlySet<string>): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => asked.has(id) && !seen.has(id) && seen.add(id));
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.map(toStringValue).filter((v): v is string => v !== undefined) : [];
}

export function decodeUsage(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined;
  const prompt = toNumber(value.prompt_tokens) ?? 0;
  const completion = toNumber(value.completion_tokens) ?? 0;
  const reasoning = toNumber(value.reasoning_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    reasoning_tokens: reasoning ?? null,
    total_tokens: toNumber(value.total_tokens) ?? prompt + completion,
  };
}

export function decodeChatCompletion(body: unknown, redact: Redactor): ChatCompletion {
  const what = l10n.t('Chat completion');
  if (!isObject(body) || !Array.isArray(body.choices)) throw badShape(what, body, redact);
  const choices = body.choices.map((choice, i) => {
    if (!isObject(choice) || !isObject(choice.message)) throw badShape(what, choice, redact);
    const message = choice.message;
    return {
      index: toNumber(choice.index) ?? i,
      finish_reason: toStringValue(choice.finish_reason) ?? 'stop',
      message: {
        role: (toStringValue(message.role) ?? 'assistant') as ChatCompletion['choices'][number]['message']['role'],
        content: toStringValue(message.content) ?? '',
        reasoning_content: toStringValue(message.reasoning_content) ?? null,
        ...(Array.isArray(message.tool_calls) ? { tool_calls: decodeToolCalls(message.tool_calls) } : {}),
      },
    };
  });
  return {
    id: toStringValue(body.id) ?? '',
    object: 'chat.completion',
    created: toNumber(body.created) ?? 0,
    model: toStringValue(body.model) ?? '',
    choices,
    usage: decodeUsage(body.usage) ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

/** Tool call arguments as the JSON text the wire format means: an object sent as is becomes its JSON. */
export function argumentsText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return undefined;
  return safeStringify(value);
}

/**
 * A whole answer's tool calls: entries without a `function` object are dropped, name and id
 * are strings, and arguments sent as an object become their JSON text (what the wire means).
 */
function decodeToolCalls(value: unknown[]): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const entry of value) {
    if (!isObject(entry) || !isObject(entry.function)) continue;
    calls.push({
      id: toStringValue(entry.id) ?? '',
      type: 'function',
      function: { name: toStringValue(entry.function.name) ?? '', arguments: argumentsText(entry.function.arguments) ?? '' },
    });
  }
  return calls;
}

export function decodeCitations(value: unknown): Citation[] {
  if (!Array.isArray(value)) return [];
  const out: Citation[] = [];
  for (const entry of value) {
    if (!isObject(entry)) continue;
    const fileId = toStringValue(entry.file_id ?? entry.uuid);
    if (fileId === undefined) continue;
    const citation: Citation = { file_id: fileId, filename: toStringValue(entry.filename ?? entry.name) ?? '' };
    const volume = toStringValue(entry.volume);
    if (volume !== undefined) citation.volume = volume;
    const chunk = toNumber(entry.chunk_index);
    if (chunk !== undefined) citation.chunk_index = chunk;
    const score = toNumber(entry.score);
    if (score !== undefined) citation.score = score;
    const snippet = toStringValue(entry.snippet);
    if (snippet !== undefined) citation.snippet = snippet;
    out.push(citation);
  }
  return out;
}
