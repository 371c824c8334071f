import * as vscode from 'vscode';
import { SECRET_KEY } from '../core/storageKeys';

/**
 * The API key lives in SecretStorage only. It is read on demand (never cached across
 * calls, so a key set in another window is used at once) and never written to settings,
 * state, logs or the webview.
 */
export class ApiKeyStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the key is set or cleared, in this window or another one. */
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;
  /** Last value read, kept only so the log can redact it literally. */
  private lastKnown: string | undefined;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((e) => {
      if (e.key === SECRET_KEY.apiKey) this.changed.fire();
    });
  }

  async get(): Promise<string | undefined> {
    const key = (await this.secrets.get(SECRET_KEY.apiKey))?.trim();
    this.lastKnown = key || undefined;
    return this.lastKnown;
  }

  async set(key: string): Promise<void> {
    const trimmed = key.trim();
    if (!trimmed) throw new Error(vscode.l10n.t('The API key is empty.'));
    await this.secrets.store(SECRET_KEY.apiKey, trimmed);
    this.lastKnown = trimmed;
  }

  async clear(): Promise<void> {
    await this.secrets.delete(SECRET_KEY.apiKey);
    this.lastKnown = undefined;
  }

  /** For redaction only. */
  knownSecrets(): ReadonlyArray<string | undefined> {
    return [this.lastKnown];
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

/** Asks for the key in a password box; returns undefined when the user cancels. */
export async function promptForApiKey(): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('KSM Assistant: Set API Key'),
    prompt: vscode.l10n.t('Paste your KSM API key. It is stored in VS Code secret storage, not in settings.'),
    password: true,
    ignoreFocusOut: true,
    placeHolder: vscode.l10n.t('API key'),
    validateInput: (text) => (text.trim() ? undefined : vscode.l10n.t('The API key cannot be empty.')),
  });
  return value?.trim() || undefined;
}
