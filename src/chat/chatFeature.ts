// Wires the chat: the store (per workspace), the session, the view and the commands. Nothing
// here touches the disk or the network at activation; the session loads on first use.
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AgentFileRef } from '../api/types';
import { CONTEXT_KEY } from '../common/core/contributionIds';
import { offerFix } from '../common/vscode/commands';
import type { ExtensionServices } from '../common/vscode/services';
import { personalVolume, settings } from '../common/vscode/settings';
import { CITATION_SCHEME, passageDocument } from './core/citationReveal';
import type { CitedPassage } from './core/conversationContext';
import { CitationDocuments, pickContextFiles, pickContextVolumes, type ContextPickers, type WorkspaceSource } from './vscode/chatContext';
import { registerChatCommands } from './vscode/commands';
import { ChatSession } from './panel/chatSession';
import { CHAT_VIEW_ID, ChatViewProvider } from './vscode/chatViewProvider';
import { ConversationStore, type StoreProblem } from './core/conversationStore';
import type { ModelOptions } from './core/conversationModel';
import type { HostToWebview } from './protocol';
import { GLOBAL_STATE_KEY } from '../common/core/storageKeys';
import { parseRecentModels, withRecentModel } from './core/modelChoices';
import { showModelPicker } from './vscode/modelPicker';

export interface ChatFeatureDeps {
  revealFile(volume: string, fileId: string): Promise<void>;
  /** The workspace file a cited file was synced from, opened instead of its passage (the sync feature). */
  workspaceSourceOf(cited: CitedPassage): Promise<WorkspaceSource | undefined>;
}

export interface ChatFeature {
  /** Opens the chat in agent mode with these files attached (sent as `files[]`). */
  askAgentAbout(files: Array<AgentFileRef & { volume: string }>): Promise<void>;
  /**
   * Opens a cited passage as the panel does: the workspace file it was synced from at the
   * passage, else a read-only `ksm-citation:` document beside the chat. VS Code's `@ksm` answers use it for their markers and sources. `answerId`
   * names the document (one per answer and marker).
   */
  openCitedPassage(answerId: string, passage: CitedPassage): Promise<void>;
}

export type { CitedPassage };
/** The scheme of the read-only passage documents a citation opens. */
export { CITATION_SCHEME };

export function registerChatFeature(services: ExtensionServices, deps: ChatFeatureDeps): ChatFeature {
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

  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(CITATION_SCHEME, passages),
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, view, { webviewOptions: { retainContextWhenHidden: false } }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ksm') && session) session.optionsChanged();
      if (e.affectsConfiguration('ksm.baseUrl')) void view.connectionChanged();
    }),
    services.apiKey.onDidChange(() => void view.connectionChanged()),
    // Keeps a streaming answer's text when the window closes or the extension is disabled.
    { dispose: () => void session?.dispose() },
  );
  registerChatCommands(services, getSession, view);

  return {
    askAgentAbout: async (files) => {
      await getSession().attachForAgent(files.map((f) => ({ fileId: f.file_id, filename: f.filename, size: f.size, volume: f.volume })));
      await view.reveal();
    },
    openCitedPassage: async (answerId, passage) => {
      await passages.openCited(passageDocument(answerId, passage), passage);
    },
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
  await context.globalState.update(GLOBAL_STATE_KEY.recentChatModels, withRecentModel(context.globalState.get<unknown>(GLOBAL_STATE_KEY.recentChatModels), model));
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
  const message = problem.keptAt
    ? vscode.l10n.t('A saved conversation could not be read and is not listed. It was kept at {0}.', problem.keptAt)
    : vscode.l10n.t('A saved conversation could not be read and is not listed.');
  void vscode.window.showWarningMessage(message, vscode.l10n.t('Show Log')).then((choice) => {
    if (choice) services.log.show();
  });
}
