import { join } from 'node:path';
import type { BrowserContext, FrameLocator, Locator, Page } from 'playwright-core';
import { eventually } from './eventually';

/**
 * The code-server workbench as a user sees it. Selectors are VS Code's own DOM (1.100):
 * tree rows are `.monaco-list-row`, notifications `.notification-list-item-message`, the
 * command palette and pickers `.quick-input-widget`.
 */
export class Workbench {
  constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    private readonly resultsDir: string,
  ) {}

  /**
   * The workbench in the context's first page; with `newWindow`, in a new page of the same
   * context: a second VS Code window (its own extension host) on the same workspace.
   */
  static async open(context: BrowserContext, url: string, resultsDir: string, options: { newWindow?: boolean } = {}): Promise<Workbench> {
    const page = (options.newWindow ? undefined : context.pages()[0]) ?? (await context.newPage());
    const workbench = new Workbench(context, page, resultsDir);
    await page.goto(url);
    await workbench.waitUntilReady();
    return workbench;
  }

  /** The workbench is up and the extension's activity-bar entry is contributed. */
  async waitUntilReady(): Promise<void> {
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await this.activityBarEntry().waitFor({ timeout: 60_000 });
  }

  activityBarEntry(): Locator {
    return this.page.locator('.activitybar .action-item [aria-label^="KSM Assistant"]').first();
  }

  /**
   * Opens the KSM Assistant side bar (the Volumes view). Clicking an entry that is already
   * active closes the side bar, and right after a reload the workbench marks the entry active
   * before it has drawn the panes; so click only an inactive entry, and otherwise wait for the
   * pane. Volumes and the chat have a container each (issue 14, defect 2): a view alone in its
   * container has its header merged into the side bar's title, so the pane is what shows.
   */
  async openKsmSideBar(): Promise<void> {
    await this.openContainer('KSM Assistant', 'Volumes');
  }

  /** Opens the KSM Chat container (the chat webview alone, full height). */
  async openKsmChat(): Promise<void> {
    await this.openContainer('KSM Chat', 'Chat');
  }

  private async openContainer(title: string, view: string): Promise<void> {
    await eventually(
      async () => {
        if (await this.pane(view).isVisible()) return true;
        const entry = this.page.locator(`.activitybar .action-item:has([aria-label^="${title}"])`).first();
        const active = /\bchecked\b/.test((await entry.getAttribute('class')) ?? '');
        if (!active) await entry.locator(`[aria-label^="${title}"]`).first().click();
        return false;
      },
      () => `the ${title} side bar never showed its ${view} pane`,
      30_000,
      500,
    );
  }

  /** Preferences: Color Theme, then the theme by its exact label, as a user picks it. */
  async setColorTheme(label: string): Promise<void> {
    await this.runCommand('Preferences: Color Theme');
    await this.quickInputBox().fill(label);
    const row = this.quickInputRows()
      .filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) })
      .first();
    await row.waitFor();
    await row.click();
    await this.quickInput().waitFor({ state: 'hidden' });
  }

  /**
   * Drags the side bar's sash until the side bar is `width` px wide (VS Code stops it at its
   * minimum, 170 px), as a user resizes it.
   */
  async setSideBarWidth(width: number): Promise<void> {
    const sideBar = this.page.locator('.part.sidebar');
    for (let attempt = 0; attempt < 3; attempt++) {
      const box = await sideBar.boundingBox();
      if (!box) throw new Error('the side bar is not shown');
      if (Math.abs(box.width - width) <= 2) return;
      const y = box.y + box.height / 2;
      await this.page.mouse.move(box.x + box.width - 1, y);
      await this.page.mouse.down();
      await this.page.mouse.move(box.x + (box.width + width) / 2, y, { steps: 5 });
      await this.page.mouse.move(box.x + width, y, { steps: 5 });
      await this.page.mouse.up();
    }
  }

  /**
   * A view's title-bar action (Refresh, New Chat…): in the pane header when the view shares
   * its container, in the side bar's title when it is alone there.
   */
  async viewAction(view: string, label: string): Promise<Locator> {
    const header = this.paneHeader(view);
    if (await header.isVisible()) {
      await header.hover();
      return header.locator(`.action-label[aria-label="${label}"]`);
    }
    const title = this.page.locator('.part.sidebar > .composite.title');
    await title.hover();
    return title.locator(`.action-label[aria-label="${label}"]`);
  }

  async openExplorer(): Promise<void> {
    if (await this.page.locator('.explorer-folders-view').isVisible()) return;
    await this.page.keyboard.press('Control+Shift+E');
    await this.page.locator('.explorer-folders-view').waitFor();
  }

  paneHeader(view: string): Locator {
    return this.page.locator(`.pane-header[aria-label="${view} Section"]`);
  }

  pane(view: string): Locator {
    return this.page.locator('.pane').filter({ has: this.paneHeader(view) });
  }

  volumesWelcome(): Locator {
    return this.pane('Volumes').locator('.welcome-view-content');
  }

  volumesTree(): Locator {
    return this.page.locator('[role="tree"][aria-label="Volumes"]');
  }

  volumesRows(): Locator {
    return this.volumesTree().locator('.monaco-list-row');
  }

  /** The tree row whose label is exactly `label` (description and status excluded). */
  volumesRow(label: string): Locator {
    return this.volumesRows().filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`) }) });
  }

  explorerRow(name: string): Locator {
    return this.page.locator('.explorer-folders-view .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(name)}$`) }) });
  }

  quickInput(): Locator {
    return this.page.locator('.quick-input-widget');
  }

  quickInputBox(): Locator {
    return this.quickInput().locator('.quick-input-box input');
  }

  quickInputRows(): Locator {
    return this.quickInput().locator('.quick-input-list .monaco-list-row');
  }

  /** Runs a command through the palette (Ctrl+Shift+P), by its title as a user types it. */
  async runCommand(title: string): Promise<void> {
    // Under load the shortcut is sometimes swallowed while focus moves (seen after typing in
    // the Settings editor), and the palette can close again right after it opened, when a
    // late focus change (the Settings editor committing its field) takes focus from it. So
    // opening and typing are one step, tried again a few times before giving up.
    for (let attempt = 1; ; attempt++) {
      const lastAttempt = attempt >= 4;
      try {
        await this.page.locator('.monaco-workbench').click({ position: { x: 700, y: 5 } });
        await this.page.keyboard.press('Control+Shift+P');
        await this.quickInputBox().waitFor({ timeout: lastAttempt ? 30_000 : 8_000 });
        await this.quickInputBox().fill(`>${title}`, { timeout: lastAttempt ? 30_000 : 5_000 });
        break;
      } catch (error) {
        if (lastAttempt) throw error;
        await this.page.keyboard.press('Escape');
      }
    }
    const row = this.quickInputRows().filter({ hasText: title }).first();
    await row.waitFor();
    await row.click();
  }

  /**
   * The notification whose text matches, as a toast or, when VS Code put it straight into the
   * notification center (it does so under load, or while another toast holds the slot), in the
   * opened center. Undefined while it is in neither.
   */
  async findNotification(text: RegExp): Promise<Locator | undefined> {
    const toast = this.page.locator('.notification-toast .notification-list-item').filter({ hasText: text });
    if ((await toast.count()) > 0) return toast.first();
    const center = this.page.locator('.notifications-center .notification-list-item').filter({ hasText: text });
    if (!(await this.page.locator('.notifications-center.visible').count())) {
      await this.runCommand('Notifications: Show Notifications');
    }
    return (await center.count()) > 0 ? center.first() : undefined;
  }

  /** Picks the quick-pick entry whose text matches. */
  async pick(text: string | RegExp): Promise<void> {
    const row = this.quickInputRows().filter({ hasText: text }).first();
    await row.waitFor();
    // The pointer may still rest on the row the last click chose, and that row's hover (VS Code
    // keeps a hover open while the pointer is on it) can cover this one; the click would then
    // land on the hover forever. Move the pointer off the list and let the hover close first.
    await this.page.mouse.move(0, 0);
    await this.page
      .locator('.monaco-hover:not(.hidden), .workbench-hover')
      .first()
      .waitFor({ state: 'hidden', timeout: 5_000 })
      .catch(() => undefined);
    await row.click();
  }

  async typeInQuickInput(text: string): Promise<void> {
    await this.quickInputBox().waitFor();
    await this.quickInputBox().fill(text);
    await this.quickInputBox().press('Enter');
  }

  /**
   * Right-clicks `target` and chooses a context-menu entry by its label. The menu can
   * swallow a click that lands while it is still laying out (a tree refresh underneath
   * re-renders it), so a click that leaves the menu open is followed by Enter on the
   * focused entry; the menu closing is the proof the entry ran.
   */
  async contextMenu(target: Locator, entry: string): Promise<void> {
    await target.click({ button: 'right' });
    const menu = this.page.locator('.monaco-menu');
    const item = menu
      .locator('.action-item')
      .filter({ has: this.page.locator('.action-label', { hasText: new RegExp(`^${escapeRegExp(entry)}$`) }) })
      .first();
    await item.waitFor();
    await item.hover();
    await item.click();
    const closed = await menu
      .first()
      .waitFor({ state: 'hidden', timeout: 2000 })
      .then(
        () => true,
        () => false,
      );
    if (!closed) {
      await item.hover();
      await this.page.keyboard.press('Enter');
      await menu.first().waitFor({ state: 'hidden', timeout: 5000 });
    }
  }

  notifications(): Locator {
    return this.page.locator('.notification-list-item-message');
  }

  /** The button of a modal dialog (`showWarningMessage(…, { modal: true })`). */
  dialogButton(label: string): Locator {
    return this.page.locator('.monaco-dialog-box .dialog-buttons a.monaco-button, .monaco-dialog-box .dialog-buttons .monaco-button').filter({ hasText: new RegExp(`^${escapeRegExp(label)}$`) });
  }

  /**
   * The chat webview's own page. A webview is two iframes deep in VS Code; the Chat view
   * is the extension's only webview.
   */
  chatFrame(): FrameLocator {
    return this.page.frameLocator('iframe.webview').first().frameLocator('#active-frame');
  }

  async screenshot(name: string): Promise<void> {
    await this.page.screenshot({ path: join(this.resultsDir, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`) }).catch(() => undefined);
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
