// Debian's Chromium, headless, through playwright-core, one fresh profile per launch.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { HostToWebview, WebviewToHost } from '../../../src/chat/protocol';
import type { PageOptions, WebviewServer } from './webviewServer';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../../support/chromium';

export class HeadlessChromium {
  private constructor(
    readonly context: BrowserContext,
    private readonly profile: string,
  ) {}

  static async launch(): Promise<HeadlessChromium> {
    const profile = mkdtempSync(join(tmpdir(), 'ksm-webview-profile-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [...CHROMIUM_FLAGS],
      viewport: { width: 420, height: 700 },
    });
    return new HeadlessChromium(context, profile);
  }

  async close(): Promise<void> {
    await this.context.close();
    rmSync(this.profile, { recursive: true, force: true });
  }
}

/** What the page may look at from Node: the stub's records. */
interface PageRecords {
  __posted: WebviewToHost[];
  __violations: string[];
  __state: unknown;
}

/** The few browser globals used inside `page.evaluate` (tests compile without the DOM lib). */
export interface PageWindow {
  postMessage(message: unknown, targetOrigin: string): void;
  requestAnimationFrame(callback: (time: number) => void): number;
}

/** One loaded webview page plus everything it did that a test may want to refuse. */
export class WebviewPage {
  readonly requests: string[] = [];
  readonly dialogs: string[] = [];
  readonly consoleMessages: string[] = [];
  readonly popups: string[] = [];
  readonly pageErrors: string[] = [];

  private constructor(readonly page: Page) {
    page.on('request', (request) => this.requests.push(request.url()));
    page.on('dialog', (dialog) => {
      this.dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => this.consoleMessages.push(message.text()));
    page.on('popup', (popup) => this.popups.push(popup.url()));
    page.on('pageerror', (error) => this.pageErrors.push(error.message));
  }

  static async open(browser: HeadlessChromium, server: WebviewServer, options: PageOptions = {}): Promise<WebviewPage> {
    const page = await browser.context.newPage();
    const webview = new WebviewPage(page);
    await page.goto(server.pageUrl(options));
    await webview.waitForPosted((message) => message.type === 'ready');
    return webview;
  }

  /** Delivers a host message the way VS Code does: a `message` event on the window. */
  async hostPost(...messages: HostToWebview[]): Promise<void> {
    await this.page.evaluate((list) => {
      const window = globalThis as unknown as PageWindow;
      for (const message of list) window.postMessage(message, '*');
    }, messages);
  }

  /** Waits until the webview has applied everything posted so far (two animation frames). */
  async settle(): Promise<void> {
    await this.page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const window = globalThis as unknown as PageWindow;
          setTimeout(() => window.requestAnimationFrame(() => window.requestAnimationFrame(() => resolve())), 0);
        }),
    );
  }

  async posted(): Promise<WebviewToHost[]> {
    return this.page.evaluate(() => (globalThis as unknown as PageRecords).__posted);
  }

  async clearPosted(): Promise<void> {
    await this.page.evaluate(() => {
      (globalThis as unknown as PageRecords).__posted.length = 0;
    });
  }

  async violations(): Promise<string[]> {
    return this.page.evaluate(() => (globalThis as unknown as PageRecords).__violations);
  }

  async state(): Promise<unknown> {
    return this.page.evaluate(() => (globalThis as unknown as PageRecords).__state);
  }

  async waitForPosted(match: (message: WebviewToHost) => boolean): Promise<WebviewToHost> {
    for (let attempt = 0; attempt < 200; attempt++) {
      const found = (await this.posted()).find(match);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`webview never posted the expected message; got ${JSON.stringify(await this.posted())}`);
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}
