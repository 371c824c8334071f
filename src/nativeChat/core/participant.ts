// The `@ksm` participant's logic, without `vscode`: which slash command runs, the question
// with the user's #file / selection references as context (fenced like "Ask About
// Selection"), the agent answer streamed as events with its thread continued across turns,
// and the processing state of this window's recent uploads for /status.
import * as l10n from '@vscode/l10n';
import { NotFoundError } from '../../api/errors';
import type { KsmService } from '../../api/service';
import type { FileInfo } from '../../api/types';
import { ask, citationByMarker, type AnswerEvent, type AnswerRequest, type SourceCitation } from '../../chat/core/answerStream';
import { codePrefill, MAX_TEXT_CHARS } from '../../common/core/chatText';
import { AnswerFailedError } from './modelResponse';
import { volumeLabel } from './volumeTools';
import { citedFiles, passageId, type CitedFileSource } from '../../volumes/core/retrieval';
import { PARTICIPANT_ID } from '../../common/core/contributionIds';
import { markdownCode, markdownText, shownInput } from '../../common/core/untrustedText';
import { chatContextNote, chatContextPathDecision, privateKeysRemoved, privateKeyTextReason, type PrivateFileRules } from '../../common/core/privateFiles';

export type { SourceCitation };

export { PARTICIPANT_ID };
export const PARTICIPANT_COMMANDS = ['ask', 'chat', 'upload', 'status'] as const;
export type ParticipantCommand = (typeof PARTICIPANT_COMMANDS)[number];

/** `/ask` is the default; an unknown command (a stale client) is treated as a question too. */
export function parseCommand(command: string | undefined): ParticipantCommand {
  return (PARTICIPANT_COMMANDS as readonly string[]).includes(command ?? '') ? (command as ParticipantCommand) : 'ask';
}

/** A #file, #selection or editor reference, read by the adapter. */
export interface ContextReference {
  name: string;
  languageId: string;
  text: string;
  lines?: { start: number; end: number };
  /** The local file it was read from (absent for an untitled editor). */
  path?: string;
  /** VS Code attached it by itself (its current-file, selection or viewport reference), not the user. */
  implicit?: boolean;
}

/** A VS Code reference the user did not pick: `vscode.implicit.file`, `.selection`, `.viewport`. */
export function isImplicitReference(id: string): boolean {
  return id.startsWith('vscode.implicit');
}

/**
 * A #file, #selection or editor reference before it is read: `read` opens it (the adapter's
 * `openTextDocument`), and is called only when the reference's path may go (`.env`, `id_rsa`,
 * a file in `.ssh/` is never opened, so no other extension or language server wakes on it).
 * `read` may reject (a binary or deleted file): the reference is then simply not context.
 */
export interface PendingReference extends Omit<ContextReference, 'text' | 'languageId'> {
  read(): Promise<{ text: string; languageId: string }>;
}

/**
 * The question `@ksm` sends (/ask and /chat alike): each reference judged by the one
 * chat-context rule (privateFiles.ts), its path before it is read and its text after, before
 * questionWithContext fences it, and a private key the user pasted into the prompt cut out.
 * `leftOut` has one plain line per reference left out (which file and why) and per key cut;
 * the adapter shows them, escaped.
 */
export async function participantQuestion(prompt: string, references: readonly PendingReference[], rules: PrivateFileRules): Promise<{ question: string; omitted: string[]; leftOut: string[] }> {
  const leftOut: string[] = [];
  const sent: ContextReference[] = [];
  for (const pending of references) {
    const { read, ...ref } = pending;
    if (ref.path !== undefined) {
      const byPath = await chatContextPathDecision(ref.path, ref.implicit ?? false, rules);
      if (!byPath.send) {
        leftOut.push(chatContextNote(ref.name, byPath));
        continue;
      }
    }
    const content = await read().catch(() => undefined);
    if (!content) continue;
    const key = privateKeyTextReason(content.text);
    if (key) leftOut.push(chatContextNote(ref.name, { send: false, reason: key, attachToSend: false }));
    else sent.push({ ...ref, ...content });
  }
  const typed = privateKeysRemoved(prompt);
  if (typed.removed > 0) leftOut.push(l10n.t('Left out: a private key pasted into the question. Private keys are never sent.'));
  return { ...questionWithContext(typed.text, sent), leftOut };
}

/**
 * The question the service receives: each reference fenced with its name and lines (the
 * format of Ask About Selection), then the prompt. References that would push the message
 * past the panel's limit are left out and named, never silently cut.
 */
export function questionWithContext(prompt: string, references: readonly ContextReference[]): { question: string; omitted: string[] } {
  let context = '';
  const omitted: string[] = [];
  for (const ref of references) {
    const block = codePrefill(ref.name, ref.languageId, ref.text, ref.lines);
    if (context.length + block.length + prompt.length > MAX_TEXT_CHARS) omitted.push(ref.name);
    else context += block;
  }
  return { question: `${context}${prompt}`.trim(), omitted };
}

export type ParticipantEvent = { kind: 'text'; text: string } | { kind: 'citations'; citations: SourceCitation[] } | { kind: 'thread'; threadId: string };

export interface AskAgentOptions {
  service: KsmService;
  agentId: string;
  /** `context.model` (D18). */
  model: string;
  volumes: readonly string[];
  question: string;
  /** The thread of this VS Code chat's previous @ksm answer. */
  threadId?: string;
  signal: AbortSignal;
  emit(event: ParticipantEvent): void;
}

export interface AskAgentOutcome {
  threadId?: string;
  citations: SourceCitation[];
  stopped: boolean;
}

export const threadRestartedNote = (): string => l10n.t('_The service no longer knew this chat\u2019s agent thread, so this answer starts a new one._\n\n');

/** Streams one agent answer through the chat engine; rejects with the engine's sentence for a failure. */
export async function askAgent(options: AskAgentOptions): Promise<AskAgentOutcome> {
  if (!options.model) throw new AnswerFailedError(l10n.t("The agent needs a chat model: set 'ksm.chat.models' (or 'ksm.agent.model'), or run 'KSM: Connect to Local Emulator'."), undefined);
  let outcome = await streamOnce(options, options.threadId);
  const cause = outcome.failure?.error?.cause;
  if (options.threadId && !outcome.shownText && cause instanceof NotFoundError && cause.param === 'thread_id') {
    options.emit({ kind: 'text', text: threadRestartedNote() });
    outcome = await streamOnce(options, undefined);
  }
  if (outcome.failure) throw new AnswerFailedError(outcome.failure.error?.message ?? l10n.t('The answer stopped.'), outcome.failure.error?.cause);
  return { threadId: outcome.threadId, citations: outcome.citations, stopped: outcome.stopped };
}

interface OneRun extends AskAgentOutcome {
  shownText: boolean;
  failure?: Extract<AnswerEvent, { type: 'finished' }>;
}

async function streamOnce(options: AskAgentOptions, threadId: string | undefined): Promise<OneRun> {
  const outcome: OneRun = { citations: [], stopped: false, shownText: false };
  const request: AnswerRequest = {
    kind: 'agent',
    body: { agent_id: options.agentId, thread_id: threadId ?? null, query: options.question, context: { model: options.model, volumes: [...options.volumes] } },
  };
  for await (const event of ask(options.service, request, options.signal)) {
    switch (event.type) {
      case 'thread':
        outcome.threadId = event.threadId;
        options.emit({ kind: 'thread', threadId: event.threadId });
        break;
      case 'text':
        outcome.shownText = true;
        options.emit({ kind: 'text', text: event.text });
        break;
      case 'citations':
        outcome.citations.push(...event.citations);
        options.emit({ kind: 'citations', citations: event.citations });
        break;
      case 'finished':
        if (event.reason === 'stopped') outcome.stopped = true;
        else if (event.reason === 'error' || event.reason === 'cut-off') outcome.failure = event;
        break;
      default:
        break;
    }
  }
  return outcome;
}

/** @ksm's sources: the retrieval engine's, so they carry the `ksm://` ids `fetch` takes. */
export { citedFiles } from '../../volumes/core/retrieval';

/**
 * The distinct cited files (as `citedFiles`), each with the marker of its first passage in
 * the answer (markers count passages, 1-based, unless the engine numbered them), in one
 * pass: a search of all citations per file was quadratic in an answer citing many files.
 */
export function citedFilesWithMarkers(citations: readonly SourceCitation[]): Array<{ file: CitedFileSource; marker: number }> {
  // Keyed by the file's own `ksm://` id, as citedFiles keys it.
  const first = new Map<string, number>();
  citations.forEach((c, index) => {
    const id = passageId(c.volume ?? '', c.fileId);
    if (!first.has(id)) first.set(id, c.markers?.[0] ?? index + 1);
  });
  return citedFiles(citations).map((file) => ({ file, marker: first.get(file.id) ?? 0 }));
}

// ---- sources: [n] markers as links, a source opens its cited passage ----

/** A passage an `@ksm` answer cited, by the marker the user clicked (the chat panel's CitedPassage shape). */
export interface CitedSource {
  fileId: string;
  filename: string;
  volume?: string;
  marker: number;
  markers: number[];
  snippet?: string;
  chunkIndex?: number;
  score?: number;
}

/**
 * The citations of this window's recent `@ksm` answers, by answer id, so a marker link
 * (which carries only the answer id and the number, never the text) opens what that answer
 * cited. Bounded; an answer from before a reload is no longer known (the link says so).
 */
export class AnswerCitations {
  private readonly answers = new Map<string, SourceCitation[]>();

  constructor(private readonly capacity = 100) {}

  add(answerId: string, citations: readonly SourceCitation[]): void {
    const list = this.answers.get(answerId) ?? [];
    list.push(...citations);
    this.answers.delete(answerId);
    this.answers.set(answerId, list);
    while (this.answers.size > this.capacity) this.answers.delete(this.answers.keys().next().value as string);
  }

  /** The passage marker `n` of that answer points at; undefined for anything that answer did not cite. */
  source(answerId: unknown, marker: unknown): CitedSource | undefined {
    if (typeof answerId !== 'string' || typeof marker !== 'number' || !Number.isInteger(marker) || marker < 1) return undefined;
    const citations = this.answers.get(answerId);
    const citation = citations ? citationByMarker(citations, marker) : undefined;
    if (!citations || !citation) return undefined;
    return {
      fileId: citation.fileId,
      filename: citation.filename,
      ...(citation.volume ? { volume: citation.volume } : {}),
      marker,
      markers: citation.markers?.length ? citation.markers : [citations.indexOf(citation) + 1],
      ...(citation.snippet !== undefined ? { snippet: citation.snippet } : {}),
      ...(citation.chunkIndex !== undefined ? { chunkIndex: citation.chunkIndex } : {}),
      ...(citation.score !== undefined ? { score: citation.score } : {}),
    };
  }
}

/**
 * Turns the [n] markers of a streamed answer into Markdown links, chunk by chunk: a marker
 * split across two chunks ("[1" + "2]") is held back until it is whole; markers inside code
 * (fenced or inline) stay text. `link(n)` gives the link target.
 */
export class MarkerLinker {
  private held = '';
  private inFence = false;

  constructor(private readonly link: (marker: number) => string) {}

  push(chunk: string): string {
    const text = this.held + chunk;
    // Hold back a trailing "[", "[12" or a partial fence, which the next chunk may complete.
    const tail = /(\[\d{0,3}|`{1,2})$/.exec(text);
    this.held = tail ? tail[0] : '';
    return this.convert(tail ? text.slice(0, tail.index) : text);
  }

  flush(): string {
    const rest = this.held;
    this.held = '';
    return this.convert(rest);
  }

  private convert(text: string): string {
    // Split on fences and inline code; only the text between them gets links.
    return text
      .split(/(```|`[^`\n]*`)/)
      .map((part) => {
        if (part === '```') {
          this.inFence = !this.inFence;
          return part;
        }
        if (this.inFence || (part.startsWith('`') && part.endsWith('`') && part.length > 1)) return part;
        return part.replace(/\[(\d{1,3})\](?!\()/g, (_m, n: string) => `[\\[${n}\\]](${this.link(Number(n))})`);
      })
      .join('');
  }
}

// ---- /status ----

/** Files uploaded from this window (by /upload or the upload tool), newest last, bounded. */
export class RecentUploads {
  private readonly entries: Array<{ volume: string; fileId: string }> = [];

  constructor(private readonly capacity = 50) {}

  add(volume: string, fileIds: readonly string[]): void {
    for (const fileId of fileIds) this.entries.push({ volume, fileId });
    this.entries.splice(0, Math.max(0, this.entries.length - this.capacity));
  }

  list(): ReadonlyArray<{ volume: string; fileId: string }> {
    return this.entries;
  }
}

/**
 * Markdown lines with each recent upload's current processing state, read from the service.
 * The name, state and detail are the service's words: escaped, so a file name cannot put a
 * link, an image or a heading into the chat's reply.
 */
export async function uploadStatusText(service: KsmService, recent: RecentUploads, signal?: AbortSignal): Promise<string> {
  const entries = recent.list();
  if (entries.length === 0) return l10n.t('No uploads from this window yet. Use `/upload` (the active file or `#file` references) or the upload tool first.');
  const byVolume = new Map<string, string[]>();
  for (const e of entries) byVolume.set(e.volume, [...(byVolume.get(e.volume) ?? []), e.fileId]);
  const lines: string[] = [];
  for (const [volume, ids] of byVolume) {
    const wanted = new Set(ids);
    const found = new Map<string, FileInfo>();
    for await (const file of service.listAllFiles(volume, { signal })) {
      if (wanted.has(file.uuid)) found.set(file.uuid, file);
      if (found.size === wanted.size) break;
    }
    lines.push(`**${markdownText(volumeLabel(volume))}**`);
    for (const id of ids) {
      const file = found.get(id);
      lines.push(
        file
          ? `- ${markdownText(shownInput(file.filename, 200))}: \`${markdownCode(shownInput(file.status, 40))}\`${file.statusDetail ? ` (${markdownText(shownInput(file.statusDetail, 300))})` : ''}`
          : l10n.t('- {0}: no longer in the volume (deleted?)', markdownText(shownInput(id, 200))),
      );
    }
  }
  return lines.join('\n');
}
