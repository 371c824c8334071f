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

const root = join(__dirname, '../..');

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
        const diagnostics = checkSync(pattern, flags, { randomSeed: 0, timeout: null });
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
    assert.equal(checkSync('^\\s*-----BEGIN', 'm', { randomSeed: 0, timeout: null }).status, 'vulnerable');
    assert.equal(checkSync('\\/+$', '', { randomSeed: 0, timeout: null }).status, 'vulnerable');
    assert.equal(checkSync('(?<!\\/)\\/+$', '', { randomSeed: 0, timeout: null }).status, 'safe');
    assert.equal(checkSync('<[^<>]*>', 'g', { randomSeed: 0, timeout: null }).status, 'safe');
  });
});
