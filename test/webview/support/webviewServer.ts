// Serves the BUILT chat webview bundle the way the host does: same CSP, nonce'd script,
// `<div id="app">`, after VS Code's own default webview stylesheet. Only `acquireVsCodeApi`
// is provided by the page (VS Code injects it into real webviews); it records what the
// webview posts so tests can assert on it.
import * as esbuild from 'esbuild';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bootstrapMeta, pageLanguage } from '../../../src/chat/panel/bootstrap';
import type { WebviewBootstrap } from '../../../src/chat/protocol';

const VSCODE_WEBVIEW_DEFAULTS = readFileSync(join(__dirname, 'vscodeWebviewDefaults.css'), 'utf8');

export interface WebviewBundle {
  script: string;
  style: string;
}

/** Builds the webview with the browser settings of esbuild.mjs (`minify` = its --production). */
export async function buildWebviewBundle(minify = false): Promise<WebviewBundle> {
  const result = await esbuild.build({
    entryPoints: { chat: 'src/webview/main.ts', 'chat-style': 'src/webview/chat.css' },
    outdir: 'dist/webview-test',
    bundle: true,
    minify,
    write: false,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    tsconfig: 'src/webview/tsconfig.json',
    legalComments: minify ? 'none' : 'inline',
    logLevel: 'silent',
  });
  const byName = (suffix: string) => result.outputFiles.find((file) => file.path.endsWith(suffix))!.text;
  return { script: byName('chat.js'), style: byName('chat-style.css') };
}

export interface PageOptions {
  /** false serves the page without any CSP, so the sanitizer is the only defence. */
  csp?: boolean;
  /** What `getState()` returns, as VS Code does after the view was hidden. */
  state?: unknown;
  /** The UI language and string bundle the host writes into the page (default: English, no bundle). */
  bootstrap?: WebviewBootstrap;
}

export class WebviewServer {
  private server: Server | undefined;
  private readonly bootstraps: WebviewBootstrap[] = [];
  origin = '';

  constructor(private readonly bundle: WebviewBundle) {}

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', this.origin);
      if (url.pathname === '/chat.js') return send(response, 'text/javascript', this.bundle.script);
      if (url.pathname === '/chat-style.css') return send(response, 'text/css', this.bundle.style);
      if (url.pathname === '/vscode-defaults.css') return send(response, 'text/css', VSCODE_WEBVIEW_DEFAULTS);
      if (url.pathname === '/webview.html') {
        const options: PageOptions = JSON.parse(url.searchParams.get('options') ?? '{}');
        const nonce = randomBytes(16).toString('base64');
        const headers: Record<string, string> = {};
        if (options.csp !== false) headers['Content-Security-Policy'] = hostCsp(this.origin, nonce);
        const bootstrap = this.bootstraps[Number(url.searchParams.get('bootstrap') ?? Number.NaN)] ?? { language: 'en' };
        return send(response, 'text/html', this.html(nonce, options.state, bootstrap), headers);
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  pageUrl(options: PageOptions = {}): string {
    // A bundle is too big for a URL: the page names it by number.
    const { bootstrap, ...rest } = options;
    const query = new URLSearchParams({ options: JSON.stringify(rest) });
    if (bootstrap) {
      this.bootstraps.push(bootstrap);
      query.set('bootstrap', String(this.bootstraps.length - 1));
    }
    return `${this.origin}/webview.html?${query.toString()}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private html(nonce: string, state: unknown, bootstrap: WebviewBootstrap): string {
    // JSON inside a script: escape `<` so no state can close the script element.
    const initialState = JSON.stringify(state ?? null).replace(/</g, '\\u003c');
    return `<!DOCTYPE html>
<html lang="${pageLanguage(bootstrap.language)}"><head><meta charset="UTF-8">${bootstrapMeta(bootstrap)}<title>KSM Chat</title>
<link href="${this.origin}/vscode-defaults.css" rel="stylesheet">
<link href="${this.origin}/chat-style.css" rel="stylesheet">
<script nonce="${nonce}">
  window.__posted = []; window.__violations = []; window.__state = ${initialState};
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  window.acquireVsCodeApi = () => ({
    postMessage: (message) => window.__posted.push(JSON.parse(JSON.stringify(message))),
    getState: () => window.__state,
    setState: (state) => { window.__state = state; },
  });
</script>
</head><body><div id="app"></div>
<script nonce="${nonce}" src="${this.origin}/chat.js"></script>
</body></html>`;
  }
}

/** The CSP ChatViewProvider sets, with the test server standing in for `webview.cspSource`. */
export function hostCsp(cspSource: string, nonce: string): string {
  return ["default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src ${cspSource}`, `img-src ${cspSource} data:`, `font-src ${cspSource}`].join('; ');
}

function send(response: import('node:http').ServerResponse, type: string, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(200, { 'Content-Type': `${type}; charset=utf-8`, 'Cache-Control': 'no-store', ...headers });
  response.end(body);
}
