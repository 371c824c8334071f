// package.json as VS Code shows it in English: every `%key%` placeholder replaced by its text
// in package.nls.json (VS Code does the same with package.nls.<locale>.json, falling back to
// package.nls.json). Tests that read a title, a description or a welcome text read it here;
// tests of ids, scopes and defaults may read package.json itself.
import { readFileSync } from 'node:fs';

export type NlsTable = Record<string, string>;

export function readNls(path = 'package.nls.json'): NlsTable {
  return JSON.parse(readFileSync(path, 'utf8')) as NlsTable;
}

/** Every `%key%` a JSON value holds, with where (a dotted path). */
export function placeholders(value: unknown, where = ''): Array<{ where: string; key: string }> {
  if (typeof value === 'string') {
    const match = /^%([^%\s]+)%$/.exec(value);
    return match ? [{ where, key: match[1]! }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => placeholders(item, `${where}[${index}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => placeholders(item, where ? `${where}.${key}` : key));
  return [];
}

/** `value` with each whole-string `%key%` replaced by `nls[key]`; an unknown key throws. */
export function resolvePlaceholders<T>(value: T, nls: NlsTable): T {
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') {
      const match = /^%([^%\s]+)%$/.exec(item);
      if (!match) return item;
      const text = nls[match[1]!];
      if (typeof text !== 'string') throw new Error(`package.json names %${match[1]}%, which package.nls.json lacks`);
      return text;
    }
    if (Array.isArray(item)) return item.map(walk);
    if (item && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([key, child]) => [key, walk(child)]));
    return item;
  };
  return walk(value) as T;
}

/** package.json with its placeholders resolved through package.nls.json. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function localizedManifest(nls: NlsTable = readNls()): any {
  return resolvePlaceholders(JSON.parse(readFileSync('package.json', 'utf8')), nls);
}
