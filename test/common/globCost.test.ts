// A workspace writes files.exclude (read even in Restricted Mode) and names its own files: a
// glob whose regular expression backtracks per file must not reach picomatch, and the upload or
// sync that would apply it stops (dropping an exclude would send what it keeps out).
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '../../src/api/errors';
import { expandSelection } from '../../src/common/core/folderExpansion';
import { globCostProblem } from '../../src/common/core/globCost';
import { checkPrivateFile } from '../../src/common/core/privateFiles';
import { DEFAULT_EXCLUDES } from '../../src/sync/core/scan';
import { SETTINGS } from '../../src/common/core/settingsTable';

// `**/*a*a*a*a*b` against a 255-character name of a's took minutes per file in picomatch.
const HOSTILE = `**/${'*a'.repeat(4)}*b`;

describe('common: exclude globs too costly to match', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'ksm-globs-'));
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'a'.repeat(200)), 'x');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('accepts the usual globs and the defaults, refuses a glob that multiplies too many wildcards or a huge glob', () => {
    for (const glob of [...DEFAULT_EXCLUDES, ...SETTINGS.uploadExclude.default, '**/*.min.*', '**/build/**/*.map', '*foo*bar', '**/.*cache*/**', '**/*.test.*', 'src/**/*.*.*'])
      assert.equal(globCostProblem(glob), undefined, glob);
    assert.match(globCostProblem(HOSTILE) ?? '', /5 wildcards within names and 1 \*\* segments/);
    // Three ** segments (seconds per file 2,000 folders deep), and three runs beside two ** (seconds too).
    assert.ok(globCostProblem('**/a/**/a/**/b'));
    assert.ok(globCostProblem('**/a/**/*a*a*b'));
    assert.ok(globCostProblem('**/a/**/a/**/a/**/b'));
    assert.ok(globCostProblem(`${'a'.repeat(2000)}`));
  });

  it('a folder upload or sync with such an exclude stops with the pattern named, before matching any file', async () => {
    await assert.rejects(
      expandSelection([join(root, 'docs')], { excludeGlobs: ['**/node_modules/**', HOSTILE], maxFileSizeBytes: 0, workspaceRoots: [root] }),
      (error: unknown) => error instanceof ConfigurationError && /The exclude pattern '\*\*\/\*a\*a\*a\*a\*b'.*cannot be used/.test(error.message),
    );
  });

  it('the upload tool refuses a file it cannot check against such a glob', async () => {
    const check = await checkPrivateFile(`docs/${'a'.repeat(200)}`, { workspaceRoots: [root], filesExclude: [HOSTILE], uploadExclude: [] });
    assert.equal(check.ok, false);
    if (!check.ok) assert.match(check.reason, /cannot be checked against files\.exclude/);
  });
});
