// The one redaction step for text that comes from the service (error bodies, excerpts,
// stream error events, unknown events, headers) before it becomes an error, an event or a
// log line. A misconfigured upstream may echo the Authorization header in any of the
// encodings a server uses on the way out: as sent, JSON-escaped (`\"`, `\\`, `\/`,
// `\u0022`), URL-encoded (encodeURIComponent or form encoding, any hex case, even twice)
// or as HTML entities. No library matches a secret across all of these, so the matcher is
// built here: one regular expression per key in which every character of the key may
// appear in any of its encodings, so mixed forms ("a\/b%2Bc") are caught too.

/** Turns service text into text that holds no known secret. */
export type Redactor = (text: string) => string;

export const REDACTED = '***';

/** A bearer token in a header echo, whatever the key: the literal key is replaced first. */
const BEARER = /(Bearer\s+)(?!\*\*\*)[^\s"',;]+/gi;

const compiled = new Map<string, RegExp>();

/** A redactor for these secrets (the current API key); undefined entries are ignored. */
export function redactorFor(secrets: ReadonlyArray<string | undefined>): Redactor {
  const only = secretsRedactor(secrets);
  return (text) => only(text).replace(BEARER, `$1${REDACTED}`);
}

/**
 * These secrets in every encoding, and nothing else: for the user's own content (a passage,
 * an answer, a file name), where an API guide's "Authorization: Bearer <token>" is data to
 * keep, not a header echo.
 */
export function secretsRedactor(secrets: ReadonlyArray<string | undefined>): Redactor {
  const patterns = secrets.filter((secret): secret is string => !!secret).map(secretPattern);
  return (text) => {
    let out = text;
    for (const pattern of patterns) out = out.replace(pattern, REDACTED);
    return out;
  };
}

/** Redacts `text` for these secrets (for callers holding the key rather than a redactor). */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  return redactorFor(secrets)(text);
}

/** The matcher of one secret in all its encodings (exported for test/architecture/regexSafety.test.ts, which checks what it builds). */
export function secretPattern(secret: string): RegExp {
  let pattern = compiled.get(secret);
  if (!pattern) {
    // `(?<!\\)`: a match starts at a run of backslashes' first, never inside it. Without it each
    // backslash of a long run began a match that read the rest of the run (quadratic: a 64 KiB
    // answer of backslashes took seconds); the leftmost match is the same either way.
    const chars = [...secret];
    pattern = new RegExp(`(?<!\\\\)${chars.map((char, i) => charPattern(char, chars[i + 1])).join('')}`, 'g');
    if (compiled.size > 16) compiled.clear();
    compiled.set(secret, pattern);
  }
  return new RegExp(pattern.source, 'g');
}

/**
 * One character of a secret in any of its forms, behind any run of backslashes. A backslash
 * of the secret written as it is must be the last of its run, or (when the secret's next
 * character is a backslash too) one with no run of its own: as `\\*\\` beside the next
 * character's `\\*`, a run could be split between them every way, so a key holding a
 * backslash read a run of n backslashes after its first characters in n² steps (16,000 took
 * 0.4 s, a megabyte half an hour). The text matched is the same.
 */
function charPattern(char: string, next: string | undefined): string {
  const forms = charForms(char);
  if (char !== '\\') return `\\\\*(?:${forms.map(formPattern).join('|')})`;
  const others = forms.filter((form) => !(form.kind === 'text' && form.text === '\\')).map(formPattern);
  return next === '\\' ? `(?:\\\\|\\\\*(?:${others.join('|')}))` : `\\\\*(?:\\\\(?!\\\\)|${others.join('|')})`;
}

/**
 * One way a character of a secret may have been written by the server. Any run of
 * backslashes may come in front of each (JSON escapes: `\"`, `\\`, `\/`, escaped twice or
 * more). The matcher's expression and the streamed tail's check (`encodedPrefixMatcher`) are
 * both made from these, so they cannot disagree on what an encoding is.
 */
type CharForm =
  /** As it is (its UTF-16 units), or a literal alternative: form encoding's `+` for a space, a named HTML entity. */
  | { kind: 'text'; text: string }
  /** JSON `\uXXXX` per UTF-16 unit (`units`: `u0041`…), the later units (a surrogate pair's second) behind a backslash of their own. */
  | { kind: 'unicodeEscape'; units: string[] }
  /** Percent-encoding of each UTF-8 byte (`bytes`: two hex digits each), any hex case; `%25` repeated in front when the `%` was encoded again. */
  | { kind: 'percent'; bytes: string[] }
  /** An HTML character reference, `&#0*<decimal>;` or `&#[xX]0*<hex>;` (`digits`: the number and its `;`). */
  | { kind: 'reference'; code: number; hex: boolean; digits: string };

function charForms(char: string): CharForm[] {
  const code = char.codePointAt(0)!;
  const forms: CharForm[] = [
    { kind: 'text', text: char },
    { kind: 'unicodeEscape', units: utf16Units(char).map((unit) => `u${unit.toString(16).padStart(4, '0')}`) },
    { kind: 'percent', bytes: [...Buffer.from(char, 'utf8')].map((byte) => byte.toString(16).padStart(2, '0')) },
  ];
  if (char === ' ') forms.push({ kind: 'text', text: '+' });
  forms.push({ kind: 'reference', code, hex: false, digits: `${code};` }, { kind: 'reference', code, hex: true, digits: `${code.toString(16)};` });
  for (const named of NAMED_ENTITIES[char] ?? []) forms.push({ kind: 'text', text: named });
  return forms;
}

function formPattern(form: CharForm): string {
  switch (form.kind) {
    case 'text':
      return escapeRegExp(form.text);
    case 'unicodeEscape':
      return form.units.map((unit, i) => `${i > 0 ? '\\\\+' : ''}${hexTextPattern(unit)}`).join('');
    case 'percent':
      return form.bytes.map((byte) => `%(?:25)*${hexTextPattern(byte)}`).join('');
    case 'reference':
      return form.hex ? `&#[xX]0*${hexTextPattern(form.digits)}` : `&#0*${form.digits}`;
  }
}

const NAMED_ENTITIES: Record<string, string[]> = { '"': ['&quot;'], '&': ['&amp;'], "'": ['&#39;', '&apos;'], '<': ['&lt;'], '>': ['&gt;'] };

/**
 * For one secret: the length of the longest end of a text that is a proper start of the
 * secret written in any of its encodings (each character in any form, as the matcher
 * allows), 0 when none is: what a stream must hold back until the next piece shows whether
 * the secret follows (the caller has removed every whole one already). Only an end made of
 * characters some form uses can be such a start, so ordinary text costs a look at its last
 * word; an end longer than the secret's longest plain encoding is not held (padding such as
 * `%2525…` or leading zeros without end is matched within a piece only). The shape is worked
 * out once: a stream asks for every token.
 */
export function encodedPrefixMatcher(secret: string): (text: string) => number {
  const { forms, alphabet, starts, longest } = shapeOf(secret);
  return (text) => {
    let from = text.length;
    const lowest = Math.max(0, text.length - longest);
    while (from > lowest && alphabet.has(text.charCodeAt(from - 1))) from--;
    for (let start = from; start < text.length; start++) {
      if (starts.has(text.charCodeAt(start)) && isEncodedPrefix(text, start, forms, 0)) return text.length - start;
    }
    return 0;
  };
}

const BACKSLASH = 0x5c;

interface SecretShape {
  /** Each character's forms. */
  forms: CharForm[][];
  /** Every character (UTF-16 unit) some form uses. */
  alphabet: Set<number>;
  /** What a held end can begin with: a backslash, `%`, `&`, or the first unit of its first character as it is. */
  starts: Set<number>;
  /** The longest encoding with no padding, about. */
  longest: number;
}

const shapes = new Map<string, SecretShape>();

function shapeOf(secret: string): SecretShape {
  let shape = shapes.get(secret);
  if (!shape) {
    const forms = [...secret].map(charForms);
    const alphabet = new Set<number>();
    for (const c of '\\%&#;xXu0123456789abcdefABCDEF') alphabet.add(c.charCodeAt(0));
    for (const form of forms.flat()) if (form.kind === 'text') for (let i = 0; i < form.text.length; i++) alphabet.add(form.text.charCodeAt(i));
    // Not a bare `u`: the matcher takes `u0041` with no backslash too, but no encoder writes that, and every "you" would wait a piece.
    const starts = new Set<number>([BACKSLASH, 0x25 /* % */, 0x26 /* & */]);
    for (const form of forms[0] ?? []) if (form.kind === 'text') starts.add(form.text.charCodeAt(0));
    // A character's longest form is its percent-encoding (12 for four UTF-8 bytes) or a reference (`&#x10FFFF;`), with a few backslashes.
    shape = { forms, alphabet, starts, longest: forms.length * 16 };
    if (shapes.size > 16) shapes.clear();
    shapes.set(secret, shape);
  }
  return shape;
}

/** Whether text[at..] is all taken by forms of the characters from `k` on, without finishing them all. */
function isEncodedPrefix(text: string, at: number, forms: CharForm[][], k: number): boolean {
  if (at === text.length) return k > 0;
  if (k === forms.length) return false;
  // Any run of backslashes in front, of which the form itself may use the last ones (a secret's own `\`).
  let run = at;
  while (run < text.length && text.charCodeAt(run) === BACKSLASH) run++;
  if (run === text.length) return true;
  for (let i = run; i >= at; i--) {
    for (const form of forms[k]) if (formGoesOn(text, i, form, forms, k)) return true;
  }
  return false;
}

/** Whether `form` (of the k-th character) starts at `at` and the text ends inside it, or it ends and the rest is a start of the characters after it. */
function formGoesOn(text: string, at: number, form: CharForm, forms: CharForm[][], k: number): boolean {
  const then = (end: number) => end === ENDED || (end >= 0 && isEncodedPrefix(text, end, forms, k + 1));
  switch (form.kind) {
    case 'text':
      return then(literalEnd(text, at, form.text, false));
    case 'unicodeEscape': {
      let i = at;
      for (let u = 0; u < form.units.length; u++) {
        if (u > 0) {
          const first = i;
          while (i < text.length && text.charCodeAt(i) === BACKSLASH) i++;
          if (i === text.length) return true;
          if (i === first) return false;
        }
        i = literalEnd(text, i, form.units[u], true);
        if (i < 0) return i === ENDED;
      }
      return then(i);
    }
    case 'percent':
      return percentGoesOn(text, at, form.bytes, 0, forms, k);
    case 'reference': {
      let i = literalEnd(text, at, '&#', false);
      if (i < 0) return i === ENDED;
      if (form.hex) {
        if (i === text.length) return true;
        if (text[i] !== 'x' && text[i] !== 'X') return false;
        i++;
      }
      while (i < text.length && text[i] === '0') i++;
      return then(literalEnd(text, i, form.digits, form.hex));
    }
  }
}

/** The percent form from byte `b` on: `%`, then `25` once for each time the `%` was encoded again, then the byte's two digits. */
function percentGoesOn(text: string, at: number, bytes: string[], b: number, forms: CharForm[][], k: number): boolean {
  if (b === bytes.length) return isEncodedPrefix(text, at, forms, k + 1);
  let i = literalEnd(text, at, '%', false);
  while (i >= 0) {
    const own = literalEnd(text, i, bytes[b], true);
    if (own === ENDED || (own >= 0 && percentGoesOn(text, own, bytes, b + 1, forms, k))) return true;
    i = literalEnd(text, i, '25', true);
  }
  return i === ENDED;
}

/** The text ended inside what was expected: a proper start so far. */
const ENDED = -1;
/** The text does not go on as expected. */
const NO = -2;

/** Where `expected` ends in `text` from `at` (letters in any case when `anyCase`; `expected` is lower case): an index, ENDED or NO. */
function literalEnd(text: string, at: number, expected: string, anyCase: boolean): number {
  for (let j = 0; j < expected.length; j++) {
    if (at + j === text.length) return ENDED;
    let got = text.charCodeAt(at + j);
    if (anyCase && got >= 0x41 && got <= 0x46) got += 0x20; // A–F as a–f
    if (got !== expected.charCodeAt(j)) return NO;
  }
  return at + expected.length;
}

function utf16Units(char: string): number[] {
  const units: number[] = [];
  for (let i = 0; i < char.length; i++) units.push(char.charCodeAt(i));
  return units;
}

/** A pattern for `text` with its hex letters (a–f) in either case. */
function hexTextPattern(text: string): string {
  return [...text].map((c) => (/[a-f]/.test(c) ? `[${c}${c.toUpperCase()}]` : escapeRegExp(c))).join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
