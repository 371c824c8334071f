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

/** Most `*` runs (a `**` segment counts as one) one glob may have: three keep any match under a few milliseconds. */
export const MAX_GLOB_WILDCARDS = 3;
/** Longest glob accepted. */
export const MAX_GLOB_CHARS = 1000;

/** Why `glob` is too costly to match, or undefined. */
export function globCostProblem(glob: string): string | undefined {
  if (glob.length > MAX_GLOB_CHARS) return l10n.t('it is longer than {0} characters', MAX_GLOB_CHARS);
  const wildcards = glob.split('/').reduce((sum, segment) => sum + (segment === '**' ? 1 : (segment.match(/\*+/g)?.length ?? 0)), 0);
  return wildcards > MAX_GLOB_WILDCARDS ? l10n.t('it has {0} wildcards (* or **), more than the {1} that can be matched safely', wildcards, MAX_GLOB_WILDCARDS) : undefined;
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
