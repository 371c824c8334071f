// The chat's commands. Each reads the editor or the store, then hands text to the view or
// opens a document; none of them touches the network.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionServices } from '../common/services';
import type { ChatSession } from './chatSession';
import type { ChatViewProvider } from './chatViewProvider';
import { searchableText } from './conversationModel';
import { codePrefill, conversationToMarkdown, LARGE_FILE_CHARS } from './markdownExport';
import { MAX_TEXT_CHARS } from './messageValidation';
import type { ConversationView } from './protocol';

/** Room left under the message limit for the question the user types after the pasted code. */
const PREFILL_HEADROOM_CHARS = 2_000;

export function registerChatCommands(services: ExtensionServices, session: () => ChatSession, view: ChatViewProvider): void {
  services.registerCommand('ksm.chat.new', async () => {
    await session().newConversation();
    await view.reveal();
  });
  services.registerCommand('ksm.chat.askAboutSelection', async () => {
    const editor = vscode.window.activeTextEditor;
    const text = editor ? selectionPrefill(editor) : undefined;
    if (!text) {
      void vscode.window.showInformationMessage('Select some code in an editor first.');
      return;
    }
    if (text.length > MAX_TEXT_CHARS - PREFILL_HEADROOM_CHARS) {
      void vscode.window.showWarningMessage(`The selection is too large to send (the limit is ${MAX_TEXT_CHARS.toLocaleString()} characters). Select less.`);
      return;
    }
    await view.prefill(text);
  });
  services.registerCommand('ksm.chat.askAboutFile', async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage('Open a file in an editor first.');
      return;
    }
    const content = editor.document.getText();
    if (content.length > MAX_TEXT_CHARS - PREFILL_HEADROOM_CHARS) {
      void vscode.window.showWarningMessage(
        `${fileNameOf(editor.document)} is too large to paste into the chat (over ${MAX_TEXT_CHARS.toLocaleString()} characters). ` +
          'Select the part you want and use Ask About Selection, or upload the file to a volume and ask the agent about it.',
      );
      return;
    }
    if (content.length > LARGE_FILE_CHARS) {
      const size = `${Math.round(content.length / 1024)} KB`;
      const choice = await vscode.window.showWarningMessage(
        `${fileNameOf(editor.document)} is ${size}. Large files may exceed the model's context and cost many tokens.`,
        { modal: true },
        'Ask Anyway',
      );
      if (choice !== 'Ask Anyway') return;
    }
    await view.prefill(codePrefill(fileNameOf(editor.document), editor.document.languageId, content));
  });
  services.registerCommand('ksm.chat.conversations', () => pickConversation(session()).then((picked) => (picked ? view.reveal() : undefined)));
  services.registerCommand('ksm.chat.export', async () => {
    const conversation = await session().current();
    if (conversation.turns.length === 0) {
      void vscode.window.showInformationMessage('This conversation is empty: nothing to export yet.');
      return;
    }
    await openMarkdownExport(conversation);
  });
}

/** The composer text for the editor's selection, or undefined when nothing is selected. */
export function selectionPrefill(editor: vscode.TextEditor): string | undefined {
  const selection = editor.selection;
  const code = editor.document.getText(selection);
  if (selection.isEmpty || code.trim() === '') return undefined;
  const endLine = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line : selection.end.line + 1;
  return codePrefill(fileNameOf(editor.document), editor.document.languageId, code, { start: selection.start.line + 1, end: endLine });
}

export async function openMarkdownExport(conversation: ConversationView): Promise<vscode.TextEditor> {
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
    pick.items = all.map((c) => ({
      id: c.id,
      label: c.title,
      description: `${c.mode === 'agent' ? 'Agent' : 'Chat'} · ${new Date(c.updatedAt).toLocaleString()}`,
      detail: searchableText(c),
      buttons: [renameButton, deleteButton],
    }));
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
