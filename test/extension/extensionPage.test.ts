// The README is the extension's page in VS Code's Extensions view, and the icon its face.
// vsce refuses SVG images in the README and the page reads its images from the installed
// extension, so every image must be a PNG that ships; the "From source" commands are the
// ones a new user and CI run.
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const readme = readFileSync('README.md', 'utf8');

/** Width and height from a PNG's IHDR chunk, or undefined when the bytes are not a PNG. */
function pngSize(path: string): { width: number; height: number } | undefined {
  const bytes = readFileSync(path);
  if (!bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('the extension page (README and icon)', () => {
  it('declares a 128×128 PNG icon that exists in media/', () => {
    assert.match(manifest.icon, /^media\/[^/]+\.png$/);
    assert.deepEqual(pngSize(manifest.icon), { width: 128, height: 128 });
  });

  it('shows only small PNG images from media/ (shipped by .vscodeignore)', () => {
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    assert.ok(images.length >= 1, 'the README shows a screenshot');
    assert.match(readFileSync('.vscodeignore', 'utf8'), /^!media\/\*\*$/m);
    for (const image of images) {
      assert.match(image, /^media\/[^/]+\.png$/, `${image}: a relative PNG under media/`);
      assert.ok(existsSync(image), `${image} exists`);
      const size = pngSize(image);
      assert.ok(size && size.width <= 1200, `${image}: a PNG at most 1200 px wide`);
      assert.ok(statSync(image).size < 150 * 1024, `${image}: under 150 KB`);
    }
  });

  it('ships a changelog, and every file .vscodeignore names to ship exists (vsce skips a missing one silently)', () => {
    const included = readFileSync('.vscodeignore', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('!') && !/[*?[{]/.test(line))
      .map((line) => line.slice(1));
    assert.ok(included.includes('CHANGELOG.md'), 'CHANGELOG.md ships (the Marketplace and the Extensions view show it)');
    for (const file of included) assert.ok(existsSync(file), `${file} is named in .vscodeignore but does not exist`);
    assert.match(readFileSync('CHANGELOG.md', 'utf8'), new RegExp(`^## \\[${manifest.version.replaceAll('.', '\\.')}\\]`, 'm'), `CHANGELOG.md has a section for version ${manifest.version}`);
  });

  it('keeps the two commands in "From source", and CI runs exactly the test one', () => {
    const fromSource = readme.split(/^## From source$/m)[1];
    assert.ok(fromSource, 'a "## From source" section');
    assert.match(fromSource, /^npm ci && npm start {2,}#/m);
    assert.match(fromSource, /^npm ci && npm test {2,}#/m);
    const ci = readFileSync('.ci/run', 'utf8')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#'));
    assert.deepEqual(ci.slice(-1), ['npm ci && npm test']);
  });
});

describe('the README says where KSM rag-agent is offered (issue 26, rough edge 8)', () => {
  it('names Ask mode, not Agent mode, matching the catalog: the agent entry cannot call tools, and VS Code lists only tool-calling models in Agent mode', async () => {
    const { modelCatalog } = await import('../../src/nativeChat/core/modelCatalog');
    const entries = modelCatalog({ show: true, models: ['m'], agentId: 'rag-agent', agentModel: 'am' });
    const agent = entries.find((entry) => entry.kind === 'agent');
    assert.equal(agent?.toolCalling, false);
    const text = readme.replace(/\s+/g, ' ');
    assert.match(text, /\*\*KSM rag-agent\*\* is offered in \*\*Ask\*\* mode only/);
    assert.match(text, /\*\*Agent\*\* mode lists only models that can call tools, and the agent cannot/);
    assert.doesNotMatch(text, /rag-agent[^.]*appears in (the )?Agent mode/i);
  });
});

describe("the README's settings table is package.json's settings", () => {
  const properties: Record<string, { default?: unknown; scope?: string }> = manifest.contributes.configuration.properties;
  const rows = new Map(
    [
      ...readme
        .split(/^## Settings$/m)[1]!
        .split(/^## /m)[0]!
        .matchAll(/^\| `(ksm\.[\w.]+)` \| ([^|]*) \|/gm),
    ].map((m) => [m[1]!, m[2]!.trim()]),
  );

  it('lists every setting, and only those', () => {
    assert.deepEqual([...rows.keys()].sort(), Object.keys(properties).sort());
  });

  it("gives each setting's default as package.json declares it", () => {
    for (const [key, shown] of rows) {
      const value = properties[key]!.default;
      if (Array.isArray(value) && value.length && typeof value[0] === 'string') {
        // A glob list is shown by its names: `**/node_modules/**` as node_modules.
        assert.deepEqual(
          shown.split(/,\s*/),
          value.map((glob: string) => glob.replace(/^\*\*\//, '').replace(/\/\*\*$/, '')),
          key,
        );
        continue;
      }
      const expected = value === '' || value === undefined ? '—' : typeof value === 'string' ? `\`${value}\`` : Array.isArray(value) ? '`[]`' : String(value);
      assert.equal(shown, expected, key);
    }
  });

  it('names as ignored in an untrusted workspace only settings VS Code is told to ignore there (restrictedConfigurations)', () => {
    const paragraph = readme.split('**Untrusted workspaces (Restricted Mode).**')[1]!.split('\n\n')[0]!;
    const named = [...paragraph.matchAll(/`(ksm\.[\w.]+)`/g)].map((m) => m[1]!);
    assert.ok(named.length >= 4, named.join(', '));
    for (const name of named) assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(name), `${name} is not restricted`);
  });

  it('names every ksm.* setting it mentions anywhere as one package.json declares (prose, walkthrough pages, setting descriptions)', () => {
    const texts = [readme, readFileSync('docs/sync.md', 'utf8'), readFileSync('docs/security.md', 'utf8'), readFileSync('package.nls.json', 'utf8')];
    for (const page of ['connect', 'upload', 'ask']) texts.push(readFileSync(`media/walkthrough/${page}.md`, 'utf8'));
    for (const text of texts)
      for (const [name] of text.matchAll(/(?<!command:)\bksm\.[a-z]+(?:\.[a-zA-Z]+)+\b/g)) {
        if (name === 'ksm.example.com') continue;
        assert.ok(name in properties, `${name} is not a setting`);
      }
  });
});

describe('the docs cite files that exist', () => {
  it('every repository path named in README, CONTRIBUTING, docs/ and emulator/README (a test, a source, a script) exists', () => {
    const pages = ['README.md', 'CONTRIBUTING.md', 'emulator/README.md', ...readdirSync('docs').map((name) => `docs/${name}`)];
    const missing: string[] = [];
    for (const page of pages) {
      const text = readFileSync(page, 'utf8');
      for (const [, path] of text.matchAll(/(?<=^|[\s`(])((?:test|src|scripts|bench|emulator|media|bin)\/[\w./{},-]*[\w}])/gm)) {
        if (path.includes('/NN')) continue; // a pattern: test/e2e/scenarios/NN-….e2e.ts
        // `sample.{pdf,docx}` names two files; `emulator/server` a module (its .ts).
        const brace = /\{([^}]*)\}/.exec(path);
        const variants = brace ? brace[1]!.split(',').map((ext) => path.replace(brace[0], ext)) : [path];
        for (const variant of variants) if (!existsSync(variant) && !existsSync(`${variant}.ts`)) missing.push(`${page}: ${variant}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
