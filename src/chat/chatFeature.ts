// Wires the chat without loading it: the view, the passage documents and the commands are
// registered now as stand-ins, and the chat's runtime (vscode/chatRuntime.ts: the store, the
// session, the view, the commands) loads at the first of them to be used. Nothing here
// touches the disk or the network at activation.
import * as vscode from 'vscode';
import type { AgentFileRef } from '../api/types';
import { LAZY_COMMANDS, VIEW_ID } from '../common/core/contributionIds';
import { registerLazyCommands } from '../common/vscode/lazyCommands';
import type { ExtensionServices } from '../common/vscode/services';
import { CITATION_SCHEME, passageDocument } from './core/citationReveal';
import type { CitedPassage } from './core/conversationContext';
import type { WorkspaceSource } from './vscode/chatContext';
import type { ChatRuntime } from './vscode/chatRuntime';
import { loadOnce } from '../common/core/loadOnce';

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
  const { context } = services;
  const runtime = loadOnce(async (): Promise<ChatRuntime> => (await import('./vscode/chatRuntime')).createChatRuntime(services, deps));

  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(CITATION_SCHEME, { provideTextDocumentContent: async (uri) => (await runtime()).passages.provideTextDocumentContent(uri) }),
    vscode.window.registerWebviewViewProvider(
      VIEW_ID.chat,
      { resolveWebviewView: async (view) => (await runtime()).view.resolveWebviewView(view) },
      { webviewOptions: { retainContextWhenHidden: false } },
    ),
    // Until the chat has loaded there is no view or session to tell.
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ksm') && runtime.value?.session) runtime.value.session.optionsChanged();
      if (e.affectsConfiguration('ksm.baseUrl')) void runtime.value?.view.connectionChanged();
    }),
    services.apiKey.onDidChange(() => void runtime.value?.view.connectionChanged()),
    // Keeps a streaming answer's text when the window closes or the extension is disabled.
    { dispose: () => void runtime.value?.session?.dispose() },
  );
  registerLazyCommands(services, LAZY_COMMANDS.chat, async () => (await runtime()).registerCommands);

  return {
    askAgentAbout: async (files) => {
      const chat = await runtime();
      await chat.getSession().attachForAgent(files.map((f) => ({ fileId: f.file_id, filename: f.filename, size: f.size, volume: f.volume })));
      await chat.view.reveal();
    },
    openCitedPassage: async (answerId, passage) => {
      await (await runtime()).passages.openCited(passageDocument(answerId, passage), passage);
    },
  };
}
