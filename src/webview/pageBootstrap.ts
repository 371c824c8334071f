// Reads the host's bootstrap from the page (protocol.ts `WebviewBootstrap`, written by
// chat/panel/bootstrap.ts) and applies it before the UI is built: `<html lang>` and the
// string bundle. A missing or malformed bootstrap means English.
import { BOOTSTRAP_META_NAME, type WebviewBootstrap } from '../chat/protocol';
import { configureLocale } from './locale';

const LANGUAGE_TAG = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/;

export function applyPageBootstrap(): void {
  const bootstrap = readBootstrap();
  document.documentElement.lang = bootstrap.language;
  configureLocale(bootstrap);
}

function readBootstrap(): WebviewBootstrap {
  const content = document.querySelector(`meta[name="${BOOTSTRAP_META_NAME}"]`)?.getAttribute('content');
  let raw: unknown;
  try {
    raw = content ? JSON.parse(content) : undefined;
  } catch {
    raw = undefined;
  }
  if (typeof raw !== 'object' || raw === null) return { language: 'en' };
  const { language, l10n: bundle } = raw as { language?: unknown; l10n?: unknown };
  const result: WebviewBootstrap = { language: typeof language === 'string' && LANGUAGE_TAG.test(language) ? language : 'en' };
  if (typeof bundle === 'object' && bundle !== null && !Array.isArray(bundle)) {
    // Only entries of the bundle format: a string, or { message, comment } as l10n-dev writes them.
    const entries = Object.entries(bundle).filter(
      ([, value]) => typeof value === 'string' || (typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string'),
    );
    result.l10n = Object.fromEntries(entries) as WebviewBootstrap['l10n'];
  }
  return result;
}
