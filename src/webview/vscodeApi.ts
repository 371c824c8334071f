import type { HostToWebview, WebviewToHost } from '../chat/protocol';

/** What survives the view being hidden and shown again (VS Code keeps it per webview). */
export interface PersistedState {
  draft: string;
  scrollTop: number;
  conversationId?: string;
}

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export class HostBridge {
  private readonly api: VsCodeApi = acquireVsCodeApi();

  post(message: WebviewToHost): void {
    this.api.postMessage(message);
  }

  loadState(): PersistedState {
    const raw = this.api.getState() as Partial<PersistedState> | undefined;
    return {
      draft: typeof raw?.draft === 'string' ? raw.draft : '',
      scrollTop: typeof raw?.scrollTop === 'number' ? raw.scrollTop : 0,
      conversationId: typeof raw?.conversationId === 'string' ? raw.conversationId : undefined,
    };
  }

  saveState(state: PersistedState): void {
    this.api.setState(state);
  }

  onMessage(handler: (message: HostToWebview) => void): void {
    window.addEventListener('message', (event: MessageEvent) => {
      const data: unknown = event.data;
      // Only the host posts into this frame; the shape check guards against stray
      // messages from extensions of the page itself (dev tools, tests).
      if (typeof data === 'object' && data !== null && typeof (data as { type?: unknown }).type === 'string') {
        handler(data as HostToWebview);
      }
    });
  }
}
