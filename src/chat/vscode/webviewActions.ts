// The webview's requests that touch the editor, the clipboard or the browser. Each takes
// already-validated input and does only the one harmless thing it names: no command id or
// path coming from the webview is ever executed or opened.
import * as vscode from 'vscode';
import { shownInput } from '../../common/core/untrustedText';
import type { Log } from '../../common/vscode/log';
import { safeExternalUrl } from '../panel/messageValidation';

export async function insertCodeAtSelection(code: string): Promise<boolean> {
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (!editor) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open a file in an editor first, then insert the code again.'));
    return false;
  }
  return editor.edit((edit) => {
    for (const selection of editor.selections) edit.replace(selection, code);
  });
}

/** Fence tags models commonly write that are not VS Code language ids. */
const FENCE_ALIASES: Record<string, string> = {
  ts: 'typescript',
  js: 'javascript',
  py: 'python',
  sh: 'shellscript',
  bash: 'shellscript',
  zsh: 'shellscript',
  shell: 'shellscript',
  yml: 'yaml',
  md: 'markdown',
  rb: 'ruby',
  rs: 'rust',
  'c++': 'cpp',
  cs: 'csharp',
  kt: 'kotlin',
};

export async function openCodeInNewFile(code: string, language: string | undefined): Promise<vscode.TextEditor> {
  const wanted = language ? (FENCE_ALIASES[language.toLowerCase()] ?? language) : undefined;
  const known = wanted ? (await vscode.languages.getLanguages()).includes(wanted) : false;
  const document = await vscode.workspace.openTextDocument({ content: code, language: known ? wanted : 'plaintext' });
  return vscode.window.showTextDocument(document, { preview: false });
}

export async function copyToClipboard(code: string): Promise<void> {
  await vscode.env.clipboard.writeText(code);
  vscode.window.setStatusBarMessage(vscode.l10n.t('$(check) Copied to the clipboard'), 2000);
}

/** Opens an http(s) link in the browser; anything else is logged and ignored. Returns whether it opened. */
export async function openExternalLink(href: string, log: Log): Promise<boolean> {
  const url = safeExternalUrl(href);
  if (!url) {
    log.warn(`[chat] refused to open a link that is not http(s): ${shownInput(href, 200)}`);
    return false;
  }
  return vscode.env.openExternal(vscode.Uri.parse(url, true));
}
