import type { Locator, Page } from 'playwright-core';
import { eventually } from '../harness/eventually';
import { escapeRegExp, type Workbench } from '../harness/workbench';

const RESPONSE = '.interactive-item-container.interactive-response';

/**
 * VS Code's own Chat view (1.139) as a user drives it: the model and mode pickers in the
 * input toolbar, the input box, Send and Stop, and the responses. Selectors are VS Code's
 * DOM: the input is an EditContext textbox inside `.interactive-input-editor`, responses
 * are `.interactive-response` rows of `.interactive-session`.
 */
export class VsCodeChat {
  constructor(readonly workbench: Workbench) {}

  get page(): Page {
    return this.workbench.page;
  }

  session(): Locator {
    return this.page.locator('.interactive-session').first();
  }

  input(): Locator {
    return this.session().locator('.interactive-input-editor .native-edit-context, .interactive-input-editor textarea').first();
  }

  modelPicker(): Locator {
    return this.session().locator('a.model-picker-name').first();
  }

  modePicker(): Locator {
    return this.session()
      .locator('.chat-input-toolbars a.action-label[aria-haspopup="true"]')
      .filter({ hasText: /^(Agent|Ask|Plan)$/ })
      .first();
  }

  /**
   * The newest answer. VS Code's chat list is virtual: a row scrolled out of view leaves the
   * DOM, and the DOM keeps rows in no particular order, so neither a count of answer rows
   * nor the DOM's last one finds it. (Counting rows once made a sent follow-up look unsent
   * in CI, with the first answer scrolled out of view; a 420-pixel-high window repeats it.)
   * Each row's `data-index` is its place in the list.
   */
  async newestResponse(): Promise<Locator> {
    const index = await this.newestIndex(RESPONSE);
    return this.session().locator(`.monaco-list-row[data-index="${index}"] ${RESPONSE}`);
  }

  /** The list position of the newest rendered row holding `item`, or -1. */
  private async newestIndex(item: string): Promise<number> {
    return this.session()
      .locator('.monaco-list-row')
      .filter({ has: this.page.locator(item) })
      .evaluateAll((rows) => Math.max(-1, ...rows.map((row) => Number(row.getAttribute('data-index') ?? -1))));
  }

  /** Opens the Chat view (Ctrl+Alt+I) and closes the "BYOK utility models" notice that would take focus. */
  async open(): Promise<void> {
    if (
      !(await this.session()
        .locator('.interactive-input-part')
        .isVisible()
        .catch(() => false))
    ) {
      await this.page.keyboard.press('Control+Alt+I');
    }
    await this.session().locator('.interactive-input-part').waitFor({ timeout: 30_000 });
    const notice = this.session().locator('.chat-input-notice [aria-label="Dismiss notification"], .chat-input-notice .codicon-close').first();
    if (await notice.isVisible().catch(() => false)) await notice.click().catch(() => undefined);
  }

  /**
   * Picks a model by its picker label. The picker lists extension models only once their
   * provider answered; "Manage Models..." (the Language Models editor) asks every provider,
   * as a user does once to enable a new vendor.
   */
  async pickModel(label: string): Promise<void> {
    const entry = () =>
      this.page
        .locator('.context-view .monaco-list-row, .context-view .action-item')
        .filter({ hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\b`) })
        .first();
    await eventually(
      async () => {
        if (new RegExp(`Models, ${escapeRegExp(label)}$`).test((await this.modelPicker().getAttribute('aria-label')) ?? '')) return true;
        await this.modelPicker().click();
        const listed = await entry()
          .waitFor({ timeout: 3000 })
          .then(
            () => true,
            () => false,
          );
        if (listed) {
          await entry().click();
          return false;
        }
        const manage = this.page
          .locator('.context-view')
          .getByText(/^Manage Models/)
          .first();
        if (await manage.isVisible().catch(() => false)) {
          await manage.click();
          await this.page.locator('.monaco-editor-pane, .monaco-dialog-box, .editor-instance').getByText(label, { exact: true }).first().waitFor({ timeout: 15_000 });
          await this.page.keyboard.press('Escape');
        } else {
          await this.page.keyboard.press('Escape');
        }
        return false;
      },
      async () => `the chat's model picker never showed "${label}" (it shows "${await this.modelPicker().getAttribute('aria-label')}")`,
      60_000,
      500,
    );
  }

  async pickMode(mode: 'Ask' | 'Agent'): Promise<void> {
    await eventually(
      async () => {
        if (((await this.modePicker().textContent()) ?? '').trim() === mode) return true;
        await this.modePicker().click();
        const item = this.page
          .locator('.context-view .action-item, .context-view .monaco-list-row')
          .filter({ hasText: new RegExp(`^\\s*${mode}\\b`) })
          .first();
        if (
          await item.waitFor({ timeout: 3000 }).then(
            () => true,
            () => false,
          )
        )
          await item.click();
        else await this.page.keyboard.press('Escape');
        return false;
      },
      async () => `the chat mode never became ${mode} (it is "${await this.modePicker().textContent()}")`,
      30_000,
      500,
    );
  }

  /**
   * Types the message into the chat input and sends it with the Send button. Not with Enter:
   * VS Code's @-suggestions can open after the text is typed, and Enter then accepts one (in
   * CI the input became "@askQuestions " and nothing was sent). A suggest widget still open
   * is closed before the text is checked, so what is sent is what was typed.
   */
  async send(text: string): Promise<void> {
    const before = await this.newestIndex(RESPONSE);
    const inputText = async () =>
      (
        (await this.session()
          .locator('.interactive-input-editor .view-lines')
          .innerText()
          .catch(() => '')) ?? ''
      )
        .replace(/\s+/g, ' ')
        .trim();
    await eventually(
      async () => {
        await this.input().focus();
        await this.page.keyboard.press('Control+A');
        await this.page.keyboard.press('Backspace');
        await this.page.keyboard.type(text, { delay: 5 });
        if (
          await this.suggestWidget()
            .isVisible()
            .catch(() => false)
        )
          await this.page.keyboard.press('Escape');
        // An @participant or /command gets its own decoration; compare the plain text only.
        return (await inputText()) === text.replace(/\s+/g, ' ').trim();
      },
      async () => `the chat input never held "${text}" (it holds "${await inputText()}")`,
      20_000,
      500,
    );
    await this.sendButton().click();
    await eventually(
      async () => (await this.newestIndex(RESPONSE)) > before,
      async () => `no answer row after the one at list position ${before} appeared after sending "${text}"; the input holds "${await inputText()}"`,
      30_000,
    );
  }

  /** The editor suggest widget (the chat input's @-participants and /-commands among them); VS Code renders it outside the chat's own DOM. */
  suggestWidget(): Locator {
    return this.page.locator('.suggest-widget.visible').first();
  }

  sendButton(): Locator {
    return this.session().locator('.chat-execute-toolbar a.action-label[aria-label^="Send"]').first();
  }

  async responseText(response?: Locator): Promise<string> {
    response ??= await this.newestResponse();
    return ((await response.innerText().catch(() => '')) ?? '').replace(/\u00a0/g, ' ');
  }

  /** The answer's own text (rendered Markdown), without the chat's footer of time and model. */
  async answerMarkdown(response?: Locator): Promise<string> {
    response ??= await this.newestResponse();
    const parts = await response
      .locator('.rendered-markdown')
      .allInnerTexts()
      .catch(() => [] as string[]);
    return parts.join('\n').replace(/\u00a0/g, ' ');
  }

  /** Whether a request is still running: the Send button is replaced by Stop/Cancel. */
  async busy(): Promise<boolean> {
    return this.stopButton()
      .isVisible()
      .catch(() => false);
  }

  stopButton(): Locator {
    return this.session().locator('.chat-execute-toolbar a.action-label[aria-label*="Cancel"], .chat-execute-toolbar a.action-label[aria-label*="Stop"]').first();
  }

  /**
   * Waits until the last request finished: no Stop button, the response no longer marked
   * loading, and its text unchanged over two looks (the Stop button can appear a moment
   * after the response row, so one look at it alone is not proof).
   */
  async waitUntilIdle(timeoutMs = 60_000): Promise<void> {
    let previous: string | undefined;
    await eventually(
      async () => {
        const loading = /\bchat-response-loading\b/.test((await (await this.newestResponse()).getAttribute('class').catch(() => '')) ?? '');
        const text = await this.responseText();
        const settled = !loading && !(await this.busy()) && text.trim() !== '' && text === previous;
        previous = text;
        return settled;
      },
      async () => `the chat request never finished; last response: ${await this.responseText()}`,
      timeoutMs,
      600,
    );
  }
}
