// The webview's language (issue 26). Every user-visible string of src/webview goes through
// `l10n.t` of `@vscode/l10n` with a literal English first argument, so `@vscode/l10n-dev
// export` finds it (docs/architecture.md, "A webview string"). The host writes the bundle
// of VS Code's UI language into the page (protocol.ts `WebviewBootstrap`, read by
// pageBootstrap.ts); `configureLocale` hands it to `l10n.config` before any component is
// built, and numbers, dates and lists are formatted by Intl in the same language (numbers
// and lists by src/common/core/parameterText.ts, which words the chat parameters for the
// host too). No DOM here: the ⚙ form's rules use it and run under Node in tests too.
import * as l10n from '@vscode/l10n';
import type { WebviewBootstrap } from '../chat/protocol';
import * as shared from '../common/core/parameterText';
import { CONVERSATION_DATE_FORMAT } from './formats';

let language = 'en';
let dateFormat = new Intl.DateTimeFormat('en', CONVERSATION_DATE_FORMAT);

/** Configures the strings and formats; call once, before the first `l10n.t`. */
export function configureLocale(bootstrap: WebviewBootstrap): void {
  language = bootstrap.language;
  if (bootstrap.l10n) l10n.config({ contents: bootstrap.l10n });
  dateFormat = intl(() => new Intl.DateTimeFormat(language, CONVERSATION_DATE_FORMAT), dateFormat);
}

export function uiLanguage(): string {
  return language;
}

export function formatNumber(value: number): string {
  return shared.formatNumber(value, language);
}

export function formatDate(epochMs: number): string {
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? '' : dateFormat.format(date);
}

/** "a, b, c" in the UI language. */
export function formatList(items: string[]): string {
  return shared.formatList(items, language);
}

/** A tag Intl does not know falls back to the English date format rather than failing. */
function intl<T>(make: () => T, fallback: T): T {
  try {
    return make();
  } catch {
    return fallback;
  }
}
