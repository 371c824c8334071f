// Issue 26, "a citation leads to the code": a cited volume file back to the workspace file
// it was synced from (through the sync manifest, read by src/sync/core's own parser), and
// the cited passage found in it by text. Hostile manifests never lead outside the folder.
import { strict as assert } from 'node:assert';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPassage, insideFolder, workspaceFileFor, type SyncedFolder } from '../../src/sync/core/citedSource';
import { FileManifestStore, parseManifest } from '../../src/sync/core/manifest';
import { applySync } from '../../src/sync/core/apply';
import { planSync } from '../../src/sync/core/plan';
import { ask } from '../../src/chat/core/answerStream';
import type { SourceCitation } from '../../src/chat/core/answerStream';
import { freshVolume, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';

const SHA = 'a'.repeat(64);
function folder(root: string, volume: string, files: Record<string, { uuid: string; remoteName: string }>): SyncedFolder {
  const text = JSON.stringify({ version: 1, volume, pendingDeletes: [], files: Object.fromEntries(Object.entries(files).map(([rel, e]) => [rel, { sha256: SHA, size: 1, mtimeMs: 1, ...e }])) });
  const loaded = parseManifest(text, volume);
  assert.equal(loaded.state, 'ok');
  return { root, manifest: (loaded as Extract<typeof loaded, { state: 'ok' }>).manifest };
}

describe('sync: a cited file back to the workspace file and passage', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'ksm-cited-'));
    mkdirSync(join(root, 'ws', 'docs'), { recursive: true });
    writeFileSync(join(root, 'ws', 'docs', 'guide.md'), '# Guide\n\nIntro line.\n\nThe release checklist: tag the commit,\nbuild the VSIX, publish the notes.\n\nEnd.\n');
    writeFileSync(join(root, 'secret.txt'), 'outside');
    symlinkSync(join(root, 'secret.txt'), join(root, 'ws', 'docs', 'link.md'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('finds the file by id, else by its remote name in the same volume when only one has it', () => {
    const ws = join(root, 'ws');
    const folders = [folder(ws, 'team', { 'docs/guide.md': { uuid: 'u1', remoteName: 'docs__guide.md' } }), folder(ws, 'other', { 'docs/guide.md': { uuid: 'u9', remoteName: 'docs__guide.md' } })];
    assert.deepEqual(workspaceFileFor(folders, { volume: 'team', fileId: 'u1', filename: 'docs__guide.md' }), { path: join(ws, 'docs', 'guide.md'), root: ws, relativePath: 'docs/guide.md' });
    assert.equal(workspaceFileFor(folders, { volume: 'team', fileId: 'u-new', filename: 'docs__guide.md' })?.relativePath, 'docs/guide.md', 're-uploaded since the sync: same name');
    assert.equal(workspaceFileFor(folders, { volume: 'team', fileId: 'u-new', filename: 'other.md' }), undefined);
    assert.equal(workspaceFileFor(folders, { fileId: 'u-new', filename: 'docs__guide.md' }), undefined, 'without a volume, a name alone is ambiguous');
    assert.equal(workspaceFileFor(folders, { volume: 'elsewhere', fileId: 'u1', filename: 'docs__guide.md' }), undefined, 'another volume’s copy is not this file');
    const twice = [folder(ws, 'team', { 'a.md': { uuid: 'x1', remoteName: 'same.md' }, 'b.md': { uuid: 'x2', remoteName: 'same.md' } })];
    assert.equal(workspaceFileFor(twice, { volume: 'team', fileId: 'zz', filename: 'same.md' }), undefined, 'two entries with the name: no guess');
  });

  it('never leads outside the folder: absolute paths, "..", empty parts, drive letters, a symlink out', async () => {
    const ws = join(root, 'ws');
    for (const rel of ['../secret.txt', '/etc/passwd', 'docs/../../secret.txt', 'docs//guide.md', 'C:/Windows/win.ini', '']) {
      const folders = [folder(ws, 'team', { [rel]: { uuid: 'evil', remoteName: 'evil.md' } })];
      assert.equal(workspaceFileFor(folders, { volume: 'team', fileId: 'evil', filename: 'evil.md' }), undefined, rel);
    }
    const link = workspaceFileFor([folder(ws, 'team', { 'docs/link.md': { uuid: 'l', remoteName: 'link.md' } })], { volume: 'team', fileId: 'l', filename: 'link.md' });
    assert.ok(link);
    assert.equal(await insideFolder(ws, link.path), false, 'a symlink leading out is refused on disk');
    assert.equal(await insideFolder(ws, join(ws, 'docs', 'guide.md')), true);
    assert.equal(await insideFolder(ws, join(ws, 'docs', 'gone.md')), false, 'a file deleted since the sync: the volume copy is the fallback');
  });

  it('finds the passage by text, whitespace aside, or by its longest line when the file changed', () => {
    const text = '# Guide\n\nIntro line.\n\nThe release checklist: tag the commit,\nbuild the VSIX, publish the notes.\n\nEnd.\n';
    assert.deepEqual(findPassage(text, 'The release checklist: tag the commit, build the VSIX, publish the notes.'), { startLine: 4, endLine: 5 });
    assert.deepEqual(findPassage(text, 'Some text rewritten since.\nbuild the VSIX, publish the notes.'), { startLine: 5, endLine: 5 });
    const platform = '# Platform team\n\nThe platform team owns the deploy pipeline.\n';
    assert.deepEqual(findPassage(platform, 'Platform team The platform team owns the deploy pipeline.'), { startLine: 0, endLine: 2 }, 'a heading quoted without its # and joined to the sentence');
    assert.deepEqual(
      findPassage(platform, 'Platform Team: The platform team owns the deploy pipeline.'),
      { startLine: 2, endLine: 2 },
      'a heading changed since: the sentence without its leading words',
    );
    assert.equal(findPassage(text, 'Nothing of this is in the file any more.'), undefined);
    assert.equal(findPassage(text, ''), undefined);
    assert.equal(findPassage(text, undefined), undefined);
    assert.deepEqual(findPassage('a (b) [c] * d', '(b) [c] *'), { startLine: 0, endLine: 0 }, 'regex characters in the snippet are text');
  });

  it('a hostile snippet: a hundred thousand lines, or a near match at every word of a large file, is read in linear time', () => {
    // The snippet's words joined by `\\s+` into a regex overflowed the stack past a few
    // thousand words, and every line of the snippet was then tried against the whole file.
    const file = `${'aaaa '.repeat(100_000)}\nThe longest line of the cited passage is this one, kept.\n`;
    const lines = Array.from({ length: 100_000 }, (_, i) => `aaaa aaaa aaaa aaaa ${i} bbbb`);
    lines.push('The longest line of the cited passage is this one, kept.');
    assert.deepEqual(findPassage(file, lines.join('\n')), { startLine: 1, endLine: 1 });
    assert.equal(findPassage(file, `${'aaaa '.repeat(3000)}bbbb`), undefined);
    assert.deepEqual(findPassage(file, `${'aaaa\n'.repeat(3000)}aaaa`), { startLine: 0, endLine: 0 });
  });

  describe('over HTTP: a real sync, a real agent answer', function () {
    let fx: EmulatorFixture;
    before(async () => {
      fx = await startFixture(5);
    });
    after(async () => fx.close());

    it("the agent's citation of a synced file leads to the workspace file and the cited lines", async () => {
      const folder = join(fx.workDir, 'synced');
      const volume = freshVolume('cited');
      await writeTree(folder, {
        'docs/lighthouse.md': '# Lighthouse\n\nIntro.\n\nThe keeper polishes the brass lens every Friday\nand logs each storm warning in the harbour ledger.\n',
        'notes/other.md': '# Other\n\nA garden party.\n',
      });
      const store = new FileManifestStore(join(fx.workDir, 'cited.manifest.json'));
      const plan = await planSync({ folder, volume, service: fx.client, store, rules: { excludeGlobs: [], maxFileSizeBytes: 0 }, deleteRemoved: false });
      await applySync(plan, { service: fx.client, store, embedding: 'emu-embed', doChunking: 1 });
      await fx.emulator.waitForIdle();
      const loaded = await store.load(volume);
      assert.equal(loaded.state, 'ok');
      const synced: SyncedFolder = { root: folder, manifest: (loaded as Extract<typeof loaded, { state: 'ok' }>).manifest };

      const citations: SourceCitation[] = [];
      const request = { kind: 'agent' as const, body: { agent_id: 'rag-agent', thread_id: null, query: 'When is the brass lens polished?', context: { model: 'emu-chat', volumes: [volume] } } };
      for await (const event of ask(fx.client, request, new AbortController().signal)) if (event.type === 'citations') citations.push(...event.citations);
      const cited = citations.find((c) => c.filename === 'docs__lighthouse.md');
      assert.ok(cited, `the agent cited the synced file; got ${citations.map((c) => c.filename).join(', ')}`);
      const match = workspaceFileFor([synced], cited);
      assert.equal(match?.path, join(folder, 'docs', 'lighthouse.md'));
      assert.equal(await insideFolder(folder, match.path), true);
      const range = findPassage(readFileSync(match.path, 'utf8'), cited.snippet);
      assert.ok(range, `the passage is found in the workspace file: ${cited.snippet}`);
      assert.ok(range.startLine <= 4 && range.endLine >= 4, `the cited lines include the brass lens line: ${JSON.stringify(range)}`);
    });
  });
});
