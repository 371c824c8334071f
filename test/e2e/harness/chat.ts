import type { FrameLocator, Locator } from 'playwright-core';
import { eventually } from './eventually';
import type { Workbench } from './workbench';

/**
 * The Chat view's page (a webview, two iframes deep). Selectors are the webview's own
 * accessible names (src/webview): composer `textarea[aria-label="Message"]`, turns
 * `[data-role]` with `data-state`, `button[aria-label="Stop"]`, `[role="alert"]`.
 */
export class ChatView {
  readonly frame: FrameLocator;

  constructor(private readonly workbench: Workbench) {
    this.frame = workbench.chatFrame();
  }

  /** Opens the KSM Chat container (its own, beside Volumes) and waits until the page is ready to type into. */
  async open(): Promise<void> {
    await this.workbench.openKsmChat();
    await this.composer().waitFor({ timeout: 30_000 });
  }

  composer(): Locator {
    return this.frame.locator('textarea[aria-label="Message"]');
  }

  stopButton(): Locator {
    return this.frame.locator('button[aria-label="Stop"]');
  }

  modeSelect(): Locator {
    return this.frame.locator('select[aria-label="Mode"]');
  }

  assistantTurns(): Locator {
    return this.frame.locator('[data-role="assistant"]');
  }

  userTurns(): Locator {
    return this.frame.locator('[data-role="user"]');
  }

  lastAnswer(): Locator {
    return this.assistantTurns().last();
  }

  /**
   * Starts a new conversation and waits until the panel shows it: a send right after the click
   * counted the old conversation's answers as "before" on a busy machine, and then missed the new one.
   */
  async newChat(): Promise<void> {
    await this.frame.locator('button[aria-label="New chat"]').click();
    await eventually(
      async () => (await this.assistantTurns().count()) === 0 && (await this.userTurns().count()) === 0,
      async () => `the new chat still shows ${await this.userTurns().count()} question(s) and ${await this.assistantTurns().count()} answer(s)`,
      15_000,
    );
  }

  /** Types a message into the composer and sends it with Enter, as a user does. */
  async send(text: string): Promise<void> {
    const before = await this.assistantTurns().count();
    await this.composer().click();
    await this.composer().fill(text);
    await this.composer().press('Enter');
    await eventually(
      async () => (await this.assistantTurns().count()) > before,
      async () =>
        `no answer turn appeared after sending "${text}" (composer now holds "${await this.composer()
          .inputValue()
          .catch(() => '?')}")`,
      15_000,
    );
  }

  /** Waits until the last answer leaves `streaming`; returns its final data-state. */
  async waitForAnswerToSettle(timeoutMs = 60_000): Promise<string> {
    const answer = this.lastAnswer();
    return eventually(
      async () => {
        const state = await answer.getAttribute('data-state');
        return state && state !== 'streaming' ? state : undefined;
      },
      async () => `the answer never finished streaming; last text: "${(await answer.innerText().catch(() => '')).slice(0, 200)}"`,
      timeoutMs,
      100,
    );
  }

  async answerText(answer: Locator = this.lastAnswer()): Promise<string> {
    return (await answer.innerText()).trim();
  }
}
