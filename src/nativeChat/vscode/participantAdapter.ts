// `@ksm` in VS Code's chat (`vscode.chat.createChatParticipant`, stable since 1.90): reads
// the request's references and history, hands them to the core, and renders its events.
// The agent thread id rides in the result metadata, so a follow-up in the same VS Code chat
// continues the same server thread.
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { COMMAND } from '../../common/core/contributionIds';
import { abortSignalFor } from '../../common/vscode/cancellation';
import type { ExtensionServices } from '../../common/vscode/services';
import { personalVolume, settings } from '../../common/vscode/settings';
import {
  askAgent,
  citedFilesWithMarkers,
  MarkerLinker,
  parseCommand,
  type AnswerCitations,
  PARTICIPANT_ID,
  participantQuestion,
  isImplicitReference,
  uploadStatusText,
  type PendingReference,
  type RecentUploads,
} from '../core/participant';
import { threadIdFromHistory, type ParticipantMetadata } from '../core/threadBook';
import { planUpload, runVolumeTool, UploadConfirmations } from '../core/toolRuns';
import { TOOL_NAMES } from '../core/volumeTools';
import { toolContext, uploadEnvironment } from './volumeToolsAdapter';
import { privateFileRules } from '../../common/vscode/excludeGlobs';
import { errorMessage } from '../../api/errors';
import { messageWithFix } from '../../common/core/errorFixes';
import { CITATION_SCHEME } from '../../chat/chatFeature';
import { markdownText, shownInput } from '../../common/core/untrustedText';

const OPEN_CITATION_COMMAND = COMMAND.vscodeChatOpenCitation;

/** A command link that opens marker `n` of one answer (the arguments are checked when clicked). */
function citationLink(answerId: string, marker: number): string {
  return `command:${OPEN_CITATION_COMMAND}?${encodeURIComponent(JSON.stringify([answerId, marker]))}`;
}

/** Markdown trusted for the open-citation command only. */
function trusted(text: string): vscode.MarkdownString {
  const markdown = new vscode.MarkdownString(text);
  markdown.isTrusted = { enabledCommands: [OPEN_CITATION_COMMAND] };
  return markdown;
}

/** `@ksm`'s request handler; nativeChatFeature.ts creates the participant at activation and loads this at its first request. */
export function createParticipantHandler(services: ExtensionServices, recent: RecentUploads, citations: AnswerCitations): vscode.ChatRequestHandler {
  return async (request, context, stream, token) => {
    const command = parseCommand(request.command);
    const cancel = abortSignalFor(token);
    try {
      switch (command) {
        case 'ask':
          return await ask(services, citations, request, context, stream, cancel.signal);
        case 'chat':
          return await plainChat(request, stream, token);
        case 'upload':
          return await upload(services, recent, request, stream, cancel.signal);
        case 'status':
          stream.progress(vscode.l10n.t('Reading the processing state of your recent uploads…'));
          stream.markdown(await uploadStatusText(services.getClient(), recent, cancel.signal));
          return { metadata: { command } satisfies ParticipantMetadata };
      }
    } catch (error) {
      if (token.isCancellationRequested) return {};
      services.log.error(`[vscode-chat] @ksm /${command}: ${errorMessage(error)}`);
      // One line, with its fix, the service's words left as text (messageWithFix): the raw message could run to many lines of an error body.
      return { errorDetails: { message: messageWithFix(error) } };
    } finally {
      cancel.dispose();
    }
  };
}

async function ask(
  services: ExtensionServices,
  book: AnswerCitations,
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  signal: AbortSignal,
): Promise<vscode.ChatResult> {
  const { question, omitted, leftOut } = await participantQuestion(request.prompt, pendingReferences(request.references), privateFileRules());
  showLeftOut(stream, leftOut);
  if (!question) return { errorDetails: { message: vscode.l10n.t('Ask a question after @ksm, for example "@ksm what does the release checklist say?"') } };
  if (omitted.length) stream.markdown(vscode.l10n.t('_Left out (too large to send): {0}._\n\n', omitted.join(', ')));
  const earlier = context.history.filter((turn): turn is vscode.ChatResponseTurn => turn instanceof vscode.ChatResponseTurn && turn.participant === PARTICIPANT_ID);
  stream.progress(vscode.l10n.t('Searching your volumes…'));
  // The answer's markers [n] become links to the passages this answer cites.
  const answerId = randomUUID();
  const linker = new MarkerLinker((n) => citationLink(answerId, n));
  const show = (text: string) => {
    if (text) stream.markdown(trusted(text));
  };
  const outcome = await askAgent({
    service: services.getClient(),
    agentId: settings.agentId(),
    model: settings.agentModel(),
    volumes: settings.volumes(),
    question,
    threadId: threadIdFromHistory(earlier.map((turn) => turn.result)),
    signal,
    emit: (event) => {
      if (event.kind === 'text') show(linker.push(event.text));
      else if (event.kind === 'citations') book.add(answerId, event.citations);
    },
  });
  show(linker.flush());
  const files = citedFilesWithMarkers(outcome.citations);
  if (files.length > 0) {
    // Trusted for this one command only: a source opens the passage it cited (as in the panel).
    const lines = files.map(({ file, marker }, i) => {
      return `${i + 1}. [${markdownText(shownInput(file.filename, 200))}](${citationLink(answerId, marker)} "${vscode.l10n.t('Open the cited passage')}") — ${markdownText(shownInput(file.volumeLabel, 200))}`;
    });
    stream.markdown(trusted(`\n\n**Sources**\n\n${lines.join('\n')}\n`));
  }
  return { metadata: { threadId: outcome.threadId, command: 'ask' } satisfies ParticipantMetadata };
}

/** `/chat`: a plain completion with the model picked in VS Code's chat, no retrieval. */
async function plainChat(request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
  const { question, omitted, leftOut } = await participantQuestion(request.prompt, pendingReferences(request.references), privateFileRules());
  showLeftOut(stream, leftOut);
  if (!question) return { errorDetails: { message: vscode.l10n.t('Type a message after /chat.') } };
  if (omitted.length) stream.markdown(vscode.l10n.t('_Left out (too large to send): {0}._\n\n', omitted.join(', ')));
  const response = await request.model.sendRequest([vscode.LanguageModelChatMessage.User(question)], {}, token);
  for await (const text of response.text) stream.markdown(text);
  return { metadata: { command: 'chat' } satisfies ParticipantMetadata };
}

/** `/upload [volume]`: the #file references, else the active editor's file. */
async function upload(services: ExtensionServices, recent: RecentUploads, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, signal: AbortSignal): Promise<vscode.ChatResult> {
  const uris = request.references.map((r) => r.value).filter((v): v is vscode.Uri => v instanceof vscode.Uri && v.scheme === 'file');
  const active = vscode.window.activeTextEditor?.document.uri;
  if (uris.length === 0 && active?.scheme === 'file') uris.push(active);
  if (uris.length === 0) return { errorDetails: { message: vscode.l10n.t('Nothing to upload: attach files with #file, or open the file in an editor.') } };
  const volume = request.prompt.trim() || (personalVolume() ? undefined : settings.volumes()[0]);
  stream.progress(vscode.l10n.t('Uploading {0}…', uris.map((u) => basename(u.fsPath)).join(', ')));
  // The user typed /upload with these files: that is the confirmation. The private-file
  // rules and Restricted Mode apply all the same (runVolumeTool plans again and compares).
  const input = { paths: uris.map((u) => u.fsPath), volume };
  const confirmations = new UploadConfirmations();
  const environment = uploadEnvironment(recent, confirmations);
  const context = toolContext(services, signal);
  const planned = await planUpload(input, context, environment);
  if (planned.ok) confirmations.record(input, planned.value);
  const result = await runVolumeTool(TOOL_NAMES.upload, input, context, environment);
  // The tool's text for a model quotes the service's names and ids: shown as text, a line each.
  stream.markdown(result.text.split('\n').map(markdownText).join('\n\n'));
  if (result.ok) stream.markdown(vscode.l10n.t('\n\nAsk `@ksm /status` to follow the processing.'));
  return result.ok ? { metadata: { command: 'upload' } satisfies ParticipantMetadata } : { errorDetails: { message: result.text.split('\n')[0] ?? vscode.l10n.t('The upload failed.') } };
}

/** The private files left out of the question, a line each: visible, every word escaped (the names are the workspace's). */
function showLeftOut(stream: vscode.ChatResponseStream, leftOut: readonly string[]): void {
  for (const line of leftOut) stream.markdown(`_${markdownText(line)}_\n\n`);
}

/**
 * #file, #selection and editor references with the file they came from and whether VS Code
 * attached them by itself, not yet read: participantQuestion judges each path first and
 * opens (`openTextDocument`) only what may go. Anything else (images, tools, strings) is skipped.
 */
function pendingReferences(references: readonly vscode.ChatPromptReference[]): PendingReference[] {
  const out: PendingReference[] = [];
  for (const ref of references) {
    const value = ref.value;
    // A passage an earlier answer cited (opened from its [n]) is the agent's own source, not the user's context.
    const uri = value instanceof vscode.Uri ? value : value instanceof vscode.Location ? value.uri : undefined;
    if (uri?.scheme === CITATION_SCHEME) continue;
    // An untitled editor has no file: only its text is judged. Any other scheme (a `git:` diff of `.env`) is judged by its path's name and folders.
    const origin = uri && uri.scheme !== 'untitled' ? { path: uri.fsPath } : {};
    const implicit = isImplicitReference(ref.id);
    if (value instanceof vscode.Uri) {
      out.push({
        name: basename(value.path),
        implicit,
        ...origin,
        read: async () => {
          const document = await vscode.workspace.openTextDocument(value);
          return { languageId: document.languageId, text: document.getText() };
        },
      });
    } else if (value instanceof vscode.Location) {
      const lines = { start: value.range.start.line + 1, end: value.range.end.line + 1 };
      out.push({
        name: basename(value.uri.path),
        lines,
        implicit,
        ...origin,
        read: async () => {
          const document = await vscode.workspace.openTextDocument(value.uri);
          return { languageId: document.languageId, text: document.getText(value.range) };
        },
      });
    }
    // String values are VS Code's own prompt material (for example its skills index,
    // `vscode.customizations.index`), not the user's context: the agent gets none of it.
  }
  return out;
}
