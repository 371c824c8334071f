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
    // VS Code keeps a closed tab's document for a while: it hands that one back with the old
    // text and asks the provider again only after the change event. Show it once it holds
    // the new text, so nobody (a reader, a screen reader, a test) sees the last run's report.
    const updated = this.untilText(text);
    this.changed.fire(this.uri);
    const document = await vscode.workspace.openTextDocument(this.uri);
    if (document.getText() !== text) await updated.wait;
    updated.dispose();
    return vscode.window.showTextDocument(document, { preview: false });
  }

  /** Resolves when VS Code's copy of the document holds `text`, or after a few seconds (then it shows what it has). */
  private untilText(text: string): { wait: Promise<void>; dispose(): void } {
    let listener: vscode.Disposable | undefined;
    let timer: NodeJS.Timeout | undefined;
    const wait = new Promise<void>((resolve) => {
      listener = vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document.uri.toString() === this.uri.toString() && event.document.getText() === text) resolve();
      });
      timer = setTimeout(resolve, 5000);
    });
    return {
      wait,
      dispose: () => {
        listener?.dispose();
        clearTimeout(timer);
      },
    };
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
