// PLACEHOLDER: the chat webview app (issue 6).
import type { WebviewToHost } from '../chat/protocol';
declare function acquireVsCodeApi(): { postMessage(message: WebviewToHost): void };
acquireVsCodeApi().postMessage({ type: 'ready' });
