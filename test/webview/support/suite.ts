// One webview bundle served on loopback and one headless Chromium per suite: the before/after
// pair every webview suite needs, so a suite only says what it checks.
import { strict as assert } from 'node:assert';
import { HeadlessChromium, WebviewPage } from './chromium';
import { buildWebviewBundle, WebviewServer, type PageOptions } from './webviewServer';

export interface WebviewSuite {
  readonly browser: HeadlessChromium;
  readonly server: WebviewServer;
  /** A fresh page of the chat webview in this suite's browser. */
  openPage(options?: PageOptions): Promise<WebviewPage>;
}

/** Registers the suite's before/after hooks; call it inside `describe`. */
export function useWebviewSuite(): WebviewSuite {
  let browser: HeadlessChromium | undefined;
  let server: WebviewServer | undefined;
  before(async () => {
    server = new WebviewServer(await buildWebviewBundle());
    await server.start();
    browser = await HeadlessChromium.launch();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the webview suite has not started (use it inside describe, from a test or hook)');
    return value;
  };
  return {
    get browser() {
      return started(browser);
    },
    get server() {
      return started(server);
    },
    openPage: (options) => WebviewPage.open(started(browser), started(server), options),
  };
}

/**
 * A fresh page before each test (its posted messages cleared unless `keepPosted`), handed
 * to the suite's own `let webview` through `onOpen`; after each test the page must have had
 * no error, and it is closed either way.
 */
export function useFreshPage(suite: WebviewSuite, onOpen: (page: WebviewPage) => void, { keepPosted = false } = {}): void {
  let page: WebviewPage | undefined;
  beforeEach(async () => {
    page = await suite.openPage();
    if (!keepPosted) await page.clearPosted();
    onOpen(page);
  });
  afterEach(async () => {
    const current = page;
    page = undefined;
    if (!current) return;
    try {
      assert.deepEqual(current.pageErrors, []);
    } finally {
      await current.close();
    }
  });
}
