// The chat's commands. Each reads the editor or the store, then hands text to the view or
// opens a document; none of them touches the network.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/vscode/services';
import type { ChatSession } from '../panel/chatSession';
import type { ChatViewProvider } from './chatViewProvider';
import { planAskAboutCode, type AskAboutCodePlan } from '../core/askAboutFile';
import { privateFileRules } from '../../common/vscode/excludeGlobs';
import { shownInMessage } from '../../common/core/untrustedText';
import { conversationPickEntry, conversationToMarkdown, fullTitle, matchSnippet } from '../core/conversationText';
import type { Conversation } from '../core/conversationModel';
import { COMMAND } from '../../common/core/contributionIds';
import { ReadOnlyDocument } from '../../common/vscode/readOnlyDocument';

export function registerChatCommands(services: ExtensionServices, session: () => ChatSession, view: ChatViewProvider): void {
  services.registerCommand(COMMAND.chatNew, async () => {
    await session().newConversation();
    await view.reveal();
  });
  services.registerCommand(COMMAND.chatOpen, () => view.reveal());
  // Both attach the code as a chip above the composer (file name and lines), sent with the
  // next question; the composer keeps only what the user types.
  const attach = async (plan: AskAboutCodePlan): Promise<void> => {
    if (plan.kind === 'refuse') {
      // The message names the workspace's file: no link or control character of its name acts.
      void vscode.window.showWarningMessage(shownInMessage(plan.message));
      return;
    }
    if (plan.kind === 'confirm' && (await vscode.window.showWarningMessage(plan.message, { modal: true }, plan.confirmLabel)) !== plan.confirmLabel) return;
    const problem = await session().attachCode(plan.code);
    if (problem) {
      void vscode.window.showWarningMessage(problem);
      return;
    }
    await view.reveal();
  };
  services.registerCommand(COMMAND.chatAskAboutSelection, async () => {
    const editor = vscode.window.activeTextEditor;
    const plan = editor ? await askAboutSelectionPlan(editor) : undefined;
    if (!plan) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Select some code in an editor first.'));
      return;
    }
    await attach(plan);
  });
  services.registerCommand(COMMAND.chatAskAboutFile, async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a file in an editor first.'));
      return;
    }
    await attach(await askAboutFilePlan(editor.document));
  });
  services.registerCommand(COMMAND.chatConversations, () => pickConversation(session()).then((picked) => (picked ? view.reveal() : undefined)));
  // The palette's way to the agent's context (the Volumes…/Files… buttons above the
  // composer): the same pickers; the chat is shown afterwards so the new chips are seen.
  services.registerCommand(COMMAND.chatChooseVolumes, async () => {
    if (await view.chooseContextVolumes()) await view.reveal();
  });
  services.registerCommand(COMMAND.chatChooseFiles, async () => {
    if (await view.chooseContextFiles()) await view.reveal();
  });
  services.registerCommand(COMMAND.chatExport, async () => {
    const conversation = await session().current();
    if (conversation.turns.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('This conversation is empty: nothing to export yet.'));
      return;
    }
    await openMarkdownExport(conversation);
  });
  // The last answer as plain text in one read-only editor, where a screen reader reads it line
  // by line (as VS Code's Accessible View, Alt+F2, does for its own chat); made on first use.
  let answerDocument: ReadOnlyDocument | undefined;
  // Also Alt+F2 inside the panel (the webview posts readLastAnswer).
  services.registerCommand(COMMAND.chatReadLastAnswer, async () => {
    // markdown-it loads with the first read, not at activation (bench/activation.ts).
    const { answerPlainText, lastAnswer } = await import('../core/answerPlainText');
    const answer = lastAnswer(await session().current());
    if (!answer) {
      void vscode.window.showInformationMessage(vscode.l10n.t('There is no answer to read yet: ask a question in KSM Chat first.'));
      return;
    }
    if (!answerDocument) {
      answerDocument = new ReadOnlyDocument('ksm-answer', `${vscode.l10n.t('Last answer')}.txt`);
      services.context.subscriptions.push(answerDocument);
    }
    await answerDocument.show(answerPlainText(answer));
  });
}

/** What Ask About File does with this document: attach it, ask first, or refuse (a private file, or too large). */
export function askAboutFilePlan(document: vscode.TextDocument): Promise<AskAboutCodePlan> {
  return planAskAboutCode({ ...originOf(document), filename: fileNameOf(document), languageId: document.languageId, text: document.getText() }, privateFileRules());
}

/** What Ask About Selection does with the editor's selection, or undefined when nothing is selected. */
export async function askAboutSelectionPlan(editor: vscode.TextEditor): Promise<AskAboutCodePlan | undefined> {
  const selection = editor.selection;
  const code = editor.document.getText(selection);
  if (selection.isEmpty || code.trim() === '') return undefined;
  const endLine = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line : selection.end.line + 1;
  const lines = { start: selection.start.line + 1, end: endLine };
  return planAskAboutCode({ ...originOf(editor.document), filename: fileNameOf(editor.document), languageId: editor.document.languageId, text: code, lines }, privateFileRules());
}

/** The document's file for the chat-context rule: none for an untitled editor, else its path (a `git:` diff of `.env` is judged by its name too). */
function originOf(document: vscode.TextDocument): { path?: string } {
  return document.isUntitled ? {} : { path: document.uri.fsPath };
}

export async function openMarkdownExport(conversation: Conversation): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: conversationToMarkdown(conversation) });
  return vscode.window.showTextDocument(document, { preview: false });
}

function fileNameOf(document: vscode.TextDocument): string {
  return document.isUntitled ? document.uri.path : basename(document.fileName);
}

type ConversationItem = vscode.QuickPickItem & { id: string; fullTitle: string; text: string };
const renameButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('edit'), tooltip: vscode.l10n.t('Rename') };
const deleteButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: vscode.l10n.t('Delete') };

/** Quick pick of every conversation, searchable by title and message text; resolves true when one was opened. */
async function pickConversation(session: ChatSession): Promise<boolean> {
  const pick = vscode.window.createQuickPick<ConversationItem>();
  pick.title = vscode.l10n.t('KSM: Conversations');
  pick.placeholder = vscode.l10n.t('Search conversations by title or message text');
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  let entries: ConversationItem[] = [];
  // The detail shows the text around what was typed, so a result shows why it matched.
  const showMatches = () => {
    const query = pick.value;
    pick.items = entries.map((entry) => ({ ...entry, detail: matchSnippet(entry.text, query) ?? entry.text }));
  };
  const refresh = async () => {
    pick.busy = true;
    const all = await session.conversationsForSearch();
    entries = all.map((c) => {
      const entry = conversationPickEntry(c);
      return { ...entry, fullTitle: fullTitle(c), text: entry.detail, buttons: [renameButton, deleteButton] };
    });
    showMatches();
    pick.busy = false;
  };
  pick.onDidChangeValue(showMatches);
  return new Promise<boolean>((resolve) => {
    let opened = false;
    // A rename box or a confirmation hides the pick for a moment; that hide must not end it.
    let askingAboutItem = false;
    pick.onDidTriggerItemButton(async ({ item, button }) => {
      askingAboutItem = true;
      if (button === renameButton) {
        const title = await vscode.window.showInputBox({
          title: vscode.l10n.t('Rename Conversation'),
          value: item.fullTitle,
          validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('The title cannot be empty.')),
        });
        if (title) await session.rename(item.id, title);
      } else if (button === deleteButton) {
        const deleteLabel = vscode.l10n.t('Delete');
        const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Delete the conversation "{0}"? This cannot be undone.', item.label), { modal: true }, deleteLabel);
        if (choice === deleteLabel) await session.delete(item.id);
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
