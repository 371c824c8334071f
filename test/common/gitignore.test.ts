// One home for `.gitignore` rules (src/common/core/gitignore.ts): the folder walk (a sync's
// scan), watch mode's event filter and the private-file rules answer the same for every file,
// whatever the rules use: negation, directory patterns, anchored patterns, comments, escaped
// hashes, CRLF line ends, a BOM, trailing spaces, `**`, nested `.gitignore` files.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { GitignoreCache, isGitignored, MAX_GITIGNORE_STAR_RUNS } from '../../src/common/core/gitignore';
import { scanFolder } from '../../src/sync/core/scan';
import { eventFilter } from '../../src/sync/core/watchBatcher';

/** Each case: the files of a folder, and which of them git ignores. */
const cases: Array<{ name: string; files: Record<string, string>; ignored: string[] }> = [
  { name: 'negation', files: { '.gitignore': '*.log\n!keep.log\n', 'a.log': '', 'keep.log': '', 'sub/b.log': '', 'sub/keep.log': '' }, ignored: ['a.log', 'sub/b.log'] },
  { name: 'directory pattern', files: { '.gitignore': 'build/\n', 'build/x.md': '', 'sub/build/y.md': '', 'buildx/z.md': '' }, ignored: ['build/x.md', 'sub/build/y.md'] },
  { name: 'no re-include below an ignored folder', files: { '.gitignore': 'build/\n!build/keep.md\n', 'build/keep.md': '', 'build/x.md': '' }, ignored: ['build/keep.md', 'build/x.md'] },
  { name: 're-include below folder/*', files: { '.gitignore': 'build/*\n!build/keep.md\n', 'build/keep.md': '', 'build/x.md': '', 'build/deep/y.md': '' }, ignored: ['build/x.md', 'build/deep/y.md'] },
  { name: 'anchored patterns', files: { '.gitignore': '/top.md\ndoc/frag.md\n', 'top.md': '', 'sub/top.md': '', 'doc/frag.md': '', 'sub/doc/frag.md': '' }, ignored: ['top.md', 'doc/frag.md'] },
  { name: 'comments and an escaped hash', files: { '.gitignore': '# c.md\n\\#hash.md\n', 'c.md': '', '#hash.md': '' }, ignored: ['#hash.md'] },
  { name: 'CRLF line ends', files: { '.gitignore': 'a.md\r\nb/\r\n', 'a.md': '', 'b/c.md': '', 'd.md': '' }, ignored: ['a.md', 'b/c.md'] },
  { name: 'a leading BOM', files: { '.gitignore': '\uFEFFa.md\n', 'a.md': '', 'd.md': '' }, ignored: ['a.md'] },
  { name: 'trailing spaces, one escaped', files: { '.gitignore': 'sp.md   \nesc.md\\ \n', 'sp.md': '', 'esc.md ': '', 'esc.md': '' }, ignored: ['sp.md', 'esc.md '] },
  {
    name: 'nested .gitignore files',
    files: { 'sub/.gitignore': 'gen/\n/anch.md\n', 'sub/gen/a.md': '', 'sub/anch.md': '', 'sub/deep/anch.md': '', 'gen/b.md': '' },
    ignored: ['sub/gen/a.md', 'sub/anch.md'],
  },
  {
    name: '** patterns',
    files: { '.gitignore': '**/tmp/**\na/**/b.md\n', 'tmp/x.md': '', 'q/tmp/y.md': '', 'a/b.md': '', 'a/x/y/b.md': '', 'a/c.md': '' },
    ignored: ['tmp/x.md', 'q/tmp/y.md', 'a/b.md', 'a/x/y/b.md'],
  },
  { name: 'a folder by name at any depth', files: { '.gitignore': 'logs\n', 'logs/a.md': '', 'x/logs/b.md': '', 'x/logs.md': '' }, ignored: ['logs/a.md', 'x/logs/b.md'] },
];

/** The walk takes exactly `kept` of `rels`, and the watch filter, the private-file rules and the cache each give that answer for every path. */
async function assertEveryReaderKeeps(root: string, rels: readonly string[], kept: readonly string[]): Promise<void> {
  const scan = await scanFolder(root, { excludeGlobs: [], maxFileSizeBytes: 0 });
  assert.deepEqual(scan.files.map((f) => f.rel).sort(), [...kept].sort(), 'the walk');
  const isRelevant = eventFilter(root, { excludeGlobs: [] });
  const cache = new GitignoreCache();
  for (const rel of rels) {
    const path = join(root, rel);
    const isKept = kept.includes(rel);
    assert.equal(await isRelevant(path), isKept, `the watch filter on ${rel}`);
    assert.equal(!(await isGitignored(path, root)), isKept, `the private-file rules on ${rel}`);
    assert.equal(!(await cache.ignores(path, root)), isKept, `the cache on ${rel}`);
  }
}

describe('gitignore: one reader for the walk, the watch filter and the private-file rules', () => {
  let base: string;
  before(() => (base = mkdtempSync(join(tmpdir(), 'ksm-gitignore-'))));
  after(() => rmSync(base, { recursive: true, force: true }));

  for (const { name, files, ignored } of cases) {
    it(`${name}: every reader ignores exactly what git does`, async () => {
      const root = mkdtempSync(join(base, 'case-'));
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, rel)), { recursive: true });
        writeFileSync(join(root, rel), text);
      }
      const rels = Object.keys(files).filter((rel) => !rel.endsWith('.gitignore'));
      const expected = rels.filter((rel) => !ignored.includes(rel));
      await assertEveryReaderKeeps(root, rels, expected);
    });
  }

  it('the cache reads an edited .gitignore again, and parses a text it has seen once', async () => {
    const root = mkdtempSync(join(base, 'edit-'));
    writeFileSync(join(root, 'a.md'), '');
    const cache = new GitignoreCache();
    assert.equal(await cache.ignores(join(root, 'a.md'), root), false, 'no .gitignore');
    writeFileSync(join(root, '.gitignore'), 'a.md\n');
    const first = await cache.rulesIn(root);
    assert.equal(await cache.ignores(join(root, 'a.md'), root), true, 'a new .gitignore applies at once');
    assert.equal(await cache.rulesIn(root), first, 'the same text is not parsed again');
    writeFileSync(join(root, '.gitignore'), '# nothing\n');
    assert.equal(await cache.ignores(join(root, 'a.md'), root), false, 'an edit applies at once');
    rmSync(join(root, '.gitignore'));
    assert.equal(await cache.rulesIn(root), undefined, 'a removed one stops applying');
  });

  it('a .gitignore that is a symbolic link is not followed (as git 2.32+): its rules apply nowhere, and what it points to is never opened', async () => {
    const root = mkdtempSync(join(base, 'linked-'));
    const outside = mkdtempSync(join(base, 'outside-'));
    writeFileSync(join(outside, 'all'), '*\n');
    writeFileSync(join(outside, 'locked'), '*\n');
    if (process.platform !== 'win32') {
      chmodSync(join(outside, 'locked'), 0);
      execFileSync('mkfifo', [join(outside, 'pipe')]); // opened, it would wait for a writer forever
    }
    const files = ['a.md', 'sub/b.md', 'deep/c.md', 'fifo/d.md'];
    for (const rel of files) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), 'text\n');
    }
    symlinkSync(join(outside, 'all'), join(root, '.gitignore'));
    symlinkSync(join(outside, 'locked'), join(root, 'sub', '.gitignore'));
    symlinkSync(join(outside, process.platform === 'win32' ? 'all' : 'pipe'), join(root, 'deep', '.gitignore'));
    if (process.platform !== 'win32') execFileSync('mkfifo', [join(root, 'fifo', '.gitignore')]); // not a link, but no regular file either
    await assertEveryReaderKeeps(root, files, files);
    assert.equal(await new GitignoreCache().rulesIn(root), undefined, 'no rules from a linked .gitignore');
  });

  it('a path a line too complex to apply left out says which .gitignore and which line, escaped, without the line itself', async () => {
    const root = mkdtempSync(join(base, 'complex-'));
    const line = `${'*a'.repeat(MAX_GITIGNORE_STAR_RUNS)}*\u001b[2J\n`; // 11 runs, and an escape sequence of its own
    const weird = process.platform === 'win32' ? 'weird' : 'we\nird';
    for (const rel of [`${weird}/x.md`, `${weird}/deep/y.md`, 'plain/z.md', 'kept.md']) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), 'text\n');
    }
    writeFileSync(join(root, weird, '.gitignore'), `# built\n\nbuild/\n${line}`);
    writeFileSync(join(root, 'plain', '.gitignore'), `${line}`);
    const scan = await scanFolder(root, { excludeGlobs: [], maxFileSizeBytes: 0 });
    assert.deepEqual(
      scan.files.map((f) => f.rel),
      ['kept.md'],
    );
    const reasons = Object.fromEntries(scan.skipped.map((s) => [relative(root, s.path).split(sep).join('/'), s.reason]));
    const shownWeird = weird.replace('\n', '\\n');
    assert.equal(reasons[`${weird}/x.md`], `left out by line 4 of ${shownWeird}/.gitignore: more than ${MAX_GITIGNORE_STAR_RUNS} runs of * are too complex to apply (simplify or remove that line)`);
    assert.equal(reasons[`${weird}/deep`], reasons[`${weird}/x.md`], 'a folder it leaves out says the same');
    assert.match(reasons['plain/z.md']!, /^left out by line 1 of plain\/\.gitignore: /);
    for (const reason of Object.values(reasons)) assert.doesNotMatch(reason, /[\u0000-\u001f]/, 'no control character of a name or a line gets into a reason');

    // A selected folder below one the line leaves out: the same reason, its .gitignore named from the root.
    mkdirSync(join(root, 'plain', 'deeper'));
    writeFileSync(join(root, 'plain', 'deeper', 'w.md'), 'text\n');
    const selected = await scanFolder(join(root, 'plain', 'deeper'), { excludeGlobs: [], maxFileSizeBytes: 0, root });
    assert.deepEqual(selected.files, []);
    assert.match(selected.skipped.map((s) => s.reason).join('|'), /left out by line 1 of plain\/\.gitignore: /);
    assert.ok(
      selected.skipped.every((s) => !s.excluded),
      'said in every run, not counted away with what the folder excludes',
    );
  });

  it('a path a .gitignore ran out of its matching budget on is left out naming that file, and named in every run (not counted as excluded)', async () => {
    const root = mkdtempSync(join(base, 'budget-'));
    const deep = Array.from({ length: 300 }, () => 'a').join('/');
    mkdirSync(join(root, deep), { recursive: true });
    writeFileSync(join(root, deep, 'x.md'), 'text\n');
    writeFileSync(join(root, 'kept.md'), 'text\n');
    // Under the run limit, but as costly as a line gets on a deep path (gitignoreGit.test.ts: over the budget there).
    writeFileSync(join(root, '.gitignore'), `${'**/a*/'.repeat(MAX_GITIGNORE_STAR_RUNS / 2)}b\n`);
    const scan = await scanFolder(root, { excludeGlobs: [], maxFileSizeBytes: 0 });
    assert.deepEqual(
      scan.files.map((f) => f.rel),
      ['kept.md'],
    );
    const costly = scan.skipped.filter((s) => /^left out by \.gitignore: its lines are too costly to match against this path/.test(s.reason));
    assert.equal(costly.length, 1, JSON.stringify(scan.skipped.map((s) => [relative(root, s.path).length, s.reason, s.excluded])));
    assert.equal(costly[0]!.excluded, undefined);
    assert.deepEqual(
      scan.skipped.filter((s) => s.excluded).map((s) => relative(root, s.path)),
      ['.gitignore'],
    );
  });
});
