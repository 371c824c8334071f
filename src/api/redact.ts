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

function secretPattern(secret: string): RegExp {
  let pattern = compiled.get(secret);
  if (!pattern) {
    pattern = new RegExp([...secret].map(charForms).join(''), 'g');
    if (compiled.size > 16) compiled.clear();
    compiled.set(secret, pattern);
  }
  return new RegExp(pattern.source, 'g');
}

/** Every way one character of a secret may have been written by the server. */
function charForms(char: string): string {
  const code = char.codePointAt(0)!;
  const forms = [escapeRegExp(char)];
  // JSON `\uXXXX` (a surrogate pair for astral characters); its backslash is the prefix below.
  forms.push(
    utf16Units(char)
      .map((unit, i) => `${i > 0 ? '\\\\+' : ''}u${hexPattern(unit, 4)}`)
      .join(''),
  );
  // Percent-encoding of each UTF-8 byte; `%25` in front when the `%` was encoded again.
  forms.push([...Buffer.from(char, 'utf8')].map((byte) => `%(?:25)*${hexPattern(byte, 2)}`).join(''));
  if (char === ' ') forms.push('\\+');
  // HTML character references (a proxy's error page).
  forms.push(`&#0*${code};`, `&#[xX]0*${hexPattern(code, 1)};`);
  const named = NAMED_ENTITIES[char];
  if (named) forms.push(named);
  // Any run of backslashes in front: JSON escapes (`\"`, `\\`, `\/`), escaped twice or more.
  return `\\\\*(?:${forms.join('|')})`;
}

const NAMED_ENTITIES: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&(?:#39|apos);', '<': '&lt;', '>': '&gt;' };

function utf16Units(char: string): number[] {
  const units: number[] = [];
  for (let i = 0; i < char.length; i++) units.push(char.charCodeAt(i));
  return units;
}

/** A case-insensitive pattern for `value` in hex, at least `digits` digits. */
function hexPattern(value: number, digits: number): string {
  return [...value.toString(16).padStart(digits, '0')].map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
