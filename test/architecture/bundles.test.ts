// The bundle layout of esbuild.mjs: the extension (dist/extension.js) and the `ksm` command
// line (dist/cli.js, with `ksm mcp`) are one split build, so no source module is in two
// output files: what both use is shared, not copied. Read from esbuild's own metafile (the
// source modules each output holds) of a production build into a temporary folder.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Output {
  inputs: Record<string, { bytesInOutput: number }>;
  imports: Array<{ path: string; kind: string; external?: boolean }>;
}
interface Metafile {
  outputs: Record<string, Output>;
}

const ROOT = join(__dirname, '..', '..');

/** Every output file a file loads, itself included: `static` follows only what loads with it, else `import()` too. */
function loads(meta: Metafile, from: string, onlyStatic: boolean, seen = new Set<string>()): Set<string> {
  if (seen.has(from)) return seen;
  seen.add(from);
  for (const i of meta.outputs[from]?.imports ?? []) {
    if (onlyStatic && i.kind !== 'import-statement' && i.kind !== 'require-call') continue;
    if (meta.outputs[i.path]) loads(meta, i.path, onlyStatic, seen);
  }
  return seen;
}

/** The source modules (src/…) an output file holds. */
const sourcesOf = (meta: Metafile, file: string) => Object.keys(meta.outputs[file]?.inputs ?? {}).filter((input) => input.startsWith('src/'));

describe('the bundles: the extension and the ksm CLI share their code', function () {
  this.timeout(120_000);
  let work: string;
  let meta: Metafile;

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'ksm-bundles-'));
    execFileSync(process.execPath, ['esbuild.mjs', '--production', '--cli-only', '--outdir', join(work, 'dist'), '--metafile', join(work, 'meta.json')], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    meta = JSON.parse(readFileSync(join(work, 'meta.json'), 'utf8')) as Metafile;
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('puts no module (source or library) in two output files', () => {
    const holder = new Map<string, string>();
    const twice: string[] = [];
    for (const [file, output] of Object.entries(meta.outputs)) {
      for (const input of Object.keys(output.inputs)) {
        const first = holder.get(input);
        if (first) twice.push(`${input}: ${first} and ${file}`);
        else holder.set(input, file);
      }
    }
    assert.deepEqual(twice, []);
    // The check has something to check: both entry points hold or share the service client and retrieval.
    for (const shared of ['src/api/client.ts', 'src/volumes/core/retrieval.ts', 'src/common/core/volumeTargets.ts']) {
      const file = holder.get(shared);
      assert.ok(file, `${shared} is bundled`);
      assert.ok(loads(meta, 'cli.js', false).has(file) && loads(meta, 'extension.js', false).has(file), `${shared} (in ${file}) is reachable from both extension.js and cli.js`);
      assert.ok(file !== 'cli.js' && file !== 'extension.js', `${shared} is in a shared file, not in one front end`);
    }
  });

  it('writes CommonJS files that load each other from the output folder', () => {
    const dist = join(work, 'dist');
    const written = readdirSync(dist).filter((f) => f.endsWith('.js'));
    assert.deepEqual(written.sort(), Object.keys(meta.outputs).sort(), 'the output folder holds exactly the outputs of this build (no stale chunk)');
    for (const file of written) {
      const code = readFileSync(join(dist, file), 'utf8');
      assert.doesNotMatch(code, /(^|[;}\s])(import\s*[\w{*]|export\s*[{*])|import\(/, `${file} is CommonJS (VS Code 1.100 loads only CommonJS, and import() would bypass its vscode loader)`);
      assert.doesNotMatch(code, /__toESM\)?\(require\("vscode"\)/, `${file} reads vscode without copying the API object`);
    }
  });

  it('activation loads no feature engine: each loads at its first use (issue 26, activation < 20 ms)', () => {
    const atActivation = new Set([...loads(meta, 'extension.js', true)].flatMap((file) => Object.keys(meta.outputs[file]?.inputs ?? {})));
    const atFirstUse = new Set([...loads(meta, 'extension.js', false)].flatMap((file) => Object.keys(meta.outputs[file]?.inputs ?? {})));
    const lazy = [
      'src/api/client.ts', // the HTTP stack
      'src/chat/core/chatEngine.ts', // the chat: engine, store, panel session, commands
      'src/chat/core/conversationStore.ts',
      'src/chat/panel/chatSession.ts',
      'src/chat/vscode/commands.ts',
      'src/nativeChat/vscode/modelProvider.ts', // VS Code's Chat: models, @ksm, tools
      'src/nativeChat/vscode/participantAdapter.ts',
      'src/nativeChat/vscode/volumeToolsAdapter.ts',
      'src/volumes/core/retrieval.ts',
      'src/sync/vscode/syncRunner.ts', // folder sync
      'src/sync/core/plan.ts',
      'src/upload/vscode/uploadFlow.ts', // upload
      'src/volumes/vscode/commands.ts', // the Volumes view's commands
      'node_modules/picomatch/lib/picomatch.js',
      'node_modules/ignore/index.js',
      'node_modules/jsonc-parser/lib/esm/main.js',
    ];
    assert.deepEqual(
      lazy.filter((input) => atActivation.has(input)),
      [],
      'loaded at activation',
    );
    assert.deepEqual(
      lazy.filter((input) => !atFirstUse.has(input)),
      [],
      'still part of the extension, through import()',
    );
  });

  it('the command line never loads vscode, not even at first use', () => {
    const reached = [...loads(meta, 'cli.js', false)];
    const withVscode = reached.filter((file) => meta.outputs[file]?.imports.some((i) => i.path === 'vscode'));
    assert.deepEqual(withVscode, []);
    const adapters = reached.flatMap((file) => sourcesOf(meta, file)).filter((src) => /\/vscode\/|Feature\.ts$|^src\/extension\.ts$/.test(src));
    assert.deepEqual(adapters, []);
  });
});
