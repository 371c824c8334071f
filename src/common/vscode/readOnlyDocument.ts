// One read-only document whose text each `show` replaces: the connection report and the
// last answer as plain text both use it. A content provider's document is never dirty, so
// repeated runs leave one tab and no "save changes?" question (issue 26), and a screen
// reader reads it like any editor. Registers its own provider; dispose it with the feature.
import * as vscode from 'vscode';

export class ReadOnlyDocument implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly registration: vscode.Disposable;
  private text = '';
  readonly uri: vscode.Uri;

  /** `fileName` gives the tab its title and the editor its language (by extension). */
  constructor(scheme: string, fileName: string) {
    this.uri = vscode.Uri.from({ scheme, path: `/${fileName}` });
    this.registration = vscode.workspace.registerTextDocumentContentProvider(scheme, {
      onDidChange: this.changed.event,
      provideTextDocumentContent: () => this.text,
    });
  }

  async show(text: string): Promise<vscode.TextEditor> {
    this.text = text;
    this.changed.fire(this.uri);
    const document = await vscode.workspace.openTextDocument(this.uri);
    return vscode.window.showTextDocument(document, { preview: false });
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
