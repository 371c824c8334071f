// The manifest is product surface: these checks keep it following VS Code conventions.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const contributes = manifest.contributes;

describe('package.json contributions', () => {
  it('targets a VS Code that runs here (code-server 4.100 = VS Code 1.100)', () => {
    assert.match(manifest.engines.vscode, /^\^1\.(\d+)\.\d+$/);
    const minor = Number(/^\^1\.(\d+)/.exec(manifest.engines.vscode)![1]);
    assert.ok(minor <= 100, 'engines.vscode must be <= 1.100');
    const types = JSON.parse(readFileSync('node_modules/@types/vscode/package.json', 'utf8')).version as string;
    assert.ok(types.startsWith('1.100.'), `@types/vscode ${types} must match engines`);
  });

  it('activates lazily only', () => {
    for (const event of manifest.activationEvents ?? []) {
      assert.ok(!['*', 'onStartupFinished'].includes(event), `eager activation event ${event}`);
    }
  });

  it('gives every command a category and a codicon, and every handler-only command a hidden palette entry', () => {
    for (const c of contributes.commands) {
      assert.equal(c.category, 'KSM', c.command);
      assert.match(c.icon, /^\$\([a-z-]+\)$/, c.command);
    }
  });

  it('describes every setting with markdownDescription under ksm.*', () => {
    for (const [key, value] of Object.entries<any>(contributes.configuration.properties)) {
      assert.ok(key.startsWith('ksm.'), key);
      assert.ok(value.markdownDescription, `${key} lacks markdownDescription`);
    }
  });

  it('never stores the API key in settings', () => {
    const keys = Object.keys(contributes.configuration.properties);
    assert.ok(!keys.some((k) => /api.?key|secret|token/i.test(k)), keys.join(', '));
  });

  it('has a Volumes tree, a Chat webview and welcome content for both setup steps', () => {
    const views = contributes.views.ksm;
    assert.deepEqual(views.map((v: any) => [v.id, v.type]), [['ksm.volumes', 'tree'], ['ksm.chat', 'webview']]);
    const whens = contributes.viewsWelcome.map((w: any) => w.when).join(' | ');
    assert.match(whens, /!config\.ksm\.baseUrl/);
    assert.match(whens, /!ksm\.hasApiKey/);
  });

  it('offers upload in the Explorer context menu', () => {
    assert.ok(contributes.menus['explorer/context'].some((m: any) => m.command === 'ksm.upload'));
  });
});
