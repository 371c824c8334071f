// How the webview formats dates, in the UI language (locale.ts). No DOM here: the
// pseudo-locale test imports it to tell a formatted date from a string left unlocalised.

/** The conversation list's "last changed" date. */
export const CONVERSATION_DATE_FORMAT: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' };
