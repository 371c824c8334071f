// The bundle layout of esbuild.mjs: the extension (dist/extension.js) and the `ksm` command
// line (dist/cli.js, with `ksm mcp`) are one split build, so no source module is in two
// output files: what both use is shared, not copied. Read from esbuild's own metafile (the
// source modules each output holds) of a production build into a temporary folder.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { STAND_IN_CONTEXT_JS, vscodeStandInSource } from '../support/vscodeStandIn';

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

/** What extension.js may weigh (it is read and compiled before activate() runs; issue 26, activation < 20 ms). */
const ACTIVATION_BYTES_BUDGET = 96 * 1024;

/**
 * In a fresh Node: requires dist/extension.js with the stand-in `vscode`, calls activate(),
 * then requires `later` (files of dist/, as the features' first use would). Returns the files
 * of dist/ that were compiled, in order, the Node built-ins loaded by extension.js and
 * activate(), and whether each of `embedded` required afterwards is the module extension.js
 * registered (`require.cache`, not read again).
 */
function runExtension(dist: string, later: string[], embedded: string[] = []): { compiled: Array<{ name: string; bytes: number }>; builtins: string[]; sameInstances: boolean } {
  const script = `
const Module = require('module');
const { join, basename } = require('path');
const { statSync } = require('fs');
const dist = process.argv[1];
const stub = join(process.argv[2], 'vscode-stub.js');
require('fs').writeFileSync(stub, ${JSON.stringify(vscodeStandInSource(join(__dirname, '../..')))});
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? stub : resolveFilename.call(this, request, ...rest); };
const compile = Module.prototype._compile;
const compiled = [];
Module.prototype._compile = function (content, filename) {
  if (filename.startsWith(dist)) compiled.push({ name: basename(filename), bytes: statSync(filename).size });
  return compile.apply(this, arguments);
};
const builtins = [];
const load = Module._load;
let counting = false;
Module._load = function (request, parent, isMain) {
  const name = request.replace(/^node:/, '');
  if (counting && Module.isBuiltin(request) && !builtins.includes(name)) builtins.push(name);
  return load.apply(this, arguments);
};
counting = true;
const vscode = require(stub);
const extension = require(join(dist, 'extension.js'));
extension.activate(${STAND_IN_CONTEXT_JS});
counting = false;
const cached = Object.fromEntries(${JSON.stringify(embedded)}.map((file) => [file, require.cache[join(dist, file)]?.exports]));
for (const file of ${JSON.stringify(later)}) require(join(dist, file));
const sameInstances = ${JSON.stringify(embedded)}.every((file) => cached[file] !== undefined && require(join(dist, file)) === cached[file]);
process.stdout.write(JSON.stringify({ compiled, builtins, sameInstances }));
`;
  const out = execFileSync(process.execPath, ['-e', script, dist, dirname(dist)], { encoding: 'utf8' });
  return JSON.parse(out) as { compiled: Array<{ name: string; bytes: number }>; builtins: string[]; sameInstances: boolean };
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
      'src/common/core/gitignore.ts', // .gitignore rules
      'node_modules/jsonc-parser/lib/esm/main.js',
      'src/nativeChat/vscode/mcpServerProvider.ts', // the MCP server's definition, the launcher (node:crypto, node:child_process)
      'src/nativeChat/core/launcherInstall.ts',
      'src/common/core/parameterText.ts', // the chat parameters' words: only when VS Code's Chat refuses a model option
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

  it('activation reads and compiles one file, under a byte budget, and loads no Node module beyond path, module and fs', () => {
    const { compiled, builtins } = runExtension(join(work, 'dist'), []);
    assert.deepEqual(
      compiled.map((file) => file.name),
      ['extension.js'],
      'the chunks activation needs are embedded in extension.js (esbuild.mjs, embedActivationChunks)',
    );
    // 68 KiB when this was written; every KiB of it is compiled before activate() runs.
    assert.ok(compiled[0].bytes < ACTIVATION_BYTES_BUDGET, `extension.js is ${compiled[0].bytes} bytes, over the ${ACTIVATION_BYTES_BUDGET} budget`);
    // path and module: extension.js registering its embedded chunks; fs and fs/promises: @vscode/l10n's bundle reader.
    // node:crypto and node:child_process (with net and stream) once cost the benchmark ~5 ms here.
    assert.deepEqual(
      builtins.filter((name) => !['path', 'module', 'fs', 'fs/promises'].includes(name)),
      [],
      'Node modules loaded by activation (VS Code has them loaded, but they cost a fresh process, and they come with heavier code of ours)',
    );
  });

  it('a file loaded later gets the embedded chunks, not second copies of them', () => {
    const activationChunks = [...loads(meta, 'extension.js', true)].filter((file) => file !== 'extension.js');
    assert.ok(activationChunks.length > 0, 'there are chunks to embed (else this test checks nothing)');
    // Every file the extension loads lazily, loaded after activation as the features would.
    const lazyFiles = [...loads(meta, 'extension.js', false)].filter((file) => file !== 'extension.js' && !activationChunks.includes(file));
    const { compiled, sameInstances } = runExtension(join(work, 'dist'), [...activationChunks, ...lazyFiles], activationChunks);
    const compiledNames = compiled.map((file) => file.name);
    assert.deepEqual(
      activationChunks.filter((file) => compiledNames.includes(file)),
      [],
      'compiled a second time',
    );
    assert.ok(
      lazyFiles.every((file) => compiledNames.includes(file)),
      'the lazy files themselves are read from disk',
    );
    assert.equal(sameInstances, true, 'require() of an embedded chunk returns the instance extension.js uses');
  });

  it('the command line never loads vscode, not even at first use', () => {
    const reached = [...loads(meta, 'cli.js', false)];
    const withVscode = reached.filter((file) => meta.outputs[file]?.imports.some((i) => i.path === 'vscode'));
    assert.deepEqual(withVscode, []);
    const adapters = reached.flatMap((file) => sourcesOf(meta, file)).filter((src) => /\/vscode\/|Feature\.ts$|^src\/extension\.ts$/.test(src));
    assert.deepEqual(adapters, []);
  });
});
