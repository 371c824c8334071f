import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../../support/chromium';

/**
 * A Chromium with a fresh profile. Each browser context has its own storage, and
 * code-server keeps SecretStorage in the browser: a new context starts without an API key,
 * and a `page.reload()` in the same context keeps it.
 */
export async function launchBrowserContext(origin: string): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), 'ksm-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_FLAGS],
    viewport: { width: 1440, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
    // The clipboard permissions only apply to the origin they are granted for.
    baseURL: origin,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  context.once('close', () => {
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch {
      // Chromium may still be flushing its profile; a leftover temp folder harms no test.
    }
  });
  return context;
}
