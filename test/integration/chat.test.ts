// The chat's VS Code side in a real extension host: its commands exist, the selection
// prefill reads the real editor, export opens a Markdown editor with a conversation the
// emulator answered, and the webview's editor/browser requests do only what they name.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { KsmClient } from '../../src/api/client';
import { askAboutFilePlan, askAboutSelectionPlan, openMarkdownExport } from '../../src/chat/vscode/commands';
import { ChatSession } from '../../src/chat/panel/chatSession';
import { renderChatHtml } from '../../src/chat/vscode/chatViewProvider';
import { ConversationStore } from '../../src/chat/core/conversationStore';
import { copyToClipboard, insertCodeAtSelection, openCodeInNewFile, openExternalLink } from '../../src/chat/vscode/webviewActions';
import { Log } from '../../src/common/vscode/log';
import { requiredEnv, runnerContext } from './host';

const CHAT_COMMANDS = ['ksm.chat.new', 'ksm.chat.askAboutSelection', 'ksm.chat.askAboutFile', 'ksm.chat.conversations', 'ksm.chat.export'];

async function openUntitled(content: string, language: string): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument({ content, language });
  return vscode.window.showTextDocument(document);
}

describe('chat: VS Code integration', () => {
  let log: Log;
  before(async () => {
    await vscode.extensions.getExtension('ksm.ksm-assistant')?.activate();
    log = new Log(vscode.window.createOutputChannel('KSM chat integration test', { log: true }));
  });
  after(async () => {
    log.dispose();
    // Untitled editors with text would ask "Save?" on a plain close and block the suite.
    for (const document of vscode.workspace.textDocuments.filter((d) => d.isUntitled)) {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });

  it('registers every chat command and the chat view', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      CHAT_COMMANDS.filter((id) => !registered.has(id)),
      [],
    );
    assert.ok(registered.has('ksm.chat.focus'), 'the Chat webview view is contributed and focusable');
    await vscode.commands.executeCommand('ksm.chat.focus');
  });

  it('attaches the selection as code context with the file name, language and lines', async () => {
    const editor = await openUntitled('const a = 1;\nconst b = 2;\nconst c = 3;\n', 'typescript');
    editor.selection = new vscode.Selection(1, 0, 2, 12);
    const plan = await askAboutSelectionPlan(editor);
    assert.equal(plan?.kind, 'attach', 'a selection is attached');
    const code = plan?.kind === 'attach' ? plan.code : undefined;
    assert.match(code?.filename ?? '', /^Untitled-\d+$/);
    assert.deepEqual({ languageId: code?.languageId, lines: code?.lines, text: code?.text }, { languageId: 'typescript', lines: { start: 2, end: 3 }, text: 'const b = 2;\nconst c = 3;' });
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    assert.equal(await askAboutSelectionPlan(editor), undefined, 'an empty selection gives nothing');
    editor.selection = new vscode.Selection(0, 0, 0, 12);
    // Runs the real command on the real editor; it must finish without an error notification.
    await vscode.commands.executeCommand('ksm.chat.askAboutSelection');
  });

  it('asks about a small real file: attached whole under its name and language, without asking', async () => {
    const path = join(requiredEnv('KSM_TEST_WORKSPACE'), 'docs', 'guides', 'release-process.md');
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(path)));
    const content = editor.document.getText();
    assert.ok(content.length > 0 && !content.includes('```'), 'the fixture is a small markdown file without fences');
    assert.deepEqual(await askAboutFilePlan(editor.document), { kind: 'attach', code: { filename: 'release-process.md', languageId: 'markdown', text: content } });
    // The real command on the real editor: a small file must not raise the size question
    // (a modal would keep this promise from settling and time the test out).
    await vscode.commands.executeCommand('ksm.chat.askAboutFile');
  });

  it('refuses to attach a private file or a private key, naming which and why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ksm-ask-private-'));
    writeFileSync(join(dir, '.env'), 'API_TOKEN=s3cret\n');
    const env = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(join(dir, '.env'))));
    const plan = await askAboutFilePlan(env.document);
    assert.equal(plan.kind, 'refuse');
    assert.match(plan.kind === 'refuse' ? plan.message : '', /^Left out: '\.env' looks like a credential: .*Private files are never sent as chat context\.$/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    const keyed = await openUntitled('notes\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----\n', 'plaintext');
    keyed.selection = new vscode.Selection(0, 0, 4, 0);
    const selection = await askAboutSelectionPlan(keyed);
    assert.match(selection?.kind === 'refuse' ? selection.message : '', /contains a private key/);
  });

  it('exports a conversation the emulator answered as Markdown in a new editor', async () => {
    const root = join(runnerContext().globalStorageUri.fsPath, `chat-${randomBytes(4).toString('hex')}`);
    const apiKey = requiredEnv('KSM_TEST_API_KEY');
    const session = new ChatSession(new ConversationStore(root), {
      getService: () => new KsmClient({ baseUrl: requiredEnv('KSM_TEST_BASE_URL'), apiKey: async () => apiKey }),
      getOptions: () => ({ models: ['emu-chat'], reasoningModels: [], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat' }),
      getVolumes: () => [],
      post: () => undefined,
      log,
    });
    const outcome = await session.send('Summarize volumes for the export test');
    assert.equal(outcome?.state, 'done');
    const conversation = await session.current();
    const editor = await openMarkdownExport(conversation);
    assert.equal(editor.document.languageId, 'markdown');
    assert.equal(editor.document.isUntitled, true);
    const text = editor.document.getText();
    assert.ok(text.startsWith('# Summarize volumes for the export test\n'), text.slice(0, 200));
    assert.ok(text.includes('## You\n\nSummarize volumes for the export test'));
    assert.ok(text.includes(conversation.turns[1].content.slice(0, 40)), 'the answer text is exported');
    await session.dispose();
  });

  it('refuses to open command:, file: and other non-web links, and runs nothing', async () => {
    const documentsBefore = vscode.workspace.textDocuments.length;
    for (const href of ['command:workbench.action.files.newUntitledFile', 'command:ksm.clearApiKey', 'file:///etc/passwd', 'vscode://ksm.ksm-assistant/x', 'javascript:alert(1)']) {
      assert.equal(await openExternalLink(href, log), false, href);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(vscode.workspace.textDocuments.length, documentsBefore, 'no command ran and no file opened');
  });

  it('inserts code at the selection of the active editor only', async () => {
    const editor = await openUntitled('hello world', 'plaintext');
    editor.selection = new vscode.Selection(0, 6, 0, 11);
    assert.equal(await insertCodeAtSelection('there'), true);
    assert.equal(editor.document.getText(), 'hello there');
  });

  it('opens code in a new file with a known language, plain text otherwise, and copies code', async () => {
    const python = await openCodeInNewFile('print(1)\n', 'py');
    assert.equal(python.document.languageId, 'python');
    assert.equal(python.document.getText(), 'print(1)\n');
    const unknown = await openCodeInNewFile('x', 'not-a-language');
    assert.equal(unknown.document.languageId, 'plaintext');
    await copyToClipboard('copied code');
    assert.equal(await vscode.env.clipboard.readText(), 'copied code');
  });

  it('serves the page under a nonce CSP with only dist/webview resources and no inline script', () => {
    const panel = vscode.window.createWebviewPanel('ksm.chatHtmlTest', 'CSP test', vscode.ViewColumn.Active, { enableScripts: true });
    try {
      const root = vscode.Uri.joinPath(vscode.extensions.getExtension('ksm.ksm-assistant')!.extensionUri, 'dist', 'webview');
      const html = renderChatHtml(panel.webview, root);
      const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
      assert.ok(nonce && nonce.length >= 22, csp);
      assert.ok(csp.startsWith("default-src 'none'"));
      assert.ok(csp.includes("connect-src 'none'"));
      assert.ok(csp.includes(`style-src ${panel.webview.cspSource}`));
      const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
      assert.equal(scripts.length, 1);
      assert.ok(scripts[0].includes(`nonce="${nonce}"`) && scripts[0].includes('chat.js'), scripts[0]);
      assert.ok(html.includes('<div id="app"></div>'));
      assert.notEqual(/nonce-([^']+)/.exec(renderChatHtml(panel.webview, root))?.[1], nonce, 'a fresh nonce per page');
    } finally {
      panel.dispose();
    }
  });
});
