// Every regular expression literal in src/ reads its input in time linear in its length: what
// they read is mostly someone else's text (a server's error page and file names, a model's
// answer, a request's headers, a folder's names), and a pattern that backtracks
// polynomially or worse lets that text block the extension host or the webview for minutes
// (a 64 KiB error page took 5 s; a megabyte of dots in a status, hours). recheck
// (makenowjust-labs/recheck) decides each pattern: by automaton theory where it can, else by
// a seeded fuzzer, so the verdicts do not change from run to run. A pattern it cannot clear
// is listed below with why its input is bounded and trusted.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkSync } from 'recheck';
import ts from 'typescript';
import { secretPattern } from '../../src/api/redact';
import { globsPattern, SYNC_STATE_NAME } from '../../src/common/core/folderExpansion';
import { globCostProblem, MAX_GLOB_CHARS, MAX_GLOB_WILDCARDS } from '../../src/common/core/globCost';
import { ANY_CREDENTIAL_NAME } from '../../src/common/core/privateFiles';
import { SETTINGS } from '../../src/common/core/settingsTable';
import { DEFAULT_EXCLUDES } from '../../src/sync/core/scan';

const root = join(__dirname, '../..');

/**
 * A seeded fuzzer, and no limit in milliseconds on its incubation: recheck's default stops an
 * incubating match at 250 ms and counts it as slow, so on a loaded machine a linear pattern was
 * called quadratic (the key matcher, whose 240 KB "attack" takes V8 2 ms; recheck alone with
 * a 5 ms limit says the same). Its step limit alone decides there. (Its attack limit in time
 * stays: without it one check ran for minutes, and a slow attack is not what misleads it.)
 */
const RECHECK = { randomSeed: 0, timeout: null, incubationTimeout: null } as const;

/** Patterns recheck cannot clear whose input is short and our own: `file: /pattern/flags` → why. */
const BOUNDED_INPUT = new Map<string, string>([
  ['src/nativeChat/core/launcherInstall.ts: /-(\\d+)\\.(\\d+)\\.(\\d+)(?:-[A-Za-z0-9.-]+)?$/', "reads the name of the extension's own install folder (VS Code writes it; at most 255 bytes)"],
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

function regexLiterals(file: string): Array<{ pattern: string; flags: string; line: number }> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Array<{ pattern: string; flags: string; line: number }> = [];
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const text = node.getText(source);
      const end = text.lastIndexOf('/');
      found.push({ pattern: text.slice(1, end), flags: text.slice(end + 1), line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('architecture: every regex in src/ reads its input in linear time', function () {
  this.timeout(300_000); // ~200 patterns; the fuzzer takes up to a second on a few

  it('finds no pattern that backtracks polynomially or worse, except the listed ones with bounded input', () => {
    const problems: string[] = [];
    const listedSeen = new Set<string>();
    let checked = 0;
    for (const file of sourceFiles(join(root, 'src'))) {
      const rel = relative(root, file).split('\\').join('/');
      for (const { pattern, flags, line } of regexLiterals(file)) {
        checked++;
        const key = `${rel}: /${pattern}/${flags}`;
        if (BOUNDED_INPUT.has(key)) {
          listedSeen.add(key);
          continue;
        }
        const diagnostics = checkSync(pattern, flags, RECHECK);
        if (diagnostics.status !== 'safe') {
          const how = diagnostics.status === 'vulnerable' ? `${diagnostics.complexity.summary}, e.g. ${diagnostics.attack.pattern}` : diagnostics.status;
          problems.push(`${rel}:${line} /${pattern}/${flags}: ${how}`);
        }
      }
    }
    assert.ok(checked > 100, `only ${checked} regex literals found: is the scan still reading src/?`);
    assert.deepEqual(problems, [], 'rewrite these to read their input once (see the fixes in httpErrors.ts, announcement.ts, baseUrl.ts), or list them with the reason their input is bounded');
    assert.deepEqual(
      [...BOUNDED_INPUT.keys()].filter((key) => !listedSeen.has(key)),
      [],
      'listed patterns that no longer exist: remove them from BOUNDED_INPUT',
    );
  });

  it('tells a quadratic pattern from a linear one (the checker itself still works)', () => {
    assert.equal(checkSync('^\\s*-----BEGIN', 'm', RECHECK).status, 'vulnerable');
    assert.equal(checkSync('\\/+$', '', RECHECK).status, 'vulnerable');
    assert.equal(checkSync('(?<!\\/)\\/+$', '', RECHECK).status, 'safe');
    assert.equal(checkSync('<[^<>]*>', 'g', RECHECK).status, 'safe');
  });
});

/** Where each `new RegExp(…)` / `RegExp(…)` of src/ is: `file: the function or constant building it`. */
function regexBuilders(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const owner = (node: ts.Node): string => {
    let constant: string | undefined;
    for (let up: ts.Node | undefined = node.parent; up; up = up.parent) {
      if ((ts.isFunctionDeclaration(up) || ts.isMethodDeclaration(up)) && up.name) return up.name.getText(source);
      if (ts.isVariableDeclaration(up)) constant = up.name.getText(source);
    }
    return constant ?? '(module)';
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp') found.push(owner(node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A hostile key: every character the matcher treats specially, runs of backslashes, encodings' own characters. */
const KEYS = ['ksm-0a1B2c3D4e5F', 'a.b*c+?^${}()|[]\\/-', 'ab\\cd', 'ab\\\\\\cd', 'key\\', '%25%2525%', '&#39;&amp;', 'u0041\\u0041', '€😀 "&<>\'+'];

/** Globs the budget (globCost.ts) lets through, at its limits, and the defaults. */
const GLOBS = [
  ['**/*a*a*b'],
  ['**/a/**/*a*b'],
  ['*a*a*a'],
  ['**/a/**/b'],
  ['**/*.+(png|jpg)', 'x+(ab)abc'],
  ['{a,b,c}/**/*.{ts,js}', '[[:alpha:]]?*'],
  [`*${'a'.repeat(MAX_GLOB_CHARS - 2)}*`],
  [...DEFAULT_EXCLUDES, ...(SETTINGS.uploadExclude.default as string[])],
];

/** Every builder of src/ and what it can build; a new one must be added here. */
const BUILDERS: Record<string, { patterns: () => RegExp[]; maxDegree?: number } | { copies: string }> = {
  'src/api/redact.ts: secretPattern': { patterns: () => KEYS.map(secretPattern) },
  'src/common/core/folderExpansion.ts: SYNC_STATE_NAME': { patterns: () => [SYNC_STATE_NAME] },
  // A glob compiles to a pattern that backtracks per wildcard by nature; globCost.ts bounds how many, and names are at most 255 characters.
  'src/common/core/folderExpansion.ts: globsPattern': { patterns: () => GLOBS.map(globsPattern), maxDegree: MAX_GLOB_WILDCARDS },
  'src/common/core/privateFiles.ts: ANY_CREDENTIAL_NAME': { patterns: () => [ANY_CREDENTIAL_NAME] },
  'src/common/core/privateFiles.ts: privateKeysRemoved': { copies: 'PRIVATE_KEY_BLOCK, a literal the test above checks (a fresh lastIndex)' },
};

describe('architecture: every regex built at run time in src/ reads its input in linear time', function () {
  this.timeout(600_000); // recheck's fuzzer takes about a second on a glob

  it('knows every builder of src/ (new RegExp, RegExp), and no builder it lists is gone', () => {
    const sites = new Set<string>();
    for (const file of sourceFiles(join(root, 'src'))) {
      const rel = relative(root, file).split('\\').join('/');
      for (const owner of regexBuilders(file)) sites.add(`${rel}: ${owner}`);
    }
    assert.deepEqual(
      [...sites].filter((site) => !(site in BUILDERS)),
      [],
      'check what these build below (hostile and representative inputs), or build them as literals',
    );
    assert.deepEqual(
      Object.keys(BUILDERS).filter((site) => !sites.has(site)),
      [],
      'listed builders that no longer exist',
    );
  });

  it('the globs it checks are ones the budget lets through, and the extglob that hung is not', () => {
    for (const glob of GLOBS.flat()) assert.equal(globCostProblem(glob), undefined, glob);
    assert.ok(globCostProblem('x+(a*)b'), 'x+(a*)b compiles to x(?:a[^/]*?)+b: exponential');
  });

  for (const [site, builder] of Object.entries(BUILDERS)) {
    if ('copies' in builder) continue;
    it(`${site}: what it builds from hostile and representative inputs is linear${builder.maxDegree ? ` (globs: at most degree ${builder.maxDegree}, never exponential)` : ''}`, () => {
      const problems: string[] = [];
      for (const pattern of builder.patterns()) {
        const diagnostics = checkSync(pattern.source, pattern.flags, RECHECK);
        if (diagnostics.status === 'safe') continue;
        const complexity = diagnostics.status === 'vulnerable' ? diagnostics.complexity : undefined;
        if (builder.maxDegree && complexity?.type === 'polynomial' && complexity.degree <= builder.maxDegree) continue;
        problems.push(
          `/${pattern.source.slice(0, 200)}/${pattern.flags}: ${complexity ? `${complexity.summary}, e.g. ${diagnostics.status === 'vulnerable' ? diagnostics.attack.pattern.slice(0, 120) : ''}` : diagnostics.status}`,
        );
      }
      assert.deepEqual(problems, []);
    });
  }
});
