// The layer rules of eslint.config.mjs must keep reporting what they exist to catch: each
// snippet is linted as if it lived at the given path (the file need not exist), so a rule
// that stops resolving imports or loses a zone fails here, not silently in review.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: process.cwd() });

/**
 * Folders created for probes in layers that have no files yet (src/cli, src/sync/…): the
 * import resolver resolves from the linted file's folder, and an import it cannot resolve
 * is not checked, so the folder must exist. Only folders made here are removed.
 */
const madeFolders: string[] = [];

function ensureFolder(dir: string): void {
  if (existsSync(dir)) return;
  ensureFolder(dirname(dir));
  mkdirSync(dir);
  madeFolders.unshift(dir); // deepest first, so they are removed in order
}

async function ruleHits(filePath: string, code: string): Promise<string[]> {
  ensureFolder(dirname(filePath));
  const [result] = await eslint.lintText(code, { filePath });
  assert.ok(result, `no lint result for ${filePath}`);
  return result.messages.map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

async function assertReported(filePath: string, code: string, rule: string): Promise<void> {
  const hits = await ruleHits(filePath, code);
  assert.ok(
    hits.some((h) => h.startsWith(`${rule}:`)),
    `${filePath}: expected ${rule}, got ${JSON.stringify(hits)}`,
  );
}

async function assertClean(filePath: string, code: string): Promise<void> {
  assert.deepEqual(await ruleHits(filePath, code), [], filePath);
}

const useVscode = "import * as vscode from 'vscode';\nexport const probe = vscode;\n";
const use = (spec: string) => `import * as m from '${spec}';\nexport const probe = m;\n`;

describe('architecture: lint enforces the layers', function () {
  this.timeout(60_000);
  after(() => {
    for (const folder of madeFolders.splice(0)) rmdirSync(folder); // empty: only the probes' folders
  });

  it('refuses vscode in every vscode-free layer, including folders other helpers are adding', async () => {
    for (const file of [
      'src/volumes/core/probe.ts',
      'src/chat/core/probe.ts',
      'src/chat/panel/probe.ts',
      'src/common/core/probe.ts',
      'src/api/probe.ts',
      'src/cli/probe.ts',
      'src/mcp/probe.ts',
      'src/sync/core/probe.ts',
      'src/nativeChat/core/probe.ts',
      'src/connection/core/probe.ts',
      'src/webview/probe.ts',
      'src/chat/protocol.ts',
    ]) {
      await assertReported(file, useVscode, 'no-restricted-imports');
    }
    await assertClean('src/volumes/vscode/probe.ts', useVscode);
  });

  it("refuses a feature reaching into another feature's internals, and allows its public surface", async () => {
    await assertReported('src/upload/vscode/probe.ts', use('../../volumes/vscode/volumesTree'), 'import/no-restricted-paths');
    await assertReported('src/upload/core/probe.ts', use('../../volumes/core/volumeListing'), 'import/no-restricted-paths');
    await assertReported('src/sync/vscode/probe.ts', use('../../volumes/core/volumeListing'), 'import/no-restricted-paths');
    await assertReported('src/extension.ts', use('./chat/vscode/commands'), 'import/no-restricted-paths');
    await assertClean('src/upload/vscode/probe.ts', use('../../volumes/volumesFeature'));
    await assertClean('src/upload/core/probe.ts', use('../../common/core/volumeTargets'));
  });

  it('keeps cores off adapters, src/api and src/common off features, and the CLI on api + cores', async () => {
    await assertReported('src/chat/core/probe.ts', use('../vscode/commands'), 'import/no-restricted-paths');
    await assertReported('src/chat/core/probe.ts', use('../../common/vscode/log'), 'import/no-restricted-paths');
    await assertReported('src/common/core/probe.ts', use('../vscode/settings'), 'import/no-restricted-paths');
    await assertReported('src/api/probe.ts', use('../common/core/volumeTargets'), 'import/no-restricted-paths');
    await assertReported('src/common/vscode/probe.ts', use('../../volumes/volumesFeature'), 'import/no-restricted-paths');
    await assertReported('src/cli/probe.ts', use('../volumes/volumesFeature'), 'import/no-restricted-paths');
    await assertReported('src/cli/probe.ts', use('../common/vscode/log'), 'import/no-restricted-paths');
    await assertClean('src/cli/probe.ts', use('../upload/core/uploadRun'));
  });

  it("keeps the MCP server a thin front end: api, common/core and cores; never adapters, features' surfaces or the CLI", async () => {
    await assertClean('src/mcp/probe.ts', use('../volumes/core/retrieval'));
    await assertClean('src/mcp/probe.ts', use('../common/core/volumeTargets'));
    await assertReported('src/mcp/probe.ts', use('../volumes/volumesFeature'), 'import/no-restricted-paths');
    await assertReported('src/mcp/probe.ts', use('../common/vscode/log'), 'import/no-restricted-paths');
    await assertReported('src/mcp/probe.ts', use('../cli/environment'), 'import/no-restricted-paths');
    await assertReported('src/mcp/probe.ts', use('../nativeChat/vscode/volumeToolsAdapter'), 'import/no-restricted-paths');
    await assertClean('src/mcp/probe.ts', use('../nativeChat/core/volumeTools'));
    await assertReported('src/mcp/probe.ts', useVscode, 'no-restricted-imports');
    // The retrieval engine is the volumes feature's public core: other features' cores use it, not its other files.
    await assertClean('src/nativeChat/core/probe.ts', use('../../volumes/core/retrieval'));
    await assertReported('src/nativeChat/core/probe.ts', use('../../volumes/core/volumeListing'), 'import/no-restricted-paths');
  });

  it('covers every top-level folder of src/ with a zone, and refuses to lint while one is not', async () => {
    const config = (await import('../../eslint.config.mjs' as string)) as { foldersWithoutZone(names: string[]): string[] };
    const folders = readdirSync('src', { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    assert.deepEqual(config.foldersWithoutZone([...folders, 'mcp']), [], 'every folder of src/ (and src/mcp) has a zone');
    assert.deepEqual(config.foldersWithoutZone(['api', 'reports', 'volumes']), ['reports'], 'a new folder is named');
    const probe = 'src/zoneProbeFolder';
    mkdirSync(probe);
    try {
      const result = spawnSync(process.execPath, ['node_modules/eslint/bin/eslint.js', 'src/extension.ts'], { encoding: 'utf8' });
      assert.notEqual(result.status, 0, 'lint fails');
      assert.match(result.stdout + result.stderr, /src\/zoneProbeFolder has no lint zone/);
    } finally {
      rmdirSync(probe);
    }
  });

  it('keeps the chat engine free of the panel: chat/core never sees the protocol or chat/panel; chat/panel maps the two', async () => {
    await assertReported('src/chat/core/probe.ts', use('../protocol'), 'import/no-restricted-paths');
    await assertReported('src/chat/core/probe.ts', use('../panel/chatSession'), 'import/no-restricted-paths');
    await assertReported('src/chat/panel/probe.ts', use('../vscode/commands'), 'import/no-restricted-paths');
    await assertReported('src/chat/panel/probe.ts', use('../../common/vscode/log'), 'import/no-restricted-paths');
    await assertClean('src/chat/panel/probe.ts', use('../protocol'));
    await assertClean('src/chat/panel/probe.ts', use('../core/chatEngine'));
  });

  it("lets other features use the chat engine's public entry point (ask and its events), nothing else of chat/core", async () => {
    await assertClean('src/nativeChat/core/probe.ts', use('../../chat/core/answerStream'));
    await assertClean('src/nativeChat/vscode/probe.ts', use('../../chat/core/answerStream'));
    await assertReported('src/nativeChat/core/probe.ts', use('../../chat/core/chatEngine'), 'import/no-restricted-paths');
    await assertReported('src/nativeChat/core/probe.ts', use('../../chat/panel/chatSession'), 'import/no-restricted-paths');
    await assertReported('src/nativeChat/vscode/probe.ts', use('../../chat/protocol'), 'import/no-restricted-paths');
    await assertClean('src/cli/probe.ts', use('../chat/core/answerStream'));
    await assertReported('src/cli/probe.ts', use('../chat/panel/chatSession'), 'import/no-restricted-paths');
  });

  it('lets the webview import only the chat protocol from the host, and no Node module', async () => {
    await assertReported('src/webview/probe.ts', use('../common/vscode/log'), 'import/no-restricted-paths');
    await assertReported('src/webview/probe.ts', use('../chat/core/conversationModel'), 'import/no-restricted-paths');
    await assertReported('src/webview/probe.ts', use('node:fs'), 'no-restricted-imports');
    await assertReported('src/chat/protocol.ts', use('path'), 'no-restricted-imports');
    await assertReported('src/chat/protocol.ts', use('./core/conversationModel'), 'import/no-restricted-paths');
    await assertClean('src/webview/probe.ts', use('../chat/protocol'));
  });

  it('lets the webview read the chat parameter limits from src/api, and nothing else there; that file imports nothing', async () => {
    await assertClean('src/webview/probe.ts', use('../api/chatParameterLimits'));
    await assertReported('src/webview/probe.ts', use('../api/validate'), 'import/no-restricted-paths');
    await assertReported('src/api/chatParameterLimits.ts', use('./errors'), 'no-restricted-syntax');
    await assertReported('src/api/chatParameterLimits.ts', use('picomatch'), 'no-restricted-syntax');
    await assertReported('src/api/chatParameterLimits.ts', "export * from './errors';\n", 'no-restricted-syntax');
    await assertReported('src/api/chatParameterLimits.ts', use('node:path'), 'no-restricted-imports');
    await assertReported('src/chat/protocol.ts', use('picomatch'), 'no-restricted-syntax');
  });

  it("lets both bundles share the parameters' words (src/common/core/parameterText.ts): it imports @vscode/l10n and the parameter table only, and the webview reaches nothing else of src/common", async () => {
    const shared = 'src/common/core/parameterText.ts';
    const config = (await import('../../eslint.config.mjs' as string)) as { SHARED_WORDING: string };
    assert.equal(config.SHARED_WORDING, shared, 'the one shared wording file');
    await assertClean(shared, use('@vscode/l10n'));
    await assertClean(shared, use('../../api/chatParameterLimits'));
    // Anything else, even a neighbour in src/common/core or another @vscode package, would reach the webview through it.
    await assertReported(shared, use('./volumeTargets'), 'import/no-restricted-paths');
    await assertReported(shared, use('./volumeTargets'), 'no-restricted-syntax');
    await assertReported(shared, use('../../api/validate'), 'import/no-restricted-paths');
    await assertReported(shared, use('picomatch'), 'no-restricted-syntax');
    await assertReported(shared, use('@vscode/l10n-dev'), 'no-restricted-syntax');
    await assertReported(shared, "import type { Usage } from '../../api/types';\nexport type Probe = Usage;\n", 'import/no-restricted-paths');
    await assertReported(shared, "export * from '../../api/chatParameterLimits';\n", 'no-restricted-syntax');
    await assertReported(shared, "export const probe = () => import('@vscode/l10n');\n", 'no-restricted-syntax');
    await assertReported(shared, use('node:path'), 'no-restricted-imports');
    await assertReported(shared, useVscode, 'no-restricted-imports');
    // The webview may import that one file of src/common, no other.
    await assertClean('src/webview/probe.ts', use('../common/core/parameterText'));
    await assertReported('src/webview/probe.ts', use('../common/core/volumeTargets'), 'import/no-restricted-paths');
    await assertReported('src/webview/probe.ts', use('../common/core/chatText'), 'import/no-restricted-paths');
    // The rest of src/common/core keeps its own zone (src/api and src/common), not the shared file's.
    await assertClean('src/common/core/probe.ts', use('./volumeTargets'));
  });

  it("lets the protocol derive its types from the engine's type-only declaration, and import nothing else", async () => {
    const useType = (spec: string) => `import type { Turn } from '${spec}';\nexport type Probe = Turn;\n`;
    await assertClean('src/chat/protocol.ts', useType('./core/conversationTypes'));
    // A value import would put host code in the webview bundle.
    await assertReported('src/chat/protocol.ts', use('./core/conversationTypes'), 'no-restricted-syntax');
    await assertReported('src/chat/protocol.ts', useType('./core/conversationModel'), 'import/no-restricted-paths');
    await assertReported('src/chat/protocol.ts', "export * from './core/conversationTypes';\n", 'no-restricted-syntax');
    await assertClean('src/chat/core/conversationTypes.ts', "import type { ReasoningEffort } from '../../api/chatParameterLimits';\nexport type Probe = ReasoningEffort;\n");
    await assertReported('src/chat/core/conversationTypes.ts', useType('./conversationModel'), 'import/no-restricted-paths');
    await assertReported('src/chat/core/conversationTypes.ts', "import type { Usage } from '../../api/types';\nexport type Probe = Usage;\n", 'import/no-restricted-paths');
    await assertReported('src/chat/core/conversationTypes.ts', use('node:crypto'), 'no-restricted-imports');
  });

  it('refuses files that import each other at run time (a loop loads one of them half-made); a type-only loop is allowed', async () => {
    // The rule judges the files on disk (the loop must be there, not only in the linted text),
    // so two probe files are written and removed.
    const probe = (side: string) => `src/common/core/cycleProbe${process.pid}${side}.ts`;
    const [a, b] = [probe('A'), probe('B')];
    const importsA = (kind: string) => `import ${kind}{ a } from './${basename(a, '.ts')}';\nexport const b = (): unknown => ${kind ? 'undefined as unknown as typeof a' : 'a'};\n`;
    try {
      writeFileSync(a, `import { b } from './${basename(b, '.ts')}';\nexport const a = (): unknown => b;\n`);
      writeFileSync(b, importsA(''));
      await assertReported(b, importsA(''), 'import/no-cycle');
      writeFileSync(b, importsA('type '));
      await assertClean(b, importsA('type '));
    } finally {
      rmSync(a, { force: true });
      rmSync(b, { force: true });
    }
  });
});
