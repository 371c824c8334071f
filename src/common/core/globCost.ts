// How costly an exclude glob is to match. picomatch compiles a glob to a regular expression
// that backtracks: each `*` run in a segment multiplies the work by the name's length, each
// `**` by the path's depth. A workspace writes `files.exclude` (read even in Restricted Mode)
// and names its own files, so `**/*a*a*a*a*b` against a 255-character name, or
// `**/a/**/a/**/a/**/b` against a path 2,000 folders deep, held the extension host for
// minutes per file. A glob over the budget is refused, and the upload or sync that would
// apply it stops with its name: dropping an exclude would send the files it keeps out.
import * as l10n from '@vscode/l10n';
import { ConfigurationError } from '../../api/errors';
import { shownInput } from './untrustedText';

/**
 * The budget, measured against a 255-character name 2,000 folders deep: the `*` runs within
 * segments multiply by the name's length (3 of them: ~16 ms a file, 4: over a second), the
 * `**` segments by the depth (3: seconds), and the two together multiply (3 runs and 2 `**`:
 * seconds). At most 3 runs, 2 `**` and 4 in all keeps a file under ~0.1 s; the usual globs
 * (`**\/.*cache*\/**`, `**\/build/**\/*.map`) stay well inside it.
 */
export const MAX_GLOB_STAR_RUNS = 3;
export const MAX_GLOB_GLOBSTARS = 2;
export const MAX_GLOB_WILDCARDS = 4;
/** Longest glob accepted. */
export const MAX_GLOB_CHARS = 1000;

/** Why `glob` is too costly to match, or undefined. */
export function globCostProblem(glob: string): string | undefined {
  if (glob.length > MAX_GLOB_CHARS) return l10n.t('it is longer than {0} characters', MAX_GLOB_CHARS);
  if (repeatsAPattern(glob)) return l10n.t('it repeats a pattern that can be read more than one way (+(…) or *(…) around a wildcard, a group or choices starting alike)');
  const segments = glob.split('/');
  const globstars = segments.filter((segment) => segment === '**').length;
  const runs = segments.reduce((sum, segment) => sum + (segment === '**' ? 0 : (segment.match(/\*+/g)?.length ?? 0)), 0);
  if (runs > MAX_GLOB_STAR_RUNS || globstars > MAX_GLOB_GLOBSTARS || runs + globstars > MAX_GLOB_WILDCARDS)
    return l10n.t(
      'it has {0} wildcards within names and {1} ** segments (at most {2}, {3} and {4} in all can be matched safely)',
      runs,
      globstars,
      MAX_GLOB_STAR_RUNS,
      MAX_GLOB_GLOBSTARS,
      MAX_GLOB_WILDCARDS,
    );
  return undefined;
}

/** Throws a ConfigurationError naming the first glob over the budget. */
export function checkExcludeGlobs(globs: readonly string[]): void {
  for (const glob of globs) {
    const problem = globCostProblem(glob);
    if (problem)
      throw new ConfigurationError(
        l10n.t("The exclude pattern '{0}' (files.exclude or ksm.upload.exclude) cannot be used: {1}. Simplify it; nothing was uploaded or synced.", shownInput(glob, 120), problem),
      );
  }
}

/**
 * Whether the glob has a repeated extglob, `+(…)` or `*(…)`, around anything but plain text:
 * picomatch compiles `x+(a*)b` to `x(?:a[^/]*?)+b` and `x+(@(a|aa))b` to `x(?:(a|aa))+b`,
 * which try every way of cutting a name into repeats (2^n: a name of 40 a's, hours), and a
 * star inside counted as one run let them through. Plain text is let through, and plain
 * choices each starting with its own character (`*.+(png|jpg)`). VS Code's own globs have
 * no extglobs.
 */
function repeatsAPattern(glob: string): boolean {
  for (let i = glob.indexOf('('); i > 0; i = glob.indexOf('(', i + 1)) {
    if ((glob[i - 1] !== '+' && glob[i - 1] !== '*') || glob[i - 2] === '\\') continue;
    let depth = 1;
    let j = i + 1;
    for (; j < glob.length && depth > 0; j++) {
      if (glob[j] === '\\') j++;
      else if (glob[j] === '(') depth++;
      else if (glob[j] === ')') depth--;
    }
    const body = glob.slice(i + 1, j - 1);
    if (/[*?[({\\]/.test(body)) return true;
    // Plain choices are read one way when each starts with its own character (`*.+(png|jpg)`); `+(a|aa)` is not.
    const choices = body.split('|');
    if (choices.some((choice) => choice === '') || new Set(choices.map((choice) => choice[0])).size < choices.length) return true;
  }
  return false;
}
