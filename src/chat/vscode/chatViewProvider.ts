// The Chat view: serves the webview bundle under a strict CSP, validates every message it
// receives, and routes them to the session (conversation work) or to the editor actions.
// Nothing is posted before the webview says `ready`; with retainContextWhenHidden off the
// page is rebuilt on every re-show and gets its state again from `init`.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { Log } from '../../common/vscode/log';
import { planCitationOpen } from '../core/citationReveal';
import type { CitationDocuments, ContextPickers } from './chatContext';
import { MAX_TEXT_CHARS } from '../core/conversationModel';
import { isViewMessage, type ChatSession, type ViewMessage } from '../panel/chatSession';
import { bootstrapMeta, pageLanguage } from '../panel/bootstrap';
import { parseWebviewMessage } from '../panel/messageValidation';
import type { AttachmentView, HandlerMap, HostToWebview, WebviewBootstrap, WebviewToHost } from '../protocol';
import { copyToClipboard, insertCodeAtSelection, openCodeInNewFile, openExternalLink } from './webviewActions';
import { COMMAND, VIEW_ID } from '../../common/core/contributionIds';

export const CHAT_VIEW_ID = VIEW_ID.chat;

export class ChatViewProvider implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private pendingPrefill: Extract<HostToWebview, { type: 'prefill' }> | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly session: () => ChatSession,
    private readonly log: Log,
    private readonly revealFile: (volume: string, fileId: string) => Promise<void>,
    private readonly passages: CitationDocuments,
    private readonly pickers: ContextPickers,
    /** Whether a service is set up; the empty chat shows the two ways to connect until it is. */
    private readonly isConnected: () => Promise<boolean> = async () => true,
    /** Opens the model picker for the open conversation (modelPicker.ts). */
    private readonly pickModel: () => Promise<void> = async () => undefined,
  ) {}

  /** The address or the key changed: the in-chat welcome switches between "connect" and example questions. */
  async connectionChanged(): Promise<void> {
    if (this.ready) this.post({ type: 'connection', connected: await this.isConnected() });
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const webviewRoot = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    view.webview.options = { enableScripts: true, localResourceRoots: [webviewRoot] };
    // The webview's strings come from the extension's bundle for VS Code's language (issue 26).
    view.webview.html = renderChatHtml(view.webview, webviewRoot, { language: vscode.env.language, l10n: vscode.l10n.bundle });
    const subscriptions = [
      view.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)),
      // A hidden view's page is destroyed; it announces itself with `ready` when rebuilt.
      view.onDidChangeVisibility(() => {
        if (!view.visible) this.ready = false;
      }),
    ];
    view.onDidDispose(() => {
      subscriptions.forEach((s) => s.dispose());
      if (this.view === view) {
        this.view = undefined;
        this.ready = false;
      }
    });
  }

  post(message: HostToWebview): void {
    if (!this.view || !this.ready) return;
    void this.view.webview.postMessage(message).then(undefined, (error: unknown) => this.log.debug(`[chat] post failed: ${String(error)}`));
  }

  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    if (this.ready) this.post({ type: 'focusComposer' });
  }

  /** Fills the composer, now if the page is up, else as soon as it says `ready`. */
  async prefill(text: string, attachments?: AttachmentView[]): Promise<void> {
    const message = { type: 'prefill' as const, text, ...(attachments ? { attachments } : {}) };
    if (this.ready) this.post(message);
    else this.pendingPrefill = message;
    await this.reveal();
  }

  /**
   * The chat's Volumes… button and KSM: Choose Volumes for This Chat…: the host's picker for
   * the open conversation; resolves true when the user chose (the chips then change).
   */
  async chooseContextVolumes(): Promise<boolean> {
    const session = this.session();
    const chosen = await this.pickers.volumes((await session.current()).contextVolumes);
    if (chosen) await session.setContextVolumes(chosen);
    return chosen !== undefined;
  }

  /** The chat's Files… button and KSM: Choose Files for This Chat…, like `chooseContextVolumes`. */
  async chooseContextFiles(): Promise<boolean> {
    const session = this.session();
    const chosen = await this.pickers.files((await session.current()).contextFiles);
    if (chosen) await session.setContextFiles(chosen);
    return chosen !== undefined;
  }

  private async receive(raw: unknown): Promise<void> {
    const message = parseWebviewMessage(raw);
    if (!message) {
      this.log.warn(`[chat] dropped an invalid message from the webview: ${describeRaw(raw)}`);
      this.explainTooLong(raw);
      return;
    }
    try {
      await this.dispatch(message);
    } catch (error) {
      this.log.error(`[chat] handling "${message.type}" failed`);
      if (error instanceof Error) this.log.error(error);
    }
  }

  /** A question over the size limit is the one rejection a user can cause: say so, and give the text back. */
  private explainTooLong(raw: unknown): void {
    const { type, text } = (typeof raw === 'object' && raw !== null ? raw : {}) as { type?: unknown; text?: unknown };
    if (type !== 'send' || typeof text !== 'string' || text.length <= MAX_TEXT_CHARS) return;
    void vscode.window.showWarningMessage(
      `The message is too long to send (${text.length.toLocaleString()} characters; the limit is ${MAX_TEXT_CHARS.toLocaleString()}). ` +
        'Shorten it, or upload the file to a volume and ask the agent about it.',
    );
    this.post({ type: 'prefill', text });
  }

  /** The messages this view handles itself; the session's map takes every other type. */
  private readonly viewHandlers = {
    ready: async () => {
      const init = await this.session().initMessage();
      this.ready = true;
      this.post(init);
      this.post({ type: 'busy', busy: this.session().busy });
      this.post({ type: 'connection', connected: await this.isConnected() });
      if (this.pendingPrefill) this.post(this.pendingPrefill);
      this.pendingPrefill = undefined;
    },
    copyCode: (m) => copyToClipboard(m.code),
    copyAnswer: async (m) => {
      const markdown = this.session().turnMarkdown(m.turnId);
      if (markdown === undefined) {
        this.log.warn(`[chat] copy of unknown turn ${m.turnId}; dropped`);
        return;
      }
      await copyToClipboard(markdown);
    },
    pickModel: () => this.pickModel(),
    readLastAnswer: async () => void (await vscode.commands.executeCommand(COMMAND.chatReadLastAnswer)),
    insertCode: async (m) => void (await insertCodeAtSelection(m.code)),
    newFileWithCode: async (m) => void (await openCodeInNewFile(m.code, m.language)),
    openLink: async (m) => void (await openExternalLink(m.href, this.log)),
    // Only these two commands, named by the protocol: the page never names a command itself.
    connect: async (m) => void (await vscode.commands.executeCommand(m.action === 'setApiKey' ? COMMAND.setApiKey : COMMAND.useLocalEmulator)),
    openCitation: async (m) => {
      const cited = this.session().citedPassage(m.turnId, m.marker);
      const plan = planCitationOpen(m.turnId, cited);
      if (plan.kind === 'refuse') {
        this.log.warn(`[chat] refused to open source [${m.marker}] of ${m.turnId}: that answer cited no such source`);
        return;
      }
      await this.passages.openCited(plan.passage, cited!);
      if (plan.reveal.kind === 'explain') void vscode.window.showInformationMessage(plan.reveal.message);
      else await this.revealFile(plan.reveal.volume, plan.reveal.fileId);
    },
    chooseContextVolumes: async () => void (await this.chooseContextVolumes()),
    chooseContextFiles: async () => void (await this.chooseContextFiles()),
  } satisfies HandlerMap<ViewMessage, Promise<void>>;

  private async dispatch(message: WebviewToHost): Promise<void> {
    if (!isViewMessage(message)) return this.session().handle(message);
    await (this.viewHandlers[message.type] as (m: ViewMessage) => Promise<void>)(message);
  }
}

/** A short, type-only description of a rejected message: its content may be huge or hostile. */
function describeRaw(raw: unknown): string {
  if (typeof raw !== 'object' || raw === null) return typeof raw;
  const type = (raw as { type?: unknown }).type;
  return `type=${typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : typeof type}, keys=${Object.keys(raw).slice(0, 10).join(',')}`;
}

/**
 * The page: one nonce'd script and one stylesheet from dist/webview, nothing inline, and a
 * CSP that forbids everything else (no network: the webview never talks to the service).
 * The bootstrap `<meta>` carries the UI language and its string bundle (protocol.ts
 * `WebviewBootstrap`).
 */
export function renderChatHtml(webview: vscode.Webview, root: vscode.Uri, bootstrap: WebviewBootstrap = { language: 'en' }): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(root, 'chat.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(root, 'chat-style.css'));
  const csp = ["default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src ${webview.cspSource}`, `img-src ${webview.cspSource} data:`, `font-src ${webview.cspSource}`, "connect-src 'none'"].join(
    '; ',
  );
  return `<!DOCTYPE html>
<html lang="${pageLanguage(bootstrap.language)}">
<head>
<meta charset="UTF-8">
${bootstrapMeta(bootstrap)}
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>KSM Chat</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
