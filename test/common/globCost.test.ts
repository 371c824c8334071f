// A workspace writes files.exclude (read even in Restricted Mode) and names its own files: a
// glob whose regular expression backtracks per file must not reach picomatch, and the upload or
// sync that would apply it stops (dropping an exclude would send what it keeps out).
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '../../src/api/errors';
import picomatch from 'picomatch';
import { expandSelection, globsMatcher } from '../../src/common/core/folderExpansion';
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

  it("refuses a repeated extglob around a wildcard, a group or choices starting alike (picomatch reads a name of 40 a's in 2^40 steps), keeps plain ones", async () => {
    // `x+(a*)b` was one star run, within the budget, and compiled to `x(?:a[^/]*?)+b`.
    for (const glob of ['x+(a*)b', '**/x*(a*)b', 'x+(@(a|aa))b', 'y/x+(a|aa)c', 'x+(a?)b', 'x+(a|)b'])
      assert.match(globCostProblem(glob) ?? '', /repeats a pattern that can be read more than one way/, glob);
    for (const glob of ['**/*.+(png|jpg)', '*.+(js|ts)', 'x+(ab)c', 'a\\+(b*)', '**/[Tt]emp/**', 'src/**/*.{ts,js}']) assert.equal(globCostProblem(glob), undefined, glob);
    writeFileSync(join(root, 'docs', `x${'a'.repeat(40)}`), 'x');
    await assert.rejects(
      expandSelection([join(root, 'docs')], { excludeGlobs: ['x+(a*)b'], maxFileSizeBytes: 0, workspaceRoots: [root] }),
      (error: unknown) => error instanceof ConfigurationError && /The exclude pattern 'x\+\(a\*\)b'.*cannot be used/.test(error.message),
    );
  });

  it('the upload tool refuses a file it cannot check against such a glob', async () => {
    const check = await checkPrivateFile(`docs/${'a'.repeat(200)}`, { workspaceRoots: [root], filesExclude: [HOSTILE], uploadExclude: [] });
    assert.equal(check.ok, false);
    if (!check.ok) assert.match(check.reason, /cannot be checked against files\.exclude/);
  });
});

describe('common: the folder rules match globs as picomatch does, in one expression', () => {
  // globsMatcher joins the globs' expressions into one (picomatch's own matcher runs each in turn,
  // most of a 5,000-file scan's matching time); every answer must stay picomatch's.
  const globs = [
    ...DEFAULT_EXCLUDES,
    ...SETTINGS.uploadExclude.default,
    '**/*.min.*',
    '**/build/**/*.map',
    '*.log',
    'docs/*.md',
    'src/**/*.{ts,js}',
    '**/[Tt]emp/**',
    '!keep.md',
    '**/*.+(png|jpg)',
    'a?c.txt',
    '**/.*cache*/**',
    'exact/name.md',
  ];
  const paths = [
    '',
    '.git',
    'a/.git',
    'a/.git/b',
    'a/.github',
    'x/Thumbs.db',
    'CVS',
    'a/CVSx',
    '.DS_Store/x',
    'node_modules',
    'a/node_modules/b.js',
    'x.min.js',
    'lib/x.min.css',
    'build/a/b.map',
    'a/build/c.map',
    'error.log',
    'logs/error.log',
    'docs/a.md',
    'docs/b/a.md',
    'src/a.ts',
    'src/x/y/z.js',
    'src/x.tsx',
    'Temp/x',
    'a/temp/y',
    'keep.md',
    'other.md',
    'img/a.png',
    'img/a.gif',
    'abc.txt',
    'ac.txt',
    'a/.eslintcache/x',
    'exact/name.md',
    '../up.md',
    './docs/a.md',
    'a//b',
    'docs/.hidden.md',
    'ünï/cödé.md',
  ];

  it('gives what picomatch(globs, { dot: true }) gives, for each glob alone and for all together', () => {
    for (const set of [...globs.map((glob) => [glob]), globs]) {
      const theirs = picomatch(set, { dot: true });
      const ours = globsMatcher(set);
      for (const path of paths) assert.equal(ours(path), Boolean(theirs(path)), `${JSON.stringify(set)} on '${path}'`);
    }
  });
});
