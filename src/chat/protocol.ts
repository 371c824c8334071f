// PLACEHOLDER: the typed host <-> webview messages (issue 6) go here.
export type HostToWebview = { type: 'init' };
export type WebviewToHost = { type: 'ready' };
