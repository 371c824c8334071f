// The page's bootstrap (protocol.ts `WebviewBootstrap`) as HTML: the UI language for
// `<html lang>` and the string bundle as the JSON content of one `<meta>`. Both are escaped
// for an attribute, so no bundle text can end the attribute or the tag (the bundle is ours,
// but a translation is text written by someone else).
import { BOOTSTRAP_META_NAME, type WebviewBootstrap } from '../protocol';

/** A BCP 47 tag as VS Code reports it (`en`, `zh-cn`, `qps-ploc`); anything else is taken as English. */
const LANGUAGE_TAG = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/;

export function pageLanguage(language: string | undefined): string {
  return language && LANGUAGE_TAG.test(language) ? language : 'en';
}

export function bootstrapMeta(bootstrap: WebviewBootstrap): string {
  const content: WebviewBootstrap = { language: pageLanguage(bootstrap.language), ...(bootstrap.l10n ? { l10n: bootstrap.l10n } : {}) };
  return `<meta name="${BOOTSTRAP_META_NAME}" content="${escapeAttribute(JSON.stringify(content))}">`;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
