import assert from 'node:assert/strict';
import { eventually } from './eventually';
import type { Workbench } from './workbench';

/** "KSM: Set API Key" through the palette, typing the key into the password box. */
export async function setApiKeyThroughPalette(workbench: Workbench, key: string): Promise<void> {
  await workbench.runCommand('KSM: Set API Key');
  const box = workbench.quickInput().locator('input[type="password"]');
  await box.waitFor();
  await box.fill(key);
  await box.press('Enter');
  await workbench.quickInput().waitFor({ state: 'hidden' });
}

/** Text of every visible Volumes row ("label description"), for assertion messages. */
export async function volumesRowTexts(workbench: Workbench): Promise<string[]> {
  return workbench.volumesRows().evaluateAll((rows) => rows.map((r) => (r.textContent ?? '').replace(/\s+/g, ' ').trim()));
}

/** Expands a collapsed tree row (a no-op when it is already expanded). */
export async function expandRow(workbench: Workbench, label: string): Promise<void> {
  const row = workbench.volumesRow(label);
  await row.waitFor();
  const expanded = await row.getAttribute('aria-expanded');
  assert.notEqual(expanded, null, `tree row "${label}" is not expandable`);
  if (expanded === 'false') await row.locator('.monaco-tl-twistie').click();
  await workbench.page.waitForFunction((el) => el?.getAttribute('aria-expanded') === 'true', await row.elementHandle(), { timeout: 10_000 });
}

/** Waits until a Volumes row labelled `label` shows `text` in its description. */
export async function waitForRowDescription(workbench: Workbench, label: string, text: RegExp, timeoutMs = 30_000): Promise<void> {
  const row = workbench.volumesRow(label);
  await eventually(
    async () => text.test((await row.locator('.label-description').first().textContent({ timeout: 1000 })) ?? ''),
    async () => `row "${label}" never showed ${text}; rows: ${JSON.stringify(await volumesRowTexts(workbench))}`,
    timeoutMs,
  );
}

/**
 * Opens a workspace file through Quick Open (Ctrl+P), as a user does. Quick Open answers
 * from its previous file list until a new one has loaded, which under load can miss a file
 * written a moment ago: it is opened again then.
 */
export async function openFileByQuickOpen(workbench: Workbench, fileName: string): Promise<void> {
  await eventually(
    async () => {
      await workbench.page.locator('.monaco-workbench').click({ position: { x: 700, y: 5 } });
      await workbench.page.keyboard.press('Control+P');
      await workbench.quickInputBox().fill(fileName);
      const found = await workbench
        .quickInputRows()
        .filter({ hasText: fileName })
        .first()
        .waitFor({ timeout: 5_000 })
        .then(
          () => true,
          () => false,
        );
      if (!found) await workbench.page.keyboard.press('Escape');
      return found;
    },
    () => `Quick Open never listed ${fileName}`,
    45_000,
    500,
  );
  await workbench.quickInputBox().press('Enter');
  await workbench.page.locator('.tabs-container .tab.active').filter({ hasText: fileName }).waitFor({ timeout: 15_000 });
}
