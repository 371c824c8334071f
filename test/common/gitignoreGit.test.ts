// `.gitignore` rules answer as git does: generated scenarios (nested `.gitignore` files two and
// three levels deep, negation, `dir/`, anchored `/x`, `**`, `*.ext`, escaped `\!` and `\#`,
// trailing spaces, character classes, names differing in case) are written to a `git init`
// folder, and for every file and folder our answer (the private-file rules' isGitignored, watch
// mode's GitignoreCache and event filter, the folder walk of a sync) must be the one of
// `git check-ignore --no-index`, one git process per scenario (`--stdin`). The case-insensitive
// rule (macOS, Windows) is checked against git with `core.ignorecase=true`.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import {
  GITIGNORE_IGNORES_CASE,
  GitignoreCache,
  gitignoreLineFor,
  isGitignored,
  type IgnoringLine,
  MATCH_BUDGET,
  MAX_GITIGNORE_STAR_RUNS,
  matcherSteps,
  parseGitignore,
  PATH_ALLOWANCE,
  ruleVerdict,
} from '../../src/common/core/gitignore';
import { mulberry32 } from '../../emulator/responder';
import { scanFolder } from '../../src/sync/core/scan';
import { eventFilter } from '../../src/sync/core/watchBatcher';

const hasGit = spawnSync('git', ['--version']).status === 0;

const DIRS = ['sub', 'build', 'Logs', 'logs', 'a', 'b', 'deep', 'tmp', 'x y'];
const FILES = ['keep.log', 'a.log', 'B.LOG', 'notes.md', 'README.md', 'readme.md', 'x.txt', '!bang.md', '#hash.md', 'sp.md ', 'data1.csv', 'dataX.csv', 'build', 'tmp.md', 'é.md'];

/** Lines drawn from: each names things the tree has, in git's syntax. */
function lineFor(pick: <T>(items: readonly T[]) => T): string {
  const dir = pick(DIRS);
  const file = pick(FILES).trimEnd();
  const ext = pick(['log', 'md', 'LOG', 'csv', 'txt']);
  const shapes = [
    `*.${ext}`,
    `!*.${ext}`,
    `${file}`,
    `!${file}`,
    `/${file}`,
    `${dir}/`,
    `!${dir}/`,
    `/${dir}/`,
    `${dir}`,
    `${dir}/*`,
    `!${dir}/${file}`,
    `${dir}/**`,
    `**/${dir}`,
    `**/${dir}/${file}`,
    `${dir}/**/${file}`,
    `a/**/b/`,
    `\\!bang.md`,
    `\\#hash.md`,
    `#hash.md`,
    `sp.md\\ `,
    `sp.md   `,
    `${file}   `,
    `data[0-9].csv`,
    `data[!0-9].csv`,
    `data[[:alpha:]].csv`,
    `[Rr]eadme.md`,
    `[a-c].log`,
    `?.log`,
    `*`,
    `!*/`,
    `*.L[Oo]G`,
    `README.MD`,
    `Logs/`,
    `LOGS`,
    `x\\ y/`,
    `**/*.md`,
    `*/keep.log`,
    `é.md`,
    `?.md`,
  ];
  return pick(shapes);
}

interface Scenario {
  files: string[];
  dirs: string[];
  gitignores: Record<string, string>;
}

function scenario(seed: number): Scenario {
  const rand = mulberry32(seed); // seeded: the same scenarios on every run, so a failure can be replayed
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const dirs = new Set<string>();
  const files = new Set<string>();
  const folders = ['', ...Array.from({ length: 4 }, () => pick(DIRS)), ...Array.from({ length: 4 }, () => `${pick(DIRS)}/${pick(DIRS)}`), `${pick(DIRS)}/${pick(DIRS)}/${pick(DIRS)}`];
  for (const folder of folders) {
    const parts = folder ? folder.split('/') : [];
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
    for (let n = 0; n < 5; n++) files.add((folder ? `${folder}/` : '') + pick(FILES));
  }
  // A file and a folder cannot share a path.
  for (const file of [...files]) if (dirs.has(file)) files.delete(file);
  for (const file of [...files]) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) if (files.has(parts.slice(0, i).join('/'))) files.delete(file);
  }
  // `.gitignore` files at the top and one, two and three levels down.
  const gitignores: Record<string, string> = {};
  const homes = ['', ...[...dirs].filter(() => rand() < 0.5)];
  for (const home of homes) {
    const lines = Array.from({ length: 2 + Math.floor(rand() * 5) }, () => lineFor(pick));
    const end = pick(['\n', '\r\n']);
    gitignores[home] = (rand() < 0.1 ? '\uFEFF' : '') + lines.join(end) + (rand() < 0.8 ? end : '');
  }
  return { files: [...files].sort(), dirs: [...dirs].sort(), gitignores };
}

/** git's answer for each path: one `git check-ignore` for them all. */
/** The paths git ignores, each with the line that decided, as git names it: `<.gitignore from the root>:<line>`. */
function gitIgnored(root: string, paths: string[], ignoreCase: boolean): Map<string, string> {
  const home = join(root, '..', 'home');
  const out = execFileSync('git', ['-c', `core.ignorecase=${ignoreCase}`, '-c', 'core.excludesFile=', 'check-ignore', '--no-index', '-v', '-n', '-z', '--stdin'], {
    cwd: root,
    input: paths.join('\0') + '\0',
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: join(home, 'none') },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'], // its warnings (a linked .gitignore) not on the test's output
  });
  // Records of four fields: source, line, pattern, path; no source: no line matched.
  const fields = out.split('\0');
  const ignored = new Map<string, string>();
  for (let i = 0; i + 3 < fields.length; i += 4) {
    const [source, line, pattern, path] = fields.slice(i, i + 4) as [string, string, string, string];
    if (source !== '' && !pattern.startsWith('!')) ignored.set(path, `${source}:${line}`);
  }
  return ignored;
}

/** A named line as git's `check-ignore -v` writes it: the `.gitignore` from the root, `:`, its line. */
function lineNamed(root: string, hit: IgnoringLine): string {
  return `${relative(root, join(hit.scope.base, '.gitignore')).split(sep).join('/')}:${hit.line}`;
}

function writeScenario(root: string, s: Scenario): void {
  for (const dir of s.dirs) mkdirSync(join(root, dir), { recursive: true });
  for (const file of s.files) writeFileSync(join(root, file), 'text\n');
  for (const [home, text] of Object.entries(s.gitignores)) writeFileSync(join(root, home, '.gitignore'), text);
}

const SCENARIOS = 60;

describe('gitignore: every answer is git check-ignore’s', function () {
  // A guard against a hang, not a speed target: each case runs 60 git processes and asks every reader about ~2,000 paths (20 s was passed once on a loaded machine).
  this.timeout(180_000);
  let base: string;
  before(function () {
    if (!hasGit) {
      // eslint-disable-next-line no-console
      console.warn('    git is not installed: the check against git check-ignore is skipped');
      this.skip();
    }
    base = mkdtempSync(join(tmpdir(), 'ksm-gitignore-git-'));
    mkdirSync(join(base, 'home'));
  });
  after(() => base && rmSync(base, { recursive: true, force: true }));

  for (const ignoreCase of [false, true]) {
    const platforms = ignoreCase ? 'macOS and Windows (core.ignorecase=true)' : 'Linux (core.ignorecase=false)';
    it(`${SCENARIOS} generated scenarios, the rule of ${platforms}: the private-file rules, the watch cache and (on this platform's rule) the walk and the watch filter`, async () => {
      const problems: string[] = [];
      let ignoredSeen = 0;
      for (let seed = 1; seed <= SCENARIOS; seed++) {
        const s = scenario(seed * 7919 + (ignoreCase ? 1 : 0));
        const root = join(base, `${ignoreCase ? 'i' : 's'}${seed}`);
        mkdirSync(root);
        execFileSync('git', ['init', '-q'], { cwd: root });
        writeScenario(root, s);
        const paths = [...s.dirs, ...s.files];
        const expected = gitIgnored(root, paths, ignoreCase);
        ignoredSeen += expected.size;
        const cache = new GitignoreCache(ignoreCase);
        const platformRule = ignoreCase === GITIGNORE_IGNORES_CASE;
        const filter = eventFilter(root, { excludeGlobs: [] });
        for (const rel of paths) {
          const isDir = s.dirs.includes(rel);
          const want = expected.has(rel);
          const gitignores = Object.entries(s.gitignores)
            .map(([home, text]) => `${home || '.'}/.gitignore=${JSON.stringify(text)}`)
            .join(' ');
          const where = `seed ${seed}: ${isDir ? 'folder' : 'file'} ${JSON.stringify(rel)} (git: ${want ? 'ignored' : 'kept'}) with ${gitignores}`;
          if ((await cache.ignores(join(root, rel), root, isDir)) !== want) problems.push(`GitignoreCache, ${where}`);
          if (platformRule) {
            // isGitignored is whether this names a line; the line a refusal names (the private-file rules, chat context) is the one git names.
            const hit = await gitignoreLineFor(join(root, rel), root, isDir);
            if ((hit !== undefined) !== want) problems.push(`isGitignored, ${where}`);
            if (want && hit && !hit.tooComplex && lineNamed(root, hit) !== expected.get(rel)) problems.push(`gitignoreLineFor named ${lineNamed(root, hit)}, git ${expected.get(rel)}, ${where}`);
            if ((await filter(join(root, rel))) === want) problems.push(`the watch filter, ${where}`);
          }
        }
        if (platformRule) {
          const scan = await scanFolder(root, { excludeGlobs: [], maxFileSizeBytes: 0 });
          const taken = scan.files.map((f) => f.rel).sort();
          const keep = s.files.filter((f) => !expected.has(f) && !s.dirs.some((d) => expected.has(d) && f.startsWith(`${d}/`))).sort();
          if (JSON.stringify(taken) !== JSON.stringify(keep)) problems.push(`the walk, seed ${seed}: took ${JSON.stringify(taken)}, git keeps ${JSON.stringify(keep)}`);
          // What the walk leaves out names git's line: "ignored by line 3 of sub/.gitignore" where git says sub/.gitignore:3.
          for (const skip of scan.skipped) {
            const rel = relative(root, skip.path).split(sep).join('/');
            if (rel === '.git' || rel.endsWith('.gitignore')) continue; // the repository's data, and the rules themselves (applied, not uploaded)
            const named = /^(?:folder )?ignored by line (\d+) of (.+)$/.exec(skip.reason);
            if (!named || !skip.excluded || `${named[2]}:${named[1]}` !== expected.get(rel))
              problems.push(`the walk's reason for ${JSON.stringify(rel)}: ${JSON.stringify(skip.reason)}, git ${expected.get(rel) ?? 'keeps it'}, seed ${seed}`);
          }
        }
        if (problems.length > 20) break;
      }
      assert.deepEqual(problems.slice(0, 20), []);
      assert.ok(ignoredSeen > 200, `git ignored only ${ignoredSeen} paths: are the scenarios still written?`);
    });
  }

  it('a .gitignore that is a symbolic link is read by none of ours, as git (2.32+) reads none: in the root, deeper, to a file inside or outside the folder', async function () {
    if (process.platform === 'win32') this.skip(); // making links asks for rights there
    const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(execFileSync('git', ['--version'], { encoding: 'utf8' })) ?? []).slice(1).map(Number);
    if (major < 2 || (major === 2 && minor < 32)) this.skip(); // an older git follows the link
    const root = join(base, 'linked');
    const outside = join(base, 'linked-outside');
    mkdirSync(join(root, 'sub', 'deep'), { recursive: true });
    mkdirSync(outside);
    execFileSync('git', ['init', '-q'], { cwd: root });
    writeFileSync(join(outside, 'rules'), '*\n');
    writeFileSync(join(root, 'rules.txt'), '*.md\nsub/\n');
    symlinkSync(join(outside, 'rules'), join(root, '.gitignore'));
    symlinkSync('../rules.txt', join(root, 'sub', '.gitignore'));
    writeFileSync(join(root, 'sub', 'deep', '.gitignore'), 'x.md\n'); // a regular one below still applies
    const files = ['a.md', 'rules.txt', 'sub/b.md', 'sub/deep/x.md', 'sub/deep/y.md'];
    for (const rel of files) writeFileSync(join(root, rel), 'text\n');
    const paths = ['sub', 'sub/deep', ...files];
    const expected = gitIgnored(root, paths, GITIGNORE_IGNORES_CASE);
    assert.deepEqual([...expected.keys()], ['sub/deep/x.md'], 'git reads no linked .gitignore');
    const cache = new GitignoreCache();
    const filter = eventFilter(root, { excludeGlobs: [] });
    for (const rel of paths) {
      const isDir = !rel.includes('.');
      const want = expected.has(rel);
      assert.equal(await cache.ignores(join(root, rel), root, isDir), want, `GitignoreCache on ${rel}`);
      assert.equal(await isGitignored(join(root, rel), root, isDir), want, `isGitignored on ${rel}`);
      assert.equal(await filter(join(root, rel)), !want, `the watch filter on ${rel}`);
    }
    const scan = await scanFolder(root, { excludeGlobs: [], maxFileSizeBytes: 0 });
    assert.deepEqual(
      scan.files.map((f) => f.rel).sort(),
      files.filter((f) => !expected.has(f)),
      'the walk',
    );
  });

  it('patterns built to backtrack (git itself took minutes on them) are decided; a line of too many `*` runs, or too costly on a path, leaves the file out', async () => {
    const root = join(base, 'hostile');
    const name = `${'a'.repeat(250)}.md`;
    const deep = Array.from({ length: 300 }, () => 'a').join('/');
    mkdirSync(join(root, deep), { recursive: true });
    writeFileSync(join(root, name), '');
    writeFileSync(join(root, deep, 'x.md'), '');
    // No name here holds a `b`: none of these lines can match.
    writeFileSync(join(root, '.gitignore'), `${'*a'.repeat(MAX_GITIGNORE_STAR_RUNS - 1)}*b\n*a*a*a*a*a*a*a*a*b\n${'**/a/'.repeat(8)}**/b\n**/*a*a*a*b\n`);
    assert.equal(await isGitignored(join(root, name), root), false, 'a long name');
    assert.equal(await isGitignored(join(root, deep, 'x.md'), root), false, 'a deep path');
    writeFileSync(join(root, '.gitignore'), `${'**/a*/'.repeat(MAX_GITIGNORE_STAR_RUNS / 2)}b\n`);
    assert.equal(await isGitignored(join(root, deep, 'x.md'), root), true, 'over MATCH_BUDGET: left out, never taken');
    assert.equal(await isGitignored(join(root, name), root), false, 'a name it decides within the budget');
    // More runs than that: not matched at all, every file below left out (a line of 400 took ~2 ms a path; a few hundred such lines, an hour for a 5,000-file folder).
    for (const line of [`${'*a'.repeat(400)}*b`, `!${'*a'.repeat(MAX_GITIGNORE_STAR_RUNS)}*b`]) {
      writeFileSync(join(root, '.gitignore'), `${line}\n`);
      assert.equal(await isGitignored(join(root, name), root), true, `too many runs: left out (${line.slice(0, 12)}…)`);
    }
  });

  it('a committed .gitignore of hundreds of costly lines costs a scan work in proportion to its paths, not minutes; a usual one is never cut short', () => {
    // Counted in matcher steps, not time. Each line is under the run limit and as costly as such a line gets on a long name (~75 ms a path for 200 of them before).
    const rules = parseGitignore(Array.from({ length: 200 }, (_, i) => `${'*a'.repeat(3)}*b${i}`).join('\n'));
    const paths = Array.from({ length: 300 }, (_, i) => `${'a'.repeat(200)}${i}.md`);
    const before = matcherSteps();
    const verdicts = paths.map((path) => ruleVerdict(rules, path, false));
    const steps = matcherSteps() - before;
    assert.ok(steps <= MATCH_BUDGET + paths.length * PATH_ALLOWANCE, `${steps} steps for ${paths.length} paths`);
    assert.ok(
      verdicts.every((v) => v !== false),
      'a path decided is kept (no line matches), one the budget ran out on left out: never re-included',
    );

    // A usual file (GitHub's Node template's kind of lines) over 5,000 paths: every answer decided, none left out by the budget.
    const usual = parseGitignore(
      ['node_modules/', 'dist/', '*.log', 'npm-debug.log*', '.env*', 'coverage/', '/build', '**/tmp/**', '*.py[cod]', '!keep.log', '.DS_Store', '*.tgz', '.cache/', '**/*.map'].join('\n'),
    );
    for (let i = 0; i < 5000; i++) {
      assert.equal(ruleVerdict(usual, `part-${i % 20}/note-${i}.md`, false), undefined);
      assert.equal(ruleVerdict(usual, `part-${i % 20}/run-${i}.log`, false), true);
    }
  });
});
