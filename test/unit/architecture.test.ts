// Guards the layering the README promises: src/api and the chat protocol run without VS Code.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const importsVscode = (source: string) => /from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)/.test(source);

describe('architecture', () => {
  it('src/api never imports vscode, so it runs under plain mocha and could serve a CLI', () => {
    const offenders = filesUnder('src/api').filter((f) => importsVscode(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, []);
  });

  it('the webview and the shared chat protocol never import vscode or node modules', () => {
    const files = [...filesUnder('src/webview'), 'src/chat/protocol.ts'];
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      assert.ok(!importsVscode(source), `${file} imports vscode`);
      assert.ok(!/from\s+['"]node:/.test(source), `${file} imports a node module`);
    }
  });
});
