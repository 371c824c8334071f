// How every browser-based suite (webview tests, webview bench, end to end) starts Debian's
// Chromium here. The flags were measured on the offline test machine: without the
// background-networking ones Chromium floods the closed network with refused connections.

/** `KSM_E2E_CHROMIUM` names another browser binary. */
export const CHROMIUM_PATH = process.env.KSM_E2E_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
