// KSM: Read Last Answer (issue 26): the open conversation's last answer as plain text in a
// read-only editor, where a screen reader reads it line by line (as VS Code's Accessible View,
// Alt+F2, does for its own chat). One document, refreshed on each run: no pile of tabs, no
// "save changes?" question, since a content provider's document cannot be edited.
import * as vscode from 'vscode';

export const ANSWER_SCHEME = 'ksm-answer';

export class AnswerDocument implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private text = '';
  readonly uri = vscode.Uri.from({ scheme: ANSWER_SCHEME, path: `/${vscode.l10n.t('Last answer')}.txt` });

  provideTextDocumentContent(): string {
    return this.text;
  }

  async show(text: string): Promise<vscode.TextEditor> {
    this.text = text;
    this.changed.fire(this.uri);
    const document = await vscode.workspace.openTextDocument(this.uri);
    return vscode.window.showTextDocument(document, { preview: false });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
