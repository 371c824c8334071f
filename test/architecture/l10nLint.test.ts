// The localisation rule of eslint.config.mjs (LOCALISATION_SELECTORS, issue 26) must keep
// refusing a bare literal wherever VS Code shows our text, and accept it through
// vscode.l10n.t. Each snippet is linted as if it were a VS Code adapter of a feature.
import { strict as assert } from 'node:assert';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: process.cwd() });
const ADAPTER = 'src/volumes/vscode/l10nProbe.ts';

async function unlocalised(code: string, filePath = ADAPTER): Promise<number> {
  const [result] = await eslint.lintText(`import * as vscode from 'vscode';\n${code}\n`, { filePath });
  assert.ok(result);
  return result.messages.filter((m) => m.ruleId === 'no-restricted-syntax' && /vscode\.l10n\.t/.test(m.message)).length;
}

describe('lint: user-visible text of the extension host goes through vscode.l10n.t', () => {
  const refused: Array<[string, string]> = [
    ['a message', "void vscode.window.showInformationMessage('Uploaded the files.');"],
    ['a template message', 'const n = 2; void vscode.window.showWarningMessage(`Deleted ${n} files.`);'],
    ['a button', "void vscode.window.showErrorMessage(vscode.l10n.t('Failed.'), 'Show Log');"],
    ['a conditional message', "const ok = true; void vscode.window.showErrorMessage(ok ? 'It worked fine' : vscode.l10n.t('No'));"],
    ['a button among spread ones', "const more = true; void vscode.window.showErrorMessage(vscode.l10n.t('Failed.'), ...(more ? ['Retry Failed'] : []));"],
    ['a message of a chosen show function', "const failed = true; void (failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage)('Sync finished.');"],
    [
      'a nested conditional description',
      "const r = 'a'; void vscode.window.showQuickPick([{ label: vscode.l10n.t('x'), description: r === 'a' ? vscode.l10n.t('y') : r === 'b' ? 'extra copy' : vscode.l10n.t('z') }]);",
    ],
    ['a quick pick item', "void vscode.window.showQuickPick([{ label: 'Sync now', detail: vscode.l10n.t('x') }]);"],
    ['a placeholder', "void vscode.window.showInputBox({ placeHolder: 'Type a volume name' });"],
    ['a progress title', "void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Uploading files' }, async () => undefined);"],
    ['a status bar text', "const item = vscode.window.createStatusBarItem(); item.text = '$(sync) KSM: in sync';"],
    ['a tooltip', "const item = vscode.window.createStatusBarItem(); item.tooltip = 'Click to sync';"],
    ['a tree item', "const item = new vscode.TreeItem('Load more files');"],
    ['chat output', "declare const stream: vscode.ChatResponseStream; stream.markdown('No uploads yet.');"],
  ];
  for (const [what, code] of refused) {
    it(`refuses ${what} as a bare literal`, async () => {
      assert.ok((await unlocalised(code)) >= 1, code);
    });
  }

  it('accepts the same texts through vscode.l10n.t, codicons alone and ids', async () => {
    const code = [
      "void vscode.window.showInformationMessage(vscode.l10n.t('Uploaded {0} files.', 3), vscode.l10n.t('Show Log'));",
      "void vscode.window.showQuickPick([{ label: vscode.l10n.t('Sync now'), description: '$(sync)' }]);",
      "const item = vscode.window.createStatusBarItem(); item.text = '$(sync~spin)'; item.command = 'ksm.sync.now';",
    ].join('\n');
    assert.equal(await unlocalised(code), 0);
  });

  it('applies to the entry point and each feature surface, not to the vscode-free cores', async () => {
    const code = "void vscode.window.showInformationMessage('Uploaded the files.');";
    assert.equal(await unlocalised(code, 'src/extension.ts'), 1);
    assert.equal(await unlocalised(code, 'src/upload/uploadFeature.ts'), 1);
    assert.equal(await unlocalised(code, 'src/common/vscode/l10nProbe.ts'), 1);
  });
});

describe('lint: texts of the service client and the sync engine go through l10n.t of @vscode/l10n', () => {
  const CORE = 'src/api/l10nProbe.ts';
  async function coreUnlocalised(code: string, filePath = CORE): Promise<number> {
    const [result] = await eslint.lintText(`import * as l10n from '@vscode/l10n';\n${code}\n`, { filePath });
    assert.ok(result);
    return result.messages.filter((m) => m.ruleId === 'no-restricted-syntax' && /l10n\.t/.test(m.message)).length;
  }
  const refused: Array<[string, string]> = [
    ["an error's message", "throw new Error('Could not read the file.');"],
    ["a KSM error's template message", "const what = l10n.t('Listing files'); export const e = new RangeError(`${what} failed: not found.`);"],
    ['a conditional message', "const ok = true; export const e = new TypeError(ok ? 'the service closed the connection' : l10n.t('x'));"],
    ["a call's what", "export const call = { what: 'Listing files of the volume' };"],
    ['a what kept in a variable', "export function f(): string { const what = 'Chat stream'; return what; }"],
    ['a request refusal', "declare function refuse(param: string, message: string): never; refuse('volume', 'no files to upload.');"],
    ["a manifest's reason", "export const r = { state: 'unusable', reason: 'a pending deletion is malformed' };"],
  ];
  for (const [what, code] of refused) {
    it(`refuses ${what} as a bare literal`, async () => {
      assert.ok((await coreUnlocalised(code)) >= 1, code);
    });
  }

  it('accepts the texts through l10n.t, ids, keys and codes', async () => {
    const code = [
      "export const e = Object.assign(new Error(l10n.t('{0} failed: not found.', 'x')), { code: 'EISDIR' });",
      "declare function refuse(param: string, message: string): never; refuse('volume', l10n.t('no files to upload.'));",
      "export const d = { rel: 'a', reason: 'removed', message: 'message' };",
      'export class SyncStoppedError extends Error { constructor(m: string, public why: string) { super(m); } }',
      "export const s = new SyncStoppedError(l10n.t('Stopped.'), 'config');",
    ].join('\n');
    assert.equal(await coreUnlocalised(code), 0);
  });

  it('applies to src/api and the sync engine, not to the webview-shared parameter table', async () => {
    const code = "throw new Error('Could not read the file.');";
    assert.equal(await coreUnlocalised(code, 'src/sync/core/l10nProbe.ts'), 1);
    assert.equal(await coreUnlocalised(code, 'src/api/chatParameterLimits.ts'), 0);
  });
});
