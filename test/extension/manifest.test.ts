// The manifest is product surface: these checks keep it following VS Code conventions.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { localizedManifest } from '../support/manifest';

const manifest = localizedManifest();
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

  it('has a Volumes tree and, in a container of its own (full height, movable to the secondary side bar), the Chat webview; welcome content for both setup steps', () => {
    assert.deepEqual(
      contributes.views.ksm.map((v: any) => [v.id, v.type]),
      [['ksm.volumes', 'tree']],
    );
    assert.deepEqual(
      contributes.views['ksm-chat'].map((v: any) => [v.id, v.type]),
      [['ksm.chat', 'webview']],
    );
    assert.deepEqual(
      contributes.viewsContainers.activitybar.map((c: any) => c.title),
      ['KSM Assistant', 'KSM Chat'],
    );
    const whens = contributes.viewsWelcome.map((w: any) => w.when).join(' | ');
    assert.match(whens, /!config\.ksm\.baseUrl/);
    assert.match(whens, /!ksm\.hasApiKey/);
  });

  it('writes welcome views as VS Code renders them: no inline code (shown as literal backticks), no sentence cut off before its button', () => {
    for (const welcome of contributes.viewsWelcome) {
      const lines = String(welcome.contents).split('\n');
      assert.ok(!welcome.contents.includes('`'), `${welcome.when}: backticks show literally in a welcome view`);
      for (const [index, line] of lines.entries()) {
        if (/^\[[^\]]+\]\(command:/.test(line)) continue;
        // A text line is a whole sentence: a button cannot continue it.
        assert.match(line, /[.?!:]$/, `${welcome.when}: line ${index + 1} "${line}" ends mid-sentence`);
      }
    }
  });

  it('welcome views have one primary action (one button) and links, and the title bar offers volume actions only once connected (issue 26, rough edge 6)', () => {
    for (const welcome of contributes.viewsWelcome) {
      const buttons = String(welcome.contents)
        .split('\n')
        .filter((line) => /^\[[^\]]+\]\(command:[^)]+\)$/.test(line));
      assert.equal(buttons.length, 1, `${welcome.when}: ${buttons.length} buttons (${buttons.join(', ')})`);
    }
    const volumeActions = contributes.menus['view/title'].filter(
      (m: any) => /view == ksm\.volumes/.test(m.when) && ['ksm.volumes.add', 'ksm.upload', 'ksm.volumes.filter', 'ksm.volumes.refresh', 'ksm.volumes.sort'].includes(m.command),
    );
    assert.equal(volumeActions.length, 5);
    for (const action of volumeActions) assert.match(action.when, /\bksm\.connected\b/, `${action.command} is hidden before connection`);
  });

  it("ksm.baseUrl's description speaks to the user, without an implementation note (issue 26, rough edge 7)", () => {
    const description: string =
      contributes.configuration.properties?.['ksm.baseUrl']?.markdownDescription ??
      contributes.configuration.find?.((c: any) => c.properties?.['ksm.baseUrl'])?.properties['ksm.baseUrl'].markdownDescription;
    assert.match(description, /workspace cannot redirect your API key/);
    assert.doesNotMatch(description, /machine|vanished|scope/i);
  });

  it('has a walkthrough: connect, upload a file, ask a question, each with its markdown media and a completion event', () => {
    const [walkthrough] = contributes.walkthroughs;
    assert.deepEqual(
      walkthrough.steps.map((s: any) => s.id),
      ['connect', 'upload', 'ask'],
    );
    for (const step of walkthrough.steps) {
      assert.ok(step.completionEvents?.length, `${step.id} has a completion event`);
      assert.match(step.media.markdown, /^media\/walkthrough\/.+\.md$/);
      assert.ok(readFileSync(step.media.markdown, 'utf8').startsWith('# '), `${step.media.markdown} exists`);
      assert.match(step.description, /\]\(command:ksm\./, `${step.id} has an action`);
    }
  });

  it('offers upload in the Explorer context menu', () => {
    assert.ok(contributes.menus['explorer/context'].some((m: any) => m.command === 'ksm.upload'));
  });
});
