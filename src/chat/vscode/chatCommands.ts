// The chat's commands. Each reads the editor or the store, then hands text to the view or
// opens a document; none of them touches the network.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/vscode/services';
import type { ChatSession } from '../panel/chatSession';
import type { ChatViewProvider } from './chatViewProvider';
import { codePrefill } from '../../common/core/chatText';
import { MAX_PREFILL_CHARS, planAskAboutFile, type AskAboutFilePlan } from '../core/askAboutFile';
import { conversationPickEntry, conversationToMarkdown } from '../core/conversationText';
import { MAX_TEXT_CHARS, type Conversation } from '../core/conversationModel';
import { COMMAND } from '../../common/core/contributionIds';

export function registerChatCommands(services: ExtensionServices, session: () => ChatSession, view: ChatViewProvider): void {
  services.registerCommand(COMMAND.chatNew, async () => {
    await session().newConversation();
    await view.reveal();
  });
  services.registerCommand(COMMAND.chatAskAboutSelection, async () => {
    const editor = vscode.window.activeTextEditor;
    const text = editor ? selectionPrefill(editor) : undefined;
    if (!text) {
      void vscode.window.showInformationMessage('Select some code in an editor first.');
      return;
    }
    if (text.length > MAX_PREFILL_CHARS) {
      void vscode.window.showWarningMessage(`The selection is too large to send (the limit is ${MAX_TEXT_CHARS.toLocaleString()} characters). Select less.`);
      return;
    }
    await view.prefill(text);
  });
  services.registerCommand(COMMAND.chatAskAboutFile, async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage('Open a file in an editor first.');
      return;
    }
    const plan = askAboutFilePlan(editor.document);
    if (plan.kind === 'refuse') {
      void vscode.window.showWarningMessage(plan.message);
      return;
    }
    if (plan.kind === 'confirm' && (await vscode.window.showWarningMessage(plan.message, { modal: true }, plan.confirmLabel)) !== plan.confirmLabel) return;
    await view.prefill(plan.prefill);
  });
  services.registerCommand(COMMAND.chatConversations, () => pickConversation(session()).then((picked) => (picked ? view.reveal() : undefined)));
  services.registerCommand(COMMAND.chatExport, async () => {
    const conversation = await session().current();
    if (conversation.turns.length === 0) {
      void vscode.window.showInformationMessage('This conversation is empty: nothing to export yet.');
      return;
    }
    await openMarkdownExport(conversation);
  });
}

/** What Ask About File does with this document: paste it, ask first, or refuse. */
export function askAboutFilePlan(document: vscode.TextDocument): AskAboutFilePlan {
  return planAskAboutFile(fileNameOf(document), document.languageId, document.getText());
}

/** The composer text for the editor's selection, or undefined when nothing is selected. */
export function selectionPrefill(editor: vscode.TextEditor): string | undefined {
  const selection = editor.selection;
  const code = editor.document.getText(selection);
  if (selection.isEmpty || code.trim() === '') return undefined;
  const endLine = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line : selection.end.line + 1;
  return codePrefill(fileNameOf(editor.document), editor.document.languageId, code, { start: selection.start.line + 1, end: endLine });
}

export async function openMarkdownExport(conversation: Conversation): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: conversationToMarkdown(conversation) });
  return vscode.window.showTextDocument(document, { preview: false });
}

function fileNameOf(document: vscode.TextDocument): string {
  return document.isUntitled ? document.uri.path : basename(document.fileName);
}

type ConversationItem = vscode.QuickPickItem & { id: string };
const renameButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('edit'), tooltip: 'Rename' };
const deleteButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: 'Delete' };

/** Quick pick of every conversation, searchable by title and message text; resolves true when one was opened. */
async function pickConversation(session: ChatSession): Promise<boolean> {
  const pick = vscode.window.createQuickPick<ConversationItem>();
  pick.title = 'KSM: Conversations';
  pick.placeholder = 'Search conversations by title or message text';
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  const refresh = async () => {
    pick.busy = true;
    const all = await session.conversationsForSearch();
    pick.items = all.map((c) => ({ ...conversationPickEntry(c), buttons: [renameButton, deleteButton] }));
    pick.busy = false;
  };
  return new Promise<boolean>((resolve) => {
    let opened = false;
    // A rename box or a confirmation hides the pick for a moment; that hide must not end it.
    let askingAboutItem = false;
    pick.onDidTriggerItemButton(async ({ item, button }) => {
      askingAboutItem = true;
      if (button === renameButton) {
        const title = await vscode.window.showInputBox({ title: 'Rename Conversation', value: item.label, validateInput: (v) => (v.trim() ? undefined : 'The title cannot be empty.') });
        if (title) await session.rename(item.id, title);
      } else if (button === deleteButton) {
        const choice = await vscode.window.showWarningMessage(`Delete the conversation "${item.label}"? This cannot be undone.`, { modal: true }, 'Delete');
        if (choice === 'Delete') await session.delete(item.id);
      }
      askingAboutItem = false;
      pick.show();
      await refresh();
    });
    pick.onDidAccept(async () => {
      const [item] = pick.selectedItems;
      if (!item) return;
      opened = await session.openConversation(item.id);
      pick.hide();
    });
    pick.onDidHide(() => {
      if (askingAboutItem) return;
      pick.dispose();
      resolve(opened);
    });
    pick.show();
    void refresh();
  });
}
