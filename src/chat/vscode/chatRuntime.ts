// The chat's runtime: the store (per workspace), the session, the view and the commands.
// It loads at the chat's first use (the view opens, a chat command runs, another feature
// asks for it), not at activation: chatFeature.ts registers cheap stand-ins that load it.
// Nothing here touches the disk or the network when created; the session loads on first use.
import { join } from 'node:path';
import * as vscode from 'vscode';
import { CONTEXT_KEY } from '../../common/core/contributionIds';
import { offerFix } from '../../common/vscode/commands';
import type { ExtensionServices } from '../../common/vscode/services';
import { personalVolume, settings } from '../../common/vscode/settings';
import { CitationDocuments, pickContextFiles, pickContextVolumes, type ContextPickers } from './chatContext';
import { registerChatCommands } from './commands';
import { ChatSession } from '../panel/chatSession';
import { ChatViewProvider } from './chatViewProvider';
import { ConversationStore, type StoreProblem } from '../core/conversationStore';
import type { ModelOptions } from '../core/conversationModel';
import type { HostToWebview } from '../protocol';
import { GLOBAL_STATE_KEY } from '../../common/core/storageKeys';
import { parseRecentModels, withRecentModel } from '../core/modelChoices';
import { showModelPicker } from './modelPicker';
import type { ChatFeatureDeps } from '../chatFeature';
import type { CommandRegistrar } from '../../common/vscode/lazyCommands';

export interface ChatRuntime {
  readonly view: ChatViewProvider;
  readonly passages: CitationDocuments;
  /** The session if it was created (it is on the first message from the view or a command). */
  readonly session: ChatSession | undefined;
  getSession(): ChatSession;
  /** Registers the chat's commands on the given services (LAZY_COMMANDS.chat). */
  registerCommands: CommandRegistrar;
}

export function createChatRuntime(services: ExtensionServices, deps: ChatFeatureDeps): ChatRuntime {
  const { context, log } = services;
  let session: ChatSession | undefined;
  const isConnected = async (): Promise<boolean> => Boolean(settings.baseUrl().trim()) && Boolean(await services.apiKey.get());
  const getSession = (): ChatSession => (session ??= createSession(services, (m) => view.post(m), isConnected));
  const passages = new CitationDocuments((cited) => deps.workspaceSourceOf(cited));
  const pickers: ContextPickers = {
    volumes: (current) => pickContextVolumes(personalVolume(), settings.volumes(), current),
    files: (current) => pickContextFiles(() => services.getClient(), personalVolume(), settings.volumes(), current),
  };
  const view = new ChatViewProvider(context.extensionUri, getSession, log, deps.revealFile, passages, pickers, isConnected, () => chooseModel(context, getSession()));
  return {
    view,
    passages,
    get session() {
      return session;
    },
    getSession,
    registerCommands: (recorder) => registerChatCommands(recorder, getSession, view),
  };
}

/** The model picker for the open chat conversation; the pick is remembered as recent (all windows). */
async function chooseModel(context: vscode.ExtensionContext, session: ChatSession): Promise<void> {
  const conversation = await session.current();
  // Agent conversations use ksm.agent.model; the header shows no picker for them.
  if (conversation.mode !== 'chat') return;
  const stored = context.globalState.get<unknown>(GLOBAL_STATE_KEY.recentChatModels);
  const model = await showModelPicker(conversation.model, currentModelOptions(), parseRecentModels(stored));
  if (!model) return;
  const recent = withRecentModel(context.globalState.get<unknown>(GLOBAL_STATE_KEY.recentChatModels), model);
  if (recent) await context.globalState.update(GLOBAL_STATE_KEY.recentChatModels, recent); // a later version's shape is left as it is
  // The user may have switched conversations while the picker was open.
  if (session.currentIfLoaded?.id === conversation.id) await session.setModel(model);
}

export function currentModelOptions(): ModelOptions {
  return {
    models: settings.models(),
    reasoningModels: settings.reasoningModels(),
    defaultModel: settings.defaultModel(),
    agentId: settings.agentId(),
    agentModel: settings.agentModel(),
    outputFormat: settings.outputFormat(),
    userId: settings.userId(),
  };
}

function createSession(services: ExtensionServices, post: (message: HostToWebview) => void, isConnected: () => Promise<boolean>): ChatSession {
  const { context, log } = services;
  // Per workspace, so one project's chats never show up in another's; a window without a
  // folder keeps its chats in global storage.
  const root = join((context.storageUri ?? context.globalStorageUri).fsPath, 'chat');
  const store = new ConversationStore(root, (problem) => reportStoreProblem(services, problem));
  const session = new ChatSession(store, {
    getService: () => services.getClient(),
    getOptions: currentModelOptions,
    getVolumes: () => settings.volumes(),
    isConnected,
    post,
    log: log.scoped('chat'),
    // The inline error already says what happened; a key or settings problem also gets its fix in one click.
    onAnswerFailed: (error) => void offerFix(error),
  });
  // The palette offers Choose Volumes/Files for This Chat only while an agent conversation is open.
  const showAgentMode = (mode: string) => void vscode.commands.executeCommand('setContext', CONTEXT_KEY.chatAgentMode, mode === 'agent');
  void session.current().then(
    (conversation) => showAgentMode(conversation.mode),
    () => undefined,
  );
  session.subscribe((event) => {
    if (event.type === 'conversation') showAgentMode(event.conversation.mode);
  });
  // The walkthrough's "Ask a question" step completes on the first answer that arrives.
  const answered = session.subscribe((event) => {
    if (event.type !== 'answer' || event.event.type !== 'finished' || event.event.reason !== 'done') return;
    answered.dispose();
    void vscode.commands.executeCommand('setContext', CONTEXT_KEY.chatAnswered, true);
  });
  return session;
}

function reportStoreProblem(services: ExtensionServices, problem: StoreProblem): void {
  services.log.warn(`[chat] could not read ${problem.file}: ${problem.reason}${problem.keptAt ? `; kept at ${problem.keptAt}` : ''}`);
  // The index is a cache rebuilt from the conversations: no conversation is missing, the log line says what was found.
  if (problem.index) return;
  // A list this version does not show is left unchanged in a conversation that is listed: the log line is enough.
  if (problem.keptInPlace === 'partly') return;
  const message =
    problem.keptInPlace === 'newer'
      ? vscode.l10n.t('A conversation saved by a newer version of KSM Assistant is not listed. It is left unchanged: update the extension to open it.')
      : problem.keptAt
        ? vscode.l10n.t('A saved conversation could not be read and is not listed. It was kept at {0}.', problem.keptAt)
        : vscode.l10n.t('A saved conversation could not be read and is not listed.');
  void vscode.window.showWarningMessage(message, vscode.l10n.t('Show Log')).then((choice) => {
    if (choice) services.log.show();
  });
}
