// How a string someone else wrote (a file name from the service, a volume name or path a
// model passed to a tool) appears inside one of our own sentences or log lines: control
// characters, newlines and bidi controls escaped, so it can neither end the sentence early
// (front ends keep a message's first line), forge a log line, move a terminal's cursor nor
// reorder what is shown; and, quoted, bounded, so a megabyte argument is not echoed back.

// C0, DEL, C1, the Unicode line/paragraph separators, every bidi control (the embeddings,
// overrides and isolates, and the marks ALM, LRM, RLM), and the characters that draw nothing
// (soft hyphen, zero-width space, word joiner, the invisible operators, the BOM): with one
// of them `notes\u200b.md` looks like `notes.md`, so a confirmation could not tell them apart.
// ZWNJ and ZWJ stay: scripts and emoji need them.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** A name as printed: control characters, newlines and bidi controls escaped (`\n`, `\x1b`, `\u202e`). */
export function shown(name: string): string {
  return name.replace(UNSAFE, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Any value a caller passed, for a sentence: `shown()`, and cut to `max` characters with `…`. */
export function shownInput(value: unknown, max = 80): string {
  const text = shown(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

// What JSON.stringify leaves as is but a reader's screen acts on or does not draw: as UNSAFE, less C0 (JSON escapes those).
const UNSEEN_IN_JSON = /[\u007f-\u009f\u00ad\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * `JSON.stringify(value)` with every character that could reorder or hide what a person
 * reading it sees written as `\uXXXX` (JSON.stringify already does so for C0 controls): the
 * same value once parsed, but a file name `invoice\u202Egpj.exe` cannot show as `invoiceexe.jpg`.
 */
export function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(UNSEEN_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// VS Code's notifications turn `[label](target)` into a link when the target starts so (its
// parseLinkedText), and open it allowing commands: a click runs any command with any arguments.
const NOTIFICATION_LINK = /\]\((?=https?:\/\/|command:|file:)/gi;

/**
 * A message for a VS Code notification or dialog that carries someone else's words (a file
 * name, the service's error text): `shown()`, and `[label](command:…)` (or https:, file:)
 * left as text, a space put between `]` and `(`. Our own messages never link, so only such
 * words are changed. Quote a long value with `shownInput()` first to bound it.
 */
export function shownInMessage(text: string): string {
  return shown(text).replace(NOTIFICATION_LINK, '] (');
}

/**
 * Someone else's words inside Markdown we render (a tree tooltip, a tool's confirmation, a
 * chat reply): `shown()`, then every character Markdown or its HTML acts on backslash-escaped,
 * so the words start no link, image, heading, list, emphasis, HTML tag or entity (`&#x202E;`).
 */
export function markdownText(text: string): string {
  return shown(text).replace(/[\\`*_{}[\]()#+\-.!|<>~&:]/g, '\\$&');
}

/** The same words inside a code span (`…`): `shown()`, a backtick (which would end the span) written `'`. */
export function markdownCode(text: string): string {
  return shown(text).replace(/`/g, "'");
}

/**
 * Someone else's words where VS Code draws `$(name)` as an icon (a quick pick's label,
 * description and detail, a status bar message): `shownInput()` (escaped, at most `max`
 * characters), and `$(` written `\$(`, which VS Code shows as the text `$(`. A file named
 * `$(check) Apply` then cannot pass for one of our rows.
 */
export function shownWithIcons(value: string, max = 200): string {
  return shownInput(value, max).replace(/\$\(/g, '\\$(');
}
